//! Generates a synthetic ledger for the site benchmark: N claims (Japanese and English,
//! every class, world, floor and layer, one to three supports, one or two history entries),
//! N/10 cases each with its own case observation (records with line evidence and quoted raw
//! lines), N/20 questions, and N/100 isa-style observations. Files are written as a
//! researcher's ledger would hold them, through the ledger's own serializers.
//!
//! `cargo run --release -p rocpath-site --example gen_ledger -- DIR N`

use rocpath_evidence::{Class, Locator, Proof};
use rocpath_ledger::files::{observation_to_json, to_toml};
use rocpath_ledger::model::*;
use serde_json::json;
use std::path::Path;

const WORLDS: [&str; 6] = ["gfx900", "gfx906", "gfx90a", "gfx942", "gfx1100", "gfx1201"];
const OUTCOMES: [(&str, Option<&str>); 6] = [
    ("natural", None),
    ("applicability_reject", Some("immediate")),
    ("build_failure", Some("miir")),
    ("build_failure", Some("code_object")),
    ("runtime_abort", Some("assertion")),
    ("fallback_observed", None),
];

fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, bytes)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(n)) = (args.next(), args.next()) else {
        return Err("usage: gen_ledger DIR N_CLAIMS".into());
    };
    let n: usize = n.parse()?;
    let root = Path::new(&dir);
    if root.exists() {
        return Err(format!("{dir} exists").into());
    }
    for d in ["claims", "questions", "cases", "observations"] {
        std::fs::create_dir_all(root.join(d))?;
    }
    let meta = rocpath_ledger::starter_meta(Text::new("ベンチマーク台帳", "Benchmark ledger"));
    write(&root.join("ledger.toml"), to_toml(&meta)?.as_bytes())?;

    let observed = |cmd: &str, schema: &str| json!({"tool": "rocpath", "version": "0.1.0", "command": cmd, "time": "2026-11-20T00:00:00Z", "host": "bench", "schema": schema});
    let n_isa = (n / 100).max(1);
    for i in 0..n_isa {
        let cos: Vec<serde_json::Value> = (0..50)
            .map(|k| {
                let w = WORLDS[k % WORLDS.len()];
                json!({"path": format!("lib/librocblas{i}.so"), "container": format!("hip_fatbin > bundle#{k}"), "target": w, "processor": w,
                       "instructions": 1000 + k, "groups": {"fma": 100 + k, "valu": 500, "vmem": 200, "dot": if k % 3 == 0 { 50 } else { 0 }},
                       "kernels": [{"name": format!("Cijk_Ailk_Bljk_SB_MT{k}x64x8_SN"), "is_kernel": true, "instructions": 1000 + k,
                                    "groups": {"fma": 100 + k, "valu": 500, "vmem": 200}}],
                       "evidence": {"class": "confirmed", "kind": "shipped_artifact_verified", "rule": "isa.decoded_from_shipped_code",
                                    "sources": [{"path": format!("lib/librocblas{i}.so"), "member": format!("hip_fatbin > bundle#{k}"), "offset": k * 4096,
                                                 "sha256": format!("{:064x}", i * 1000 + k)}]}})
            })
            .collect();
        let o = Observation {
            schema: OBSERVATION_SCHEMA.into(),
            id: format!("isa-{i:05}"),
            imported: Imported {
                file: format!("isa-{i}.json"),
                sha256: format!("{i:064x}"),
                base: "..".into(),
                ..Imported::default()
            },
            inputs: vec![Input {
                path: format!("lib/librocblas{i}.so"),
                ..Input::default()
            }],
            quotes: Vec::new(),
            document: json!({"schema": "rocpath.isa/1", "observed": observed("rocpath --json isa lib", "rocpath.isa/1"), "code_objects": cos}),
        };
        write(
            &root.join(format!("observations/{}.json", o.id)),
            &observation_to_json(&o)?,
        )?;
    }

    let n_cases = (n / 10).max(1);
    for i in 0..n_cases {
        let (outcome, sub) = OUTCOMES[i % OUTCOMES.len()];
        let log = format!("runs/case{i:05}.log");
        let ev = |line: u64| json!({"class": "confirmed", "kind": "runtime_verified", "rule": "case.line", "sources": [{"path": log, "line": line}]});
        let forced = if outcome == "natural" || outcome == "fallback_observed" {
            json!(null)
        } else {
            json!({"solver": "ConvMlirIgemmFwd", "via": "-S", "evidence": ev(1)})
        };
        let doc = json!({"schema": "rocpath.case/1", "observed": observed("rocpath --json case read runs", "rocpath.case/1"),
            "cases": [{"name": format!("case{i:05}"), "device": {"arch": "gfx900:xnack-", "evidence": ev(2)}, "forced": forced,
                       "selected": {"solver_id": 14, "solver": "ConvBinWinograd3x3U", "evidence": ev(3)},
                       "outcome": {"kind": outcome, "sub_kind": sub, "evidence": ev(4)}, "exit": {"code": 0, "signal": null, "evidence": ev(5)},
                       "errors": [{"message": "MIIR_INVALID_PARAM", "evidence": ev(4)}]}]});
        let quotes = (1..=5)
            .map(|l| Quote {
                path: log.clone(),
                line: l,
                text: format!(
                    "MIOpen(HIP): Info [SearchForSolutions] line {l} of case {i} <not markup>"
                ),
            })
            .collect();
        let o = Observation {
            schema: OBSERVATION_SCHEMA.into(),
            id: format!("case-{i:05}"),
            imported: Imported {
                file: format!("case{i}.json"),
                sha256: format!("{i:064x}"),
                base: "..".into(),
                ..Imported::default()
            },
            inputs: vec![Input {
                path: log.clone(),
                ..Input::default()
            }],
            quotes,
            document: doc,
        };
        write(
            &root.join(format!("observations/{}.json", o.id)),
            &observation_to_json(&o)?,
        )?;
    }

    let classes = [
        Class::Confirmed,
        Class::Confirmed,
        Class::Inferred,
        Class::Unresolved,
        Class::Limited,
    ];
    let proofs = [
        Proof::ShippedArtifactVerified,
        Proof::RuntimeVerified,
        Proof::CodeVerified,
        Proof::Hypothesis,
        Proof::ShippedArtifactVerified,
    ];
    for i in 0..n {
        let k = i % classes.len();
        let world = WORLDS[i % WORLDS.len()];
        let mut support = vec![if i % 2 == 0 {
            Support {
                observation: Some(format!("isa-{:05}", i % n_isa)),
                record: Some(format!("/code_objects/{}", i % 50)),
                ..Support::default()
            }
        } else {
            Support {
                observation: Some(format!("case-{:05}", i % n_cases)),
                record: Some("/cases/0/selected".into()),
                ..Support::default()
            }
        }];
        if i % 3 == 0 && i > 0 {
            support.push(Support {
                claim: Some(format!("claim-{:06}", i - 1)),
                ..Support::default()
            });
        }
        if i % 7 == 0 {
            support.push(Support {
                source: Some(
                    Locator::file("src/solver/conv_mlir_igemm_fwd.cpp")
                        .with_line(120 + (i % 50) as u64),
                ),
                quote: "    if(ctx.GetStream().GetDeviceName() == \"gfx900\") return false;".into(),
                ..Support::default()
            });
        }
        let mut history = vec![HistoryEntry {
            date: format!("2026-{:02}-{:02}", 1 + i % 12, 1 + i % 28),
            class: Some(Class::Unresolved),
            kind: Some(Proof::Hypothesis),
            note: Text::new("記録", "recorded"),
        }];
        if classes[k] != Class::Unresolved {
            history.push(HistoryEntry {
                date: format!("2026-{:02}-{:02}", 1 + (i + 3) % 12, 1 + (i + 5) % 28),
                class: Some(classes[k]),
                kind: Some(proofs[k]),
                note: Text::new("観測で更新", "updated by an observation"),
            });
        }
        let c = Claim {
            schema: CLAIM_SCHEMA.into(),
            id: format!("claim-{i:06}"),
            statement: Text::new(
                if i % 11 == 0 {
                    String::new()
                } else {
                    format!(
                        "{world} の経路 {i}: Winograd ソルバが自然選択され、dot4 不在時は積和フォールバックを通る。"
                    )
                },
                format!(
                    "Path {i} on {world}: the Winograd solver is chosen naturally; without dot4 the multiply-add fallback runs."
                ),
            ),
            class: Some(classes[k]),
            kind: Some(proofs[k]),
            world: world.into(),
            floor: Some(Floor::ALL[i % 5]),
            layer: Some(Layer::ALL[i % 3]),
            selection: None,
            falsified_by: Text::new(
                "別のソルバが選ばれたログ",
                "A log where another solver is chosen",
            ),
            support,
            history,
            ..Claim::default()
        };
        write(
            &root.join(format!("claims/{}.toml", c.id)),
            to_toml(&c)?.as_bytes(),
        )?;
    }
    for i in 0..(n / 20).max(1) {
        let q = Question {
            schema: QUESTION_SCHEMA.into(),
            id: format!("q-{i:05}"),
            text: Text::new(
                format!("問い {i}: この経路は実機で dispatch されるか?"),
                format!("Question {i}: is this path dispatched on hardware?"),
            ),
            world: WORLDS[i % WORLDS.len()].into(),
            would_answer: Text::new("rocprofv3 のカーネルトレース", "A rocprofv3 kernel trace"),
            answer: if i % 4 == 0 {
                Vec::new()
            } else {
                vec![format!("claim-{:06}", (i * 20) % n)]
            },
        };
        write(
            &root.join(format!("questions/{}.toml", q.id)),
            to_toml(&q)?.as_bytes(),
        )?;
    }
    for i in 0..n_cases {
        let c = Case {
            schema: CASE_SCHEMA.into(),
            id: format!("case-{i:05}"),
            title: Text::new(format!("ケース {i}"), format!("Case {i}")),
            world: "gfx900".into(),
            date: "2026-03-14".into(),
            summary: Text::new("MIOpenDriver を実行", "MIOpenDriver run"),
            observations: vec![format!("case-{i:05}")],
            claims: (0..5)
                .map(|j| format!("claim-{:06}", (i * 10 + j) % n))
                .collect(),
            questions: vec![format!("q-{:05}", i % (n / 20).max(1))],
        };
        write(
            &root.join(format!("cases/{}.toml", c.id)),
            to_toml(&c)?.as_bytes(),
        )?;
    }
    Ok(())
}
