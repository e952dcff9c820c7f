//! Rules over LLM workload recordings: kernel traces (dispatch families per run), Ollama runs
//! (GPU / CPU placement, per run and across a model's runs), strace splits (catalog reads and
//! the link status) and A/B lanes (ratio of medians with its interval).
//!
//! An Ollama run's placement is the one the server process that loaded the model tells: its
//! pid and time are named and its load lines cited; lines of another process (an earlier
//! server, another pid) never make a run "split". A group of runs is one model under one
//! configuration — version, ggml-hip build, variables, load settings — as far as the run
//! documents carry it; a run whose lines log none takes that of the server process that served
//! it (runs of its set loaded a model there under one configuration), else it groups only
//! within its recording set, so later runs (after a library fix) never rewrite an earlier group.

use super::digest::{Doc, ObsDigest};
use super::text::{self, num};
use super::{Finding, record_support, rule};
use crate::model::*;
use crate::schemas::{is_processor, processor_of};
use rocpath_docs::ollama::{RunReport, Server, Side, Signal, SignalKind, Verdict, VerdictKind};
use rocpath_evidence::{Class, Proof};
use std::collections::BTreeMap;

fn base(p: &str) -> &str {
    p.rsplit(['/', '\\']).next().unwrap_or(p)
}

fn names<'a>(paths: impl Iterator<Item = &'a str>) -> String {
    let mut v: Vec<&str> = paths.filter(|p| !p.is_empty()).map(base).collect();
    v.sort_unstable();
    v.dedup();
    v.join(", ")
}

#[allow(clippy::too_many_arguments)]
fn finding(
    rule: &'static str,
    key: String,
    statement: Text,
    class: Class,
    world: String,
    floor: Floor,
    support: Vec<Support>,
    counts: (u64, u64, Vec<String>),
) -> Finding {
    Finding {
        rule,
        key,
        statement,
        class,
        kind: Proof::RuntimeVerified,
        world,
        floor: Some(floor),
        layer: None,
        selection: None,
        agree: counts.0,
        of: counts.1,
        exceptions: counts.2,
        support,
        cases: Vec::new(),
    }
}

/// Dispatches per kernel family of each trace document.
fn trace_findings(o: &ObsDigest, d: &rocpath_docs::trace::TraceDoc) -> Finding {
    let d = &d.report;
    let files = names(d.traces.iter().map(|t| t.path.as_str()));
    let world = d
        .traces
        .iter()
        .flat_map(|t| &t.agents)
        .filter(|a| a.kind.as_str().eq_ignore_ascii_case("gpu"))
        .map(|a| processor_of(a.name.as_str()))
        .find(|p| is_processor(p))
        .unwrap_or_else(|| o.world.clone());
    let mut fams: Vec<(&str, u64)> = d
        .families
        .iter()
        .map(|f| (f.family.as_str(), f.dispatches))
        .collect();
    fams.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let top: Vec<String> = fams
        .iter()
        .take(8)
        .map(|(f, n)| format!("{f} {}", num(*n)))
        .collect();
    let blas = d.research.kernel_tensile_like_rows;
    let label = if files.is_empty() {
        o.id.clone()
    } else {
        files
    };
    let on = if world.is_empty() {
        String::new()
    } else {
        format!(" on {world}")
    };
    let on_ja = if world.is_empty() {
        String::new()
    } else {
        format!("{world} で")
    };
    let statement = Text::new(
        format!(
            "{label}: {on_ja}カーネルディスパッチ {} 件({})。Tensile 系(rocBLAS / Tensile / hipBLASLt)のディスパッチは {} 件中 {} 件。",
            num(d.dispatches),
            top.join("、"),
            num(d.dispatches),
            num(blas)
        ),
        format!(
            "{label}: {} kernel dispatches{on} ({}); {} of the {} dispatches are Tensile-like (rocBLAS / Tensile / hipBLASLt).",
            num(d.dispatches),
            top.join(", "),
            num(blas),
            num(d.dispatches)
        ),
    );
    let class = if d.dispatches == 0 {
        Class::Unresolved
    } else {
        Class::Confirmed
    };
    let mut f = finding(
        rule::TRACE_DISPATCH,
        label,
        statement,
        class,
        world,
        Floor::Runtime,
        vec![record_support(&o.id, "", Text::default())],
        (blas, d.dispatches, Vec::new()),
    );
    // Which kernels ran: what the libraries selected.
    f.layer = Some(Layer::Selection);
    f
}

struct Placement<'a> {
    obs: &'a str,
    index: usize,
    run: String,
    /// The model, when the run's response names it.
    model: Option<String>,
    world: String,
    verdict: VerdictKind,
    layers: Option<u64>,
    class: Class,
    /// The server process that loaded the model, and when.
    loader: Option<(u64, Option<String>)>,
    /// The lines of that process that placed the model.
    sources: Vec<rocpath_evidence::Locator>,
    /// The run's configuration as far as its document carries it (empty: none recorded).
    config: Vec<String>,
    /// The server processes whose lines the run's journals hold.
    processes: Vec<u64>,
}

/// A run whose own lines carry no configuration takes that of the server process that served
/// it, when runs of the same recording set loaded a model in that process and all of them carry
/// the same configuration: a server's version, build and variables do not change while it runs.
fn inherit_configs(ps: &mut [Placement<'_>]) {
    let known: Vec<(&str, u64, Vec<String>)> = ps
        .iter()
        .filter(|p| !p.config.is_empty())
        .filter_map(|p| {
            p.loader
                .as_ref()
                .map(|(pid, _)| (p.obs, *pid, p.config.clone()))
        })
        .collect();
    for p in ps.iter_mut().filter(|p| p.config.is_empty()) {
        let mut found: Vec<&Vec<String>> = known
            .iter()
            .filter(|(o, pid, _)| *o == p.obs && p.processes.contains(pid))
            .map(|(_, _, c)| c)
            .collect();
        found.sort();
        found.dedup();
        if let [one] = found[..] {
            p.config = one.clone();
        }
    }
}

/// Load lines: only these say where a model was placed.
const LOAD_SIGNALS: [SignalKind; 4] = [
    SignalKind::GpuLayers,
    SignalKind::Offloaded,
    SignalKind::Placement,
    SignalKind::UsingDevice,
];

/// The server processes whose lines loaded a model.
fn loaders(v: &Verdict) -> std::collections::BTreeSet<u64> {
    v.signals
        .iter()
        .filter(|s| LOAD_SIGNALS.contains(&s.what))
        .filter_map(|s| s.pid.map(u64::from))
        .collect()
}

/// The verdict as the process that loaded the model tells it: a `MIXED` whose other side comes
/// only from lines of another server process (an earlier server, another pid) is the loading
/// process's side. A document written before lines carried `counted` is read the same way.
fn loader_verdict(v: &Verdict) -> Option<VerdictKind> {
    if v.verdict != VerdictKind::Mixed {
        return None;
    }
    let l = loaders(v);
    if l.len() != 1 {
        return None;
    }
    let ours = v
        .signals
        .iter()
        .filter(|s| s.counted && s.pid.is_none_or(|p| l.contains(&u64::from(p))));
    let (mut gpu, mut cpu) = (false, false);
    for s in ours {
        gpu |= s.side == Side::Gpu;
        cpu |= s.side == Side::Cpu;
    }
    match (gpu, cpu) {
        (true, false) => Some(VerdictKind::Gpu),
        (false, true) => Some(VerdictKind::Cpu),
        _ => None,
    }
}

/// The loading process, and its lines that placed the model (at most 4).
fn loader_of(
    v: &Verdict,
    server: &Server,
) -> (
    Option<(u64, Option<String>)>,
    Vec<rocpath_evidence::Locator>,
) {
    let l = loaders(v);
    let pid = server
        .pid
        .map(u64::from)
        .or_else(|| (l.len() == 1).then(|| l.iter().next().copied()).flatten());
    let Some(pid) = pid else {
        return (None, Vec::new());
    };
    let load: Vec<&Signal> = v
        .signals
        .iter()
        .filter(|s| s.pid.map(u64::from) == Some(pid) && LOAD_SIGNALS.contains(&s.what))
        .collect();
    let time = server
        .load_time
        .clone()
        .or_else(|| load.iter().filter_map(|s| s.time.clone()).min());
    let mut sources: Vec<rocpath_evidence::Locator> = load
        .iter()
        .filter(|s| !s.at.path.is_empty())
        .map(|s| {
            let mut l = rocpath_evidence::Locator::file(s.at.path.as_str());
            l.line = s.at.line;
            l
        })
        .collect();
    sources.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    sources.dedup();
    sources.truncate(4);
    (Some((pid, time)), sources)
}

/// The run's configuration as its document carries it: the server's version, the ggml-hip
/// backend it loaded (the build), the variables that change devices, libraries or kernels, and
/// the load request's settings.
fn run_config(server: &Server) -> Vec<String> {
    let mut c = Vec::new();
    if let Some(v) = &server.version {
        c.push(format!("Ollama {v}"));
    }
    for b in &server.backends {
        if let Some(p) = b.strip_prefix("ROCm: ") {
            // The build's folder, without the machine's own part of the path.
            let parts: Vec<&str> = p.rsplit(['/', '\\']).take(4).collect();
            let short: Vec<&str> = parts.into_iter().rev().collect();
            c.push(format!("ggml-hip …/{}", short.join("/")));
        }
    }
    for (k, v) in &server.env {
        c.push(format!("{k}={v}"));
    }
    let settings = [
        ("NumThreads", server.num_threads.map(|n| n.to_string())),
        ("BatchSize", server.batch_size.map(|n| n.to_string())),
        ("KvSize", server.kv_size.map(|n| n.to_string())),
        ("FlashAttention", server.flash_attention.clone()),
    ];
    for (k, v) in settings {
        if let Some(v) = v {
            c.push(format!("{k} {v}"));
        }
    }
    c
}

fn placement_text(verdict: VerdictKind) -> Text {
    match verdict {
        VerdictKind::Gpu => Text::new("GPU で実行された", "ran on the GPU"),
        VerdictKind::Cpu => Text::new("CPU で実行された", "ran on the CPU"),
        VerdictKind::Mixed => Text::new(
            "GPU と CPU に分かれて実行された",
            "ran split between GPU and CPU",
        ),
        VerdictKind::Unsure => Text::new("配置を判定できなかった", "left its placement undecided"),
    }
}

/// The configuration of a group as stated: what its runs' documents carry, or, when they
/// carry none, the recording set they came from (runs of another set may differ in it).
fn config_text(p: &Placement<'_>) -> Text {
    if p.config.is_empty() {
        Text::new(
            format!("構成の記録なし、記録セット {} の実行のみ", p.obs),
            format!(
                "configuration not logged; runs of recording set {} only",
                p.obs
            ),
        )
    } else {
        let c = p.config.join(", ");
        Text::new(c.clone(), c)
    }
}

fn loader_text(p: &Placement<'_>) -> Text {
    match &p.loader {
        Some((pid, Some(t))) => Text::new(
            format!("読み込んだサーバープロセス {pid}、{t}"),
            format!("loaded by server process {pid} at {t}"),
        ),
        Some((pid, None)) => Text::new(
            format!("読み込んだサーバープロセス {pid}"),
            format!("loaded by server process {pid}"),
        ),
        None => Text::default(),
    }
}

fn placement_findings(ps: &[Placement<'_>]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut groups: BTreeMap<(String, String, String), Vec<&Placement<'_>>> = BTreeMap::new();
    for p in ps {
        let t = placement_text(p.verdict);
        let layers = p.layers.map(|l| {
            (
                format!("GPU レイヤー {l}"),
                format!("{l} layers on the GPU"),
            )
        });
        let lt = loader_text(p);
        let (lj, le) = match (layers, lt.en.is_empty()) {
            (Some((j, e)), true) => (format!("({j})"), format!(" ({e})")),
            (Some((j, e)), false) => (format!("({j}、{})", lt.ja), format!(" ({e}; {})", lt.en)),
            (None, false) => (format!("({})", lt.ja), format!(" ({})", lt.en)),
            (None, true) => Default::default(),
        };
        let (mj, me) = p
            .model
            .as_ref()
            .map(|m| (format!("({m})"), format!(" ({m})")))
            .unwrap_or_default();
        let mut f = finding(
            rule::OLLAMA_PLACEMENT,
            p.run.clone(),
            Text::new(
                format!("Ollama の実行 {}{mj}: モデルは{}{lj}。", p.run, t.ja),
                format!("Ollama run {}{me}: the model {}{le}.", p.run, t.en),
            ),
            p.class,
            p.world.clone(),
            Floor::Application,
            placement_support(p, Text::new(t.ja, t.en)),
            (1, 1, Vec::new()),
        );
        f.layer = placement_layer(p.verdict);
        out.push(f);
        // A run whose model is not named joins no group: its group would have no subject.
        // A group is one configuration: runs whose documents carry none stay with their set.
        if let Some(model) = &p.model {
            let config = if p.config.is_empty() {
                format!("set {}", p.obs)
            } else {
                p.config.join(", ")
            };
            groups
                .entry((p.world.clone(), model.clone(), config))
                .or_default()
                .push(p);
        }
    }
    for ((world, model, config), m) in groups {
        if m.len() < 2 {
            continue;
        }
        out.push(placement_group(&world, &model, &config, &m));
    }
    out
}

/// The verdict record, and the lines of the process that loaded the model.
fn placement_support(p: &Placement<'_>, note: Text) -> Vec<Support> {
    let mut v = vec![record_support(
        p.obs,
        &format!("/runs/{}/verdict", p.index),
        note,
    )];
    v.extend(p.sources.iter().map(|l| Support {
        source: Some(l.clone()),
        ..Support::default()
    }));
    v
}

/// The class of a group's claim: confirmed when every run agrees and each is confirmed;
/// limited when a run that differs is one the recording could not decide; else the first
/// class below confirmed among its runs.
fn group_class(m: &[&Placement<'_>], top: VerdictKind, all_agree: bool) -> Class {
    let weakest = |or: Class| {
        m.iter()
            .map(|p| p.class)
            .find(|c| *c != Class::Confirmed)
            .unwrap_or(or)
    };
    if all_agree && m.iter().all(|p| p.class == Class::Confirmed) {
        Class::Confirmed
    } else if all_agree {
        weakest(Class::Unresolved)
    } else if m
        .iter()
        .any(|p| p.verdict != top && matches!(p.class, Class::Unresolved | Class::Limited))
    {
        // A run whose placement the recording could not decide: a limit of the observation.
        Class::Limited
    } else {
        // Runs that were decided and differ: the split is stated, it is no limit.
        weakest(Class::Confirmed)
    }
}

fn placement_group(world: &str, model: &str, config: &str, m: &[&Placement<'_>]) -> Finding {
    // By the verdict's word, so a tie goes to the first in that order.
    let mut counts: BTreeMap<&'static str, (VerdictKind, u64)> = BTreeMap::new();
    for p in m {
        counts.entry(p.verdict.as_str()).or_insert((p.verdict, 0)).1 += 1;
    }
    let (top, top_n) = counts
        .iter()
        .max_by(|a, b| a.1.1.cmp(&b.1.1).then(b.0.cmp(a.0)))
        .map_or((VerdictKind::Unsure, 0), |(_, (v, n))| (*v, *n));
    let n = m.len() as u64;
    let exceptions: Vec<String> = m
        .iter()
        .filter(|p| p.verdict != top)
        .map(|p| format!("{}: {}", p.run, p.verdict.as_str()))
        .collect();
    let split: Vec<String> = counts
        .iter()
        .map(|(k, (_, v))| format!("{k}={v}"))
        .collect();
    let t = placement_text(top);
    let on = if world.is_empty() {
        String::new()
    } else {
        format!(" on {world}")
    };
    let m_n = text::m_of_n(top_n, n, "runs");
    let ct = config_text(m[0]);
    let mut statement = Text::new(
        format!(
            "Ollama の {model}{on}({}): {}モデルは{}({})。",
            ct.ja,
            m_n.ja,
            t.ja,
            split.join("、")
        ),
        format!(
            "Ollama {model}{on} ({}): the model {} {} ({}).",
            ct.en,
            t.en,
            m_n.en,
            split.join(", ")
        ),
    );
    if !exceptions.is_empty() {
        statement
            .ja
            .push_str(&format!("例外: {}。", exceptions.join("、")));
        statement
            .en
            .push_str(&format!(" Exceptions: {}.", exceptions.join("; ")));
    }
    let class = group_class(m, top, exceptions.is_empty());
    let support = m
        .iter()
        .map(|p| {
            record_support(
                p.obs,
                &format!("/runs/{}/verdict", p.index),
                Text::new(
                    format!("{}: {}", p.run, p.verdict.as_str()),
                    format!("{}: {}", p.run, p.verdict.as_str()),
                ),
            )
        })
        .collect();
    let mut f = finding(
        rule::OLLAMA_PLACEMENT_GROUP,
        format!("{world}|{model}|{config}"),
        statement,
        class,
        world.to_string(),
        Floor::Application,
        support,
        (top_n, n, exceptions),
    );
    f.layer = placement_layer(top);
    f
}

/// The layer a placement is about: a model on the GPU is what the runtime selected; on the
/// CPU, in part or whole, it is what ggml falls back to when it cannot offload.
fn placement_layer(verdict: VerdictKind) -> Option<Layer> {
    match verdict {
        VerdictKind::Gpu => Some(Layer::Selection),
        VerdictKind::Cpu | VerdictKind::Mixed => Some(Layer::Fallback),
        VerdictKind::Unsure => None,
    }
}

/// The observation, and the raw lines the catalog-read verdict cites (the document holds
/// no record of its own for it).
fn catalog_support(o: &ObsDigest, e: &rocpath_evidence::Evidence) -> Vec<Support> {
    let mut v = vec![record_support(&o.id, "", Text::default())];
    for s in e.sources.iter().filter(|s| !s.path.is_empty()).take(4) {
        let mut l = rocpath_evidence::Locator::file(&s.path);
        l.line = s.line;
        v.push(Support {
            source: Some(l),
            ..Support::default()
        });
    }
    v
}

fn strace_findings(o: &ObsDigest, doc: &rocpath_docs::strace::StraceDoc) -> Vec<Finding> {
    let d = &doc.catalog;
    let files = names(d.processes.iter().map(|p| p.path.as_str()));
    let label = if files.is_empty() {
        o.id.clone()
    } else {
        files
    };
    let r = &d.research;
    let (dat, hsaco, ggml) = (
        r.fallback_dat_openat,
        r.fallback_hsaco_openat,
        r.libggml_hip_openat,
    );
    let mut out = vec![finding(
        rule::STRACE_CATALOG,
        label.clone(),
        Text::new(
            format!(
                "{label}: フォールバック Tensile カタログの読み込み .dat {} 件、.hsaco {} 件、libggml-hip {} 件(カタログの読み込みであり、ディスパッチではない)。",
                num(dat),
                num(hsaco),
                num(ggml)
            ),
            format!(
                "{label}: fallback Tensile catalog files opened: {} .dat, {} .hsaco; libggml-hip opened {} times (a catalog read, not a dispatch).",
                num(dat),
                num(hsaco),
                num(ggml)
            ),
        ),
        d.catalog_read.class,
        o.world.clone(),
        Floor::MathLibrary,
        catalog_support(o, &d.catalog_read),
        (dat + hsaco, dat + hsaco, Vec::new()),
    )];
    {
        let l = &doc.link;
        let status = l.link_status.as_str();
        out.push(finding(
            rule::STRACE_LINK,
            label.clone(),
            Text::new(
                format!(
                    "{label}: カタログ読み込みとディスパッチのリンク状態は {status}(BLAS ディスパッチ {}、rocBLAS GEMM 呼び出し {})。",
                    num(l.blas_kernel_dispatches),
                    num(l.rocblas_gemm_calls)
                ),
                format!(
                    "{label}: link status of catalog reads and dispatches: {status} ({} BLAS dispatches, {} rocBLAS GEMM calls).",
                    num(l.blas_kernel_dispatches),
                    num(l.rocblas_gemm_calls)
                ),
            ),
            l.evidence.class,
            o.world.clone(),
            Floor::MathLibrary,
            vec![record_support(&o.id, "/link", Text::default())],
            (0, 0, Vec::new()),
        ));
    }
    out
}

fn lanes_findings(o: &ObsDigest, d: &rocpath_docs::lanes::LanesDoc) -> Vec<Finding> {
    let d = &d.summary;
    let lane = |name: &str| d.lanes.iter().find(|l| l.name == name);
    let metric = d.metric.as_str();
    let unit = d.unit.as_str();
    let mut out = Vec::new();
    for (i, c) in d.comparisons.iter().enumerate() {
        let (a, b) = (c.a.as_str(), c.b.as_str());
        let (r, lo, hi) = (c.ratio_of_medians, c.ci_low, c.ci_high);
        if !(r.is_finite() && lo.is_finite() && hi.is_finite()) {
            continue;
        }
        let files = |n: &str| {
            lane(n)
                .map(|l| names(l.files.iter().map(String::as_str)))
                .unwrap_or_default()
        };
        let na = lane(a).and_then(|l| l.stats).map_or(0, |s| s.n);
        let nb = lane(b).and_then(|l| l.stats).map_or(0, |s| s.n);
        let shown = lo > 1.0 || hi < 1.0;
        let (lead, lag, x) = if r >= 1.0 { (b, a, r) } else { (a, b, 1.0 / r) };
        let iv = format!("{}–{}", text::ratio(lo), text::ratio(hi));
        let statement = if shown {
            Text::new(
                format!(
                    "{metric}({unit}): {lead} が {lag} より {}× 速い(中央値の比 {b}/{a} = {}、95 % 区間 {iv}、n = {na} と {nb})。",
                    text::ratio(x),
                    text::ratio(r)
                ),
                format!(
                    "{metric} ({unit}): {lead} ahead of {lag} by {}× (median {b}/{a} = {}, 95 % interval {iv}, n = {na} and {nb}).",
                    text::ratio(x),
                    text::ratio(r)
                ),
            )
        } else {
            Text::new(
                format!(
                    "{metric}({unit}): 中央値の比 {b}/{a} = {}(95 % 区間 {iv}、n = {na} と {nb})— 区間が 1 を含み、差は示されない。",
                    text::ratio(r)
                ),
                format!(
                    "{metric} ({unit}): median {b}/{a} = {} (95 % interval {iv}, n = {na} and {nb}) — no difference shown: the interval includes 1.",
                    text::ratio(r)
                ),
            )
        };
        out.push(finding(
            rule::LANES_RATIO,
            format!("{metric}|{a}={}|{b}={}", files(a), files(b)),
            statement,
            c.evidence.class,
            o.world.clone(),
            Floor::Application,
            vec![record_support(
                &o.id,
                &format!("/comparisons/{i}"),
                Text::default(),
            )],
            (u64::from(shown), 1, Vec::new()),
        ));
    }
    out
}

/// Where one run's model was placed, as its document and the process that loaded it tell.
fn placement<'a>(o: &'a ObsDigest, i: usize, r: &RunReport) -> Placement<'a> {
    let (v, server) = (&r.verdict, &r.server);
    // The device the server computed on (`inference compute`), else a ggml device's target.
    let world = std::iter::once(server.compute.as_deref().unwrap_or_default())
        .chain(server.devices.iter().map(|d| d.target.as_str()))
        .map(processor_of)
        .find(|p| is_processor(p))
        .unwrap_or_else(|| o.world.clone());
    let (loader, sources) = loader_of(v, server);
    let verdict = loader_verdict(v).unwrap_or(v.verdict);
    Placement {
        loader,
        sources,
        config: run_config(server),
        processes: server.processes.iter().copied().map(u64::from).collect(),
        obs: &o.id,
        index: i,
        run: if r.run.is_empty() {
            format!("{}#{i}", o.id)
        } else {
            r.run.clone()
        },
        model: r
            .generate
            .as_ref()
            .and_then(|g| g.response.model.clone())
            .filter(|m| !m.trim().is_empty()),
        world,
        verdict,
        layers: server.gpu_layers,
        class: v.evidence.class,
    }
}

/// The workload rules.
pub fn findings(obs: &[ObsDigest]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut placements = Vec::new();
    let mut by_key: BTreeMap<String, usize> = BTreeMap::new();
    for o in obs {
        let found: Vec<Finding> = match &o.doc {
            Doc::Trace(d) => vec![trace_findings(o, d)],
            Doc::Strace(d) => strace_findings(o, d),
            Doc::Lanes(d) => lanes_findings(o, d),
            Doc::Ollama(d) => {
                for (i, r) in d.runs.iter().enumerate() {
                    placements.push(placement(o, i, r));
                }
                Vec::new()
            }
            _ => Vec::new(),
        };
        // A recording imported twice (same key): the later observation replaces the earlier.
        for f in found {
            let k = format!("{}|{}", f.rule, f.key);
            match by_key.get(&k) {
                Some(&i) => out[i] = f,
                None => {
                    by_key.insert(k, out.len());
                    out.push(f);
                }
            }
        }
    }
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, p) in placements.iter().enumerate() {
        seen.insert(p.run.clone(), i);
    }
    let mut kept: Vec<Placement<'_>> = placements
        .into_iter()
        .enumerate()
        .filter(|(i, p)| seen.get(&p.run) == Some(i))
        .map(|(_, p)| p)
        .collect();
    inherit_configs(&mut kept);
    out.extend(placement_findings(&kept));
    out
}
