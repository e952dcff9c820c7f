//! A catalog folder loaded as the host library loads it: the master file for the processor,
//! then each `Placeholder` file on first use, every matching table sorted as the loader sorts
//! it, every solution index resolved within its own file.
//!
//! Sources: ROCm/rocBLAS 6.4.4 `library/src/tensile_host.cpp:796-853` (which master file:
//! `<dir>[/<processor>]/TensileLibrary_lazy_<processor>.dat`, else `TensileLibrary_<processor>.dat`,
//! else `TensileLibrary.dat`, else "Cannot read … for GPU arch" and abort); ROCm/Tensile@be49885f
//! `Serialization/PlaceholderLibrary.hpp:53-71` (a placeholder names `<folder of the
//! master>/<value><suffix of the master>`), `PlaceholderLibrary.hpp:128-185` (loaded on first
//! use), `Serialization/MatchingLibrary.hpp:58-66` (tables sorted by key, then speed
//! descending, with `std::sort`), `Serialization/MatchingLibrary.hpp:226-252` (`index` resolved
//! in the file's own solutions; an unknown index is an error for the file).

use crate::sort::std_sort;
use rocpath_budget::{MemoryBudget, Reservation};
use rocpath_tensile::catalog::{self, Catalog, EntryValue, Matching, Node, ProblemLeaf, Solution};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Why a catalog file could not be loaded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LoadError {
    /// No master file for the processor in the folder.
    #[error(
        "no TensileLibrary_lazy_{processor}.dat, TensileLibrary_{processor}.dat or TensileLibrary.dat in {dir}: the library has no catalog for this GPU (rocBLAS prints \"Cannot read … for GPU arch : {processor}\" and aborts)"
    )]
    NoCatalog {
        /// The folder searched.
        dir: PathBuf,
        /// The processor.
        processor: String,
    },
    /// The file could not be read.
    #[error("{path}: {msg}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        msg: String,
    },
    /// The file is not a catalog the host library would load.
    #[error("{path}: {source}")]
    Decode {
        /// The file.
        path: PathBuf,
        /// Why.
        source: rocpath_tensile::Error,
    },
    /// A table names a solution the file does not hold.
    #[error(
        "{path}: a table names solution {index}, which the file does not hold (the host library refuses the file: \"Invalid solution index\")"
    )]
    BadIndex {
        /// The file.
        path: PathBuf,
        /// The index.
        index: i64,
    },
    /// The run's memory budget cannot hold the file.
    #[error("{path}: {source} (raise --max-memory)")]
    Budget {
        /// The file.
        path: PathBuf,
        /// The budget's refusal.
        source: rocpath_budget::OverBudget,
    },
}

/// Bytes held in memory per byte of a decoded catalog file, for the budget.
const DECODED_PER_FILE_BYTE: u64 = 3;

/// Largest catalog file read (real ones reach 120 MB).
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// One loaded catalog file.
#[derive(Debug)]
pub struct File {
    /// Its path.
    pub path: PathBuf,
    /// The catalog, matching tables in loader order.
    pub catalog: Catalog,
    /// Solution index → position in `catalog.solutions`.
    by_index: HashMap<i64, usize>,
    /// The solutions' verdict classes (`crate::verdict`).
    pub classes: crate::verdict::Classes,
    _held: Reservation,
}

impl File {
    /// The solution with `index`, if this file holds it.
    pub fn solution(&self, index: i64) -> Option<&Solution> {
        self.by_index
            .get(&index)
            .and_then(|&i| self.catalog.solutions.get(i))
    }

    /// The position of the solution with `index` in `catalog.solutions`.
    pub fn position(&self, index: i64) -> Option<usize> {
        self.by_index.get(&index).copied()
    }

    /// The file name.
    pub fn name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// Reads and decodes one catalog file, sorting its tables and checking its indices.
pub fn load_file(path: &Path, budget: &MemoryBudget) -> Result<File, LoadError> {
    let io = |msg: String| LoadError::Io {
        path: path.to_path_buf(),
        msg,
    };
    let meta = std::fs::metadata(path).map_err(|e| io(format!("{e}")))?;
    if let Some(kind) = rocpath_budget::special::non_regular(meta.file_type()) {
        return Err(io(format!("is a {kind}, not a catalog file")));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(io(format!(
            "{} bytes, larger than any catalog ({MAX_FILE_BYTES})",
            meta.len()
        )));
    }
    let held = budget
        .reserve(meta.len().saturating_mul(DECODED_PER_FILE_BYTE + 1))
        .map_err(|source| LoadError::Budget {
            path: path.to_path_buf(),
            source,
        })?;
    let bytes = std::fs::read(path).map_err(|e| io(format!("{e}")))?;
    parse_file(path, &bytes, held, budget)
}

/// A catalog file from its bytes (`path` names it and decides YAML or MessagePack); `held` is
/// the memory reserved for it, kept with the file.
pub fn parse_file(
    path: &Path,
    bytes: &[u8],
    held: Reservation,
    budget: &MemoryBudget,
) -> Result<File, LoadError> {
    let decode = |source| LoadError::Decode {
        path: path.to_path_buf(),
        source,
    };
    let lower = path.to_string_lossy().to_ascii_lowercase();
    let mut held = held;
    let inflated;
    let bytes = if lower.ends_with(".zlib") {
        // A `.dat.zlib` catalog (TensileLite after 7.1; see the `lite` module): inflated in steps
        // reserved from the budget, the decoded tree charged as for a plain file of that size.
        let (raw, _steps) = rocpath_tensile::indexed::inflate(bytes, budget).map_err(decode)?;
        held.ensure((raw.len() as u64).saturating_mul(DECODED_PER_FILE_BYTE))
            .map_err(|source| LoadError::Budget {
                path: path.to_path_buf(),
                source,
            })?;
        inflated = raw;
        inflated.as_slice()
    } else {
        bytes
    };
    let mut catalog = if lower.ends_with(".yaml") || lower.ends_with(".yml") {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| decode(rocpath_tensile::Error::Yaml(format!("not UTF-8: {e}"))))?;
        let (mp, _r) = rocpath_tensile::yaml_to_msgpack_in(text, budget).map_err(decode)?;
        catalog::decode(&mp).map_err(decode)?
    } else {
        catalog::decode(bytes).map_err(decode)?
    };
    let by_index: HashMap<i64, usize> = catalog
        .solutions
        .iter()
        .enumerate()
        .map(|(i, s)| (s.index, i))
        .collect();
    for sol in &mut catalog.solutions {
        cheap_first(&mut sol.problem);
    }
    let classes = crate::verdict::Classes::of(&catalog.solutions);
    if let Some(lib) = catalog.library.as_mut() {
        prepare(lib, &by_index, &classes).map_err(|index| LoadError::BadIndex {
            path: path.to_path_buf(),
            index,
        })?;
    }
    Ok(File {
        path: path.to_path_buf(),
        catalog,
        by_index,
        classes,
        _held: held,
    })
}

/// Sorts every matching table as the loader does and checks every solution index.
fn prepare(
    node: &mut Node,
    by_index: &HashMap<i64, usize>,
    classes: &crate::verdict::Classes,
) -> Result<(), i64> {
    match node {
        Node::Hardware(rows) => rows
            .iter_mut()
            .try_for_each(|r| prepare(&mut r.library, by_index, classes)),
        Node::Problem(rows) => rows
            .iter_mut()
            .try_for_each(|r| prepare(&mut r.library, by_index, classes)),
        Node::ProblemMap { map, .. } => map
            .iter_mut()
            .try_for_each(|(_, n)| prepare(n, by_index, classes)),
        Node::Matching(m) => {
            for e in &mut m.entries {
                match &mut e.value {
                    EntryValue::Index(i) => match by_index.get(i) {
                        Some(&p) => e.pos = u32::try_from(p).unwrap_or(catalog::UNRESOLVED),
                        None => return Err(*i),
                    },
                    EntryValue::Node(n) => prepare(n, by_index, classes)?,
                }
            }
            sort_table(m, classes);
            m.solutions = named_solutions(m);
            Ok(())
        }
        Node::Single(i) if !by_index.contains_key(i) => Err(*i),
        Node::DecisionTree(f) => {
            for t in &mut f.trees {
                prepare(&mut t.value, by_index, classes)?;
            }
            prepare(&mut f.null_value, by_index, classes)
        }
        Node::Single(_) | Node::Placeholder(_) | Node::Unknown(_) => Ok(()),
    }
}

/// Orders a solution's top-level `And` so the leaves that reject most often and cost least
/// (sizes, multiples) come before those that hold for every entry of a table (types, the
/// operation's name). Predicates read nothing but the problem, so the verdict is the same in
/// any order — but a leaf this model does not know would make the host library refuse the
/// file, and must still be met: a predicate with one is left as it is.
fn cheap_first(p: &mut catalog::Pred<ProblemLeaf>) {
    use ProblemLeaf as L;
    let catalog::Pred::And(v) = p else { return };
    let known = |q: &catalog::Pred<ProblemLeaf>| match q {
        catalog::Pred::Leaf(L::Unknown(_)) => false,
        catalog::Pred::Leaf(_) | catalog::Pred::True | catalog::Pred::False => true,
        _ => false,
    };
    if !v.iter().all(known) {
        return;
    }
    let rank = |q: &catalog::Pred<ProblemLeaf>| match q {
        catalog::Pred::Leaf(
            L::Free0SizeMultiple { .. }
            | L::Free1SizeMultiple { .. }
            | L::BoundSizeMultiple { .. }
            | L::SizeMultiple { .. }
            | L::GlobalSplitUCheckMinK(_)
            | L::LeadingFree0SizesGreaterOrEqual(_)
            | L::LeadingFree1SizesGreaterOrEqual(_)
            | L::SizeEqual { .. }
            | L::SizeGreaterThan { .. }
            | L::SizeLessThan { .. }
            | L::SizeInRange { .. }
            | L::BatchSizeMultiple { .. }
            | L::BatchSizeEqual { .. },
        ) => 0,
        catalog::Pred::Leaf(L::TypesEqual(_) | L::OperationIdentifierEqual(_)) => 3,
        catalog::Pred::Leaf(
            L::HighPrecisionAccumulate(_)
            | L::F32XdlMathOp(_)
            | L::StochasticRounding(_)
            | L::KernelLanguageCompatible(_)
            | L::PersistentKernelCheck
            | L::EqualityMatching,
        ) => 2,
        _ => 1,
    };
    v.sort_by_key(rank);
}

/// [`Matching::solutions`] of a resolved table, for the grid search that reads it (TensileLite's
/// `GridBased` tables; `None` for the others).
fn named_solutions(m: &Matching) -> Option<Box<[u32]>> {
    if m.distance != Ok(catalog::Distance::GridBased) {
        return None;
    }
    let mut v: Vec<u32> = m
        .entries
        .iter()
        .map(|e| match e.value {
            EntryValue::Index(_) if e.pos != catalog::UNRESOLVED => Some(e.pos),
            _ => None,
        })
        .collect::<Option<_>>()?;
    v.sort_unstable();
    v.dedup();
    Some(v.into_boxed_slice())
}

/// `std::sort` by `key < key' || (key == key' && speed > speed')`.
fn sort_table(m: &mut Matching, classes: &crate::verdict::Classes) {
    if let Some(order) = sorted_order(m) {
        permute(m, order);
    }
    m.near3 = near3(m, classes);
}

/// [`Matching::near3`] of a sorted table with Euclidean distance over three values (the table
/// `select::matching` searches stepping over runs); empty for other tables, or when a position
/// would not fit in `u32` or a key value in `i32`.
fn near3(m: &Matching, classes: &crate::verdict::Classes) -> Vec<catalog::Near3> {
    let n = m.entries.len();
    if m.distance != Ok(catalog::Distance::Euclidean)
        || m.dims != 3
        || m.keys.len() != n * 3
        || u32::try_from(n).is_err()
    {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(n);
    for (e, k) in m.entries.iter().zip(m.keys.chunks_exact(3)) {
        let v = |x: Option<&i64>| x.and_then(|&x| i32::try_from(x).ok());
        let (Some(a), Some(b), Some(c)) = (v(k.first()), v(k.get(1)), v(k.get(2))) else {
            // Sizes this large are not tuned; such a table is searched without records.
            return Vec::new();
        };
        out.push(catalog::Near3 {
            key: [a, b, c],
            runs: [[0; 2]; 2],
            class: classes.class(e.pos as usize).map_or(u32::MAX, |c| c as u32),
        });
    }
    for j in 0..2 {
        let mut start = 0;
        while start < n {
            let first = out[start].key;
            let end = start + out[start..].partition_point(|r| r.key[..=j] == first[..=j]);
            for r in &mut out[start..end] {
                r.runs[j] = [start as u32, end as u32];
            }
            start = end;
        }
    }
    out
}

/// Puts entry `order[k]` (and its key) at position `k`, in place: each cycle of the permutation
/// is followed once, so no second copy of a large table is made.
fn permute(m: &mut Matching, mut order: Vec<usize>) {
    let dims = m.dims;
    let n = m.entries.len().min(order.len());
    if m.keys.len() < n * dims {
        return;
    }
    for start in 0..n {
        // `order[k] == k` marks a place already filled.
        let mut k = start;
        while order[k] != start {
            let from = order[k];
            m.entries.swap(k, from);
            for j in 0..dims {
                m.keys.swap(k * dims + j, from * dims + j);
            }
            order[k] = k;
            k = from;
        }
        order[k] = k;
    }
}

/// The positions of `m`'s entries in `std::sort` order, or `None` when they are in it already
/// and no two are equivalent (then that order is the only sorted one).
///
/// Short keys (the usual M, N, K and the batch) are copied beside their speed and sorted as
/// they are: the same comparisons in the same order as sorting positions, so the same result,
/// without reaching into the table for every comparison.
fn sorted_order(m: &Matching) -> Option<Vec<usize>> {
    const SHORT: usize = 4;
    let n = m.entries.len();
    let speed = |i: usize| m.entries.get(i).map_or(0.0, |e| e.speed);
    if m.dims <= SHORT {
        let mut rows: Vec<([i64; SHORT], f64, usize)> = (0..n)
            .map(|i| {
                let mut k = [0; SHORT];
                k[..m.dims].copy_from_slice(m.key(i));
                (k, speed(i), i)
            })
            .collect();
        let less = |a: &([i64; SHORT], f64, usize), b: &([i64; SHORT], f64, usize)| {
            a.0 < b.0 || (a.0 == b.0 && a.1 > b.1)
        };
        if rows.windows(2).all(|w| less(&w[0], &w[1])) {
            return None;
        }
        std_sort(&mut rows, &less);
        return Some(rows.into_iter().map(|r| r.2).collect());
    }
    let mut order: Vec<usize> = (0..n).collect();
    let less = |a: &usize, b: &usize| {
        let (ka, kb) = (m.key(*a), m.key(*b));
        ka < kb || (ka == kb && speed(*a) > speed(*b))
    };
    if order.windows(2).all(|w| less(&w[0], &w[1])) {
        return None;
    }
    std_sort(&mut order, &less);
    Some(order)
}

/// Calls `f` with the name of every placeholder under `node`.
fn placeholder_names(node: &Node, f: &mut impl FnMut(&str)) {
    match node {
        Node::Placeholder(name) => f(name),
        Node::Hardware(rows) => rows.iter().for_each(|r| placeholder_names(&r.library, f)),
        Node::Problem(rows) => rows.iter().for_each(|r| placeholder_names(&r.library, f)),
        Node::ProblemMap { map, .. } => map.iter().for_each(|(_, n)| placeholder_names(n, f)),
        Node::Matching(m) => m.entries.iter().for_each(|e| {
            if let EntryValue::Node(n) = &e.value {
                placeholder_names(n, f);
            }
        }),
        Node::DecisionTree(forest) => {
            forest
                .trees
                .iter()
                .for_each(|t| placeholder_names(&t.value, f));
            placeholder_names(&forest.null_value, f);
        }
        Node::Single(_) | Node::Unknown(_) => {}
    }
}

/// A placeholder file, loaded once.
type Slot = OnceLock<Result<Arc<File>, LoadError>>;

/// A catalog folder for one processor: its master file and the placeholder files loaded so far.
pub struct Library {
    /// The folder that holds the master file.
    pub dir: PathBuf,
    /// The master file.
    pub master: Arc<File>,
    /// The placeholders the master file names, each loaded on first use: known from the start,
    /// so a lookup takes no lock.
    named: rustc_hash::FxHashMap<String, Slot>,
    /// Any other placeholder asked for (none in catalogs as Tensile writes them).
    placeholders: Mutex<rustc_hash::FxHashMap<String, Arc<Slot>>>,
    budget: MemoryBudget,
}

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Library")
            .field("dir", &self.dir)
            .field("master", &self.master.path)
            .finish()
    }
}

/// The master file rocBLAS loads for `processor` under `dir`, and the folder it is in.
pub fn master_path(dir: &Path, processor: &str) -> Option<PathBuf> {
    let sub = dir.join(processor);
    let base = if sub.is_dir() { sub } else { dir.to_path_buf() };
    [
        format!("TensileLibrary_lazy_{processor}.dat"),
        format!("TensileLibrary_{processor}.dat"),
        "TensileLibrary.dat".to_string(),
        format!("TensileLibrary_lazy_{processor}.yaml"),
        format!("TensileLibrary_{processor}.yaml"),
        "TensileLibrary.yaml".to_string(),
    ]
    .into_iter()
    .map(|n| base.join(n))
    .find(|p| p.is_file())
}

impl Library {
    /// Loads the master file for `processor` from `dir` (rocBLAS's search).
    pub fn open(dir: &Path, processor: &str, budget: &MemoryBudget) -> Result<Library, LoadError> {
        let path = master_path(dir, processor).ok_or_else(|| LoadError::NoCatalog {
            dir: dir.to_path_buf(),
            processor: processor.to_string(),
        })?;
        Self::open_file(&path, budget)
    }

    /// Loads a given master file.
    pub fn open_file(path: &Path, budget: &MemoryBudget) -> Result<Library, LoadError> {
        Ok(Self::from_master(load_file(path, budget)?, budget))
    }

    /// A library whose master file is already loaded (its placeholders are looked for beside
    /// the path it names).
    pub fn from_master(master: File, budget: &MemoryBudget) -> Library {
        let mut named = rustc_hash::FxHashMap::default();
        if let Some(root) = &master.catalog.library {
            placeholder_names(root, &mut |name| {
                named.entry(name.to_string()).or_insert_with(OnceLock::new);
            });
        }
        Library {
            named,
            dir: master
                .path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            master: Arc::new(master),
            placeholders: Mutex::new(rustc_hash::FxHashMap::default()),
            budget: budget.clone(),
        }
    }

    /// The path a placeholder names: the master's folder, the value, the master's suffix.
    pub fn placeholder_path(&self, value: &str) -> PathBuf {
        let suffix = self
            .master
            .path
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default();
        self.dir.join(format!("{value}{suffix}"))
    }

    /// The file a placeholder names, loaded on first use (once, whatever the threads).
    pub fn placeholder(&self, value: &str) -> Result<Arc<File>, LoadError> {
        let load = || load_file(&self.placeholder_path(value), &self.budget).map(Arc::new);
        if let Some(slot) = self.named.get(value) {
            return slot.get_or_init(load).clone();
        }
        let cell = {
            let mut map = match self.placeholders.lock() {
                Ok(m) => m,
                Err(p) => p.into_inner(),
            };
            match map.get(value) {
                Some(c) => c.clone(),
                None => map
                    .entry(value.to_string())
                    .or_insert_with(|| Arc::new(OnceLock::new()))
                    .clone(),
            }
        };
        cell.get_or_init(load).clone()
    }

    /// The placeholder files loaded so far, by name.
    pub fn loaded(&self) -> Vec<String> {
        let map = match self.placeholders.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        let named = self.named.iter();
        let mut v: Vec<String> = named
            .chain(map.iter().map(|(k, c)| (k, &**c)))
            .filter(|(_, c)| matches!(c.get(), Some(Ok(_))))
            .map(|(k, _)| k.clone())
            .collect();
        v.sort();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The in-place permutation puts entry `order[k]` and its key at `k`, as copying would.
        #[test]
        fn permute_moves_each_entry_and_its_key(
            keys in proptest::collection::vec(any::<i64>(), 0..60),
            seed in any::<u64>(),
        ) {
            let dims = 3;
            let n = keys.len() / dims;
            let mut m = Matching {
                properties: Vec::new(),
                distance: Ok(catalog::Distance::Euclidean),
                dims,
                keys: keys[..n * dims].to_vec(),
                entries: (0..n)
                    .map(|i| catalog::Entry {
                        value: EntryValue::Index(i as i64),
                        speed: i as f64,
                        pos: i as u32,
                    })
                    .collect(),
                near3: Vec::new(),
                solutions: None,
            };
            // A permutation of 0..n from the seed (Fisher–Yates with an xorshift).
            let mut order: Vec<usize> = (0..n).collect();
            let mut s = seed | 1;
            for i in (1..n).rev() {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                order.swap(i, (s % (i as u64 + 1)) as usize);
            }
            let want_keys: Vec<i64> = order
                .iter()
                .flat_map(|&i| keys[i * dims..(i + 1) * dims].to_vec())
                .collect();
            permute(&mut m, order.clone());
            prop_assert_eq!(&m.keys, &want_keys);
            let got: Vec<u32> = m.entries.iter().map(|e| e.pos).collect();
            let want: Vec<u32> = order.iter().map(|&i| i as u32).collect();
            prop_assert_eq!(got, want);
        }

        /// After the sort, each [`catalog::Near3`] record holds its entry's key, and its runs
        /// are exactly the entries sharing its first one and two values.
        #[test]
        fn near3_records_bound_the_runs_of_each_prefix(
            raw in proptest::collection::vec((0i64..3, 0i64..3, 0i64..4, 0u8..3), 0..80),
        ) {
            let mut m = Matching {
                properties: Vec::new(),
                distance: Ok(catalog::Distance::Euclidean),
                dims: 3,
                keys: raw.iter().flat_map(|r| [r.0, r.1, r.2]).collect(),
                entries: raw
                    .iter()
                    .enumerate()
                    .map(|(i, r)| catalog::Entry {
                        value: EntryValue::Index(i as i64),
                        speed: f64::from(r.3),
                        pos: i as u32,
                    })
                    .collect(),
                near3: Vec::new(),
                solutions: None,
            };
            let classes = crate::verdict::Classes::default();
            sort_table(&mut m, &classes);
            prop_assert_eq!(m.near3.len(), m.entries.len());
            for (i, r) in m.near3.iter().enumerate() {
                let key: Vec<i64> = r.key.iter().map(|&v| i64::from(v)).collect();
                prop_assert_eq!(&key[..], m.key(i));
                for j in 0..2 {
                    let same = |x: usize| m.key(x)[..=j] == key[..=j];
                    let [start, end] = r.runs[j].map(|b| b as usize);
                    prop_assert!((start..end).all(same));
                    prop_assert!(start == 0 || !same(start - 1));
                    prop_assert!(end == m.entries.len() || !same(end));
                }
            }
        }
    }
}
