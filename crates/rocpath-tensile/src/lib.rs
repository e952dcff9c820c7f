//! Tensile and hipBLASLt library files: what solutions an install ships, for which GPU.
//!
//! rocBLAS and hipBLASLt pick GEMM kernels from Tensile "libraries": MessagePack `.dat` files
//! (or YAML in older builds) with `{solutions: [...], library: {...}}`. Two shapes matter:
//!
//! - a *lazy index* (`TensileLibrary_lazy_gfx90a.dat`): no solutions, a `Hardware` library whose
//!   rows carry `AMDGPU` predicates (`Processor`, `CUCount`) and `Placeholder` references to
//!   per-problem-type files that are loaded on first use;
//! - a *solution file* (`TensileLibrary_Type_HH_..._gfx90a.dat`, `..._fallback.dat`, or the
//!   single non-lazy `TensileLibrary.dat`): the solutions, each with its kernel name, problem
//!   type and hardware predicate.
//!
//! [`summarize`] walks a file once, without building a tree (files reach 120 MB), and returns
//! a [`LibrarySummary`].
//!
//! ```
//! // {"solutions": [], "library": {"type": "Hardware", "rows": [{"predicate":
//! //   {"type": "AMDGPU", "value": {"type": "Processor", "value": "gfx90a"}},
//! //   "library": {"type": "Placeholder", "value": "TensileLibrary_Type_HH_gfx90a"}}]}}
//! let yaml = "solutions: []\nlibrary:\n  type: Hardware\n  rows:\n  - predicate: {type: AMDGPU, value: {type: Processor, value: gfx90a}}\n    library: {type: Placeholder, value: TensileLibrary_Type_HH_gfx90a}\n";
//! let s = rocpath_tensile::summarize_yaml(yaml).unwrap();
//! assert_eq!(s.library_type.as_deref(), Some("Hardware"));
//! assert!(s.processors.contains("gfx90a"));
//! assert_eq!(s.placeholders, ["TensileLibrary_Type_HH_gfx90a"]);
//! ```

pub mod catalog;
pub mod indexed;
mod yaml;

use rocpath_mpack::{Kind, Reader, Result as MResult};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

pub use yaml::{
    MAX_EXPANSION, summarize_yaml, summarize_yaml_in, yaml_to_msgpack, yaml_to_msgpack_in,
};

/// Why a library file could not be summarized.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// MessagePack decoding failed.
    #[error("{0}")]
    Msgpack(#[from] rocpath_mpack::Error),
    /// YAML parsing failed.
    #[error("YAML: {0}")]
    Yaml(String),
    /// The structure is not a Tensile library.
    #[error("not a Tensile library: {0}")]
    Shape(String),
    /// YAML aliases expand the document past its bound (an alias bomb).
    #[error(
        "YAML aliases expand the document past {limit} bytes ({}× its size plus 1 MiB); refused as an alias bomb — a real Tensile library never expands this much",
        yaml::MAX_EXPANSION
    )]
    Expansion {
        /// The bound, in bytes of MessagePack.
        limit: u64,
    },
    /// The catalog's structure breaks a rule of the loading library.
    #[error("catalog at offset {offset}: {msg}")]
    Catalog {
        /// Offset of the value.
        offset: u64,
        /// What is wrong.
        msg: String,
    },
    /// The file does not fit in the run's memory budget.
    #[error("the library {0}")]
    Budget(#[from] rocpath_budget::OverBudget),
}

/// One solution of a library file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Solution {
    /// `index`
    pub index: Option<u64>,
    /// `kernelName`, else `name`.
    pub kernel: String,
    /// Short problem-type label (`Contraction_l_Alik_Bjlk_Cijk_Dijk BBS_HPA`).
    pub problem_type: String,
    /// Processors named by the solution's `hardwarePredicate` (empty = any).
    pub processors: Vec<String>,
}

/// What one Tensile library file says.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LibrarySummary {
    /// `library.type` of the top level (`Hardware`, `Problem`, `ProblemMap`, ...).
    pub library_type: Option<String>,
    /// Number of solutions in the file.
    pub solutions: u64,
    /// Solutions per processor (from each solution's hardware predicate; `*` = any).
    pub solutions_by_processor: BTreeMap<String, u64>,
    /// Solutions per problem type label.
    pub problem_types: BTreeMap<String, u64>,
    /// Every processor named by an `AMDGPU`/`Processor` predicate anywhere in the file.
    pub processors: BTreeSet<String>,
    /// CU counts named by `CUCount` predicates.
    pub cu_counts: BTreeSet<u64>,
    /// Lazy-loading placeholders (names of the per-problem files this index refers to).
    pub placeholders: Vec<String>,
    /// The solutions (kernel names and problem types), in file order: the first
    /// [`MAX_LISTED_SOLUTIONS`]; the others are counted in the totals only.
    pub solution_list: Vec<Solution>,
    /// Solutions counted but not in `solution_list` (past [`MAX_LISTED_SOLUTIONS`]).
    pub unlisted_solutions: u64,
    /// `format_version` of an indexed TensileLite catalog (2), when the file has one.
    pub format_version: Option<i64>,
    /// The first rule of hipBLASLt's loader the file breaks, when it would refuse the whole
    /// file (an unknown `format_version`, a bad `solutions_index`): present but not loadable.
    pub loader_rejects: Option<String>,
}

/// Most solutions kept in [`LibrarySummary::solution_list`]. Real files hold up to a few
/// thousand; a hostile one can declare millions of empty ones (4 M in a 4 MB file), each of
/// which would cost a [`Solution`] of ~90 bytes.
pub const MAX_LISTED_SOLUTIONS: usize = 1 << 16;

impl LibrarySummary {
    /// Counts one solution, and lists it while the list is under its bound.
    fn count(&mut self, s: Solution, w: &mut Walk) {
        self.solutions += 1;
        if s.processors.is_empty() {
            bump(&mut self.solutions_by_processor, "*");
        }
        for p in &s.processors {
            bump(&mut self.solutions_by_processor, p);
            if !w.processors.contains(p) {
                w.processors.insert(p.clone());
            }
        }
        if !s.problem_type.is_empty() {
            bump(&mut self.problem_types, &s.problem_type);
        }
        if self.solution_list.len() < MAX_LISTED_SOLUTIONS {
            self.solution_list.push(s);
        } else {
            self.unlisted_solutions += 1;
        }
    }

    /// True for a lazy index (placeholders and no solutions).
    pub fn is_lazy_index(&self) -> bool {
        self.solutions == 0 && !self.placeholders.is_empty()
    }
}

/// Type code Tensile uses in file and kernel names for a data type (`Half` → `H`).
pub fn type_code(t: &str) -> &'static str {
    match t {
        "Float" => "S",
        "Double" => "D",
        "ComplexFloat" => "C",
        "ComplexDouble" => "Z",
        "Half" => "H",
        "BFloat16" => "B",
        "Int8x4" => "4xi8",
        "Int8" => "I8",
        "Int32" => "I",
        "Float8" | "Float8_fnuz" => "F8",
        "BFloat8" | "BFloat8_fnuz" => "B8",
        "XFloat32" => "X",
        _ => "?",
    }
}

const MAX_DEPTH: u32 = 200;

/// Adds one to `key`'s count, allocating the key only the first time it is seen.
fn bump(m: &mut BTreeMap<String, u64>, key: &str) {
    match m.get_mut(key) {
        Some(n) => *n += 1,
        None => {
            m.insert(key.to_string(), 1);
        }
    }
}

/// State collected while walking predicate/library trees.
#[derive(Default)]
struct Walk {
    processors: BTreeSet<String>,
    cu_counts: BTreeSet<u64>,
    placeholders: Vec<String>,
}

/// Walks any value, recording `{type: Processor|CUCount|Placeholder, value: …}` maps.
fn walk(rd: &mut Reader<'_>, w: &mut Walk, depth: u32) -> MResult<()> {
    if depth > MAX_DEPTH {
        return Err(rocpath_mpack::Error::TooDeep {
            offset: rd.offset(),
        });
    }
    match rd.peek()? {
        Kind::Map => {
            let n = rd.map_len()?;
            let mut ty: Option<&str> = None;
            let mut sval: Option<&str> = None;
            let mut ival: Option<u64> = None;
            for _ in 0..n {
                let key = rd.str_or_skip()?;
                match (key, rd.peek()?) {
                    (Some("type"), Kind::Str) => ty = Some(rd.str()?),
                    (Some("value"), Kind::Str) => sval = Some(rd.str()?),
                    (Some("value"), Kind::Int) => ival = u64::try_from(rd.int()?).ok(),
                    _ => walk(rd, w, depth + 1)?,
                }
            }
            match (ty, sval, ival) {
                (Some("Processor"), Some(p), _) => {
                    w.processors.insert(p.to_string());
                }
                (Some("CUCount"), _, Some(c)) => {
                    w.cu_counts.insert(c);
                }
                (Some("Placeholder"), Some(p), _) => w.placeholders.push(p.to_string()),
                _ => {}
            }
        }
        Kind::Array => {
            let n = rd.array_len()?;
            for _ in 0..n {
                walk(rd, w, depth + 1)?;
            }
        }
        _ => rd.skip()?,
    }
    Ok(())
}

fn problem_label(rd: &mut Reader<'_>) -> MResult<String> {
    let mut op = String::new();
    let mut types: BTreeMap<&str, &str> = BTreeMap::new();
    let mut hpa = false;
    rd.for_each_entry(|k, rd| {
        match (k, rd.peek()?) {
            ("operationIdentifier", Kind::Str) => op = rd.str()?.to_string(),
            (
                "aType" | "bType" | "cType" | "dType" | "computeType" | "computeInputType"
                | "computeDataType",
                Kind::Str,
            ) => {
                types.insert(k, rd.str()?);
            }
            ("highPrecisionAccumulate", Kind::Bool) => hpa = rd.bool()?,
            _ => rd.skip()?,
        }
        Ok(())
    })?;
    let get = |k: &str| types.get(k).map(|t| type_code(t)).unwrap_or("");
    // Tensile's type token: A/B type, then C/D type when different, then compute type.
    let mut tok = get("aType").to_string();
    if get("bType") != get("aType") {
        tok.push_str(get("bType"));
    }
    tok.push_str(get("cType"));
    if get("dType") != get("cType") {
        tok.push_str(get("dType"));
    }
    let compute = types
        .get("computeType")
        .or(types.get("computeDataType"))
        .map(|t| type_code(t))
        .unwrap_or("");
    if !compute.is_empty() && compute != get("cType") {
        tok.push_str(compute);
    }
    if hpa {
        tok.push_str("_HPA");
    }
    Ok(format!("{op} {tok}").trim().to_string())
}

fn solution(rd: &mut Reader<'_>) -> MResult<Solution> {
    let mut s = Solution::default();
    let mut name = String::new();
    let mut kernel = String::new();
    rd.for_each_entry(|k, rd| {
        match k {
            "name" => name = rd.str_or_skip()?.unwrap_or_default().to_string(),
            "kernelName" => kernel = rd.str_or_skip()?.unwrap_or_default().to_string(),
            "index" => s.index = rd.u64_or_skip()?,
            "problemType" if rd.peek()? == Kind::Map => s.problem_type = problem_label(rd)?,
            "hardwarePredicate" => {
                let mut w = Walk::default();
                walk(rd, &mut w, 1)?;
                s.processors = w.processors.into_iter().collect();
            }
            _ => rd.skip()?,
        }
        Ok(())
    })?;
    s.kernel = if kernel.is_empty() { name } else { kernel };
    Ok(s)
}

/// Summarizes a MessagePack Tensile library (`.dat`).
pub fn summarize_msgpack(data: &[u8]) -> Result<LibrarySummary, Error> {
    summarize_msgpack_with(data, None)
}

/// Like [`summarize_msgpack`], handing the bytes it has read to `release` as it goes (for
/// memory-mapped input; see `rocpath_mpack::Reader::with_release`).
pub fn summarize_msgpack_with(
    data: &[u8],
    release: Option<rocpath_mpack::ReleaseFn<'_>>,
) -> Result<LibrarySummary, Error> {
    let reader = |d| match release {
        Some(f) => Reader::new(d).with_release(f),
        None => Reader::new(d),
    };
    let mut rd = reader(data);
    if rd.peek()? != Kind::Map {
        return Err(Error::Shape("the top level is not a map".into()));
    }
    let mut out = LibrarySummary::default();
    let mut w = Walk::default();
    let mut saw_library = false;
    let mut parts = indexed::Parts::default();
    let n = rd.map_len()?;
    for _ in 0..n {
        let key = rd.str_or_skip()?;
        match key {
            Some("format_version") if rd.peek()? == Kind::Int => parts.version = Some(rd.int()?),
            Some("solutions_index") if rd.peek()? == Kind::Array => parts.index = Some(rd.raw()?),
            Some("solutions_blob") if rd.peek()? == Kind::Bin => {
                parts.blob = Some(indexed::bin_payload(rd.raw()?));
            }
            Some("solutions") if rd.peek()? == Kind::Array => {
                let m = rd.array_len()?;
                for _ in 0..m {
                    if rd.peek()? != Kind::Map {
                        rd.skip()?;
                        continue;
                    }
                    let s = solution(&mut rd)?;
                    out.count(s, &mut w);
                }
            }
            Some("library") if rd.peek()? == Kind::Map => {
                saw_library = true;
                // Read the top-level type without consuming the map twice.
                let raw = rd.raw()?;
                let mut sub = reader(raw);
                sub.for_each_entry(|k, r| {
                    if k == "type" && r.peek()? == Kind::Str {
                        out.library_type = Some(r.str()?.to_string());
                    } else {
                        r.skip()?;
                    }
                    Ok(())
                })?;
                let mut sub = reader(raw);
                walk(&mut sub, &mut w, 0)?;
            }
            _ => rd.skip()?,
        }
    }
    indexed::read(&parts, &mut out, &mut w)?;
    if !saw_library && out.solutions == 0 && parts.version.is_none() {
        return summarize_keyed(data);
    }
    out.processors = w.processors;
    out.cu_counts = w.cu_counts;
    out.placeholders = w.placeholders;
    Ok(out)
}

/// Counts maps that have a `func_name` key (hipBLASLt extension-op kernels).
fn count_funcs(rd: &mut Reader<'_>, depth: u32) -> MResult<u64> {
    if depth > MAX_DEPTH {
        return Err(rocpath_mpack::Error::TooDeep {
            offset: rd.offset(),
        });
    }
    let mut n = 0;
    match rd.peek()? {
        Kind::Map => {
            let len = rd.map_len()?;
            for _ in 0..len {
                if rd.str_or_skip()? == Some("func_name") {
                    n += 1;
                    rd.skip()?;
                } else {
                    n += count_funcs(rd, depth + 1)?;
                }
            }
        }
        Kind::Array => {
            let len = rd.array_len()?;
            for _ in 0..len {
                n += count_funcs(rd, depth + 1)?;
            }
        }
        _ => rd.skip()?,
    }
    Ok(n)
}

/// The two keyed side files of hipBLASLt: `TensileLiteLibrary_lazy_Mapping.dat` (integer →
/// library name, the lazy-loading map) and `hipblasltExtOpLibrary.dat` (gfx name → extension
/// op kernels).
fn summarize_keyed(data: &[u8]) -> Result<LibrarySummary, Error> {
    let mut rd = Reader::new(data);
    let n = rd.map_len()?;
    let mut out = LibrarySummary::default();
    let mut ints = 0usize;
    let mut gfx = 0usize;
    for _ in 0..n {
        match rd.peek()? {
            Kind::Int => {
                rd.int()?;
                ints += 1;
                if let Some(name) = rd.str_or_skip()? {
                    if let Some(i) = name.rfind("_gfx") {
                        let p = &name[i + 1..];
                        out.processors
                            .insert(p.split(['-', ':']).next().unwrap_or(p).to_string());
                    }
                    out.placeholders.push(name.to_string());
                }
            }
            Kind::Str => {
                let k = rd.str()?;
                if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) {
                    // The per-arch mapping (`TensileLiteLibrary_lazy_<arch>_Mapping.dat`):
                    // first solution index of a range → the shard that holds it.
                    ints += 1;
                    if let Some(name) = rd.str_or_skip()? {
                        out.placeholders.push(name.to_string());
                    }
                } else if k.starts_with("gfx") {
                    gfx += 1;
                    out.processors.insert(k.to_string());
                    let funcs = count_funcs(&mut rd, 1)?;
                    out.solutions += funcs;
                    *out.solutions_by_processor.entry(k.to_string()).or_default() += funcs;
                } else {
                    rd.skip()?;
                }
            }
            _ => {
                rd.skip()?;
                rd.skip()?;
            }
        }
    }
    out.library_type = Some(
        if ints > 0 && ints >= gfx {
            "LazyMapping"
        } else if gfx > 0 {
            "ExtOpLibrary"
        } else {
            return Err(Error::Shape(
                "no `solutions`, `library`, gfx or index keys".into(),
            ));
        }
        .to_string(),
    );
    Ok(out)
}

/// Summarizes a library file by its name: `.yaml`/`.yml` as YAML, anything else as
/// MessagePack (with a memory budget of its own, [`rocpath_budget::MemoryBudget::DEFAULT`]).
pub fn summarize(name: &str, data: &[u8]) -> Result<LibrarySummary, Error> {
    summarize_with(name, data, None, &rocpath_budget::MemoryBudget::default())
}

/// Like [`summarize`], with a release callback for memory-mapped input and the run's memory
/// budget (what a YAML library expands to is reserved from it).
pub fn summarize_with(
    name: &str,
    data: &[u8],
    release: Option<rocpath_mpack::ReleaseFn<'_>>,
    budget: &rocpath_budget::MemoryBudget,
) -> Result<LibrarySummary, Error> {
    let lower = name.to_ascii_lowercase();
    if let Some(inner) = lower.strip_suffix(".zlib") {
        let (bytes, _held) = indexed::inflate(data, budget)?;
        return summarize_with(inner, &bytes, None, budget);
    }
    if lower.ends_with(".yaml") || lower.ends_with(".yml") {
        let text = std::str::from_utf8(data).map_err(|e| Error::Yaml(format!("not UTF-8: {e}")))?;
        summarize_yaml_in(text, budget)
    } else {
        summarize_msgpack_with(data, release)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `{"solutions": [{} × n]}`: n empty solutions, one byte each.
    pub(crate) fn empty_solutions(n: u32) -> Vec<u8> {
        let mut d = vec![0x81, 0xa9];
        d.extend_from_slice(b"solutions");
        d.push(0xdd);
        d.extend_from_slice(&n.to_be_bytes());
        d.resize(d.len() + n as usize, 0x80);
        d
    }

    #[test]
    fn millions_of_empty_solutions_are_counted_not_all_listed() {
        let s = summarize_msgpack(&empty_solutions(4_000_000)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.solutions, 4_000_000);
        assert_eq!(s.solutions_by_processor.get("*"), Some(&4_000_000));
        assert_eq!(s.solution_list.len(), MAX_LISTED_SOLUTIONS);
        assert_eq!(
            s.unlisted_solutions,
            4_000_000 - MAX_LISTED_SOLUTIONS as u64
        );
    }

    proptest! {
        #[test]
        fn never_panics(data in proptest::collection::vec(any::<u8>(), 0..400)) {
            if let Ok(s) = summarize_msgpack(&data) {
                // Every listed or unlisted solution was counted, and the list stays bounded.
                prop_assert!(s.solution_list.len() as u64 + s.unlisted_solutions <= s.solutions);
                prop_assert!(s.solution_list.len() <= MAX_LISTED_SOLUTIONS);
            }
        }
    }
}
