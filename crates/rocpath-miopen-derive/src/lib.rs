//! Reads a MIOpen checkout (ROCm/MIOpen, or `projects/miopen` of ROCm/rocm-libraries) into
//! rocpath's applicability model ([`rocpath_miopen::model::ir::Model`]).
//!
//! 1. Index every C++ file under `src/` (kernels excluded): functions, classes, macros,
//!    constants, environment declarations ([`index`]).
//! 2. Read the registry (`SolverRegistrar` in `src/solver.cpp`): ids by position, the
//!    registered class and algorithm of every convolution solver ([`registry`]).
//! 3. Lower `IsApplicable`, `IsDynamic`, `MayNeedWorkspace` and `GetWti` of each solver (found
//!    in the class or its bases), every `ProblemDescription` member, and everything they call
//!    ([`lower`]).
//! 4. Add the hand-written rules of `rocpath_miopen::model::RULES` — build defaults, release
//!    overlays — and check every cited line against the checkout ([`rules`]).
//!
//! What could not be derived is reported, never guessed: unresolved calls, constructs not
//! translated, solvers without `IsApplicable`, rules whose cited lines changed.

pub mod index;
pub mod lower;
pub mod registry;
pub mod rules;

use rocpath_miopen::model::ir::{BuildFlag, EnvVar, Model, Site, Solver, Source};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why a checkout could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DeriveError {
    /// No `src/solver.cpp` under the given folder or its `projects/miopen`.
    #[error(
        "{0}: not a MIOpen checkout (no src/solver.cpp here or under projects/miopen); give the folder of a ROCm/MIOpen or ROCm/rocm-libraries clone"
    )]
    NotMiopen(PathBuf),
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The registry could not be read.
    #[error("{path}: {why}")]
    Registry {
        /// The file.
        path: PathBuf,
        /// What was missing.
        why: String,
    },
    /// The rules file does not parse.
    #[error("rules: {0}")]
    Rules(#[from] rules::RulesError),
    /// tree-sitter could not be set up.
    #[error("the C++ parser could not be set up")]
    Parser,
}

/// The JSON document of `rocpath explain miopen-derive`: the checkout read, the report, and
/// where the model was written.
#[derive(Debug, Serialize)]
pub struct DeriveDoc<'a> {
    /// The checkout.
    pub source: &'a Source,
    /// What the reading found.
    pub report: &'a Report,
    /// The model file written, if one was.
    pub out: Option<String>,
}

impl Report {
    /// Whether the model carries the checkout whole: no rule drifted, every solver's
    /// `IsApplicable` found.
    pub fn is_complete(&self) -> bool {
        self.rules_drifted.is_empty() && self.solvers_without_is_applicable.is_empty()
    }
}

/// What the reading found that the model could not carry.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Files parsed.
    pub files: usize,
    /// Functions in the model.
    pub functions: usize,
    /// Convolution solvers registered.
    pub solvers: usize,
    /// Solvers without an `IsApplicable` definition found.
    pub solvers_without_is_applicable: Vec<String>,
    /// Calls that found no definition (name → count).
    pub unresolved_calls: BTreeMap<String, u32>,
    /// Constructs not translated (kind → count).
    pub unsupported: BTreeMap<String, u32>,
    /// Build flags named by `#if` that have no release value in the rules.
    pub unknown_build_flags: Vec<String>,
    /// Rules checked against the checkout.
    pub rules_checked: usize,
    /// Rules whose cited lines moved, unchanged (id, the citation in this checkout).
    pub rules_moved: Vec<(String, String)>,
    /// Rules whose cited lines differ in this checkout (id, what differs).
    pub rules_drifted: Vec<(String, String)>,
    /// Rules that cite another repository or commit and were not checked.
    pub rules_not_checked: Vec<String>,
    /// Entry points of the selection path that were not found.
    pub entries_missing: Vec<String>,
}

/// The selection path's entry points beside the solvers: (name in the model, qualified name
/// suffix, parameter count).
pub const ENTRIES: &[(&str, &str, usize)] = &[
    ("IsAlgorithmDisabled", "conv::IsAlgorithmDisabled", 1),
    (
        "IsWinograd3x3SupportedAndFast",
        "ConvolutionDescriptor::IsWinograd3x3SupportedAndFast",
        2,
    ),
    ("TunaNetGetModel", "ai::immed_mode::GetModel", 1),
];

fn entries(ix: &index::Index, lw: &mut lower::Lowerer, report: &mut Report) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    for (name, suffix, nargs) in ENTRIES {
        let last = suffix.rsplit("::").next().unwrap_or(suffix);
        let def = ix
            .by_name
            .get(last)
            .into_iter()
            .flatten()
            .copied()
            .find(|&i| {
                let f = &ix.funcs[i];
                f.qname.ends_with(suffix) && f.params.len() == *nargs
            });
        match def {
            Some(d) => out.push((name.to_string(), lw.function(d))),
            None => report.entries_missing.push(name.to_string()),
        }
    }
    // TunaNet's models, reached through GetModel's object.
    for &i in ix.by_name.get("IsProblemSupported").into_iter().flatten() {
        if ix.funcs[i].qname.contains("immed_mode") {
            lw.function(i);
        }
    }
    out
}

/// Progress of a derivation (files parsed of all).
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// The MIOpen folder of a checkout: the folder itself or its `projects/miopen`.
pub fn miopen_root(root: &Path) -> Result<(PathBuf, String), DeriveError> {
    if root.join("src/solver.cpp").is_file() {
        return Ok((root.to_path_buf(), String::new()));
    }
    let mono = root.join("projects/miopen");
    if mono.join("src/solver.cpp").is_file() {
        return Ok((mono, "projects/miopen".into()));
    }
    Err(DeriveError::NotMiopen(root.to_path_buf()))
}

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), DeriveError> {
    let rd = std::fs::read_dir(dir).map_err(|source| DeriveError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            if name != "kernels" && name != "composable_kernel" && !name.starts_with('.') {
                source_files(&p, out)?;
            }
        } else if name.ends_with(".cpp") || name.ends_with(".hpp") || name.ends_with(".h") {
            out.push(p);
        }
    }
    Ok(())
}

/// Largest MIOpen source file read (the largest real one is about 1 MB).
const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// Every source file under `mroot/src`, parsed into the index (paths relative to `mroot`).
fn index_sources(mroot: &Path, progress: Progress) -> Result<index::Index, DeriveError> {
    let mut files = Vec::new();
    source_files(&mroot.join("src"), &mut files)?;
    let mut ix = index::Index::default();
    let mut parser = index::parser().ok_or(DeriveError::Parser)?;
    let total = files.len();
    for (i, f) in files.iter().enumerate() {
        let (bytes, _held) = rocpath_budget::input::read_bytes(
            f,
            &rocpath_budget::MemoryBudget::default(),
            MAX_SOURCE_BYTES,
            "a MIOpen source file",
        )
        .map_err(|e| DeriveError::Io {
            path: f.clone(),
            source: e.into_io(),
        })?;
        let rel = f
            .strip_prefix(mroot)
            .unwrap_or(f)
            .to_string_lossy()
            .into_owned();
        ix.add_file(&mut parser, rel, bytes);
        progress(i + 1, total);
    }
    Ok(ix)
}

/// The model's notes: solvers without `IsApplicable`, rules that could not be re-derived.
fn notes(report: &Report) -> Vec<String> {
    let missing = report
        .solvers_without_is_applicable
        .iter()
        .map(|s| format!("{s}: no IsApplicable definition found; its verdicts are unresolved"));
    let drifted = report
        .rules_drifted
        .iter()
        .map(|(id, why)| format!("rule {id} could not be re-derived: {why}"));
    missing.chain(drifted).collect()
}

/// Reads the checkout at `root` into a model.
pub fn derive(root: &Path, progress: Progress) -> Result<(Model, Report), DeriveError> {
    let (mroot, prefix) = miopen_root(root)?;
    let head = rocpath_git::head(root);
    let repository = if prefix.is_empty() {
        "ROCm/MIOpen"
    } else {
        "ROCm/rocm-libraries"
    };
    let ix = index_sources(&mroot, progress)?;
    let regs = registry::read(&ix).map_err(|why| DeriveError::Registry {
        path: mroot.join("src/solver.cpp"),
        why,
    })?;
    let rules = rules::load(rocpath_miopen::model::RULES).map_err(DeriveError::Rules)?;
    let mut lw = lower::Lowerer::new(&ix).ok_or(DeriveError::Parser)?;
    let mut report = Report::default();
    let solvers = solvers(&ix, &mut lw, &regs, &mut report);
    // Every ProblemDescription member the solvers may ask for.
    let pd: Vec<usize> = (0..ix.funcs.len())
        .filter(|&i| {
            let f = &ix.funcs[i];
            f.class
                .as_deref()
                .is_some_and(|c| c.ends_with("conv::ProblemDescription"))
                && !rocpath_miopen::model::builtins::is_problem_primitive(&f.name)
        })
        .collect();
    for i in pd {
        lw.function(i);
    }
    let entries = entries(&ix, &mut lw, &mut report);
    lw.drain();
    let mut model_files: Vec<String> = ix.files.iter().map(|(p, _)| p.clone()).collect();
    let rules_file = model_files.len() as u32;
    model_files.push("rocpath:miopen-rules.toml".into());
    let overlays = rules::overlays(&rules, &mut lw, rules_file);
    lw.drain();
    let checked = rules::check(&rules, &mroot, head.commit.as_deref(), repository);
    report.rules_checked = checked.checked;
    report.rules_moved = checked.moved;
    report.rules_drifted = checked.drifted;
    report.rules_not_checked = checked.not_checked;
    let env = env_vars(&ix, &lw);
    let build = build_flags(&ix, &lw, &rules, &mut report);
    report.files = ix.files.len();
    report.functions = lw.funcs.len();
    report.solvers = solvers.len();
    report.unresolved_calls = lw.unresolved.clone();
    report.unsupported = lw.unsupported.clone();
    let notes = notes(&report);
    let model = Model {
        schema: rocpath_docs::schema::MIOPEN_MODEL.id.into(),
        source: Source {
            repository: repository.into(),
            commit: head.commit.unwrap_or_default(),
            prefix,
        },
        files: model_files,
        solvers,
        functions: lw.funcs,
        env,
        build,
        entries,
        rules: rules
            .iter()
            .map(|r| {
                let mut rule = r.to_rule();
                if let Some((_, cite)) = report.rules_moved.iter().find(|(id, _)| *id == r.id) {
                    rule.cite.clone_from(cite);
                }
                rule
            })
            .collect(),
        overlays,
        notes,
    };
    Ok((model, report))
}

fn solvers(
    ix: &index::Index,
    lw: &mut lower::Lowerer,
    regs: &[registry::Registered],
    report: &mut Report,
) -> Vec<Solver> {
    let mut out = Vec::new();
    for r in regs {
        let bases = class_bases(ix, &r.class);
        let find = |lw: &mut lower::Lowerer, name: &str, nargs: usize| {
            member_def(ix, &r.class, name, nargs).map(|d| lw.function(d))
        };
        let is_applicable = find(lw, "IsApplicable", 2);
        if is_applicable.is_none() {
            report.solvers_without_is_applicable.push(r.name.clone());
        }
        let is_dynamic = find(lw, "IsDynamic", 0);
        let may_need_workspace = find(lw, "MayNeedWorkspace", 0);
        let wti = find(lw, "GetWti", 2);
        // The primary template: the definition with the most template parameters.
        let primary = ix
            .class(&r.class)
            .iter()
            .max_by_key(|c| c.template_params.len());
        let template_args = bind_template_args(primary, &r.targs);
        out.push(Solver {
            id: r.id,
            name: r.name.clone(),
            class: r.written.clone(),
            algo: r.algo.clone(),
            site: Site {
                file: r.file,
                line: r.line,
            },
            template_args,
            is_applicable,
            is_dynamic,
            may_need_workspace,
            wti,
            bases,
        });
    }
    out
}

/// The registration's template arguments bound to the class's parameters, defaults filled in
/// (`ConvMPBidirectWinograd<2, 3>`: `WinoDataW = WinoDataH`, `WinoFilterW = WinoFilterH`).
fn bind_template_args(class: Option<&index::ClassDef>, given: &[i64]) -> Vec<(String, i64)> {
    let Some(c) = class else { return Vec::new() };
    let mut out: Vec<(String, i64)> = Vec::new();
    for (i, p) in c.template_params.iter().enumerate() {
        let v = given.get(i).copied().or_else(|| {
            let d = c.template_defaults.get(i)?.as_deref()?.trim();
            d.parse()
                .ok()
                .or_else(|| out.iter().find(|(n, _)| n == d).map(|(_, v)| *v))
        });
        match v {
            Some(v) => out.push((p.clone(), v)),
            None => break,
        }
    }
    out
}

fn class_bases(ix: &index::Index, class: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![class.to_string()];
    while let Some(c) = todo.pop() {
        let last = c.rsplit("::").next().unwrap_or(&c).to_string();
        for cd in ix.class(&last) {
            for b in &cd.bases {
                let bl = b.rsplit("::").next().unwrap_or(b).to_string();
                if !out.contains(&bl) && out.len() < 16 {
                    out.push(bl.clone());
                    todo.push(bl);
                }
            }
        }
    }
    out
}

/// A member of a solver class or its bases (nearest first), preferring definitions with a body
/// in a `solver` namespace.
fn member_def(ix: &index::Index, class: &str, name: &str, nargs: usize) -> Option<usize> {
    let mut order = vec![class.to_string()];
    order.extend(class_bases(ix, class));
    for c in order {
        let found = ix
            .by_name
            .get(name)
            .into_iter()
            .flatten()
            .copied()
            .find(|&i| {
                let f = &ix.funcs[i];
                f.class
                    .as_deref()
                    .is_some_and(|fc| fc.rsplit("::").next() == Some(c.as_str()))
                    && f.params.len() == nargs
            });
        if found.is_some() {
            return found;
        }
    }
    None
}

fn env_vars(ix: &index::Index, lw: &lower::Lowerer) -> Vec<EnvVar> {
    let mut names: Vec<&String> = lw.env_used.iter().collect();
    names.sort();
    let mut out = Vec::new();
    for n in names {
        if let Some(d) = ix.env.get(n.as_str()) {
            out.push(EnvVar {
                name: d.name.clone(),
                kind: d.kind.clone(),
                default: d.default.clone(),
                site: Site {
                    file: d.file,
                    line: d.line,
                },
            });
        }
    }
    // Variables read by rules (use_asm_kernels and friends) are declared elsewhere too.
    for extra in [
        "MIOPEN_DEBUG_GCN_ASM_KERNELS",
        "MIOPEN_DEBUG_HIP_KERNELS",
        "MIOPEN_DEBUG_OPENCL_CONVOLUTIONS",
    ] {
        if !out.iter().any(|e| e.name == extra) {
            if let Some(d) = ix.env.get(extra) {
                out.push(EnvVar {
                    name: d.name.clone(),
                    kind: d.kind.clone(),
                    default: d.default.clone(),
                    site: Site {
                        file: d.file,
                        line: d.line,
                    },
                });
            }
        }
    }
    out
}

fn build_flags(
    ix: &index::Index,
    lw: &lower::Lowerer,
    rules: &[rules::RuleDef],
    report: &mut Report,
) -> Vec<BuildFlag> {
    let mut out = Vec::new();
    let mut names: Vec<&String> = lw.flags_used.iter().collect();
    names.sort();
    for n in names {
        if let Some(r) = rules
            .iter()
            .find(|r| r.build.as_deref() == Some(n.as_str()))
        {
            out.push(BuildFlag {
                name: n.clone(),
                value: r.value.unwrap_or(0),
                from: r.id.clone(),
            });
        } else if let Some(m) = ix.macros.get(n.as_str()) {
            if let Ok(v) = m.text.trim().parse::<i64>() {
                out.push(BuildFlag {
                    name: n.clone(),
                    value: v,
                    from: format!("#define at {}:{}", ix.files[m.file as usize].0, m.line),
                });
                continue;
            }
            report.unknown_build_flags.push(n.clone());
        } else {
            report.unknown_build_flags.push(n.clone());
        }
    }
    out
}

/// Writes a file atomically: a temporary file in the same folder, flushed, then renamed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}
