//! `explain gemm`: which kernel a GEMM takes, per shape and GPU, from the install's catalogs —
//! the route rocBLAS takes (with its cited steps), the tree walk, the chosen solution and its
//! runners-up, the code object that must hold the kernel, and the fallback when nothing fits.
//!
//! The model is `rocpath-gemm` (Tensile's host library and rocBLAS 6.4.4's routing, read from
//! their source); this module turns one prediction into a document with evidence: a prediction
//! is `inferred` (the catalogs were read: `shipped_artifact_verified`; the rules are code read
//! from source) until a trace of the same call agrees.

use rocpath_arch::TargetId;
use rocpath_budget::MemoryBudget;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_gemm::lite::{self, LiteLibrary, LiteLoadError, Matmul, Rank0};
use rocpath_gemm::rocblas::{self, Call, Cited, Route, Settings};
use rocpath_gemm::trace::{Near, StepKind, Trace};
use rocpath_gemm::{Device, Found, Library, LoadError, Problem, Walk};
use serde::Serialize;

/// The document's types (`rocpath.explain.gemm/1`), defined next to the model in
/// `rocpath-gemm`.
pub use rocpath_gemm::doc::{
    Backend, CallDoc, ChosenDoc, CodeObjectDoc, FillInDoc, GemmDoc, GemmExplanation, GemmOutcome,
    LiteDoc, RankDoc, RankFrom,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Where the selection rules come from, for citations.
pub const TENSILE_SOURCE: &str = "ROCm/Tensile@be49885f";
/// The routing's source.
pub const ROCBLAS_SOURCE: &str = "rocBLAS 6.4.4 (Debian rocblas_6.4.4.orig.tar.gz)";

/// Catalog folders opened so far, by folder and processor, and the code objects read; shared
/// by the threads of a sweep (each folder and each code object is read once, by the first thread
/// that needs it, while the others wait for it).
#[derive(Default)]
pub struct Libraries {
    open: Cells<(PathBuf, String), Result<Arc<Library>, LoadError>>,
    lite: Cells<(PathBuf, String), Result<Arc<LiteLibrary>, LiteLoadError>>,
    objects: Cells<PathBuf, ObjectRead>,
    budget: Option<MemoryBudget>,
    /// A TensileLite switch of the run's environment the model does not follow.
    lite_switch: Option<String>,
}

/// What selection needs of a code object: its target and kernel names.
struct Object {
    target: TargetId,
    version: Option<u8>,
    kernels: std::collections::HashSet<String>,
}

/// A value computed once, by whichever thread asks first.
type Cell<T> = Arc<OnceLock<T>>;

/// The cells of a cache, by key.
type Cells<K, T> = Mutex<HashMap<K, Cell<T>>>;

/// A code object's read (`None`: the file is absent).
type ObjectRead = Option<Result<Vec<Object>, String>>;

/// The cell of `key` in `map`, made empty when new (a poisoned lock still holds the map).
fn cell<K: std::hash::Hash + Eq, T>(map: &Cells<K, T>, key: K) -> Cell<T> {
    let mut m = map
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    m.entry(key).or_default().clone()
}

impl Libraries {
    /// Libraries charged to `budget`.
    pub fn new(budget: MemoryBudget) -> Self {
        Libraries {
            budget: Some(budget),
            ..Libraries::default()
        }
    }

    /// Libraries for a run whose environment `get` reads (hipBLASLt's answers are
    /// `unresolved` under a TensileLite switch the model does not follow).
    pub fn with_env(mut self, get: impl Fn(&str) -> Option<String>) -> Self {
        self.lite_switch = lite::unmodelled_switch(get);
        self
    }

    /// The library of `dir` for `processor`, opened once.
    pub fn get(&self, dir: &Path, processor: &str) -> Result<Arc<Library>, LoadError> {
        let budget = self.budget.clone().unwrap_or_default();
        cell(&self.open, (dir.to_path_buf(), processor.to_string()))
            .get_or_init(|| Library::open(dir, processor, &budget).map(Arc::new))
            .clone()
    }

    /// The hipBLASLt library of `dir` for `processor`, opened once (`from_env`: `dir` stands for
    /// `HIPBLASLT_TENSILE_LIBPATH`, no `<processor>` sub-folder is looked for).
    pub fn get_lite(
        &self,
        dir: &Path,
        processor: &str,
        from_env: bool,
    ) -> Result<Arc<LiteLibrary>, LiteLoadError> {
        let budget = self.budget.clone().unwrap_or_default();
        cell(&self.lite, (dir.to_path_buf(), processor.to_string()))
            .get_or_init(|| LiteLibrary::open(dir, processor, from_env, &budget).map(Arc::new))
            .clone()
    }

    /// A code object's targets and kernels, read once (`None`: the file is absent): one for an
    /// ELF file, one per device entry for a clang offload bundle (`CCOB` compressed or not, as
    /// hipBLASLt ships its `.co` files).
    fn object(&self, path: &Path) -> Cell<ObjectRead> {
        let budget = self.budget.clone().unwrap_or_default();
        let c = cell(&self.objects, path.to_path_buf());
        c.get_or_init(|| {
            let meta = std::fs::metadata(path).ok()?;
            if !meta.is_file() {
                return None;
            }
            if meta.len() > rocpath_gemm::library::MAX_FILE_BYTES {
                return Some(Err(format!(
                    "{} bytes, larger than any code object read here",
                    meta.len()
                )));
            }
            let bytes = match std::fs::read(path) {
                Ok(b) => b,
                Err(e) => return Some(Err(e.to_string())),
            };
            Some(objects_of(&bytes, &budget))
        });
        c
    }
}

fn object_of(bytes: &[u8]) -> Result<Object, String> {
    rocpath_codeobj::parse(bytes)
        .map_err(|e| e.to_string())
        .map(|co| Object {
            target: co.target_id.clone(),
            version: co.version,
            kernels: co.kernels.into_iter().map(|k| k.name).collect(),
        })
}

/// The device code objects of a file: the ELF itself, or every device entry of a bundle.
fn objects_of(bytes: &[u8], budget: &MemoryBudget) -> Result<Vec<Object>, String> {
    use rocpath_sources::bundle;
    let limits = rocpath_sources::Limits {
        memory: budget.clone(),
        ..rocpath_sources::Limits::default()
    };
    let payload;
    let data: &[u8] = if bytes.starts_with(bundle::CCOB_MAGIC) {
        payload = bundle::decompress_ccob(bytes, &limits)
            .map_err(|e| e.to_string())?
            .1;
        &payload
    } else {
        bytes
    };
    if !data.starts_with(bundle::BUNDLE_MAGIC) {
        return object_of(data).map(|o| vec![o]);
    }
    let h = bundle::parse_bundle_header(data, Some(data.len() as u64), &limits)
        .map_err(|e| e.to_string())?;
    h.entries
        .iter()
        .filter(|e| !e.is_host() && e.size > 0)
        .map(|e| {
            let start = usize::try_from(e.offset).unwrap_or(usize::MAX);
            let end = start.saturating_add(usize::try_from(e.size).unwrap_or(usize::MAX));
            data.get(start..end)
                .ok_or_else(|| format!("bundle entry {} runs past the file", e.id))
                .and_then(object_of)
        })
        .collect()
}

fn ev(class: Class, kind: Proof, rule: &str) -> Evidence {
    Evidence::new(class, kind, rule)
}

fn src(cite: &str) -> Locator {
    Locator::file(format!("{TENSILE_SOURCE}:{cite}"))
}

/// Explains `call` on `dev` with the catalogs of `dir`.
pub fn explain(
    libs: &Libraries,
    dir: &Path,
    call: &Call,
    dev: &Device,
    settings: &Settings,
    trace: bool,
) -> GemmExplanation {
    explain_with(libs, dir, call, dev, settings, trace, None)
}

/// [`explain`], with a hipBLASLt library folder (`(folder, from_env)`) that answers the calls
/// rocBLAS routes to hipBLASLt: its choice is what runs; Tensile's is the fallback rocBLAS takes
/// when hipBLASLt finds nothing (`tensile_host.cpp:1119-1147`).
pub fn explain_with(
    libs: &Libraries,
    dir: &Path,
    call: &Call,
    dev: &Device,
    settings: &Settings,
    trace: bool,
    hipblaslt: Option<(&Path, bool)>,
) -> GemmExplanation {
    let (route, steps) = rocblas::route(call, settings, dev);
    let mut out = GemmExplanation {
        call: CallDoc::Rocblas(call.clone()),
        device: dev.clone(),
        library_dir: dir.display().to_string(),
        catalog: None,
        route: steps,
        backend: Backend::Tensile,
        problem: None,
        walk: None,
        chosen: None,
        runners_up: Vec::new(),
        fallbacks: Vec::new(),
        outcome: GemmOutcome::Unresolved,
        unresolved: None,
        evidence: ev(Class::Inferred, Proof::CodeVerified, "explain.gemm.route"),
        hipblaslt: None,
    };
    let problem = match route {
        Route::Invalid { status, why } => {
            out.backend = Backend::Invalid;
            out.outcome = GemmOutcome::Invalid;
            out.route.push(Cited {
                text: format!("{} → {status}", why.text),
                cite: why.cite,
            });
            return out;
        }
        Route::QuickReturn { why } => {
            out.backend = Backend::QuickReturn;
            out.outcome = GemmOutcome::QuickReturn;
            out.route.push(why);
            return out;
        }
        Route::NotImplemented { why } => {
            out.backend = Backend::NotImplemented;
            out.outcome = GemmOutcome::NotImplemented;
            out.route.push(why);
            return out;
        }
        Route::HipBlasLt { why, fallback } => {
            out.backend = Backend::Hipblaslt;
            out.route.push(why);
            ask_hipblaslt(&mut out, libs, call, &fallback, dev, trace, hipblaslt);
            *fallback
        }
        Route::Tensile { problem } => *problem,
    };
    let lib = match libs.get(dir, dev.processor()) {
        Ok(l) => l,
        Err(e) => {
            tensile_load_failed(&mut out, dir, &e);
            out.problem = Some(problem);
            promote_hipblaslt(&mut out);
            return out;
        }
    };
    out.catalog = Some(lib.master.path.display().to_string());
    walk_and_choose(&mut out, libs, &lib, &problem, dev, trace);
    out.problem = Some(problem);
    promote_hipblaslt(&mut out);
    out
}

/// A call rocBLAS routes to hipBLASLt: hipBLASLt's answer (when its folder is given) and the
/// fallback to Tensile that rocBLAS takes when hipBLASLt fails or finds nothing.
fn ask_hipblaslt(
    out: &mut GemmExplanation,
    libs: &Libraries,
    call: &Call,
    fallback: &Problem,
    dev: &Device,
    trace: bool,
    hipblaslt: Option<(&Path, bool)>,
) {
    let asked = hipblaslt.map(|(lt_dir, from_env)| {
        matmul_of_call(call, fallback)
            .map(|m| lite_doc(libs, lt_dir, from_env, m, dev, trace, true))
    });
    if let Some(Err(why)) = &asked {
        out.fallbacks.push(format!(
            "{why}: rocBLAS catches the failure and falls back to Tensile (tensile_host.cpp:1127-1147): the Tensile choice below"
        ));
    } else if let Some(Ok(doc)) = asked {
        let hip_chose = doc.outcome == GemmOutcome::Chosen;
        out.hipblaslt = Some(Box::new(doc));
        if hip_chose {
            // Tensile's choice stays below as the fallback, for reference.
            out.fallbacks.push(
                "hipBLASLt answers (its choice above runs); Tensile's choice below is what rocBLAS would fall back to if hipBLASLt failed (tensile_host.cpp:1127-1147)".into(),
            );
        } else {
            out.fallbacks.push(
                "hipBLASLt gives no solution (or cannot be predicted, see hipblaslt): rocBLAS falls back to Tensile (tensile_host.cpp:1127-1147): the Tensile choice below".into(),
            );
        }
    } else {
        out.fallbacks.push(
            "hipBLASLt first; if it fails or finds nothing, rocBLAS falls back to Tensile (tensile_host.cpp:1127-1147): the Tensile choice below".into(),
        );
    }
}

/// A Tensile folder whose master catalog does not load: `no_catalog` (confirmed) when the
/// processor has none, else `unresolved` with the reason.
fn tensile_load_failed(out: &mut GemmExplanation, dir: &Path, e: &LoadError) {
    let none = matches!(e, LoadError::NoCatalog { .. });
    out.outcome = if none {
        GemmOutcome::NoCatalog
    } else {
        GemmOutcome::Unresolved
    };
    let (class, rule) = if none {
        (Class::Confirmed, "explain.gemm.no_catalog")
    } else {
        (Class::Unresolved, "explain.gemm.unresolved")
    };
    out.unresolved = Some(e.to_string());
    out.evidence = ev(class, Proof::ShippedArtifactVerified, rule)
        .at(Locator::file(dir.display().to_string()))
        .because(e.to_string());
}

/// When hipBLASLt answered a routed call, its choice is what runs: it becomes the explanation's
/// choice and outcome; Tensile's is named among the fallbacks.
fn promote_hipblaslt(out: &mut GemmExplanation) {
    let Some(h) = out.hipblaslt.as_mut() else {
        return;
    };
    match h.outcome {
        GemmOutcome::Chosen => {
            if let Some(w) = out.unresolved.take() {
                out.fallbacks
                    .push(format!("Tensile, the fallback, would not run: {w}"));
            }
            if let Some(t) = out.chosen.take() {
                out.fallbacks.push(format!(
                    "Tensile's choice (the fallback): {} (solution {})",
                    t.name, t.index
                ));
            }
            out.chosen = h.chosen.take();
            out.runners_up = std::mem::take(&mut h.runners_up);
            out.outcome = GemmOutcome::Chosen;
            out.evidence = h.evidence.clone();
        }
        GemmOutcome::Unresolved => {
            out.outcome = GemmOutcome::Unresolved;
            out.unresolved = h.unresolved.clone();
            out.evidence = h.evidence.clone();
        }
        // No solution, or no hipBLASLt catalog for the processor: rocBLAS falls back to Tensile,
        // whose answer stands.
        _ => {}
    }
}

fn walk_and_choose(
    out: &mut GemmExplanation,
    libs: &Libraries,
    lib: &Library,
    p: &Problem,
    dev: &Device,
    trace: bool,
) {
    let mut w = Walk::new(lib, dev, p, trace);
    let mut found = w.run();
    let mut walk = w.trace.take();
    if matches!(found, Found::None) {
        if let Some(q) = rocblas::xf32_fallback(p) {
            out.fallbacks.push(
                "no XF32 solution: rocBLAS retries as FP32 (tensile_host.cpp:1091-1104, 1186-1187)"
                    .into(),
            );
            let mut w2 = Walk::new(lib, dev, &q, trace);
            found = w2.run();
            walk = w2.trace.take().or(walk);
        }
    }
    match found {
        Found::Solution(c) => {
            let Some(s) = c.solution() else {
                out.unresolved = Some("the chosen solution is missing from its file".into());
                return;
            };
            let code_object = code_object(libs, &lib.dir, &c.file, s, &s.name, dev);
            let file = c.file.path.display().to_string();
            out.chosen = Some(ChosenDoc {
                name: s.name.clone(),
                index: s.index,
                file: file.clone(),
                distance: c.distance,
                macro_tile: s.size_mapping.macro_tile,
                depth_u: s.size_mapping.depth_u,
                global_split_u: s.size_mapping.global_split_u,
                source_kernel: s.size_mapping.source_kernel,
                code_object,
                evidence: ev(
                    Class::Inferred,
                    Proof::ShippedArtifactVerified,
                    "explain.gemm.chosen",
                )
                .at(Locator::file(file))
                .at(src(
                    "Tensile/Source/lib/include/Tensile/PropertyMatching.hpp:262",
                ))
                .because("the catalogs' selection tree evaluated as Tensile's host library does"),
            });
            out.runners_up = runners_up(walk.as_ref(), s.index, &s.name);
            out.outcome = GemmOutcome::Chosen;
            out.evidence = ev(
                Class::Inferred,
                Proof::ShippedArtifactVerified,
                "explain.gemm.chosen",
            );
        }
        Found::None => {
            out.outcome = GemmOutcome::NoSolution;
            out.fallbacks.push(
                "no solution fits: rocBLAS prints \"rocBLAS error: No Tensile solution found\" and returns rocblas_status_not_implemented (tensile_host.cpp:1188-1200)".into(),
            );
            out.evidence = ev(
                Class::Inferred,
                Proof::ShippedArtifactVerified,
                "explain.gemm.no_solution",
            );
        }
        Found::Unresolved(why) => {
            out.outcome = GemmOutcome::Unresolved;
            out.evidence = ev(
                Class::Unresolved,
                Proof::ShippedArtifactVerified,
                "explain.gemm.unresolved",
            )
            .because(why.clone());
            out.unresolved = Some(why);
        }
    }
    out.walk = if trace { walk } else { None };
}

/// The nearest entries of the last table walked, other than the chosen solution.
fn runners_up(walk: Option<&Trace>, chosen: i64, name: &str) -> Vec<Near> {
    let Some(t) = walk else { return Vec::new() };
    t.steps
        .iter()
        .rev()
        .find_map(|s| match &s.kind {
            StepKind::Matching { nearest, .. } => Some(nearest.clone()),
            _ => None,
        })
        .unwrap_or_default()
        .into_iter()
        .filter(|n| n.index != Some(chosen) && n.kernel.as_deref() != Some(name))
        .take(4)
        .collect()
}

/// The code object files the adapter tries for a solution of `file`, in order: `<stem>.co`
/// (or `<stem>.hsaco` for a source kernel, `<stem>_<gfx>.hsaco` in a fallback catalog), then
/// its `-xnack-` and `-xnack+` variants.
fn code_object_names(
    file: &rocpath_gemm::library::File,
    s: &rocpath_tensile::catalog::Solution,
    dev: &Device,
) -> Vec<String> {
    let stem = file
        .path
        .file_stem()
        .map(|x| x.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = if s.size_mapping.source_kernel {
        if stem.contains("fallback") {
            format!("{stem}_{}.hsaco", dev.tensile_processor().unwrap_or(""))
        } else {
            format!("{stem}.hsaco")
        }
    } else {
        format!("{stem}.co")
    };
    let dot = name.rfind('.').unwrap_or(name.len());
    ["", "-xnack-", "-xnack+"]
        .iter()
        .map(|v| format!("{}{v}{}", &name[..dot], &name[dot..]))
        .collect()
}

/// The code object the adapter loads for a solution (`PlaceholderLibrary::getCodeObjectFileName`,
/// `PlaceholderLibrary.hpp:147-170`; `HipSolutionAdapter.cpp:287-312`: the name, then with
/// `-xnack-` and `-xnack+` before the extension, the first that loads).
fn code_object(
    libs: &Libraries,
    dir: &Path,
    file: &rocpath_gemm::library::File,
    s: &rocpath_tensile::catalog::Solution,
    kernel: &str,
    dev: &Device,
) -> CodeObjectDoc {
    let candidates = code_object_names(file, s, dev);
    let mut tried = Vec::new();
    for c in &candidates {
        let path = dir.join(c);
        let cell = libs.object(&path);
        let Some(Some(read)) = cell.get() else {
            continue;
        };
        match read.as_ref().map(|cos| loadable(cos, dev)) {
            Err(e) => tried.push(format!("{c}: {e}")),
            Ok(Err(why)) => tried.push(format!("{c} is for {why}")),
            Ok(Ok(co)) => return loaded(c, &path, co, kernel),
        }
    }
    let why = if tried.is_empty() {
        format!("none of {} is present", candidates.join(", "))
    } else {
        tried.join("; ")
    };
    CodeObjectDoc {
        file: dir.join(&candidates[0]).display().to_string(),
        present: false,
        failure: Some(format!(
            "{why}: the kernel cannot be loaded and the launch fails (hipErrorNotFound / \"hipModuleLoad failed\")"
        )),
        evidence: ev(
            Class::Confirmed,
            Proof::ShippedArtifactVerified,
            "explain.gemm.code_object_missing",
        )
        .at(Locator::file(dir.display().to_string())),
    }
}

/// The first code object of a file that loads on `dev`, or why none does (each target with
/// the reason).
fn loadable<'o>(cos: &'o [Object], dev: &Device) -> Result<&'o Object, String> {
    let compat =
        |co: &Object| rocpath_arch::code_object_compat(&co.target, co.version, &dev.target);
    cos.iter()
        .find(|co| !matches!(compat(co), rocpath_arch::Compat::Incompatible { .. }))
        .ok_or_else(|| {
            cos.iter()
                .map(|co| format!("{} ({})", co.target, compat(co).why()))
                .collect::<Vec<_>>()
                .join(", ")
        })
}

/// A code object that loads (`name`, at `path`): it defines the kernel, or the launch fails.
fn loaded(name: &str, path: &Path, co: &Object, kernel: &str) -> CodeObjectDoc {
    let present = co.kernels.contains(kernel);
    let rule = if present {
        "explain.gemm.code_object_present"
    } else {
        "explain.gemm.code_object_missing"
    };
    CodeObjectDoc {
        file: path.display().to_string(),
        present,
        failure: (!present).then(|| {
            format!(
                "{name} loads but does not define {kernel}: the launch fails (hipErrorNotFound, \"Could not find kernel\")"
            )
        }),
        evidence: ev(Class::Confirmed, Proof::ShippedArtifactVerified, rule)
            .at(Locator::file(path.display().to_string())),
    }
}

/// The hipBLASLt version the hipBLASLt rules were read from.
pub const HIPBLASLT_SOURCE: &str = "hipBLASLt 7.1.1 (TensileLite)";

fn lite_src(cite: &str) -> Locator {
    Locator::file(format!("{HIPBLASLT_SOURCE}:{cite}"))
}

fn cited(text: String, cite: &'static str) -> Cited {
    Cited {
        text,
        cite: cite.into(),
    }
}

/// A hipBLASLt library folder that does not load: `no_catalog` (confirmed) when the processor
/// has none, else `unresolved` with the reason.
fn lite_load_failed(d: &mut LiteDoc, dir: &Path, e: &LiteLoadError) {
    let none = matches!(e, LiteLoadError::NoCatalog { .. });
    d.outcome = if none {
        GemmOutcome::NoCatalog
    } else {
        GemmOutcome::Unresolved
    };
    let (class, rule) = if none {
        (Class::Confirmed, "explain.gemm.hipblaslt.no_catalog")
    } else {
        (Class::Unresolved, "explain.gemm.hipblaslt.unresolved")
    };
    d.evidence = ev(class, Proof::ShippedArtifactVerified, rule)
        .at(Locator::file(dir.display().to_string()))
        .because(e.to_string());
    d.unresolved = Some(e.to_string());
}

/// The TensileLite problem hipBLASLt builds, as a step.
fn lite_problem_step(p: &lite::LiteProblem) -> Cited {
    cited(
        format!(
            "problem {} types {} (compute input {}), compute {}, HPA {}, F32XdlMathOp {}, bias {}, activation {} ({}), workspace {} bytes, alpha {}, beta {}",
            p.operation,
            p.types.map(|t| t.name()).join("/"),
            p.compute_input.name(),
            p.compute.name(),
            p.hpa,
            p.f32_xdl.name(),
            if p.use_bias != 0 {
                p.bias_type.name()
            } else {
                "none"
            },
            p.activation,
            p.activation_enum,
            p.workspace,
            p.alpha.name(),
            p.beta
        ),
        "tensile_host.cpp updateTensileProblem; rocblaslt_auxiliary.cpp rocblaslt_matmul_algo_get_heuristic",
    )
}

/// What the tuned tables gave (`findTopSolutions`), as a step.
fn lite_table_step(h: &lite::Heuristic) -> Cited {
    cited(
        match &h.table_unresolved {
            Some(w) => format!("findTopSolutions({}): cannot be decided — {w}", h.requested),
            None => format!(
                "findTopSolutions({}): {} from the tuned tables{}",
                h.requested,
                h.table.len(),
                if h.xf32_retry {
                    " (after the XF32 → FP32 retry: none for XF32)"
                } else {
                    ""
                }
            ),
        },
        "ExactLogicLibrary.hpp:160-184; PropertyMatching.hpp:967-1452; tensile_host.cpp getBestSolutions",
    )
}

/// The fill-in hipBLASLt takes when the tuned tables give fewer solutions than asked.
fn lite_fill_in(d: &mut LiteDoc, h: &lite::Heuristic) {
    match &h.fill {
        lite::FillIn::NotNeeded => {}
        lite::FillIn::Candidates { slots, picks } => {
            let mut idx: Vec<i64> = picks.iter().map(lite::Pick::index).collect();
            idx.sort_unstable();
            let run_dependent = picks.len() > 1;
            d.steps.push(cited(
                format!(
                    "fewer than asked: the fill-in from findAllSolutions(GEMM_TYPE_ONLY) has {} solution(s) isSolutionSupported accepts for {slots} place(s){}",
                    picks.len(),
                    if run_dependent {
                        "; they come in the order of a std::set of pointers — where the solutions lie in memory, which changes from run to run"
                    } else {
                        ""
                    }
                ),
                "rocblaslt_auxiliary.cpp rocblaslt_matmul_algo_get_heuristic; SolutionLibrary.hpp:95-96",
            ));
            d.fill_in = Some(FillInDoc {
                slots: *slots,
                candidates: picks.len(),
                indices: idx.into_iter().take(32).collect(),
                run_dependent,
                unresolved: None,
            });
        }
        lite::FillIn::Unresolved(w) => {
            d.fill_in = Some(FillInDoc {
                slots: h.requested - h.table.len(),
                candidates: 0,
                indices: Vec::new(),
                run_dependent: false,
                unresolved: Some(w.clone()),
            });
        }
    }
}

/// The first solution hipBLASLt returns, into `d`: chosen (from the tables, or a fill-in of
/// one), none, or unresolved (a run-dependent fill-in, or what the model cannot decide).
fn lite_rank0(
    d: &mut LiteDoc,
    libs: &Libraries,
    lib_dir: &Path,
    h: &lite::Heuristic,
    dev: &Device,
    walk: Option<&Trace>,
) {
    match h.rank0() {
        Rank0::Table(pk) | Rank0::FillIn(pk) => {
            let from_table = !h.table.is_empty();
            if let Some(s) = pk.solution() {
                let kernel = s.kernel_name.as_deref().unwrap_or(&s.name);
                let code_object = code_object(libs, lib_dir, &pk.file, s, kernel, dev);
                let file = pk.file.path.display().to_string();
                let rule = if from_table {
                    "explain.gemm.hipblaslt.chosen"
                } else {
                    "explain.gemm.hipblaslt.fill_in_single"
                };
                d.chosen = Some(ChosenDoc {
                    name: s.name.clone(),
                    index: s.index,
                    file: file.clone(),
                    distance: pk.distance,
                    macro_tile: s.size_mapping.macro_tile,
                    depth_u: s.size_mapping.depth_u,
                    global_split_u: s.size_mapping.global_split_u,
                    source_kernel: s.size_mapping.source_kernel,
                    code_object,
                    evidence: ev(Class::Inferred, Proof::ShippedArtifactVerified, rule)
                        .at(Locator::file(file))
                        .at(lite_src(if from_table {
                            "PropertyMatching.hpp:967"
                        } else {
                            "rocblaslt_auxiliary.cpp rocblaslt_matmul_algo_get_heuristic"
                        }))
                        .because(if from_table {
                            "hipBLASLt's tuned tables evaluated as TensileLite's host library does"
                        } else {
                            "the tuned tables give nothing; the fill-in has exactly one solution, so its order does not matter"
                        }),
                });
                d.runners_up = runners_up(walk, s.index, &s.name);
                d.outcome = GemmOutcome::Chosen;
                d.evidence = ev(Class::Inferred, Proof::ShippedArtifactVerified, rule);
            } else {
                d.unresolved = Some("the chosen solution is missing from its file".into());
            }
        }
        Rank0::None => {
            d.outcome = GemmOutcome::NoSolution;
            d.evidence = ev(
                Class::Inferred,
                Proof::ShippedArtifactVerified,
                "explain.gemm.hipblaslt.no_solution",
            )
            .because("neither the tuned tables nor the fill-in accept the problem: hipBLASLt returns 0 algorithms");
        }
        Rank0::Unresolved(w) => {
            let run_dependent = d.fill_in.as_ref().is_some_and(|f| f.run_dependent);
            d.evidence = ev(
                Class::Unresolved,
                Proof::ShippedArtifactVerified,
                if run_dependent {
                    "explain.gemm.hipblaslt.run_dependent"
                } else {
                    "explain.gemm.hipblaslt.unresolved"
                },
            )
            .because(w.clone());
            d.unresolved = Some(w);
        }
    }
}

/// The document of a query not yet answered (`unresolved` until it is).
fn asked(dir: &Path, m: Matmul) -> LiteDoc {
    LiteDoc {
        library_dir: dir.display().to_string(),
        catalog: None,
        matmul: m,
        problem: None,
        steps: Vec::new(),
        walk: None,
        ranks: Vec::new(),
        fill_in: None,
        chosen: None,
        runners_up: Vec::new(),
        outcome: GemmOutcome::Unresolved,
        unresolved: None,
        evidence: ev(
            Class::Unresolved,
            Proof::ShippedArtifactVerified,
            "explain.gemm.hipblaslt.unresolved",
        ),
    }
}

/// The solutions a query returns, rank by rank, as far as they are determined.
fn rank_docs(h: &lite::Heuristic) -> Vec<RankDoc> {
    h.determined_ranks()
        .iter()
        .enumerate()
        .map(|(r, pk)| RankDoc {
            rank: r,
            index: pk.index(),
            name: pk.solution().map(|s| s.name.clone()).unwrap_or_default(),
            file: pk.file.path.display().to_string(),
            from: if r >= h.table.len() {
                RankFrom::FillIn
            } else {
                RankFrom::Table
            },
            key: pk.key.clone(),
        })
        .collect()
}

/// hipBLASLt's answer for `m` on `dev` with the library folder `dir` (`from_env`: `dir` is
/// `HIPBLASLT_TENSILE_LIBPATH`); `routed`: the query comes from rocBLAS (hipblaslt_ext).
pub fn lite_doc(
    libs: &Libraries,
    dir: &Path,
    from_env: bool,
    m: Matmul,
    dev: &Device,
    trace: bool,
    routed: bool,
) -> LiteDoc {
    let mut d = asked(dir, m);
    if routed {
        d.steps.push(cited(
            format!(
                "rocBLAS asks hipblaslt_ext::Gemm::algoGetHeuristic for 1 solution with the handle's workspace ({} bytes) as the preference, the call's alpha and beta",
                d.matmul.workspace
            ),
            "rocBLAS hipblaslt_host.cpp:283-345; hipBLASLt rocblaslt_auxiliary.cpp rocblaslt_algo_get_heuristic_cpp",
        ));
    }
    if let Some(why) = &libs.lite_switch {
        d.evidence = d.evidence.because(why.clone());
        d.unresolved = Some(why.clone());
        return d;
    }
    let lib = match libs.get_lite(dir, dev.processor(), from_env) {
        Ok(l) => l,
        Err(e) => {
            lite_load_failed(&mut d, dir, &e);
            return d;
        }
    };
    d.catalog = Some(lib.master.path.display().to_string());
    d.steps.push(cited(
        format!(
            "library {} ({}), master {}",
            lib.dir.display(),
            if from_env {
                "HIPBLASLT_TENSILE_LIBPATH"
            } else {
                "the default path, its <processor> sub-folder when there is one"
            },
            lib.master.name()
        ),
        "tensile_host.cpp TensileHost::initialize (hipBLASLt 7.1.1)",
    ));
    let h = match lite::heuristic(&lib, dev, &d.matmul, trace) {
        Ok(h) => h,
        Err(e) => {
            d.evidence = d.evidence.because(e.clone());
            d.unresolved = Some(e);
            return d;
        }
    };
    if let Some(why) = h.built.zeroed {
        d.steps.push(cited(
            format!("validateMatmulArgs refuses the arguments ({why}): the query runs on an all-zero problem"),
            "rocblaslt_mat_utils.hpp validateMatmulArgs; construct_rocblaslt_problem",
        ));
    }
    d.steps.push(lite_problem_step(&h.built.problem));
    d.steps.push(lite_table_step(&h));
    lite_fill_in(&mut d, &h);
    d.ranks = rank_docs(&h);
    d.problem = Some(h.built.problem.clone());
    let walk = h.trace.clone();
    lite_rank0(&mut d, libs, &lib.dir, &h, dev, walk.as_ref());
    d.walk = if trace { walk } else { None };
    d
}

/// Explains a hipBLASLt heuristic query on its own (a hipBLASLt library folder given):
/// the explanation's choice is hipBLASLt's first solution.
pub fn explain_hipblaslt(
    libs: &Libraries,
    dir: &Path,
    from_env: bool,
    m: &Matmul,
    dev: &Device,
    trace: bool,
) -> GemmExplanation {
    let mut d = lite_doc(libs, dir, from_env, m.clone(), dev, trace, false);
    let mut out = GemmExplanation {
        call: CallDoc::Hipblaslt {
            api: "hipblaslt_matmul".into(),
            matmul: m.clone(),
        },
        device: dev.clone(),
        library_dir: dir.display().to_string(),
        catalog: d.catalog.clone(),
        route: std::mem::take(&mut d.steps),
        backend: Backend::Hipblaslt,
        problem: None,
        walk: d.walk.take(),
        chosen: d.chosen.take(),
        runners_up: std::mem::take(&mut d.runners_up),
        fallbacks: Vec::new(),
        outcome: d.outcome,
        unresolved: d.unresolved.clone(),
        evidence: d.evidence.clone(),
        hipblaslt: None,
    };
    if let Some(f) = &d.fill_in {
        if f.run_dependent {
            out.fallbacks.push(format!(
                "the tuned tables give nothing: hipBLASLt fills in from {} candidate solutions (indices {}…) in memory order — run-dependent",
                f.candidates,
                f.indices
                    .iter()
                    .take(6)
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    if out.outcome == GemmOutcome::NoSolution {
        out.fallbacks.push(
            "no solution: hipblasLtMatmulAlgoGetHeuristic returns 0 algorithms (returnAlgoCount 0)"
                .into(),
        );
    }
    out.hipblaslt = Some(Box::new(d));
    out
}

/// The matmul rocBLAS hands hipBLASLt for a routed call (`ConstructHipBlasLTGemm`,
/// rocBLAS 6.4.4 `hipblaslt_host.cpp:134-190`; the compute type of the instantiation's `Tc`,
/// :80-96: f16 → 16F, f32/bf16 accumulation → 32F, f64 → 64F, i32 → 32I), with the handle's
/// workspace as the preference (:293-296) and the call's alpha and beta.
pub fn matmul_of_call(c: &Call, p: &Problem) -> Result<Matmul, String> {
    use lite::{ComputeType, HipType};
    use rocpath_gemm::rocblas::{Api, BlasType};
    if matches!(c.api, Api::GemmBatched | Api::GemmBatchedEx) {
        return Err("a batched-by-pointer call goes to hipBLASLt's grouped GEMM (hipblaslt_host.cpp:199-281), which this model does not cover".into());
    }
    if c.types
        .iter()
        .any(|t| matches!(t, BlasType::C32 | BlasType::C64))
    {
        return Err("hipBLASLt has no complex types (hipDataType_to_tensile_type refuses HIP_C_32F/HIP_C_64F)".into());
    }
    let ty = |t: BlasType| match t {
        BlasType::F16 => HipType::F16,
        BlasType::Bf16 => HipType::Bf16,
        BlasType::F32 | BlasType::C32 => HipType::F32,
        BlasType::F64 | BlasType::C64 => HipType::F64,
        BlasType::I8 => HipType::I8,
        BlasType::I32 => HipType::I32,
    };
    let compute = match c.compute {
        BlasType::F16 => ComputeType::F16,
        BlasType::F64 | BlasType::C64 => ComputeType::F64,
        BlasType::I32 => ComputeType::I32,
        _ => ComputeType::F32,
    };
    let g = &p.gemm;
    let mut m = Matmul::simple(
        ty(c.types[0]),
        ty(c.types[3]),
        compute,
        g.trans,
        g.m as i64,
        g.n as i64,
        c.k,
    );
    m.types = [
        ty(c.types[0]),
        ty(c.types[1]),
        ty(c.types[3]),
        ty(c.types[3]),
    ];
    m.batch = g.batch as i64;
    m.ld = g.ld.map(|v| v as i64);
    m.stride = g.batch_stride.map(|v| v as i64);
    m.workspace = p.modes.workspace;
    m.alpha = c.alpha;
    m.beta = c.beta;
    Ok(m)
}

/// A hipBLASLt matmul as flags describe it: `--type` f16 → f16 out with f32 compute (HPA),
/// bf16 likewise, f32, xf32 (f32 with XF32 compute), f64, i8 → i32, f8/bf8 → f16 with f32
/// compute; `--output-type`, `--compute-type` override; `--batch` → packed strides; the
/// epilogue's bias and activation; the count asked and the preference's workspace (0 unless
/// given, hipBLASLt's default).
pub fn matmul_from(s: &Spec) -> Result<Matmul, SpecError> {
    use lite::{Activation, ComputeType, HipType};
    let ty = s.ty.to_ascii_lowercase();
    let xf32 = ty == "xf32";
    let input = if xf32 {
        HipType::F32
    } else {
        HipType::parse(&ty).ok_or_else(|| {
            SpecError::word(
                "type",
                &ty,
                "f16, bf16, f32, xf32, f64, i8, f8 or bf8 for hipBLASLt",
            )
        })?
    };
    let (out_default, compute_default) = match input {
        HipType::F16 => (HipType::F16, ComputeType::F32),
        HipType::Bf16 => (HipType::Bf16, ComputeType::F32),
        HipType::F64 => (HipType::F64, ComputeType::F64),
        HipType::I8 => (HipType::I32, ComputeType::I32),
        HipType::F8 | HipType::Bf8 | HipType::F8Fnuz | HipType::Bf8Fnuz => {
            (HipType::F16, ComputeType::F32)
        }
        _ if xf32 => (HipType::F32, ComputeType::Xf32),
        t => (t, ComputeType::F32),
    };
    let output = match s.output.as_deref() {
        Some(o) => HipType::parse(o).ok_or_else(|| SpecError::not_a_type("output-type", o))?,
        None => out_default,
    };
    let compute = match s.compute.as_deref() {
        Some(c) => ComputeType::parse(c)
            .ok_or_else(|| SpecError::word("compute-type", c, "f16, f32, xf32, f64 or i32"))?,
        None => compute_default,
    };
    let op =
        |v: &str| rocpath_gemm::Op::parse(v).ok_or_else(|| SpecError::Transposition(v.to_string()));
    let trans = [op(&s.trans[0])?, op(&s.trans[1])?];
    let (m, n, k) = s.mnk;
    let mut mm = Matmul::simple(input, output, compute, trans, m, n, k);
    for (i, v) in s.ld.iter().enumerate() {
        if let Some(v) = v {
            mm.ld[i] = *v;
        }
    }
    mm.ld[3] = mm.ld[2];
    if let Some(b) = s.batch {
        mm.batch = b;
        let cols_a = if trans[0] == rocpath_gemm::Op::N {
            k
        } else {
            m
        };
        let cols_b = if trans[1] == rocpath_gemm::Op::N {
            n
        } else {
            k
        };
        mm.stride = [
            mm.ld[0] * cols_a,
            mm.ld[1] * cols_b,
            mm.ld[2] * n,
            mm.ld[3] * n,
        ];
    }
    if let Some(b) = &s.bias {
        mm.bias = true;
        if !b.is_empty() && b != "default" {
            mm.bias_type = Some(HipType::parse(b).ok_or_else(|| SpecError::not_a_type("bias", b))?);
        }
    }
    if let Some(a) = &s.activation {
        mm.activation = Activation::parse(a)
            .ok_or_else(|| SpecError::word("activation", a, "none, relu or gelu"))?;
    }
    if let Some(r) = s.requested {
        if r < 1 {
            return Err(SpecError::NoneRequested);
        }
        mm.requested = r;
    }
    mm.workspace = s.workspace.unwrap_or(0);
    Ok(mm)
}

/// A device from a target id and an optional CU count (the processor's usual count otherwise).
pub fn device(target: &TargetId, cu: Option<u32>) -> Result<Device, SpecError> {
    let cu = match cu {
        Some(c) => c,
        None => *rocpath_gemm::device::usual_cu_counts(&target.processor)
            .first()
            .ok_or_else(|| SpecError::NoCuCount(target.processor.clone()))?,
    };
    Ok(Device::new(target.clone(), cu))
}

/// A call as flags describe it (the CLI's shape flags).
#[derive(Debug, Clone, Default)]
pub struct Spec {
    /// `--type`.
    pub ty: String,
    /// `--compute-type`.
    pub compute: Option<String>,
    /// `--output-type`.
    pub output: Option<String>,
    /// `--api`.
    pub api: Option<String>,
    /// `--trans-a`, `--trans-b`.
    pub trans: [String; 2],
    /// M, N, K.
    pub mnk: (i64, i64, i64),
    /// `--batch`.
    pub batch: Option<i64>,
    /// `--lda`, `--ldb`, `--ldc`.
    pub ld: [Option<i64>; 3],
    /// alpha, beta.
    pub alpha: f64,
    /// beta.
    pub beta: f64,
    /// hipBLASLt: the epilogue adds a bias (`""`: of the default type).
    pub bias: Option<String>,
    /// hipBLASLt: the epilogue's activation.
    pub activation: Option<String>,
    /// hipBLASLt: solutions asked for.
    pub requested: Option<usize>,
    /// hipBLASLt: the preference's workspace, bytes.
    pub workspace: Option<u64>,
}

/// The rocBLAS call flags describe: `f32` → `sgemm`, `f16` → `hgemm` (`gemm_ex` with
/// `--compute-type f32`), `bf16` and `i8` → `gemm_ex` (float / int32 accumulation), `xf32` →
/// `sgemm` under the XF32 math mode; `--batch` → the strided-batched form with packed strides.
pub fn call_from(s: &Spec) -> Result<Call, SpecError> {
    use rocpath_gemm::rocblas::{Api, BlasType};
    let ty = s.ty.to_ascii_lowercase();
    let xf32 = ty == "xf32";
    let input = if xf32 {
        BlasType::F32
    } else {
        BlasType::parse(&ty).ok_or_else(|| {
            SpecError::word("type", &ty, "f32, f64, f16, bf16, i8, xf32, c32 or c64")
        })?
    };
    let parse = |v: &Option<String>, what: &'static str| -> Result<Option<BlasType>, SpecError> {
        v.as_deref()
            .map(|x| BlasType::parse(x).ok_or_else(|| SpecError::not_a_type(what, x)))
            .transpose()
    };
    let (out_default, compute_default) = match input {
        BlasType::Bf16 => (BlasType::Bf16, BlasType::F32),
        BlasType::I8 => (BlasType::I32, BlasType::I32),
        t => (t, t),
    };
    let output = parse(&s.output, "output-type")?.unwrap_or(out_default);
    let compute = parse(&s.compute, "compute-type")?.unwrap_or(if output == BlasType::F32 {
        BlasType::F32
    } else {
        compute_default
    });
    let op =
        |v: &str| rocpath_gemm::Op::parse(v).ok_or_else(|| SpecError::Transposition(v.to_string()));
    let trans = [op(&s.trans[0])?, op(&s.trans[1])?];
    let (m, n, k) = s.mnk;
    let mut c = Call::simple(input, trans, m, n, k);
    let typed = output == input && compute == input;
    let batched = s.batch.is_some();
    c.api = match s.api.as_deref() {
        Some(a) => Api::parse(a).ok_or_else(|| SpecError::word("api", a, "gemm, gemm_strided_batched, gemm_batched, gemm_ex, gemm_strided_batched_ex or gemm_batched_ex"))?,
        None => match (typed, batched) {
            (true, false) => Api::Gemm,
            (true, true) => Api::GemmStridedBatched,
            (false, false) => Api::GemmEx,
            (false, true) => Api::GemmStridedBatchedEx,
        },
    };
    c.types = [input, input, output, output];
    c.compute = compute;
    c.xf32 = xf32;
    for (i, v) in s.ld.iter().enumerate() {
        if let Some(v) = v {
            c.ld[i] = *v;
        }
    }
    c.ld[3] = c.ld[2];
    c.batch = s.batch.unwrap_or(1);
    let cols_a = if trans[0] == rocpath_gemm::Op::N {
        k
    } else {
        m
    };
    let cols_b = if trans[1] == rocpath_gemm::Op::N {
        n
    } else {
        k
    };
    c.stride = [c.ld[0] * cols_a, c.ld[1] * cols_b, c.ld[2] * n, c.ld[3] * n];
    c.alpha = s.alpha;
    c.beta = s.beta;
    Ok(c)
}

/// `MxNxK` → (M, N, K).
pub fn parse_shape(s: &str) -> Result<(i64, i64, i64), SpecError> {
    let v: Vec<&str> = s.trim().split(['x', 'X']).collect();
    let n = |t: &str| {
        t.trim()
            .parse::<i64>()
            .map_err(|_| SpecError::Shape(s.to_string()))
    };
    match v[..] {
        [m, nn, k] => Ok((n(m)?, n(nn)?, n(k)?)),
        _ => Err(SpecError::Shape(s.to_string())),
    }
}

/// Why flags do not describe a call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// A flag's value that is not one of the words it takes.
    #[error("--{flag} {value:?}: use {takes}")]
    Word {
        /// The flag, without its dashes.
        flag: &'static str,
        /// The value given.
        value: String,
        /// The words it takes.
        takes: &'static str,
    },
    /// A type flag's value that is not a type.
    #[error("--{flag} {value:?} is not a type")]
    NotAType {
        /// The flag, without its dashes.
        flag: &'static str,
        /// The value given.
        value: String,
    },
    /// A transposition that is not N, T or C.
    #[error("transposition {0:?}: use N, T or C")]
    Transposition(String),
    /// A shape that is not `MxNxK`.
    #[error("shape {0:?}: write MxNxK, e.g. 4096x4096x4096")]
    Shape(String),
    /// `--requested 0`.
    #[error("--requested: at least 1 (hipBLASLt refuses 0)")]
    NoneRequested,
    /// A processor without a usual compute-unit count, and no `--cu`.
    #[error("no usual CU count known for {0}: give --cu")]
    NoCuCount(String),
}

impl SpecError {
    fn word(flag: &'static str, value: &str, takes: &'static str) -> SpecError {
        SpecError::Word {
            flag,
            value: value.to_string(),
            takes,
        }
    }

    fn not_a_type(flag: &'static str, value: &str) -> SpecError {
        SpecError::NotAType {
            flag,
            value: value.to_string(),
        }
    }
}

/// rocBLAS's catalog folders on this machine: `$ROCBLAS_TENSILE_LIBPATH`, else the usual
/// install places (`/opt/rocm*/lib/rocblas/library`, `/usr/lib/*/rocblas/*/library`).
pub fn default_dirs() -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os("ROCBLAS_TENSILE_LIBPATH") {
        return vec![PathBuf::from(p)];
    }
    let mut out = Vec::new();
    let mut look = |base: &Path, depth: usize| {
        let mut stack = vec![(base.to_path_buf(), 0)];
        while let Some((d, lvl)) = stack.pop() {
            if d.ends_with("rocblas/library")
                || (d.file_name().is_some_and(|n| n == "library")
                    && d.parent()
                        .and_then(|p| p.parent())
                        .is_some_and(|g| g.ends_with("rocblas")))
            {
                out.push(d);
                continue;
            }
            if lvl >= depth {
                continue;
            }
            if let Ok(rd) = std::fs::read_dir(&d) {
                let mut subs: Vec<PathBuf> = rd
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect();
                subs.sort();
                stack.extend(subs.into_iter().rev().map(|p| (p, lvl + 1)));
            }
        }
    };
    if let Ok(rd) = std::fs::read_dir("/opt") {
        let mut roots: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("rocm"))
            })
            .collect();
        roots.sort();
        for r in roots {
            look(&r.join("lib").join("rocblas"), 2);
        }
    }
    look(Path::new("/usr/lib"), 4);
    out.sort();
    out.dedup();
    out
}

/// hipBLASLt's library folders on this machine: `$HIPBLASLT_TENSILE_LIBPATH`, else the usual
/// install places (`/opt/rocm*/lib/hipblaslt/library`, `/usr/lib/*/hipblaslt/library`).
pub fn default_hipblaslt_dirs() -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os("HIPBLASLT_TENSILE_LIBPATH") {
        return vec![PathBuf::from(p)];
    }
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir("/opt") {
        let mut roots: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("rocm"))
            })
            .collect();
        roots.sort();
        out.extend(
            roots
                .into_iter()
                .map(|r| r.join("lib/hipblaslt/library"))
                .filter(|d| d.is_dir()),
        );
    }
    if let Ok(rd) = std::fs::read_dir("/usr/lib") {
        let mut v: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path().join("hipblaslt/library"))
            .filter(|d| d.is_dir())
            .collect();
        v.sort();
        out.extend(v);
    }
    out
}

/// Where a kernel is in the catalogs: its file, index, and the tuned sizes that lead to it.
#[derive(Debug, Clone, Serialize)]
pub struct KernelEntry {
    /// The catalog file.
    pub file: String,
    /// The solution index.
    pub index: i64,
    /// The problem type (`Contraction_l_Alik_Bljk_Cijk_Dijk`, types).
    pub operation: String,
    /// Data types A/B/C/D.
    pub types: String,
    /// Keys of the matching-table entries that name it (the tuned sizes it was chosen for).
    pub tuned_sizes: Vec<Vec<i64>>,
    /// Properties of those keys.
    pub properties: Vec<String>,
    /// Evidence.
    pub evidence: Evidence,
}

/// Every catalog file under `dirs` that holds a solution named `kernel` (a processor's files
/// only, when given).
pub fn find_kernel(
    dirs: &[PathBuf],
    kernel: &str,
    processor: Option<&str>,
    budget: &MemoryBudget,
) -> (Vec<KernelEntry>, Vec<String>) {
    let names = std::collections::BTreeSet::from([kernel.to_string()]);
    let (mut found, errors) = find_kernels(dirs, &names, processor, budget);
    (found.remove(kernel).unwrap_or_default(), errors)
}

/// [`find_kernel`] for many names at once: each catalog file is read once.
pub fn find_kernels(
    dirs: &[PathBuf],
    names: &std::collections::BTreeSet<String>,
    processor: Option<&str>,
    budget: &MemoryBudget,
) -> (HashMap<String, Vec<KernelEntry>>, Vec<String>) {
    let mut found: HashMap<String, Vec<KernelEntry>> = HashMap::new();
    let mut errors = Vec::new();
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let n = p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                n.starts_with("TensileLibrary")
                    && (n.ends_with(".dat") || n.ends_with(".yaml"))
                    && !n.contains("_lazy_")
                    && processor.is_none_or(|pr| n.contains(pr) || n.contains("fallback"))
            })
            .collect();
        files.sort();
        for f in files {
            match rocpath_gemm::library::load_file(&f, budget) {
                Ok(file) => {
                    for s in file
                        .catalog
                        .solutions
                        .iter()
                        .filter(|s| names.contains(&s.name))
                    {
                        let (properties, tuned_sizes) =
                            keys_naming(file.catalog.library.as_ref(), s.index);
                        found.entry(s.name.clone()).or_default().push(KernelEntry {
                            file: f.display().to_string(),
                            index: s.index,
                            operation: s.problem_type.operation.clone(),
                            types: s.problem_type.types.map(|t| t.name()).join("/"),
                            tuned_sizes,
                            properties,
                            evidence: ev(
                                Class::Confirmed,
                                Proof::ShippedArtifactVerified,
                                "explain.gemm.kernel_in_catalog",
                            )
                            .at(Locator::file(f.display().to_string())),
                        });
                    }
                }
                Err(e) => errors.push(e.to_string()),
            }
        }
    }
    (found, errors)
}

fn keys_naming(
    node: Option<&rocpath_tensile::catalog::Node>,
    index: i64,
) -> (Vec<String>, Vec<Vec<i64>>) {
    use rocpath_tensile::catalog::{EntryValue, Node};
    let mut props = Vec::new();
    let mut keys = Vec::new();
    let mut stack: Vec<&Node> = node.into_iter().collect();
    while let Some(n) = stack.pop() {
        match n {
            Node::Hardware(rows) => stack.extend(rows.iter().map(|r| &r.library)),
            Node::Problem(rows) => stack.extend(rows.iter().map(|r| &r.library)),
            Node::ProblemMap { map, .. } => stack.extend(map.iter().map(|(_, n)| n)),
            Node::Matching(m) => {
                for (i, e) in m.entries.iter().enumerate() {
                    match &e.value {
                        EntryValue::Index(x) if *x == index => {
                            if props.is_empty() {
                                props = m.properties.iter().map(|p| format!("{p:?}")).collect();
                            }
                            keys.push(m.key(i).to_vec());
                        }
                        EntryValue::Node(sub) => stack.push(sub),
                        EntryValue::Index(_) => {}
                    }
                }
            }
            Node::DecisionTree(f) => {
                stack.extend(f.trees.iter().map(|t| &t.value));
                stack.push(&f.null_value);
            }
            Node::Single(_) | Node::Placeholder(_) | Node::Unknown(_) => {}
        }
    }
    keys.sort();
    (props, keys)
}

/// A traced kernel attributed to the catalogs.
#[derive(Debug, Clone, Serialize)]
pub struct Attribution {
    /// The trace (its path in the `rocpath.trace/2` document).
    pub trace: String,
    /// The kernel name.
    pub kernel: String,
    /// Its dispatches in the trace.
    pub dispatches: u64,
    /// The catalog entries that are this kernel (none: not from these catalogs).
    pub entries: Vec<KernelEntry>,
    /// Evidence.
    pub evidence: Evidence,
}

/// The kernels of a `rocpath.trace/2` document that are catalog solutions, with the entries they
/// are (file, solution index, the tuned sizes that lead to them), and the Tensile-named
/// (`Cijk_…`) kernels the catalogs do not hold.
pub fn attribute(
    doc: &rocpath_docs::trace::TraceDoc,
    doc_path: &Path,
    dirs: &[PathBuf],
    processor: Option<&str>,
    budget: &MemoryBudget,
) -> (Vec<Attribution>, Vec<String>) {
    let kernels: Vec<(String, String, u64)> = doc
        .report
        .traces
        .iter()
        .flat_map(|t| {
            t.kernels
                .iter()
                .map(|k| (t.path.clone(), k.name.clone(), k.dispatches))
        })
        .collect();
    let names: std::collections::BTreeSet<String> = kernels.iter().map(|k| k.1.clone()).collect();
    if names.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let (found, errors) = find_kernels(dirs, &names, processor, budget);
    let at = Locator::file(doc_path.display().to_string());
    let out = kernels
        .into_iter()
        // Kernels the catalogs hold, and Tensile-named ones they do not.
        .filter(|(_, k, _)| found.contains_key(k) || k.starts_with("Cijk_"))
        .map(|(trace, kernel, dispatches)| {
            let entries = found.get(&kernel).cloned().unwrap_or_default();
            let evidence = if entries.is_empty() {
                ev(Class::Confirmed, Proof::ShippedArtifactVerified, "explain.gemm.kernel_not_in_catalogs")
                    .because("a Tensile kernel the given catalogs do not hold: another install (hipBLASLt, a wheel's own rocBLAS) ran it")
            } else {
                ev(Class::Confirmed, Proof::RuntimeVerified, "explain.gemm.kernel_attributed")
            }
            .at(at.clone());
            Attribution { trace, kernel, dispatches, entries, evidence }
        })
        .collect();
    (out, errors)
}

/// `rocpath.explain.gemm_kernel`: where one kernel is in the catalogs.
#[derive(Debug, Serialize)]
pub struct KernelDoc<'a> {
    /// The kernel name asked for.
    pub kernel: &'a str,
    /// The catalog entries that hold it.
    pub entries: &'a [KernelEntry],
    /// Catalogs that could not be read.
    pub errors: Vec<rocpath_docs::ErrorItem>,
}

/// `rocpath.explain.gemm_attribution`: the Tensile kernels of a trace tied to their entries.
#[derive(Debug, Serialize)]
pub struct AttributionDoc<'a> {
    /// One per kernel of the trace.
    pub attributions: &'a [Attribution],
    /// Catalogs that could not be read.
    pub errors: Vec<rocpath_docs::ErrorItem>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_that_describe_no_call_say_which_and_why() {
        assert_eq!(parse_shape(" 64x32X16 "), Ok((64, 32, 16)));
        let e = parse_shape("64x32").unwrap_err();
        assert_eq!(e, SpecError::Shape("64x32".into()));
        assert_eq!(
            e.to_string(),
            r#"shape "64x32": write MxNxK, e.g. 4096x4096x4096"#
        );
        let spec = |ty: &str, trans: &str| Spec {
            ty: ty.into(),
            trans: [trans.into(), "N".into()],
            mnk: (8, 8, 8),
            ..Spec::default()
        };
        let e = call_from(&spec("f12", "N")).unwrap_err();
        assert!(matches!(e, SpecError::Word { flag: "type", .. }), "{e}");
        assert_eq!(
            e.to_string(),
            r#"--type "f12": use f32, f64, f16, bf16, i8, xf32, c32 or c64"#
        );
        assert_eq!(
            call_from(&spec("f32", "Q")).unwrap_err(),
            SpecError::Transposition("Q".into())
        );
        let mut s = spec("f16", "T");
        s.requested = Some(0);
        assert_eq!(matmul_from(&s).unwrap_err(), SpecError::NoneRequested);
    }
}
