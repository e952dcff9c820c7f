//! Schema-specific readings of imported documents, one section per producer. Everything else
//! in the ledger reads only the common envelope and evidence fields.
//!
//! - `rocpath.inventory/1`: the coverage matrix (library × target) and the records per
//!   processor, for world pages and the heatmap.
//! - `rocpath.isa/1`: per-kernel instruction groups, summed per kernel family and processor,
//!   for the instruction-class bars.
//! - `rocpath.case/1`: case outcomes (taxonomy), forced runs (check rule
//!   `ledger.forced_as_natural`), case records created at import.
//! - `rocpath.survey/1`: the device × install verdicts of a machine, for world pages.
//!
//! Readers are tolerant: a field that is missing or has another shape gives nothing rather
//! than an error, so a newer producer never breaks an older ledger.

use crate::model::*;
use crate::records::Record;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The producer schema of an observation's document.
pub fn schema_of(o: &Observation) -> &str {
    o.document
        .get("schema")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn str_of<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn u64_of(v: &Value, k: &str) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(0)
}

/// The processor of a target id (`gfx90a:xnack+` → `gfx90a`; bundle-style ids keep their
/// last `--` part).
pub fn processor_of(target: &str) -> String {
    match rocpath_arch::TargetId::parse(target) {
        Ok(t) => t.processor,
        // Not a target id (`unknown`, a CUDA `sm_86`): the name before any feature.
        Err(_) => target.split(':').next().unwrap_or(target).to_string(),
    }
}

/// Whether a name is a processor LLVM knows (`gfx900`, `gfx9-generic`).
pub fn is_processor(name: &str) -> bool {
    rocpath_arch::target(name).is_some()
}

/// Whether a world id (`gfx900`, `GCN5`, `RDNA4`, `gfx9`) covers a processor: equal names,
/// the processor's family (case-insensitive, `RDNA3.5` = `Rdna3_5`), or a `gfxN` prefix world
/// that names a whole generation.
pub fn world_covers(world: &str, processor: &str) -> bool {
    let w = world.to_ascii_lowercase();
    let p = processor.to_ascii_lowercase();
    if w == p {
        return true;
    }
    if let Some(t) = rocpath_arch::target(&p) {
        let fam = format!("{:?}", t.family)
            .to_ascii_lowercase()
            .replace('_', ".");
        if fam == w.replace('_', ".") {
            return true;
        }
    }
    // `gfx9` covers gfx900..gfx950 but `gfx90` names nothing (not a world).
    w.starts_with("gfx")
        && w.len() >= 4
        && w.len() <= 5
        && w[3..].bytes().all(|b| b.is_ascii_digit())
        && rocpath_arch::target(&w).is_none()
        && p.starts_with(&w)
        && p.len() == w.len() + 2
}

// ---------------------------------------------------------------- inventory

/// One cell of a coverage matrix.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CoverageCell {
    /// Code objects.
    pub code_objects: u64,
    /// Kernels.
    pub kernels: u64,
    /// Bytes.
    pub bytes: u64,
}

/// The library × target matrix of one or more inventories.
#[derive(Debug, Clone, Default)]
pub struct Coverage {
    /// `(library, target id)` → cell.
    pub cells: BTreeMap<(String, String), CoverageCell>,
    /// Tensile libraries per processor: `(processor, file name)`.
    pub tensile: BTreeSet<(String, String)>,
    /// MIOpen databases per processor: `(processor, file name)`.
    pub miopen: BTreeSet<(String, String)>,
    /// Observations it was read from.
    pub observations: BTreeSet<String>,
}

impl Coverage {
    /// Libraries, sorted.
    pub fn libraries(&self) -> Vec<String> {
        let s: BTreeSet<&String> = self.cells.keys().map(|(l, _)| l).collect();
        s.into_iter().cloned().collect()
    }
    /// Target ids, sorted by processor then id.
    pub fn targets(&self) -> Vec<String> {
        let s: BTreeSet<&String> = self.cells.keys().map(|(_, t)| t).collect();
        let mut v: Vec<String> = s.into_iter().cloned().collect();
        v.sort_by_key(|t| (processor_sort_key(&processor_of(t)), t.clone()));
        v
    }
    /// Whether there is anything.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty() && self.tensile.is_empty() && self.miopen.is_empty()
    }
}

/// Orders gfx processors numerically (gfx90a after gfx908, gfx1010 after gfx950).
pub fn processor_sort_key(p: &str) -> (u32, String) {
    let digits = p.strip_prefix("gfx").unwrap_or(p);
    let major_len = if digits.len() >= 4 { 2 } else { 1 };
    let major: u32 = digits
        .get(..major_len)
        .and_then(|d| d.parse().ok())
        .unwrap_or(u32::MAX);
    (major, p.to_string())
}

/// Adds an inventory document's coverage (`coverage{}`, `tensile[]`, `miopen_dbs[]`).
pub fn add_coverage(o: &Observation, into: &mut Coverage) {
    if schema_of(o) != rocpath_docs::schema::INVENTORY.id {
        return;
    }
    let d = &o.document;
    if let Some(cov) = d.get("coverage").and_then(Value::as_object) {
        for (lib, row) in cov {
            let Some(row) = row.as_object() else { continue };
            for (target, cell) in row {
                let c = into.cells.entry((lib.clone(), target.clone())).or_default();
                c.code_objects += u64_of(cell, "code_objects");
                c.kernels += u64_of(cell, "kernels");
                c.bytes += u64_of(cell, "bytes");
            }
        }
    }
    for t in d
        .get("tensile")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = str_of(t, "name").unwrap_or("?").to_string();
        let mut procs: Vec<String> = t
            .get("processors")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(processor_of)
            .collect();
        if let Some(p) = str_of(t, "processor") {
            procs.push(processor_of(p));
        }
        for p in procs {
            into.tensile.insert((p, name.clone()));
        }
    }
    for m in d
        .get("miopen_dbs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let (Some(p), Some(n)) = (str_of(m, "processor"), str_of(m, "name")) {
            into.miopen.insert((processor_of(p), n.to_string()));
        }
    }
    into.observations.insert(o.id.clone());
}

// ---------------------------------------------------------------- isa

/// Instruction groups of the kernels of one family on one processor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IsaFamily {
    /// Kernel family (`dot_i8`, `Cijk_Ailk_Bljk_SB`).
    pub family: String,
    /// Processor (`gfx900`).
    pub processor: String,
    /// Kernels summed.
    pub kernels: u64,
    /// Instructions.
    pub instructions: u64,
    /// Count per group (mfma, wmma, dot, packed, fma, valu, salu, vmem, lds, smem, branch,
    /// wait, other).
    pub groups: BTreeMap<String, u64>,
}

/// The display order of instruction groups.
pub const GROUP_ORDER: [&str; 13] = [
    "mfma", "wmma", "dot", "packed", "fma", "valu", "salu", "vmem", "lds", "smem", "branch",
    "wait", "other",
];

/// The family of a kernel name: Tensile `Cijk_…` names up to their macro tile (`_MT…`), other
/// names without a trailing `.kd`, cut at 48 characters.
pub fn kernel_family(name: &str) -> String {
    let name = name.strip_suffix(".kd").unwrap_or(name);
    if name.starts_with("Cijk_") {
        let toks: Vec<&str> = name
            .split('_')
            .take_while(|t| !(t.starts_with("MT") && t.len() > 2))
            .collect();
        return toks.join("_");
    }
    name.chars().take(48).collect()
}

/// Adds an isa document's kernels, summed per (family, processor).
pub fn add_isa_families(o: &Observation, into: &mut BTreeMap<(String, String), IsaFamily>) {
    if schema_of(o) != rocpath_docs::schema::ISA.id {
        return;
    }
    for co in o
        .document
        .get("code_objects")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let proc_ = str_of(co, "processor")
            .map(str::to_string)
            .or_else(|| str_of(co, "target").map(processor_of))
            .unwrap_or_else(|| "?".into());
        for k in co
            .get("kernels")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if k.get("is_kernel").and_then(Value::as_bool) == Some(false) {
                continue;
            }
            let Some(name) = str_of(k, "name") else {
                continue;
            };
            let fam = kernel_family(name);
            let e = into
                .entry((fam.clone(), proc_.clone()))
                .or_insert_with(|| IsaFamily {
                    family: fam,
                    processor: proc_.clone(),
                    ..IsaFamily::default()
                });
            e.kernels += 1;
            e.instructions += u64_of(k, "instructions");
            if let Some(g) = k.get("groups").and_then(Value::as_object) {
                for (gk, gv) in g {
                    *e.groups.entry(gk.clone()).or_default() += gv.as_u64().unwrap_or(0);
                }
            }
        }
    }
}

// ---------------------------------------------------------------- case

/// One case outcome read from a case document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CaseOutcome {
    /// Observation id.
    pub observation: String,
    /// JSON pointer of the case object in the document.
    pub pointer: String,
    /// Case name.
    pub name: String,
    /// Outcome as decided by the producer (`natural`, `fallback_observed`,
    /// `applicability_reject`, `build_failure/miir`, `runtime_abort`, ...).
    pub outcome: String,
    /// The forced solver, if the run was forced.
    pub forced: Option<String>,
    /// The selected solver, if any.
    pub selected: Option<String>,
    /// Exit (`exit 134`, `signal 9`).
    pub exit: Option<String>,
    /// Device architecture.
    pub device: Option<String>,
    /// Error messages (the symptoms).
    pub errors: Vec<String>,
    /// Rejected candidates (`solver: fate`).
    pub rejected: Vec<String>,
}

impl CaseOutcome {
    /// The failure mode: the outcome without its sub-kind (`build_failure/miir` →
    /// `build_failure`).
    pub fn mode(&self) -> &str {
        self.outcome
            .split(['/', ':'])
            .next()
            .unwrap_or(&self.outcome)
    }
}

fn text_of(v: &Value, keys: &[&str]) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(true) => Some("yes".into()),
        Value::Object(_) => keys.iter().find_map(|k| match v.get(*k) {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        }),
        _ => None,
    }
}

fn outcome_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Object(_) => {
            let main = text_of(v, &["kind", "mode", "outcome", "value", "name"])?;
            match text_of(v, &["sub", "subkind", "sub_kind", "detail_kind"]) {
                Some(sub) => Some(format!("{main}/{sub}")),
                None => Some(main),
            }
        }
        _ => None,
    }
}

/// The fields outside records that the checks read ([`forced_in`], [`split_by_other_process`],
/// [`run_config`]): kept whole when `ledger check` reads a document without the rest of it
/// (the `slim` reader).
pub const CHECK_FIELDS: &[&str] = &["forced", "outcome", "signals", "server"];

/// Ollama load lines: only these say where a model was placed.
const LOAD_SIGNALS: [&str; 4] = ["gpu_layers", "offloaded", "placement", "using_device"];

/// Why an Ollama placement record (`/runs/<i>/verdict`) is no split between GPU and CPU when
/// read as the process that loaded the model tells it: its other side comes only from lines of
/// another server process (another pid).
pub fn split_by_other_process(v: &Value) -> Option<String> {
    let signals = v.get("signals")?.as_array()?;
    let pid = |s: &Value| s.get("pid").and_then(Value::as_u64);
    fn what(s: &Value) -> &str {
        s.get("what").and_then(Value::as_str).unwrap_or("")
    }
    fn side(s: &Value) -> &str {
        s.get("side").and_then(Value::as_str).unwrap_or("")
    }
    let loaders: BTreeSet<u64> = signals
        .iter()
        .filter(|s| LOAD_SIGNALS.contains(&what(s)))
        .filter_map(pid)
        .collect();
    let [loader] = loaders.iter().copied().collect::<Vec<_>>()[..] else {
        return None;
    };
    let ours: BTreeSet<&str> = signals
        .iter()
        .filter(|s| pid(s).is_none_or(|p| p == loader))
        .map(side)
        .collect();
    let others: BTreeSet<String> = signals
        .iter()
        .filter(|s| pid(s).is_some_and(|p| p != loader) && !ours.contains(side(s)))
        .map(|s| format!("{} line of pid {}", side(s), pid(s).unwrap_or(0)))
        .collect();
    (ours.len() == 1 && !others.is_empty()).then(|| {
        format!(
            "the model was loaded by server process {loader}, whose lines are all {}; the other side is only {}",
            ours.iter().next().copied().unwrap_or(""),
            others.into_iter().collect::<Vec<_>>().join(", ")
        )
    })
}

/// The configuration of the Ollama run a placement record (`/runs/<i>/verdict`) belongs to,
/// as its document carries it: version, ggml-hip backend, variables and load settings. Empty
/// when none is recorded.
pub fn run_config(o: &Observation, pointer: &str) -> String {
    let Some(run) = pointer
        .strip_suffix("/verdict")
        .and_then(|p| o.document.pointer(p))
    else {
        return String::new();
    };
    let Some(sv) = run.get("server") else {
        return String::new();
    };
    let mut c = Vec::new();
    for k in [
        "version",
        "backends",
        "env",
        "num_threads",
        "batch_size",
        "kv_size",
        "flash_attention",
    ] {
        match sv.get(k) {
            None | Some(Value::Null) => {}
            Some(Value::Array(a)) if a.is_empty() => {}
            Some(Value::Object(m)) if m.is_empty() => {}
            Some(v) => c.push(format!("{k}={v}")),
        }
    }
    c.join(" ")
}

fn forced_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Null | Value::Bool(false) => None,
        Value::Bool(true) => Some("forced".into()),
        Value::String(s) if s.is_empty() => None,
        other => text_of(other, &["solver", "name", "id", "solver_id", "via"])
            .or_else(|| Some("forced".into())),
    }
}

/// The case objects of a document: the objects that carry an `outcome`, with their pointers.
fn case_objects(doc: &Value) -> Vec<(String, &Value)> {
    fn walk<'a>(v: &'a Value, ptr: String, out: &mut Vec<(String, &'a Value)>) {
        match v {
            Value::Object(m) => {
                if m.get("outcome").and_then(outcome_text).is_some() {
                    out.push((ptr.clone(), v));
                    return;
                }
                for (k, c) in m {
                    if k != "observed" && (c.is_object() || c.is_array()) {
                        walk(
                            c,
                            format!("{ptr}/{}", k.replace('~', "~0").replace('/', "~1")),
                            out,
                        );
                    }
                }
            }
            Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    walk(c, format!("{ptr}/{i}"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(doc, String::new(), &mut out);
    out
}

/// Case outcomes of a `rocpath.case/1` document (one document may hold one case or several).
pub fn case_outcomes(o: &Observation) -> Vec<CaseOutcome> {
    if !schema_of(o).starts_with("rocpath.case") {
        return Vec::new();
    }
    case_objects(&o.document)
        .into_iter()
        .map(|(pointer, c)| {
            let name = text_of(c, &[])
                .or_else(|| str_of(c, "case").map(str::to_string))
                .or_else(|| str_of(c, "name").map(str::to_string))
                .or_else(|| c.get("case").and_then(|v| text_of(v, &["name", "id"])))
                .unwrap_or_else(|| o.id.clone());
            let exit = c.get("exit").and_then(|e| match e {
                Value::Number(n) => Some(format!("exit {n}")),
                Value::Object(_) => match (e.get("signal"), e.get("code")) {
                    (Some(s), _) if !s.is_null() => Some(format!("signal {}", text_of(s, &[])?)),
                    (_, Some(code)) if !code.is_null() => {
                        Some(format!("exit {}", text_of(code, &[])?))
                    }
                    _ => None,
                },
                _ => None,
            });
            let errors = c
                .get("errors")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|e| text_of(e, &["message", "kind", "text", "line"]))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            let rejected = c
                .get("candidates")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|cand| {
                    let fate = text_of(cand.get("fate")?, &["kind", "fate", "value"])?;
                    let fl = fate.to_ascii_lowercase();
                    if fl.contains("not applicable")
                        || fl.contains("not_applicable")
                        || fl.contains("reject")
                        || fl.contains("skip")
                    {
                        Some(format!(
                            "{}: {fate}",
                            text_of(cand, &["solver", "name", "id"])?
                        ))
                    } else {
                        None
                    }
                })
                .collect();
            CaseOutcome {
                observation: o.id.clone(),
                pointer,
                name,
                outcome: c.get("outcome").and_then(outcome_text).unwrap_or_default(),
                forced: forced_text(c.get("forced")),
                selected: c
                    .get("selected")
                    .and_then(|s| text_of(s, &["solver", "name", "solver_id", "id"])),
                exit,
                device: c
                    .get("device")
                    .and_then(|d| text_of(d, &["arch", "target", "name"])),
                errors,
                rejected,
            }
        })
        .collect()
}

/// Why (part of) an observation is a forced run, if it is one: a `forced` member that is not
/// null on a selected record or on any object that contains it (the case it belongs to), or —
/// for a whole observation — on any case in it.
pub fn forced_in(o: &Observation, recs: Option<&[Record<'_>]>) -> Option<String> {
    match recs {
        None => {
            for (ptr, c) in case_objects(&o.document) {
                if let Some(f) = forced_text(c.get("forced")) {
                    let ptr = if ptr.is_empty() { "/".to_string() } else { ptr };
                    return Some(format!("the case at {ptr} forced {f}"));
                }
            }
            // Documents without case objects: any `forced` at the top.
            forced_text(o.document.get("forced")).map(|f| format!("the run forced {f}"))
        }
        Some(recs) => {
            for r in recs {
                let mut ptr = r.pointer.as_str();
                loop {
                    if let Some(v) = o.document.pointer(ptr) {
                        if let Some(f) = forced_text(v.get("forced")) {
                            let at = if ptr.is_empty() { "/" } else { ptr };
                            return Some(format!("the case at {at} forced {f}"));
                        }
                    }
                    match ptr.rfind('/') {
                        Some(i) => ptr = &ptr[..i],
                        None => break,
                    }
                }
            }
            None
        }
    }
}

/// Case records to create when a case document is imported: one per document, listing it.
pub fn case_stubs(o: &Observation) -> Vec<Case> {
    let outcomes = case_outcomes(o);
    if outcomes.is_empty() {
        return Vec::new();
    }
    let names: Vec<&str> = outcomes.iter().map(|c| c.name.as_str()).collect();
    let title = names.join(", ");
    let device = outcomes
        .iter()
        .find_map(|c| c.device.clone())
        .unwrap_or_default();
    vec![Case {
        schema: CASE_SCHEMA.to_string(),
        id: o.id.clone(),
        title: Text::new(title.clone(), title),
        world: if device.is_empty() {
            String::new()
        } else {
            processor_of(&device)
        },
        observations: vec![o.id.clone()],
        ..Case::default()
    }]
}

/// Open questions to create when an `explain --compare` document is imported: one per
/// disagreement, with the question the comparison states, the device as its world and the
/// observation that would answer it.
pub fn question_stubs(o: &Observation) -> Vec<Question> {
    if schema_of(o) != rocpath_docs::schema::EXPLAIN_COMPARE.id {
        return Vec::new();
    }
    let d = &o.document;
    let mut out = Vec::new();
    for (i, c) in d
        .get("comparisons")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let Some(q) = str_of(c, "question").filter(|q| !q.is_empty()) else {
            continue;
        };
        let world = str_of(c, "arch").map(processor_of).unwrap_or_default();
        let would = if c.get("kernel").is_some() {
            "The ggml version the application was built with (its dispatch rules), or a trace of \
             the same model run with the pinned ggml on the same device."
        } else {
            "A MIOpen log (MIOPEN_LOG_LEVEL=6) of the same problem on the same device, with the \
             find-db and perf-db it read."
        };
        out.push(Question {
            schema: QUESTION_SCHEMA.to_string(),
            id: format!("{}-q{i}", o.id),
            text: Text::new(String::new(), q.to_string()),
            world,
            would_answer: Text::new(String::new(), would.to_string()),
            answer: Vec::new(),
        });
    }
    out
}

// ---------------------------------------------------------------- survey

/// One device × install verdict of a survey.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SurveyRow {
    /// Observation id.
    pub observation: String,
    /// The surveyed machine (`observed.host`, or the image folder).
    pub host: String,
    /// The device's processor.
    pub processor: String,
    /// Its target id.
    pub target: String,
    /// The install.
    pub install: String,
    /// The outcome (`runs`, `partial`, `no_code`, …).
    pub outcome: String,
    /// Why.
    pub why: String,
    /// Evidence class of the outcome.
    pub class: String,
    /// What falls back (`library: what happens`).
    pub fallbacks: Vec<String>,
}

/// The verdicts of a `rocpath.survey/1` document.
pub fn survey_rows(o: &Observation) -> Vec<SurveyRow> {
    if schema_of(o) != rocpath_docs::schema::SURVEY.id {
        return Vec::new();
    }
    let d = &o.document;
    let root = str_of(d, "root").unwrap_or("/");
    let host = d
        .get("observed")
        .and_then(|v| str_of(v, "host"))
        .unwrap_or_default();
    let host = if root == "/" {
        host.to_string()
    } else {
        format!("{host}:{root}")
    };
    d.get("verdicts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|v| {
            let target = str_of(v, "target").unwrap_or_default().to_string();
            SurveyRow {
                observation: o.id.clone(),
                host: host.clone(),
                processor: processor_of(&target),
                install: str_of(v, "install").unwrap_or_default().to_string(),
                outcome: str_of(v, "outcome").unwrap_or_default().to_string(),
                why: str_of(v, "why").unwrap_or_default().to_string(),
                class: v
                    .get("evidence")
                    .and_then(|e| str_of(e, "class"))
                    .unwrap_or_default()
                    .to_string(),
                fallbacks: v
                    .get("fallbacks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|f| {
                        Some(format!("{}: {}", str_of(f, "library")?, str_of(f, "then")?))
                    })
                    .collect(),
                target,
            }
        })
        .collect()
}

/// Processors an observation is about (inventory and isa targets, case devices).
pub fn processors_of(o: &Observation) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let d = &o.document;
    let schema = schema_of(o);
    use rocpath_docs::schema::{INVENTORY, ISA, SURVEY};
    match schema {
        s if s == INVENTORY.id || s == ISA.id => {
            for co in d
                .get("code_objects")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(p) = str_of(co, "processor") {
                    out.insert(p.to_string());
                }
            }
            if let Some(t) = d.get("targets").and_then(Value::as_object) {
                out.extend(t.keys().map(|k| processor_of(k)));
            }
        }
        s if s == SURVEY.id => {
            out.extend(survey_rows(o).into_iter().map(|r| r.processor));
        }
        s if s.starts_with("rocpath.case") => {
            out.extend(
                case_outcomes(o)
                    .into_iter()
                    .filter_map(|c| c.device.map(|d| processor_of(&d))),
            );
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obs(doc: Value) -> Observation {
        Observation {
            schema: OBSERVATION_SCHEMA.into(),
            id: "o1".into(),
            imported: Imported::default(),
            inputs: vec![],
            quotes: vec![],
            document: doc,
        }
    }

    #[test]
    fn compare_disagreements_become_questions() {
        let mut o = obs(json!({
            "schema": "rocpath.explain.compare/1",
            "comparisons": [
                {"case": "a", "arch": "gfx900:xnack-", "verdict": "agree", "question": null},
                {"case": "b", "arch": "gfx900:xnack-", "verdict": "disagree",
                 "question": "Why did ConvOclDirectFwd run where the find-db says ConvBinWinograd3x3U?"},
                {"trace": "k.csv", "kernel": "void mul_mat_q<(ggml_type)12, 40, false>()",
                 "arch": "gfx900", "verdict": "disagree", "question": "Why did q4_k run mmq?"}
            ]
        }));
        o.id = "cmp".into();
        let q = question_stubs(&o);
        assert_eq!(q.len(), 2);
        assert_eq!(q[0].id, "cmp-q1");
        assert_eq!(q[0].world, "gfx900");
        assert!(q[0].would_answer.en.contains("MIOpen log"));
        assert!(q[1].would_answer.en.contains("ggml version"));
        o.document["schema"] = json!("rocpath.case/1");
        assert!(question_stubs(&o).is_empty());
    }

    #[test]
    fn worlds_cover_processors() {
        assert!(world_covers("gfx900", "gfx900"));
        assert!(world_covers("GCN5", "gfx900"));
        assert!(world_covers("rdna4", "gfx1201"));
        assert!(world_covers("CDNA3", "gfx942"));
        assert!(world_covers("gfx9", "gfx90a"));
        assert!(world_covers("gfx12", "gfx1201"));
        assert!(!world_covers("gfx9", "gfx1030"));
        assert!(!world_covers("gfx90", "gfx900"));
        assert!(!world_covers("RDNA4", "gfx900"));
    }

    #[test]
    fn families() {
        assert_eq!(
            kernel_family("Cijk_Ailk_Bljk_SB_MT64x64x8_SN_1LDSB0"),
            "Cijk_Ailk_Bljk_SB"
        );
        assert_eq!(kernel_family("dot_i8.kd"), "dot_i8");
        assert_eq!(
            processor_of("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"),
            "gfx90a"
        );
        let mut v = vec!["gfx1030", "gfx90a", "gfx900", "gfx942", "gfx1201", "gfx908"];
        v.sort_by_key(|p| processor_sort_key(p));
        assert_eq!(
            v,
            ["gfx900", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1201"]
        );
    }

    #[test]
    fn case_outcomes_in_several_shapes() {
        let o = obs(json!({
            "schema": "rocpath.case/1",
            "cases": [
                {"case": "fp32_3x3", "device": {"arch": "gfx900:xnack-"}, "forced": null,
                 "selected": {"solver_id": 14, "solver": "ConvBinWinograd3x3U"},
                 "outcome": "natural", "exit": {"code": 0, "signal": null},
                 "candidates": [{"solver": "ConvMlirIgemmFwd", "fate": "not_applicable"}]},
                {"case": "mlir_forced", "forced": {"solver": "ConvMlirIgemmFwd", "via": "-S"},
                 "outcome": {"kind": "build_failure", "sub": "miir"}, "exit": {"code": 7},
                 "errors": [{"message": "MIIR_INVALID_PARAM"}]}
            ]
        }));
        let c = case_outcomes(&o);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].name, "fp32_3x3");
        assert_eq!(c[0].selected.as_deref(), Some("ConvBinWinograd3x3U"));
        assert_eq!(c[0].forced, None);
        assert_eq!(c[0].rejected, ["ConvMlirIgemmFwd: not_applicable"]);
        assert_eq!(c[1].outcome, "build_failure/miir");
        assert_eq!(c[1].mode(), "build_failure");
        assert_eq!(c[1].forced.as_deref(), Some("ConvMlirIgemmFwd"));
        assert_eq!(c[1].exit.as_deref(), Some("exit 7"));
        assert_eq!(c[1].errors, ["MIIR_INVALID_PARAM"]);
        assert!(forced_in(&o, None).unwrap().contains("/cases/1"));
        assert_eq!(
            processors_of(&o).into_iter().collect::<Vec<_>>(),
            ["gfx900"]
        );
        let stub = case_stubs(&o);
        assert_eq!(stub[0].world, "gfx900");
        assert_eq!(stub[0].observations, ["o1"]);
    }

    #[test]
    fn survey_verdicts_by_processor() {
        let o = obs(json!({
            "schema": "rocpath.survey/1",
            "observed": {"host": "vega"},
            "root": "/",
            "verdicts": [
                {"target": "gfx900:xnack-", "install": "rocm-6.4.0", "outcome": "partial",
                 "why": "1 of 2", "evidence": {"class": "inferred"},
                 "fallbacks": [{"library": "rocblas/library", "then": "rocBLAS fails"}]}
            ]
        }));
        let r = survey_rows(&o);
        assert_eq!(r.len(), 1);
        assert_eq!(
            (r[0].host.as_str(), r[0].processor.as_str()),
            ("vega", "gfx900")
        );
        assert_eq!(r[0].fallbacks, ["rocblas/library: rocBLAS fails"]);
        assert_eq!(
            processors_of(&o).into_iter().collect::<Vec<_>>(),
            ["gfx900"]
        );
    }

    #[test]
    fn single_case_document() {
        let o = obs(
            json!({"schema": "rocpath.case/1", "case": "int8", "outcome": "natural", "forced": null}),
        );
        let c = case_outcomes(&o);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].pointer, "");
        assert_eq!(forced_in(&o, None), None);
    }
}
