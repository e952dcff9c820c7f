//! The library nodes that hold nearly all of a catalog's bytes — `Hardware` and `Problem` rows,
//! `Matching` tables — read in one pass when their `type` comes first, as Tensile's writer puts
//! it. The general path ([`super::Fields`]) reads a map whole before interpreting it, which walks
//! every table once per enclosing level before decoding it; here each value is decoded where it
//! lies. The result, and the error for a bad node, are those of the general path: the first of a
//! repeated field counts, a missing field is named at the map's offset, and any node of another
//! shape (type not first, other types, too deep) is left to the general path untouched.

use super::fields::dec_err;
use super::{
    Distance, Entry, Error, Fields, MAX_NODE_DEPTH, Matching, Node, Row, list_len, pred,
    properties, table_entry,
};
use rocpath_mpack::{Kind, Reader};

/// The node at `rd`, if it is one this module reads (`None`: `rd` has not moved).
pub(super) fn node(rd: &mut Reader<'_>, depth: u32) -> Result<Option<Node>, Error> {
    if depth > MAX_NODE_DEPTH || general_only() {
        return Ok(None);
    }
    let mut probe = rd.clone();
    let offset = probe.offset();
    if probe.peek()? != Kind::Map {
        return Ok(None);
    }
    let n = probe.map_len()?;
    if n == 0 || probe.peek()? != Kind::Str || probe.key_or_skip()? != Some(b"type") {
        return Ok(None);
    }
    if probe.peek()? != Kind::Str {
        return Ok(None);
    }
    let node = match probe.str()? {
        "Hardware" => Node::Hardware(rows(&mut probe, n - 1, offset, depth, pred::hw_leaf)?),
        "Problem" => Node::Problem(rows(&mut probe, n - 1, offset, depth, pred::problem_leaf)?),
        "Matching" => Node::Matching(Box::new(matching(&mut probe, n - 1, offset, depth)?)),
        _ => return Ok(None),
    };
    *rd = probe;
    Ok(Some(node))
}

/// The rest of a rows node (`fields` entries left): its `rows`, each `{predicate, library}`.
fn rows<L>(
    rd: &mut Reader<'_>,
    fields: usize,
    offset: u64,
    depth: u32,
    leaf: fn(&Fields<'_>) -> Result<L, Error>,
) -> Result<Vec<Row<L>>, Error> {
    let mut out = None;
    for _ in 0..fields {
        match rd.key_or_skip()? {
            Some(b"rows") if out.is_none() => {
                let n = list_len(rd)?;
                let mut v = Vec::with_capacity(n.min(1024));
                for _ in 0..n {
                    v.push(row(rd, depth, leaf)?);
                }
                out = Some(v);
            }
            _ => rd.skip()?,
        }
    }
    out.ok_or_else(|| dec_err(offset, "no `rows` in this map"))
}

fn row<L>(
    rd: &mut Reader<'_>,
    depth: u32,
    leaf: fn(&Fields<'_>) -> Result<L, Error>,
) -> Result<Row<L>, Error> {
    let offset = rd.offset();
    if rd.peek()? != Kind::Map {
        rd.skip()?;
        return Err(dec_err(offset, "expected a map"));
    }
    let n = rd.map_len()?;
    let (mut predicate, mut library) = (None, None);
    for _ in 0..n {
        match rd.key_or_skip()? {
            Some(b"predicate") if predicate.is_none() => {
                predicate = Some(pred::read(rd, leaf, 0)?);
            }
            Some(b"library") if library.is_none() => library = Some(super::node(rd, depth + 1)?),
            _ => rd.skip()?,
        }
    }
    let predicate = predicate.ok_or_else(|| dec_err(offset, "no `predicate` in this map"))?;
    let library = library.ok_or_else(|| dec_err(offset, "no `library` in this map"))?;
    Ok(Row { predicate, library })
}

/// The rest of a `Matching` node: its properties, distance and table, in any order (a table
/// met before the properties is decoded once they are known).
fn matching(
    rd: &mut Reader<'_>,
    fields: usize,
    offset: u64,
    depth: u32,
) -> Result<Matching, Error> {
    let mut props = None;
    let mut distance = None;
    let mut table: Option<(Vec<i64>, Vec<Entry>)> = None;
    let mut later: Option<Reader<'_>> = None;
    for _ in 0..fields {
        match rd.key_or_skip()? {
            Some(b"properties") if props.is_none() => props = Some(properties(rd)?),
            Some(b"distance") if distance.is_none() => distance = Some(rd.str()?.to_string()),
            Some(b"table") if table.is_none() && later.is_none() => match &props {
                Some(p) if !p.is_empty() => table = Some(entries(rd, p.len(), depth)?),
                _ => {
                    let at = rd.offset();
                    let raw = rd.raw()?;
                    let sub = Reader::with_base(raw, at);
                    later = Some(match rd.memo() {
                        Some(m) => sub.with_memo(m),
                        None => sub,
                    });
                }
            },
            _ => rd.skip()?,
        }
    }
    let properties = props.ok_or_else(|| dec_err(offset, "no `properties` in this map"))?;
    if properties.is_empty() {
        return Err(dec_err(offset, "matching table without properties"));
    }
    let dname = distance.ok_or_else(|| dec_err(offset, "no `distance` in this map"))?;
    let dims = properties.len();
    let (keys, entries) = match (table, later) {
        (Some(t), _) => t,
        (None, Some(mut r)) => entries(&mut r, dims, depth)?,
        (None, None) => return Err(dec_err(offset, "no `table` in this map")),
    };
    Ok(Matching {
        properties,
        distance: Distance::parse(&dname).ok_or(dname),
        dims,
        keys,
        entries,
        near3: Vec::new(),
        solutions: None,
    })
}

/// A table's entries and their keys.
fn entries(rd: &mut Reader<'_>, dims: usize, depth: u32) -> Result<(Vec<i64>, Vec<Entry>), Error> {
    let n = list_len(rd)?;
    let mut keys = Vec::with_capacity((n * dims).min(1 << 20));
    let mut entries = Vec::with_capacity(n.min(1 << 18));
    for _ in 0..n {
        entries.push(table_entry(rd, dims, &mut keys, depth)?);
    }
    Ok((keys, entries))
}

/// Tests compare this path with the general one on real catalogs by turning it off.
#[cfg(test)]
pub(super) static GENERAL_ONLY: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

#[cfg(test)]
fn general_only() -> bool {
    GENERAL_ONLY.load(std::sync::atomic::Ordering::Relaxed)
}

#[cfg(not(test))]
fn general_only() -> bool {
    false
}
