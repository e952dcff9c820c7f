//! rocBLAS GEMM: which backend (hipBLASLt or Tensile) takes a GEMM on a target, whether the
//! installed libraries have solutions for the type there, and the fallbacks that apply.
//!
//! Sources: ROCm/rocBLAS@b520bc83 `library/src/include/handle.hpp:273-317` (hipBLASLt default
//! archs gfx1200/gfx1201; `ROCBLAS_USE_HIPBLASLT` unset → default, `1` → always, else never),
//! `library/src/tensile_host.cpp:796-839` (library file search and `Cannot read … for GPU
//! arch`), `:1089-1102` (XF32 → FP32), `:1106-1112` (batched problems stay on Tensile by
//! default), `:1143-1147` (hipBLASLt → Tensile).

use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::Serialize;
use std::path::{Path, PathBuf};

const ROCBLAS: &str = "ROCm/rocBLAS@b520bc83";

/// The question.
#[derive(Debug, Clone)]
pub struct Query {
    /// gfx processor (`gfx900`).
    pub processor: String,
    /// `f32`, `f64`, `f16`, `bf16`, `i8`, `c32`, `c64` or `xf32`.
    pub dtype: String,
    /// rocBLAS's Tensile library folder (`…/rocblas/library`).
    pub rocblas_dir: Option<PathBuf>,
    /// hipBLASLt's library folder (`…/hipblaslt/library`).
    pub hipblaslt_dir: Option<PathBuf>,
    /// Value of `ROCBLAS_USE_HIPBLASLT` (None: unset).
    pub use_hipblaslt: Option<String>,
    /// A batched GEMM.
    pub batched: bool,
}

/// Solution files found for a type and target.
#[derive(Debug, Clone, Serialize)]
pub struct Presence {
    /// Library folder.
    pub dir: String,
    /// Index the library loads for the target (`TensileLibrary_lazy_gfx900.dat`), if any.
    pub index: Option<String>,
    /// Files with solutions tuned for the target.
    pub target_files: Vec<String>,
    /// Solutions in them.
    pub target_solutions: u64,
    /// Generic (source-kernel) fallback files of the type, with a code object for the target.
    pub fallback_files: Vec<String>,
    /// Solutions in the fallback files.
    pub fallback_solutions: u64,
    /// Files for the target the loading library refuses, with why (not counted above).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused_files: Vec<String>,
    /// Evidence.
    pub evidence: Evidence,
}

/// A statement with evidence.
#[derive(Debug, Clone, Serialize)]
pub struct Statement {
    /// The statement.
    pub statement: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// The answer.
#[derive(Debug, Clone, Serialize)]
pub struct RocblasExplanation {
    /// Target.
    pub processor: String,
    /// Type asked.
    pub dtype: String,
    /// `hipblaslt` or `tensile`.
    pub backend: crate::gemm::Backend,
    /// Why that backend.
    pub backend_reason: Statement,
    /// Tensile (rocBLAS) presence.
    pub tensile: Option<Presence>,
    /// hipBLASLt presence.
    pub hipblaslt: Option<Presence>,
    /// Fallbacks that would apply, in order.
    pub fallbacks: Vec<Statement>,
    /// Where the GEMM ends.
    pub outcome: RocblasEnd,
}

/// Where a rocBLAS GEMM ends (`outcome` in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RocblasEnd {
    /// hipBLASLt has solutions for the processor.
    Hipblaslt,
    /// Tensile has solutions tuned for the processor.
    Tensile,
    /// Only Tensile's generic source-kernel fallback library.
    TensileFallbackKernels,
    /// rocBLAS fails (no Tensile index, or nothing for the type).
    Error,
    /// No library folder given: not known.
    Unknown,
}

impl RocblasEnd {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            RocblasEnd::Hipblaslt => "hipblaslt",
            RocblasEnd::Tensile => "tensile",
            RocblasEnd::TensileFallbackKernels => "tensile_fallback_kernels",
            RocblasEnd::Error => "error",
            RocblasEnd::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for RocblasEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Tensile's type tokens in library file names for a BLAS type.
pub fn type_tokens(dtype: &str) -> Option<&'static [&'static str]> {
    Some(match dtype {
        "f32" | "xf32" => &["SS"],
        "f64" => &["DD"],
        "f16" => &["HH", "HH_HPA", "HS_HPA"],
        "bf16" => &["BB_HPA", "BS_HPA"],
        "i8" => &["I8I_HPA", "4xi8I_HPA"],
        "c32" => &["CC"],
        "c64" => &["ZZ"],
        _ => return None,
    })
}

fn src(at: &str) -> Locator {
    let (p, l) = at.rsplit_once(':').unwrap_or((at, ""));
    let mut loc = Locator::file(format!("{ROCBLAS}:{p}"));
    if let Some(l) = l.split('-').next().and_then(|l| l.parse().ok()) {
        loc = loc.with_line(l);
    }
    loc
}

/// Largest catalog file summarized (real ones reach 120 MB).
const MAX_CATALOG_BYTES: u64 = 1 << 30;

fn count_solutions(path: &Path) -> u64 {
    let Ok((data, _held)) = rocpath_budget::input::read_bytes(
        path,
        &rocpath_budget::MemoryBudget::default(),
        MAX_CATALOG_BYTES,
        "a Tensile catalog",
    ) else {
        return 0;
    };
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    rocpath_tensile::summarize(name, &data)
        .map(|s| s.solutions)
        .unwrap_or(0)
}

fn has_type(name: &str, tokens: &[&str]) -> bool {
    tokens
        .iter()
        .any(|t| name.contains(&format!("Type_{t}_Contraction")))
}

/// Tensile (rocBLAS) library presence for a type on a processor.
pub fn tensile_presence(dir: &Path, processor: &str, dtype: &str) -> Option<Presence> {
    let tokens = type_tokens(dtype)?;
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    let index = [
        format!("TensileLibrary_lazy_{processor}.dat"),
        format!("TensileLibrary_{processor}.dat"),
        "TensileLibrary.dat".to_string(),
    ]
    .into_iter()
    .find(|n| names.contains(n));
    let suffix = format!("_{processor}.dat");
    let target_files: Vec<String> = names
        .iter()
        .filter(|n| n.ends_with(&suffix) && has_type(n, tokens))
        .cloned()
        .collect();
    let fallback_files: Vec<String> = names
        .iter()
        .filter(|n| n.ends_with("_fallback.dat") && has_type(n, tokens))
        .filter(|n| {
            let stem = n.trim_end_matches(".dat");
            names
                .iter()
                .any(|c| c.starts_with(&format!("{stem}_{processor}")) && c.ends_with(".hsaco"))
        })
        .cloned()
        .collect();
    let target_solutions = target_files
        .iter()
        .map(|f| count_solutions(&dir.join(f)))
        .sum();
    let fallback_solutions = fallback_files
        .iter()
        .map(|f| count_solutions(&dir.join(f)))
        .sum();
    let mut ev = Evidence::new(
        Class::Confirmed,
        Proof::ShippedArtifactVerified,
        if target_files.is_empty() && fallback_files.is_empty() {
            "explain.rocblas.no_solutions"
        } else {
            "explain.rocblas.solutions_present"
        },
    )
    .at(Locator::file(dir.display().to_string()));
    for f in target_files.iter().chain(&fallback_files).take(8) {
        ev = ev.at(Locator::file(dir.join(f).display().to_string()));
    }
    Some(Presence {
        dir: dir.display().to_string(),
        index,
        target_files,
        target_solutions,
        fallback_files,
        fallback_solutions,
        refused_files: Vec::new(),
        evidence: ev,
    })
}

/// The catalog files hipBLASLt may read for `processor` under `dir`: the folder itself and its
/// per-processor subfolder (`library/gfx942/`), as paths relative to `dir`, sorted. Without any
/// file for the processor, those of its generic family (`gfx11-generic`), with that name.
fn lt_catalog(dir: &Path, processor: &str) -> (Vec<String>, String) {
    let list = |sub: &str| -> Vec<String> {
        std::fs::read_dir(dir.join(sub))
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .map(|n| {
                if sub.is_empty() {
                    n
                } else {
                    format!("{sub}/{n}")
                }
            })
            .collect()
    };
    let of = |p: &str| -> Vec<String> {
        let mut v: Vec<String> = list("")
            .into_iter()
            .chain(list(p))
            .filter(|n| is_catalog_of(n, p))
            .collect();
        v.sort();
        v
    };
    let mine = of(processor);
    if mine.is_empty() {
        if let Some(g) = rocpath_arch::target(processor).and_then(|t| t.generic) {
            let theirs = of(g);
            if !theirs.is_empty() {
                return (theirs, g.to_string());
            }
        }
    }
    (mine, processor.to_string())
}

/// A TensileLite catalog file of processor `p` (`…_gfx942.dat`, `.dat.zlib`, the per-arch
/// mapping `TensileLiteLibrary_lazy_gfx942_Mapping.dat`).
fn is_catalog_of(name: &str, p: &str) -> bool {
    let file = name.rsplit('/').next().unwrap_or(name);
    let stem = file.strip_suffix(".zlib").unwrap_or(file);
    stem.ends_with(&format!("_{p}.dat"))
        || stem == format!("TensileLiteLibrary_lazy_{p}_Mapping.dat")
}

/// hipBLASLt library presence (`TensileLibrary_…_Type_<t>_…_<arch>.dat`, `.dat.zlib`, in the
/// folder or its per-processor subfolder, else for the generic family). Files the loader would
/// refuse are named in `refused_files` and not counted.
pub fn hipblaslt_presence(dir: &Path, processor: &str, dtype: &str) -> Option<Presence> {
    let tokens = type_tokens(dtype)?;
    if !dir.is_dir() {
        return None;
    }
    let (names, served_as) = lt_catalog(dir, processor);
    let index = names
        .iter()
        .find(|n| n.contains("TensileLiteLibrary_lazy") || n.contains("TensileLibrary_lazy_"))
        .cloned()
        .or_else(|| {
            let shared = "TensileLiteLibrary_lazy_Mapping.dat";
            dir.join(shared).is_file().then(|| shared.to_string())
        });
    let mut target_files = Vec::new();
    let mut refused_files = Vec::new();
    let mut target_solutions = 0;
    for f in names.iter().filter(|n| has_type(n, tokens)) {
        match read_catalog(&dir.join(f)) {
            Ok(s) if s.loader_rejects.is_none() => {
                target_solutions += s.solutions;
                target_files.push(f.clone());
            }
            Ok(s) => refused_files.push(format!("{f}: {}", s.loader_rejects.unwrap_or_default())),
            Err(e) => refused_files.push(format!("{f}: {e}")),
        }
    }
    let mut ev = Evidence::new(
        Class::Confirmed,
        Proof::ShippedArtifactVerified,
        if target_files.is_empty() {
            "explain.rocblas.no_solutions"
        } else {
            "explain.rocblas.solutions_present"
        },
    )
    .at(Locator::file(dir.display().to_string()));
    for f in target_files.iter().take(8) {
        ev = ev.at(Locator::file(dir.join(f).display().to_string()));
    }
    let mut notes = Vec::new();
    if served_as != processor {
        notes.push(format!(
            "no catalog for {processor}: the files are for its generic family {served_as}"
        ));
    }
    notes.extend(
        refused_files
            .iter()
            .map(|r| format!("present but refused by the loader: {r}")),
    );
    if !notes.is_empty() {
        ev = ev.because(notes.join("; "));
    }
    Some(Presence {
        dir: dir.display().to_string(),
        index,
        target_files,
        target_solutions,
        fallback_files: Vec::new(),
        fallback_solutions: 0,
        refused_files,
        evidence: ev,
    })
}

/// A catalog file's summary (`.dat`, `.dat.zlib`, `.yaml`).
fn read_catalog(path: &Path) -> Result<rocpath_tensile::LibrarySummary, String> {
    let (data, _held) = rocpath_budget::input::read_bytes(
        path,
        &rocpath_budget::MemoryBudget::default(),
        MAX_CATALOG_BYTES,
        "a Tensile catalog",
    )
    .map_err(|e| e.into_io().to_string())?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    rocpath_tensile::summarize(name, &data).map_err(|e| e.to_string())
}

/// rocBLAS's GEMM backend for the query: hipBLASLt or Tensile, and why
/// (`handle.hpp:273-317`, `tensile_host.cpp:1106-1112`).
fn backend(q: &Query) -> (bool, Statement) {
    let p = q.processor.as_str();
    let default_lt = p == "gfx1200" || p == "gfx1201";
    let (lt, why) = match q.use_hipblaslt.as_deref() {
        None if default_lt && !q.batched => (
            true,
            format!(
                "{p} is a hipBLASLt-default arch (isDefaultHipBLASLtArch) and ROCBLAS_USE_HIPBLASLT is unset"
            ),
        ),
        None if default_lt => (
            false,
            "batched problems stay on Tensile unless ROCBLAS_USE_HIPBLASLT=1".into(),
        ),
        None => (
            false,
            format!(
                "{p} is not a hipBLASLt-default arch (gfx1200, gfx1201) and ROCBLAS_USE_HIPBLASLT is unset"
            ),
        ),
        Some("1") => (true, "ROCBLAS_USE_HIPBLASLT=1 forces hipBLASLt".into()),
        Some(v) => (
            false,
            format!("ROCBLAS_USE_HIPBLASLT={v} disables hipBLASLt"),
        ),
    };
    let reason = Statement {
        statement: why,
        evidence: Evidence::new(
            Class::Inferred,
            Proof::CodeVerified,
            "explain.rocblas.backend",
        )
        .at(src("library/src/include/handle.hpp:273-317"))
        .at(src("library/src/tensile_host.cpp:1106-1112"))
        .because("rocBLAS 6.3 source; current docs add gfx950 (not verified)"),
    };
    (lt, reason)
}

/// Explains a GEMM of `dtype` on `processor`.
pub fn explain(q: &Query) -> Option<RocblasExplanation> {
    type_tokens(&q.dtype)?;
    let p = q.processor.as_str();
    let (lt, backend_reason) = backend(q);
    let tensile = q
        .rocblas_dir
        .as_deref()
        .and_then(|d| tensile_presence(d, p, &q.dtype));
    let hipblaslt = q
        .hipblaslt_dir
        .as_deref()
        .and_then(|d| hipblaslt_presence(d, p, &q.dtype));
    let mut fallbacks = Vec::new();
    let target = rocpath_arch::target(p);
    if q.dtype == "xf32" && !target.is_some_and(|t| t.xf32) {
        fallbacks.push(Statement {
            statement: format!("{p} has no XF32 instructions: `No Tensile solution found for XF32, fall back to FP32`"),
            evidence: Evidence::new(Class::Inferred, Proof::CodeVerified, "explain.rocblas.xf32_to_fp32")
                .at(src("library/src/tensile_host.cpp:1089-1102")),
        });
    }
    let mut outcome = None;
    if lt {
        match &hipblaslt {
            Some(h) if !h.target_files.is_empty() => outcome = Some(RocblasEnd::Hipblaslt),
            Some(_) | None => fallbacks.push(Statement {
                statement: match &hipblaslt {
                    Some(h) => format!("hipBLASLt in {} has no {} solutions for {p}: `hipBlasLT failed, falling back to tensile`", h.dir, q.dtype),
                    None => "no hipBLASLt library folder given: whether hipBLASLt succeeds is not known".into(),
                },
                evidence: Evidence::new(
                    if hipblaslt.is_some() { Class::Inferred } else { Class::Unresolved },
                    Proof::CodeVerified,
                    "explain.rocblas.hipblaslt_to_tensile",
                )
                .at(src("library/src/tensile_host.cpp:1143-1147")),
            }),
        }
    }
    let outcome = match outcome {
        Some(o) => o,
        None => match &tensile {
            Some(t) if t.index.is_none() => {
                fallbacks.push(Statement {
                    statement: format!("no Tensile index for {p} in {}: `rocBLAS error: Cannot read …TensileLibrary.dat… for GPU arch : {p}`", t.dir),
                    evidence: Evidence::new(Class::Inferred, Proof::ShippedArtifactVerified, "explain.rocblas.no_tensile_index")
                        .at(Locator::file(t.dir.clone()))
                        .at(src("library/src/tensile_host.cpp:796-839")),
                });
                RocblasEnd::Error
            }
            Some(t) if !t.target_files.is_empty() => RocblasEnd::Tensile,
            Some(t) if !t.fallback_files.is_empty() => {
                fallbacks.push(Statement {
                    statement: format!("no {} solutions tuned for {p}: only the generic source-kernel fallback library ({} solutions)", q.dtype, t.fallback_solutions),
                    evidence: t.evidence.clone(),
                });
                RocblasEnd::TensileFallbackKernels
            }
            Some(_) => RocblasEnd::Error,
            None => RocblasEnd::Unknown,
        },
    };
    Some(RocblasExplanation {
        processor: p.to_string(),
        dtype: q.dtype.clone(),
        backend: if lt {
            crate::gemm::Backend::Hipblaslt
        } else {
            crate::gemm::Backend::Tensile
        },
        backend_reason,
        tensile,
        hipblaslt,
        fallbacks,
        outcome,
    })
}
