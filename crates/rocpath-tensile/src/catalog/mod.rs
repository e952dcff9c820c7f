//! The selection tree of a Tensile catalog, decoded into types.
//!
//! [`summarize`](crate::summarize) counts what a catalog holds; this module reads what the
//! loading library reads to *choose* a solution: every library node, predicate, matching table
//! and solution, with the field names and shapes of Tensile's serialization
//! (ROCm/Tensile@be49885f `Tensile/Source/lib/include/Tensile/Serialization/`:
//! `SolutionLibrary.hpp` (node kinds `Hardware`, `Problem`, `ProblemMap`, `Matching`,
//! `Placeholder`, `Single`, `DecisionTree`, `Granularity`), `Predicates.hpp` and
//! `ContractionPredicates.hpp` (predicate names), `MatchingLibrary.hpp` (`table` entries
//! `{key, index | value, speed}`, `distance`), `ContractionSolution.hpp` (solutions)).
//!
//! TensileLite's catalogs (hipBLASLt) decode here too: their predicates and solution fields (see
//! `pred.rs`, `solution.rs`), the indexed layout (`format_version` 2: `solutions_index` triples
//! into `solutions_blob`, read by the loader's rules — see [`crate::indexed`]), `.dat.zlib` files
//! ([`decode_named`]) and the index → file map `TensileLiteLibrary_lazy_Mapping.dat`
//! ([`decode_mapping`]).
//!
//! The tree is kept in file order: sorting matching tables, as the loader does, belongs to the
//! model that evaluates it. A node, predicate, property or distance this reader does not know is
//! kept as `Unknown(name)` so that the rest of the catalog stays usable and an evaluation that
//! reaches it can say what stopped it.
//!
//! ```
//! // {"solutions": [], "library": {"type": "Placeholder", "value": "TensileLibrary_Type_SS"}}
//! let yaml = "solutions: []\nlibrary: {type: Placeholder, value: TensileLibrary_Type_SS}\n";
//! let bytes = rocpath_tensile::yaml_to_msgpack(yaml).unwrap();
//! let c = rocpath_tensile::catalog::decode(&bytes).unwrap();
//! assert!(matches!(c.library, Some(rocpath_tensile::catalog::Node::Placeholder(ref p)) if p == "TensileLibrary_Type_SS"));
//! ```

mod fields;
mod pred;
mod solution;
mod streamed;

pub use pred::{
    BufferLoadCheck, DataType, Float, GpuLeaf, HwLeaf, Pred, ProblemLeaf, ScalarValue, TaskLeaf,
};
pub use solution::{ProblemType, SizeMapping, Solution};

use fields::{Fields, dec_err};
use rocpath_mpack::{Kind, Reader, SkipMemo};

/// Why a catalog could not be decoded.
pub type Error = crate::Error;

/// A decoded catalog file.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// `version`, when present.
    pub version: Option<String>,
    /// `format_version` (2: the indexed layout), when present.
    pub format_version: Option<i64>,
    /// The solutions, in file order.
    pub solutions: Vec<Solution>,
    /// The root of the selection tree (`library`), when present.
    pub library: Option<Node>,
}

/// One node of the selection tree.
#[derive(Debug, Clone)]
pub enum Node {
    /// `Hardware`: rows tried in order on the device.
    Hardware(Vec<Row<HwLeaf>>),
    /// `Problem`: rows tried in order on the problem.
    Problem(Vec<Row<ProblemLeaf>>),
    /// `ProblemMap`: one sub-library per value of a property of the problem.
    ProblemMap {
        /// The property (`OperationIdentifier`).
        property: String,
        /// Key → sub-library, in file order.
        map: Vec<(String, Node)>,
    },
    /// `Matching`: the nearest tuned size.
    Matching(Box<Matching>),
    /// `Placeholder`: a file of the same folder, loaded on first use (`value` + the suffix of
    /// the file that names it).
    Placeholder(String),
    /// `Single`: one solution, by index.
    Single(i64),
    /// `DecisionTree`: a forest of trees, one solution each.
    DecisionTree(Box<Forest>),
    /// A node kind this reader does not model (`Granularity`, or unknown).
    Unknown(String),
}

/// A row of a `Hardware` or `Problem` node.
#[derive(Debug, Clone)]
pub struct Row<L> {
    /// The row's predicate.
    pub predicate: Pred<L>,
    /// What the row leads to.
    pub library: Node,
}

/// A property of the problem that a matching table or decision tree reads.
#[derive(Debug, Clone, PartialEq)]
pub enum Property {
    /// `FreeSizeA[index]` (M).
    FreeSizeA(usize),
    /// `FreeSizeB[index]` (N).
    FreeSizeB(usize),
    /// `BatchSize[index]`.
    BatchSize(usize),
    /// `BoundSize[index]` (K).
    BoundSize(usize),
    /// `AStride[index]` … `DStride[index]`: a tensor (0–3) and the stride.
    Stride(u8, usize),
    /// An ML feature of a decision tree: `Tile0Granularity` (value 1/MT0).
    Tile0Granularity(f32),
    /// `Tile1Granularity` (value 1/MT1).
    Tile1Granularity(f32),
    /// `CUGranularity` {mt0, mt1, cus}.
    CuGranularity([f32; 3]),
    /// `WavesPerSIMD` {mt0, mt1, cus, ws}.
    WavesPerSimd([f32; 4]),
    /// `ProblemScaleMeasure`.
    ProblemScaleMeasure,
    /// A property this reader does not know.
    Unknown(String),
}

/// A distance function of a matching table (`Distance.hpp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distance {
    /// `Euclidean`: the squared distance.
    Euclidean,
    /// `Manhattan`.
    Manhattan,
    /// `Ratio`: 1 + Σ|log(p/q)|.
    Ratio,
    /// `Equality`: only the exact key.
    Equality,
    /// `GridBased`: hipBLASLt's grid search.
    GridBased,
    /// `JSD`: Jensen–Shannon divergence of the first three key values.
    Jsd,
    /// `Random`: `rand()`; cannot be predicted.
    Random,
}

impl Distance {
    /// The name the catalogs use.
    pub fn name(self) -> &'static str {
        match self {
            Distance::Euclidean => "Euclidean",
            Distance::Manhattan => "Manhattan",
            Distance::Ratio => "Ratio",
            Distance::Equality => "Equality",
            Distance::GridBased => "GridBased",
            Distance::Jsd => "JSD",
            Distance::Random => "Random",
        }
    }

    /// The distance named `s` as the host library names it (`MatchingLibrary.hpp:139-175`).
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "Euclidean" => Distance::Euclidean,
            "Manhattan" => Distance::Manhattan,
            "Ratio" => Distance::Ratio,
            "Equality" => Distance::Equality,
            "GridBased" => Distance::GridBased,
            "JSD" => Distance::Jsd,
            "Random" => Distance::Random,
            _ => return None,
        })
    }
}

/// A matching table: keys stored flat (`dims` values per entry), in file order.
#[derive(Debug, Clone)]
pub struct Matching {
    /// The properties that make the key.
    pub properties: Vec<Property>,
    /// The distance, or the unknown name.
    pub distance: Result<Distance, String>,
    /// Values per key (= properties).
    pub dims: usize,
    /// All keys, `dims` values each.
    pub keys: Vec<i64>,
    /// The entries, parallel to the keys.
    pub entries: Vec<Entry>,
    /// For a table searched by Euclidean distance over three values (the usual M, N, K), its
    /// entries as that search reads them, once a loader has sorted the table; empty otherwise.
    pub near3: Vec<Near3>,
    /// Once a loader has resolved the table: the distinct positions of the solutions its entries
    /// name, ascending, when every entry names one (`None` otherwise, or before).
    pub solutions: Option<Box<[u32]>>,
}

impl Matching {
    /// The key of entry `i`.
    pub fn key(&self, i: usize) -> &[i64] {
        self.keys
            .get(i * self.dims..(i + 1) * self.dims)
            .unwrap_or(&[])
    }
}

/// One entry of a matching table.
#[derive(Debug, Clone)]
pub struct Entry {
    /// What the entry leads to.
    pub value: EntryValue,
    /// `speed` (0 when absent, as upstream leaves it unset only in hand-written tables).
    pub speed: f64,
    /// For an `index` entry, the solution's position in the file's `solutions`, once a loader
    /// has resolved it ([`UNRESOLVED`] until then).
    pub pos: u32,
}

/// One entry of a sorted three-value table with what the nearest-key search reads at every entry
/// it looks at, in half a cache line: its key, the runs of entries sharing its first value and
/// its first two values, and its solution's verdict class. A loader builds them
/// ([`Matching::near3`]) so that the search, which jumps from run to run, touches one short
/// record per entry it looks at; the entry's speed and solution are read only when it is tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct Near3 {
    /// The key (a table whose keys do not all fit `i32` gets no records).
    pub key: [i32; 3],
    /// `[start, end)` of the run sharing `key[0]`, then of the run sharing `key[0..2]`.
    pub runs: [[u32; 2]; 2],
    /// The solution's verdict class, as the loader groups solutions whose predicates are the
    /// same; `u32::MAX` when the entry names no solution.
    pub class: u32,
}

/// [`Entry::pos`] before a loader resolves it.
pub const UNRESOLVED: u32 = u32::MAX;

/// The value of a matching entry.
#[derive(Debug, Clone)]
pub enum EntryValue {
    /// `index`: a solution.
    Index(i64),
    /// `value`: a sub-library.
    Node(Box<Node>),
}

/// A decision-tree forest (`DecisionTree.hpp`).
#[derive(Debug, Clone)]
pub struct Forest {
    /// The features that make the key.
    pub features: Vec<Property>,
    /// The trees, tried in order.
    pub trees: Vec<Tree>,
    /// What is returned when no tree says yes.
    pub null_value: Box<Node>,
}

/// One tree of a forest.
#[derive(Debug, Clone)]
pub struct Tree {
    /// The nodes.
    pub nodes: Vec<TreeNode>,
    /// The library (a `Single`) the tree decides about.
    pub value: Node,
}

/// A node of a decision tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeNode {
    /// Index into the features.
    pub feature: i32,
    /// Threshold: `<=` goes to `lte`.
    pub threshold: f32,
    /// Next node when `<=` (-1 false, -2 true).
    pub lte: i32,
    /// Next node when `>`.
    pub gt: i32,
}

/// Most entries a catalog's containers may declare, past which it is refused: the largest
/// real tables hold about 50,000 entries; this bounds what a lying file makes us allocate.
pub const MAX_ITEMS: usize = 1 << 22;

/// Decodes a MessagePack catalog (`.dat`; YAML first through [`crate::yaml_to_msgpack`]).
///
/// An indexed catalog (`format_version` 2) is refused as hipBLASLt's loader refuses it — an
/// unknown version, an index that is not `(index, offset, length)` triples, a negative field, an
/// index past `int`, a repeated index, a slice past the blob, a missing index or blob — and its
/// solutions are read from the slices, in the order of the triples.
pub fn decode(data: &[u8]) -> Result<Catalog, Error> {
    let top = top_level(data)?;
    let mut out = Catalog {
        version: top.version,
        format_version: top.format_version,
        ..Catalog::default()
    };
    let indexed = match out.format_version {
        Some(v) => Some(indexed_parts(v, top.version_at, top.index, top.blob)?),
        None => None,
    };
    // The solutions and the library tree are decoded side by side (most of a file is one or
    // the other); the first error in the file's order is the one reported, as if read in turn.
    let (parts, sols, libs) = (&top.parts, &top.parts, &top.parts);
    let (solutions, library) = rayon::join(
        move || {
            let memo = SkipMemo::default();
            let mut got = Vec::new();
            for &(at, raw) in sols.iter().filter(|p| p.0 == Part::Solutions).map(|p| &p.1) {
                got.push(solution::read_all(
                    &mut Reader::with_base(raw, at).with_memo(&memo),
                ));
            }
            if let Some((index, at, blob)) = indexed {
                let mut v = Vec::new();
                got.push(indexed_solutions(index, at, blob, &mut v, &memo).map(|()| v));
            }
            got
        },
        move || {
            // Each level of the library tree reads its node whole before interpreting it, so
            // the tables at the bottom would be walked once per level without the memo.
            let memo = SkipMemo::default();
            libs.iter()
                .filter(|p| p.0 == Part::Library)
                .map(|&(_, (at, raw))| node(&mut Reader::with_base(raw, at).with_memo(&memo), 0))
                .collect::<Vec<_>>()
        },
    );
    let (mut solutions, mut library) = (solutions.into_iter(), library.into_iter());
    for (kind, _) in parts {
        match kind {
            Part::Solutions => out
                .solutions
                .append(&mut solutions.next().transpose()?.unwrap_or_default()),
            Part::Library => out.library = library.next().transpose()?,
        }
    }
    // The indexed solutions come last, after every part of the map.
    if let Some(v) = solutions.next() {
        out.solutions.append(&mut v?);
    }
    Ok(out)
}

/// A part of the top-level map decoded on its own.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Part {
    Solutions,
    Library,
}

/// The top-level map read once: its scalars, and where each part and the indexed layout's
/// fields lie (offset, bytes), in the file's order.
#[derive(Default)]
struct TopLevel<'a> {
    version: Option<String>,
    format_version: Option<i64>,
    version_at: u64,
    index: Option<(u64, &'a [u8])>,
    blob: Option<&'a [u8]>,
    parts: Vec<(Part, (u64, &'a [u8]))>,
}

fn top_level(data: &[u8]) -> Result<TopLevel<'_>, Error> {
    let mut rd = Reader::new(data);
    if rd.peek()? != Kind::Map {
        return Err(dec_err(0, "the top level is not a map"));
    }
    let mut top = TopLevel::default();
    let n = rd.map_len()?;
    for i in 0..n {
        let Some(key) = rd.str_or_skip()? else {
            rd.skip()?;
            continue;
        };
        let at = rd.offset();
        // A part that ends the map is not walked to find its end: its decoder reads it.
        let last = i + 1 == n;
        let rest = data
            .get(usize::try_from(at).unwrap_or(usize::MAX)..)
            .unwrap_or(&[]);
        match key {
            "version" if rd.peek()? == Kind::Str => top.version = Some(rd.str()?.to_string()),
            "format_version" if rd.peek()? == Kind::Int => {
                top.version_at = at;
                top.format_version = Some(int(&mut rd)?);
            }
            "solutions_index" if rd.peek()? == Kind::Array => top.index = Some((at, rd.raw()?)),
            "solutions_blob" if rd.peek()? == Kind::Bin => {
                top.blob = Some(crate::indexed::bin_payload(rd.raw()?));
            }
            "solutions" | "library" => {
                let kind = if key == "library" {
                    Part::Library
                } else {
                    Part::Solutions
                };
                top.parts
                    .push((kind, (at, if last { rest } else { rd.raw()? })));
            }
            _ => rd.skip()?,
        }
    }
    Ok(top)
}

/// The indexed layout's index and blob, once its version is checked.
fn indexed_parts<'a>(
    v: i64,
    version_at: u64,
    index: Option<(u64, &'a [u8])>,
    blob: Option<&'a [u8]>,
) -> Result<(&'a [u8], u64, &'a [u8]), Error> {
    if i128::from(v) != crate::indexed::FORMAT_INDEXED {
        return Err(dec_err(
            version_at,
            &format!(
                "format_version {v}: hipBLASLt reads the legacy layout and format_version 2 only"
            ),
        ));
    }
    let (Some((at, index)), Some(blob)) = (index, blob) else {
        return Err(dec_err(
            version_at,
            if index.is_none() {
                "format_version 2 without `solutions_index`"
            } else {
                "format_version 2 without `solutions_blob`"
            },
        ));
    };
    Ok((index, at, blob))
}

/// The solutions of an indexed catalog: each `(index, offset, length)` triple of `index` (at
/// byte `at` of the file) names a slice of `blob` holding one solution map.
fn indexed_solutions(
    index: &[u8],
    at: u64,
    blob: &[u8],
    out: &mut Vec<Solution>,
    memo: &SkipMemo,
) -> Result<(), Error> {
    let mut rd = Reader::with_base(index, at);
    let n = list_len(&mut rd)?;
    if n % 3 != 0 {
        return Err(dec_err(
            at,
            &format!("solutions_index has {n} numbers, not (index, offset, length) triples"),
        ));
    }
    let mut seen = std::collections::HashSet::with_capacity((n / 3).min(1 << 16));
    for _ in 0..n / 3 {
        let off_at = rd.offset();
        let (i, off, len) = (rd.int()?, rd.int()?, rd.int()?);
        let bad = |why: String| dec_err(off_at, &format!("solutions_index: {why}"));
        if i < 0 || off < 0 || len < 0 {
            return Err(bad(format!("negative field ({i}, {off}, {len})")));
        }
        if i32::try_from(i).is_err() {
            return Err(bad(format!("index {i} does not fit an int")));
        }
        let end = off.checked_add(len).filter(|e| *e <= blob.len() as i128);
        let Some(end) = end else {
            return Err(bad(format!(
                "slice {off}+{len} runs past the {}-byte solutions_blob",
                blob.len()
            )));
        };
        if !seen.insert(i) {
            return Err(bad(format!("index {i} appears twice")));
        }
        let slice = blob.get(off as usize..end as usize).unwrap_or(&[]);
        // The blob is part of the decoded buffer, so the buffer's memo serves its slices.
        let mut s = Reader::new(slice).with_memo(memo);
        let sol = solution::read(&mut s).map_err(|e| match e {
            crate::Error::Catalog { offset, msg } => dec_err(
                off_at,
                &format!("solution {i} (blob byte {}): {msg}", off as u64 + offset),
            ),
            other => other,
        })?;
        out.push(sol);
    }
    Ok(())
}

/// Decodes a catalog file by its name: `.zlib` is inflated first (in steps reserved from
/// `budget`, [`crate::indexed::inflate`]), YAML is converted, anything else is MessagePack.
pub fn decode_named(
    name: &str,
    data: &[u8],
    budget: &rocpath_budget::MemoryBudget,
) -> Result<Catalog, Error> {
    let lower = name.to_ascii_lowercase();
    if let Some(inner) = lower.strip_suffix(".zlib") {
        let (bytes, _held) = crate::indexed::inflate(data, budget)?;
        return decode_named(inner, &bytes, budget);
    }
    if lower.ends_with(".yaml") || lower.ends_with(".yml") {
        let text =
            std::str::from_utf8(data).map_err(|e| crate::Error::Yaml(format!("not UTF-8: {e}")))?;
        let (mp, _held) = crate::yaml_to_msgpack_in(text, budget)?;
        return decode(&mp);
    }
    decode(data)
}

/// Decodes `TensileLiteLibrary_lazy_Mapping.dat`: a map from the first solution index of each
/// per-type file to the file's name without suffix (hipBLASLt's `LoadLibraryMapping`, read by
/// `MasterSolutionLibrary::initLibraryMapping`, `MasterSolutionLibrary.hpp:108-123` as stored in
/// the reference's sources). Returned in key order.
pub fn decode_mapping(data: &[u8]) -> Result<Vec<(i64, String)>, Error> {
    let mut rd = Reader::new(data);
    let off = rd.offset();
    if rd.peek()? != Kind::Map {
        return Err(dec_err(off, "the mapping file is not a map"));
    }
    let n = rd.map_len()?;
    if n > MAX_ITEMS {
        return Err(dec_err(off, "map too large"));
    }
    let mut out = Vec::with_capacity(n.min(1 << 16));
    for _ in 0..n {
        // `objectToMap` turns every key into a string, then `std::stoi` (MessagePack.cpp:140-148
        // as stored in the reference's sources): integer keys and decimal strings both work.
        let at = rd.offset();
        let k = if rd.peek()? == Kind::Str {
            let t = rd.str()?;
            t.trim()
                .parse::<i64>()
                .map_err(|_| dec_err(at, &format!("mapping key `{t}` is not a number")))?
        } else {
            int(&mut rd)?
        };
        out.push((k, rd.str()?.to_string()));
    }
    out.sort_by_key(|(k, _)| *k);
    Ok(out)
}

/// Deepest library nesting accepted (real catalogs nest 6 levels).
const MAX_NODE_DEPTH: u32 = 48;

fn node(rd: &mut Reader<'_>, depth: u32) -> Result<Node, Error> {
    if let Some(n) = streamed::node(rd, depth)? {
        return Ok(n);
    }
    let f = Fields::read(rd)?;
    if depth > MAX_NODE_DEPTH {
        return Err(dec_err(f.offset, "library nodes nested too deep"));
    }
    let kind = f.type_name()?;
    Ok(match kind {
        "Hardware" => Node::Hardware(rows(&f, depth, pred::hw_leaf)?),
        "Problem" => Node::Problem(rows(&f, depth, pred::problem_leaf)?),
        "ProblemMap" => problem_map(&f, depth)?,
        "Matching" => Node::Matching(Box::new(matching(&f, depth)?)),
        "Placeholder" => Node::Placeholder(f.req("value")?.str()?.to_string()),
        "Single" => Node::Single(int(&mut f.req("index")?)?),
        "DecisionTree" => Node::DecisionTree(Box::new(forest(&f, depth)?)),
        other => Node::Unknown(other.to_string()),
    })
}

fn int(rd: &mut Reader<'_>) -> Result<i64, Error> {
    let off = rd.offset();
    i64::try_from(rd.int()?).map_err(|_| dec_err(off, "integer out of range"))
}

fn list_len(rd: &mut Reader<'_>) -> Result<usize, Error> {
    let off = rd.offset();
    let n = rd.array_len()?;
    if n > MAX_ITEMS {
        return Err(dec_err(
            off,
            &format!("{n} items declared (most {MAX_ITEMS})"),
        ));
    }
    Ok(n)
}

fn rows<L>(
    f: &Fields<'_>,
    depth: u32,
    leaf: fn(&Fields<'_>) -> Result<L, Error>,
) -> Result<Vec<Row<L>>, Error> {
    let mut rd = f.req("rows")?;
    let n = list_len(&mut rd)?;
    let mut out = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        let row = Fields::read(&mut rd)?;
        let predicate = pred::read(&mut row.req("predicate")?, leaf, 0)?;
        let library = node(&mut row.req("library")?, depth + 1)?;
        out.push(Row { predicate, library });
    }
    Ok(out)
}

fn problem_map(f: &Fields<'_>, depth: u32) -> Result<Node, Error> {
    let prop = Fields::read(&mut f.req("property")?)?;
    let property = prop.type_name()?.to_string();
    let mut rd = f.req("map")?;
    let off = rd.offset();
    let n = rd.map_len()?;
    if n > MAX_ITEMS {
        return Err(dec_err(off, "map too large"));
    }
    let mut map = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        let key = rd.str()?.to_string();
        map.push((key, node(&mut rd, depth + 1)?));
    }
    Ok(Node::ProblemMap { property, map })
}

fn property(f: &Fields<'_>) -> Result<Property, Error> {
    let index = || -> Result<usize, Error> {
        let mut r = f.req("index")?;
        let off = r.offset();
        usize::try_from(r.int()?).map_err(|_| dec_err(off, "negative property index"))
    };
    let floats = |names: &[&str]| -> Result<Vec<f32>, Error> {
        let v = Fields::read(&mut f.req("value")?)?;
        names
            .iter()
            .map(|n| Ok(v.req(n)?.float()? as f32))
            .collect()
    };
    Ok(match f.type_name()? {
        "FreeSizeA" => Property::FreeSizeA(index()?),
        "FreeSizeB" => Property::FreeSizeB(index()?),
        "BatchSize" => Property::BatchSize(index()?),
        "BoundSize" => Property::BoundSize(index()?),
        "AStride" => Property::Stride(0, index()?),
        "BStride" => Property::Stride(1, index()?),
        "CStride" => Property::Stride(2, index()?),
        "DStride" => Property::Stride(3, index()?),
        "Tile0Granularity" => Property::Tile0Granularity(f.req("value")?.float()? as f32),
        "Tile1Granularity" => Property::Tile1Granularity(f.req("value")?.float()? as f32),
        "CUGranularity" => {
            let v = floats(&["mt0", "mt1", "cus"])?;
            Property::CuGranularity([v[0], v[1], v[2]])
        }
        "WavesPerSIMD" => {
            let v = floats(&["mt0", "mt1", "cus", "ws"])?;
            Property::WavesPerSimd([v[0], v[1], v[2], v[3]])
        }
        "ProblemScaleMeasure" => Property::ProblemScaleMeasure,
        other => Property::Unknown(other.to_string()),
    })
}

fn properties(rd: &mut Reader<'_>) -> Result<Vec<Property>, Error> {
    let n = list_len(rd)?;
    let mut out = Vec::with_capacity(n.min(64));
    for _ in 0..n {
        out.push(property(&Fields::read(rd)?)?);
    }
    Ok(out)
}

fn matching(f: &Fields<'_>, depth: u32) -> Result<Matching, Error> {
    let properties = properties(&mut f.req("properties")?)?;
    if properties.is_empty() {
        return Err(dec_err(f.offset, "matching table without properties"));
    }
    let dname = f.req("distance")?.str()?;
    let distance = Distance::parse(dname).ok_or_else(|| dname.to_string());
    let dims = properties.len();
    let mut rd = f.req("table")?;
    let n = list_len(&mut rd)?;
    let mut keys = Vec::with_capacity((n * dims).min(1 << 20));
    let mut entries = Vec::with_capacity(n.min(1 << 18));
    for _ in 0..n {
        entries.push(table_entry(&mut rd, dims, &mut keys, depth)?);
    }
    Ok(Matching {
        properties,
        distance,
        dims,
        keys,
        entries,
        near3: Vec::new(),
        solutions: None,
    })
}

/// One entry of a matching table (`{key, index | value, speed}` in any order, the first of a
/// repeated field counting), its key appended to `keys`. Read in one pass: tables are most of a
/// catalog's bytes, and reading each entry's fields twice (find, then decode) showed.
fn table_entry(
    rd: &mut Reader<'_>,
    dims: usize,
    keys: &mut Vec<i64>,
    depth: u32,
) -> Result<Entry, Error> {
    let offset = rd.offset();
    if rd.peek()? != Kind::Map {
        rd.skip()?;
        return Err(dec_err(offset, "expected a map"));
    }
    let fields = rd.map_len()?;
    let (mut key, mut speed, mut index, mut value) = (false, None, None, None);
    for _ in 0..fields {
        match rd.key_or_skip()? {
            Some(b"key") if !key => {
                let koff = rd.offset();
                if list_len(rd)? != dims {
                    return Err(dec_err(
                        koff,
                        "a key with a length other than the properties'",
                    ));
                }
                for _ in 0..dims {
                    keys.push(int(rd)?);
                }
                key = true;
            }
            Some(b"speed") if speed.is_none() => speed = Some(rd.float()?),
            Some(b"index") if index.is_none() => index = Some(int(rd)?),
            Some(b"value") if value.is_none() => {
                let at = rd.offset();
                let raw = rd.raw()?;
                let sub = Reader::with_base(raw, at);
                value = Some(match rd.memo() {
                    Some(m) => sub.with_memo(m),
                    None => sub,
                });
            }
            _ => rd.skip()?,
        }
    }
    if !key {
        return Err(dec_err(offset, "no `key` in this map"));
    }
    // `index` -1 (or absent) means the entry carries a sub-library in `value`.
    let value = match (index.unwrap_or(-1), value) {
        (-1, Some(mut v)) => EntryValue::Node(Box::new(node(&mut v, depth + 1)?)),
        (-1, None) => return Err(dec_err(offset, "no `value` in this map")),
        (i, _) => EntryValue::Index(i),
    };
    Ok(Entry {
        value,
        speed: speed.unwrap_or(0.0),
        pos: UNRESOLVED,
    })
}

fn forest(f: &Fields<'_>, depth: u32) -> Result<Forest, Error> {
    let features = properties(&mut f.req("features")?)?;
    if features.is_empty() {
        return Err(dec_err(f.offset, "decision trees without features"));
    }
    let mut rd = f.req("trees")?;
    let n = list_len(&mut rd)?;
    let mut trees = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        let t = Fields::read(&mut rd)?;
        let mut nr = t.req("tree")?;
        let m = list_len(&mut nr)?;
        let mut nodes = Vec::with_capacity(m.min(1 << 16));
        for _ in 0..m {
            let nf = Fields::read(&mut nr)?;
            let small = |k: &str| -> Result<i32, Error> {
                let mut r = nf.req(k)?;
                let off = r.offset();
                i32::try_from(r.int()?).map_err(|_| dec_err(off, "tree index out of range"))
            };
            nodes.push(TreeNode {
                feature: small("featureIdx")?,
                threshold: nf.req("threshold")?.float()? as f32,
                lte: small("nextIdxLTE")?,
                gt: small("nextIdxGT")?,
            });
        }
        let value = node(&mut t.req("value")?, depth + 1)?;
        trees.push(Tree { nodes, value });
    }
    let null_value = Box::new(node(&mut f.req("nullValue")?, depth + 1)?);
    Ok(Forest {
        features,
        trees,
        null_value,
    })
}

#[cfg(test)]
mod tests;
