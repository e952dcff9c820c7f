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
use rocpath_gemm::rocblas::{self, Call, Cited, Route, Settings};
use rocpath_gemm::trace::{Near, StepKind, Trace};
use rocpath_gemm::{Device, Found, Library, LoadError, Problem, Walk};
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where the selection rules come from, for citations.
pub const TENSILE_SOURCE: &str = "ROCm/Tensile@be49885f";
/// The routing's source.
pub const ROCBLAS_SOURCE: &str = "rocBLAS 6.4.4 (Debian rocblas_6.4.4.orig.tar.gz)";

/// Catalog folders opened so far, by folder and processor, and the code objects read.
#[derive(Default)]
pub struct Libraries {
    open: HashMap<(PathBuf, String), Result<Arc<Library>, LoadError>>,
    objects: HashMap<PathBuf, Option<Result<Object, String>>>,
    budget: Option<MemoryBudget>,
}

/// What selection needs of a code object: its target and kernel names.
struct Object {
    target: TargetId,
    version: Option<u8>,
    kernels: std::collections::HashSet<String>,
}

impl Libraries {
    /// Libraries charged to `budget`.
    pub fn new(budget: MemoryBudget) -> Self {
        Libraries {
            open: HashMap::new(),
            objects: HashMap::new(),
            budget: Some(budget),
        }
    }

    /// The library of `dir` for `processor`, opened once.
    pub fn get(&mut self, dir: &Path, processor: &str) -> Result<Arc<Library>, LoadError> {
        let budget = self.budget.clone().unwrap_or_default();
        self.open
            .entry((dir.to_path_buf(), processor.to_string()))
            .or_insert_with(|| Library::open(dir, processor, &budget).map(Arc::new))
            .clone()
    }

    /// A code object's target and kernels, read once (`None`: the file is absent).
    fn object(&mut self, path: &Path) -> Option<&Result<Object, String>> {
        self.objects
            .entry(path.to_path_buf())
            .or_insert_with(|| {
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
                Some(
                    rocpath_codeobj::parse(&bytes)
                        .map_err(|e| e.to_string())
                        .map(|co| Object {
                            target: co.target_id.clone(),
                            version: co.version,
                            kernels: co.kernels.into_iter().map(|k| k.name).collect(),
                        }),
                )
            })
            .as_ref()
    }
}

/// The answer for one call on one device.
#[derive(Debug, Clone, Serialize)]
pub struct GemmExplanation {
    /// The call asked about.
    pub call: Call,
    /// The device.
    pub device: Device,
    /// The catalog folder.
    pub library_dir: String,
    /// The master file loaded (`TensileLibrary_lazy_<processor>.dat`), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalog: Option<String>,
    /// What rocBLAS does with the call before Tensile, step by step.
    pub route: Vec<Cited>,
    /// `tensile`, `hipblaslt`, `quick_return`, `invalid`, `not_implemented`.
    pub backend: &'static str,
    /// The Tensile problem, when the call reaches Tensile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<Problem>,
    /// The walk, node by node (`--trace`, or always for a single call).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub walk: Option<Trace>,
    /// The solution chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chosen: Option<ChosenDoc>,
    /// The nearest tuned sizes other than the chosen one (predicates aside).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runners_up: Vec<Near>,
    /// The fallback taken or that applies (XF32 → FP32, hipBLASLt → Tensile, none found).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fallbacks: Vec<String>,
    /// `chosen`, `no_solution`, `no_catalog`, `quick_return`, `invalid`, `not_implemented`,
    /// `unresolved`.
    pub outcome: &'static str,
    /// Why the model could not decide, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unresolved: Option<String>,
    /// Evidence for the outcome.
    pub evidence: Evidence,
}

/// The chosen solution.
#[derive(Debug, Clone, Serialize)]
pub struct ChosenDoc {
    /// The kernel name (`Cijk_…`).
    pub name: String,
    /// The solution index (what `rocblas_gemm_algo_solution_index` takes, minus one).
    pub index: i64,
    /// The catalog file that holds it.
    pub file: String,
    /// The matching distance to the tuned size that chose it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<f64>,
    /// Macro tile.
    pub macro_tile: [u64; 2],
    /// `depthU`.
    pub depth_u: u64,
    /// `globalSplitU`.
    pub global_split_u: u64,
    /// Built from source (`.hsaco`) rather than assembly.
    pub source_kernel: bool,
    /// The code object that must hold the kernel.
    pub code_object: CodeObjectDoc,
    /// Evidence.
    pub evidence: Evidence,
}

/// The code object the kernel is loaded from.
#[derive(Debug, Clone, Serialize)]
pub struct CodeObjectDoc {
    /// The file the adapter loads (the first of its name variants that is present and loads on
    /// the device), or the first name tried when none is.
    pub file: String,
    /// The file is there, loads on the device, and defines the kernel.
    pub present: bool,
    /// What the user will see otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Evidence.
    pub evidence: Evidence,
}

fn ev(class: Class, kind: Proof, rule: &str) -> Evidence {
    Evidence::new(class, kind, rule)
}

fn src(cite: &str) -> Locator {
    Locator::file(format!("{TENSILE_SOURCE}:{cite}"))
}

/// Explains `call` on `dev` with the catalogs of `dir`.
pub fn explain(
    libs: &mut Libraries,
    dir: &Path,
    call: &Call,
    dev: &Device,
    settings: &Settings,
    trace: bool,
) -> GemmExplanation {
    let (route, steps) = rocblas::route(call, settings, dev);
    let mut out = GemmExplanation {
        call: call.clone(),
        device: dev.clone(),
        library_dir: dir.display().to_string(),
        catalog: None,
        route: steps,
        backend: "tensile",
        problem: None,
        walk: None,
        chosen: None,
        runners_up: Vec::new(),
        fallbacks: Vec::new(),
        outcome: "unresolved",
        unresolved: None,
        evidence: ev(Class::Inferred, Proof::CodeVerified, "explain.gemm.route"),
    };
    let problem = match route {
        Route::Invalid { status, why } => {
            out.backend = "invalid";
            out.outcome = "invalid";
            out.route.push(Cited {
                text: format!("{} → {status}", why.text),
                cite: why.cite,
            });
            return out;
        }
        Route::QuickReturn { why } => {
            out.backend = "quick_return";
            out.outcome = "quick_return";
            out.route.push(why);
            return out;
        }
        Route::NotImplemented { why } => {
            out.backend = "not_implemented";
            out.outcome = "not_implemented";
            out.route.push(why);
            return out;
        }
        Route::HipBlasLt { why, fallback } => {
            out.backend = "hipblaslt";
            out.route.push(why);
            out.fallbacks.push(
                "hipBLASLt first; if it fails or finds nothing, rocBLAS falls back to Tensile (tensile_host.cpp:1127-1147): the Tensile choice below".into(),
            );
            *fallback
        }
        Route::Tensile { problem } => *problem,
    };
    let lib = match libs.get(dir, dev.processor()) {
        Ok(l) => l,
        Err(e) => {
            out.outcome = if matches!(e, LoadError::NoCatalog { .. }) {
                "no_catalog"
            } else {
                "unresolved"
            };
            out.unresolved = Some(e.to_string());
            out.evidence = ev(
                Class::Confirmed,
                Proof::ShippedArtifactVerified,
                "explain.gemm.no_catalog",
            )
            .at(Locator::file(dir.display().to_string()))
            .because(e.to_string());
            out.problem = Some(problem);
            return out;
        }
    };
    out.catalog = Some(lib.master.path.display().to_string());
    walk_and_choose(&mut out, libs, &lib, &problem, dev, trace);
    out.problem = Some(problem);
    out
}

fn walk_and_choose(
    out: &mut GemmExplanation,
    libs: &mut Libraries,
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
            let code_object = code_object(libs, lib, &c.file, s, dev);
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
            out.outcome = "chosen";
            out.evidence = ev(
                Class::Inferred,
                Proof::ShippedArtifactVerified,
                "explain.gemm.chosen",
            );
        }
        Found::None => {
            out.outcome = "no_solution";
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
            out.outcome = "unresolved";
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

/// The code object the adapter loads for a solution (`PlaceholderLibrary::getCodeObjectFileName`,
/// `PlaceholderLibrary.hpp:147-170`; `HipSolutionAdapter.cpp:287-312`: the name, then with
/// `-xnack-` and `-xnack+` before the extension, the first that loads).
fn code_object(
    libs: &mut Libraries,
    lib: &Library,
    file: &rocpath_gemm::library::File,
    s: &rocpath_tensile::catalog::Solution,
    dev: &Device,
) -> CodeObjectDoc {
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
    let candidates: Vec<String> = ["", "-xnack-", "-xnack+"]
        .iter()
        .map(|v| format!("{}{v}{}", &name[..dot], &name[dot..]))
        .collect();
    let mut tried = Vec::new();
    for c in &candidates {
        let path = lib.dir.join(c);
        let Some(read) = libs.object(&path) else {
            continue;
        };
        let co = match read {
            Ok(co) => co,
            Err(e) => {
                tried.push(format!("{c}: {e}"));
                continue;
            }
        };
        let compat = rocpath_arch::code_object_compat(&co.target, co.version, &dev.target);
        if matches!(compat, rocpath_arch::Compat::Incompatible { .. }) {
            tried.push(format!("{c} is for {} ({})", co.target, compat.why()));
            continue;
        }
        let loc = Locator::file(path.display().to_string());
        return if co.kernels.contains(&s.name) {
            CodeObjectDoc {
                file: path.display().to_string(),
                present: true,
                failure: None,
                evidence: ev(
                    Class::Confirmed,
                    Proof::ShippedArtifactVerified,
                    "explain.gemm.code_object_present",
                )
                .at(loc),
            }
        } else {
            CodeObjectDoc {
                file: path.display().to_string(),
                present: false,
                failure: Some(format!(
                    "{c} loads but does not define {}: the launch fails (hipErrorNotFound, \"Could not find kernel\")",
                    s.name
                )),
                evidence: ev(
                    Class::Confirmed,
                    Proof::ShippedArtifactVerified,
                    "explain.gemm.code_object_missing",
                )
                .at(loc),
            }
        };
    }
    let first = lib.dir.join(&candidates[0]).display().to_string();
    let why = if tried.is_empty() {
        format!("none of {} is present", candidates.join(", "))
    } else {
        tried.join("; ")
    };
    CodeObjectDoc {
        file: first,
        present: false,
        failure: Some(format!(
            "{why}: the kernel cannot be loaded and the launch fails (hipErrorNotFound / \"hipModuleLoad failed\")"
        )),
        evidence: ev(
            Class::Confirmed,
            Proof::ShippedArtifactVerified,
            "explain.gemm.code_object_missing",
        )
        .at(Locator::file(lib.dir.display().to_string())),
    }
}

/// A device from a target id and an optional CU count (the processor's usual count otherwise).
pub fn device(target: &TargetId, cu: Option<u32>) -> Result<Device, String> {
    let cu = match cu {
        Some(c) => c,
        None => *rocpath_gemm::device::usual_cu_counts(&target.processor)
            .first()
            .ok_or_else(|| {
                format!(
                    "no usual CU count known for {}: give --cu",
                    target.processor
                )
            })?,
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
}

/// The rocBLAS call flags describe: `f32` → `sgemm`, `f16` → `hgemm` (`gemm_ex` with
/// `--compute-type f32`), `bf16` and `i8` → `gemm_ex` (float / int32 accumulation), `xf32` →
/// `sgemm` under the XF32 math mode; `--batch` → the strided-batched form with packed strides.
pub fn call_from(s: &Spec) -> Result<Call, String> {
    use rocpath_gemm::rocblas::{Api, BlasType};
    let ty = s.ty.to_ascii_lowercase();
    let xf32 = ty == "xf32";
    let input = if xf32 {
        BlasType::F32
    } else {
        BlasType::parse(&ty).ok_or_else(|| {
            format!("--type {ty:?}: use f32, f64, f16, bf16, i8, xf32, c32 or c64")
        })?
    };
    let parse = |v: &Option<String>, what: &str| -> Result<Option<BlasType>, String> {
        v.as_deref()
            .map(|x| BlasType::parse(x).ok_or_else(|| format!("--{what} {x:?} is not a type")))
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
    let op = |v: &str| {
        rocpath_gemm::Op::parse(v).ok_or_else(|| format!("transposition {v:?}: use N, T or C"))
    };
    let trans = [op(&s.trans[0])?, op(&s.trans[1])?];
    let (m, n, k) = s.mnk;
    let mut c = Call::simple(input, trans, m, n, k);
    let typed = output == input && compute == input;
    let batched = s.batch.is_some();
    c.api = match s.api.as_deref() {
        Some(a) => Api::parse(a).ok_or_else(|| format!("--api {a:?}: use gemm, gemm_strided_batched, gemm_batched, gemm_ex, gemm_strided_batched_ex or gemm_batched_ex"))?,
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
pub fn parse_shape(s: &str) -> Result<(i64, i64, i64), String> {
    let v: Vec<&str> = s.trim().split(['x', 'X']).collect();
    let n = |t: &str| {
        t.trim()
            .parse::<i64>()
            .map_err(|_| format!("shape {s:?}: write MxNxK, e.g. 4096x4096x4096"))
    };
    match v[..] {
        [m, nn, k] => Ok((n(m)?, n(nn)?, n(k)?)),
        _ => Err(format!("shape {s:?}: write MxNxK, e.g. 4096x4096x4096")),
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
    /// The trace (its path in the `rocpath.trace/1` document).
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

/// The kernels of a `rocpath.trace/1` document that are catalog solutions, with the entries they
/// are (file, solution index, the tuned sizes that lead to them), and the Tensile-named
/// (`Cijk_…`) kernels the catalogs do not hold.
pub fn attribute(
    doc: &serde_json::Value,
    doc_path: &Path,
    dirs: &[PathBuf],
    processor: Option<&str>,
    budget: &MemoryBudget,
) -> (Vec<Attribution>, Vec<String>) {
    let mut kernels: Vec<(String, String, u64)> = Vec::new();
    for t in doc
        .get("traces")
        .and_then(|t| t.as_array())
        .into_iter()
        .flatten()
    {
        let trace = t
            .get("path")
            .and_then(|p| p.as_str())
            .unwrap_or("trace")
            .to_string();
        for k in t
            .get("kernels")
            .and_then(|k| k.as_array())
            .into_iter()
            .flatten()
        {
            let Some(name) = k.get("name").and_then(|n| n.as_str()) else {
                continue;
            };
            let d = k.get("dispatches").and_then(|d| d.as_u64()).unwrap_or(0);
            kernels.push((trace.clone(), name.to_string(), d));
        }
    }
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
