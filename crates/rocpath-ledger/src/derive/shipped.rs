//! Rules over shipped code: what an inventory finds for each processor, which
//! instruction classes the decoded kernels for a processor use (`isa`), and whether each
//! library has code the device loads (`check`).

use super::digest::{Doc, ObsDigest};
use super::text::num;
use super::{Finding, record_support, rule};
use crate::model::*;
use crate::schemas::processor_of;
use rocpath_evidence::{Class, Proof};
use std::collections::{BTreeMap, BTreeSet};

fn shipped(rule: &'static str, key: String, statement: Text, world: String, obs: &str) -> Finding {
    Finding {
        rule,
        key,
        statement,
        class: Class::Confirmed,
        kind: Proof::ShippedArtifactVerified,
        world,
        floor: Some(Floor::MathLibrary),
        layer: Some(Layer::Build),
        selection: None,
        agree: 0,
        of: 0,
        exceptions: Vec::new(),
        support: vec![record_support(obs, "", Text::default())],
        cases: Vec::new(),
    }
}

fn inventory(o: &ObsDigest, coverage: &super::digest::Coverage) -> Vec<Finding> {
    #[derive(Default)]
    struct P {
        objects: u64,
        kernels: u64,
        libs: BTreeSet<String>,
    }
    let mut per: BTreeMap<String, P> = BTreeMap::new();
    for (lib, row) in coverage {
        for (target, cell) in row {
            let p = per.entry(processor_of(target)).or_default();
            p.objects += cell.code_objects;
            p.kernels += cell.kernels;
            if cell.code_objects > 0 {
                p.libs.insert(lib.clone());
            }
        }
    }
    per.into_iter()
        .map(|(proc_, p)| {
            let libs: Vec<&str> = p.libs.iter().map(String::as_str).take(6).collect();
            let more = p.libs.len().saturating_sub(libs.len());
            let more = if more > 0 {
                format!(" +{more}")
            } else {
                String::new()
            };
            shipped(
                rule::INVENTORY_SHIPPED,
                format!("{}|{proc_}", o.id),
                Text::new(
                    format!(
                        "{}: {proc_} 向けのコードオブジェクト {} 個(カーネル {} 個)を {} 個のライブラリが同梱({}{more})。",
                        o.id,
                        num(p.objects),
                        num(p.kernels),
                        p.libs.len(),
                        libs.join("、")
                    ),
                    format!(
                        "{}: {} code objects ({} kernels) for {proc_} shipped in {} libraries ({}{more}).",
                        o.id,
                        num(p.objects),
                        num(p.kernels),
                        p.libs.len(),
                        libs.join(", ")
                    ),
                ),
                proc_,
                &o.id,
            )
        })
        .collect()
}

fn isa(o: &ObsDigest, d: &super::digest::IsaTotals) -> Vec<Finding> {
    d.per
        .iter()
        .filter(|(_, s)| s.kernels > 0)
        .map(|(proc_, s)| {
            let (kernels, instr) = (s.kernels, s.instructions);
            let g = |k: &str| s.groups.get(k).copied().unwrap_or(0);
            let (mfma, wmma, dot, packed) = (g("mfma"), g("wmma"), g("dot"), g("packed"));
            shipped(
                rule::ISA_INSTRUCTIONS,
                format!("{}|{proc_}", o.id),
                Text::new(
                    format!(
                        "{}: {proc_} 向けカーネル {} 個の命令 {} 個のうち MFMA {}、WMMA {}、dot {}、packed {}。",
                        o.id,
                        num(kernels),
                        num(instr),
                        num(mfma),
                        num(wmma),
                        num(dot),
                        num(packed)
                    ),
                    format!(
                        "{}: of the {} instructions of {} kernels for {proc_}, {} are MFMA, {} WMMA, {} dot and {} packed.",
                        o.id,
                        num(instr),
                        num(kernels),
                        num(mfma),
                        num(wmma),
                        num(dot),
                        num(packed)
                    ),
                ),
                proc_.clone(),
                &o.id,
            )
        })
        .collect()
}

/// A library as a statement names it: the last part of its path, with what it is
/// (`library (Tensile kernels)`), never the folder of the machine that checked it.
fn short_library(lib: &str) -> String {
    let (path, what) = match lib.find(" (") {
        Some(i) => lib.split_at(i),
        None => (lib, ""),
    };
    let path = path.trim_end_matches(['/', '\\']);
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    format!("{name}{what}")
}

/// A check verdict in words (`runs`, `no_code`, `depends`); a Tensile folder or a find-db
/// without files for the device has nothing for it rather than no code.
fn verdict_words(v: &str, kind: &str) -> Text {
    match (v, kind) {
        ("runs", _) => Text::new("動く", "runs"),
        ("no_code", "code_objects" | "") => {
            Text::new("デバイス向けのコードがない", "has no code for the device")
        }
        ("no_code", _) => Text::new("デバイス向けのファイルがない", "has nothing for the device"),
        ("untuned", _) => Text::new(
            "デバイス向けのチューニングデータがない（ヒューリスティックで動く）",
            "has no tuning data for the device (MIOpen runs on its heuristics)",
        ),
        ("depends", _) => Text::new(
            "デバイスの xnack/sramecc 設定次第",
            "depends on the device's xnack/sramecc setting",
        ),
        (other, _) => Text::new(other, other),
    }
}

/// What a library's objects are, by the check's kind.
fn unit(kind: &str) -> Text {
    match kind {
        "tensile" => Text::new("Tensile ファイル", "Tensile files"),
        "miopen_db" => Text::new("find-db ファイル", "find-db files"),
        _ => Text::new("コードオブジェクト", "code objects"),
    }
}

/// One finding per device and library of a check: the verdict with the check's class.
fn check(o: &ObsDigest, d: &rocpath_docs::check::CheckDoc) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, dev) in d.devices.iter().enumerate() {
        let target = dev.device.target.to_string();
        let world = if target.is_empty() {
            o.world.clone()
        } else {
            processor_of(&target)
        };
        for (j, l) in dev.libraries.iter().enumerate() {
            let verdict = l.verdict.as_str();
            let (name, v, u) = (
                short_library(l.library.as_str()),
                verdict_words(verdict, l.kind.as_str()),
                unit(l.kind.as_str()),
            );
            let ov = l
                .with_override
                .as_ref()
                .map(|w| verdict_words(w.verdict.as_str(), l.kind.as_str()));
            let (ov_ja, ov_en) = ov.map_or((String::new(), String::new()), |w| {
                (
                    format!("オーバーライドでは{}。", w.ja),
                    format!(" With the override it {}.", w.en),
                )
            });
            let mut f = shipped(
                rule::CHECK_VERDICT,
                format!("{}|{target}|{}", o.id, l.library.as_str()),
                Text::new(
                    format!(
                        "{target} で {name} は{}({} 個中 {} 個の{}がデバイスに合う)。{ov_ja}",
                        v.ja,
                        num(l.total as u64),
                        num(l.compatible as u64),
                        u.ja
                    ),
                    format!(
                        "On {target}, {name} {} ({} of {} {} fit the device).{ov_en}",
                        v.en,
                        num(l.compatible as u64),
                        num(l.total as u64),
                        u.en
                    ),
                ),
                world.clone(),
                &o.id,
            );
            f.class = l.evidence.class;
            f.kind = l.evidence.kind;
            f.agree = l.compatible as u64;
            f.of = l.total as u64;
            f.support = vec![record_support(
                &o.id,
                &format!("/devices/{i}/libraries/{j}"),
                Text::default(),
            )];
            out.push(f);
        }
    }
    out
}

/// The shipped-code rules.
pub fn findings(obs: &[ObsDigest]) -> Vec<Finding> {
    let mut out = Vec::new();
    for o in obs {
        match &o.doc {
            Doc::Inventory(d) => out.extend(inventory(o, d)),
            Doc::Isa(d) => out.extend(isa(o, d)),
            Doc::Check(d) => out.extend(check(o, d)),
            _ => {}
        }
    }
    out
}
