//! MIOpen's solver registry (`SolverRegistrar::SolverRegistrar` in `src/solver.cpp`): ids are
//! positional — every `++id` counts, a removed solver leaves a bare `++id;` — and every
//! `RegisterWithSolver(registry, ++id, conv::X{}, miopenConvolutionAlgoY)` registers a
//! convolution solver under the id just reached.

use crate::index::{Index, strip_targs, text};
use tree_sitter::Node;

/// One registered convolution solver.
#[derive(Debug, Clone)]
pub struct Registered {
    /// Registry id.
    pub id: u64,
    /// `SolverDbId()` as MIOpen computes it (class name after the last `:`, `,` → `-`, spaces
    /// dropped), or the class's own override.
    pub name: String,
    /// The class as written (`conv::ConvBinWinoRxS<3, 2>`).
    pub written: String,
    /// The class name, no namespace, no template arguments.
    pub class: String,
    /// Integer template arguments.
    pub targs: Vec<i64>,
    /// Algorithm.
    pub algo: String,
    /// File index and line.
    pub file: u32,
    /// Line.
    pub line: u32,
}

/// `ComputeSolverDbId` (src/include/miopen/solver.hpp:93-110).
pub fn solver_db_id(written: &str) -> String {
    let w = written.trim();
    // The last `::` outside template arguments.
    let mut depth = 0usize;
    let mut cut = 0usize;
    let b = w.as_bytes();
    for (i, c) in b.iter().enumerate() {
        match c {
            b'<' => depth += 1,
            b'>' => depth = depth.saturating_sub(1),
            b':' if depth == 0 => cut = i + 1,
            _ => {}
        }
    }
    w[cut..].replace(',', "-").replace(' ', "")
}

fn template_args(written: &str) -> Vec<i64> {
    let Some(a) = written.find('<') else {
        return Vec::new();
    };
    let inner = written[a + 1..].trim_end().trim_end_matches('>');
    inner
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect()
}

struct Walk<'a> {
    src: &'a [u8],
    id: u64,
    file: u32,
    out: Vec<Registered>,
}

fn walk(w: &mut Walk, n: Node) {
    let mut c = n.walk();
    let kids: Vec<Node> = n.named_children(&mut c).collect();
    for k in kids {
        walk(w, k);
    }
    match n.kind() {
        "update_expression" if text(n, w.src).replace(' ', "") == "++id" => w.id += 1,
        "assignment_expression" => {
            let l = n.child_by_field_name("left").map(|x| text(x, w.src));
            let r = n
                .child_by_field_name("right")
                .and_then(|x| text(x, w.src).parse::<u64>().ok());
            if let (Some("id"), Some(v)) = (l, r) {
                w.id = v;
            }
        }
        "call_expression" => {
            let f = n
                .child_by_field_name("function")
                .map(|x| text(x, w.src))
                .unwrap_or("");
            if f != "RegisterWithSolver" {
                return;
            }
            let Some(al) = n.child_by_field_name("arguments") else {
                return;
            };
            let mut c2 = al.walk();
            let args: Vec<Node> = al
                .named_children(&mut c2)
                .filter(|a| a.kind() != "comment")
                .collect();
            let (Some(obj), Some(algo)) = (args.get(2), args.get(3)) else {
                return;
            };
            let written = match obj.child_by_field_name("type") {
                Some(t) => text(t, w.src).to_string(),
                None => text(*obj, w.src).trim_end_matches("{}").to_string(),
            };
            let class = strip_targs(&written);
            let class = class.rsplit("::").next().unwrap_or(&class).to_string();
            w.out.push(Registered {
                id: w.id,
                name: solver_db_id(&written),
                targs: template_args(&written),
                written,
                class,
                algo: text(*algo, w.src).to_string(),
                file: w.file,
                line: n.start_position().row as u32 + 1,
            });
        }
        _ => {}
    }
}

/// Reads the registry from the index (the file holding `SolverRegistrar::SolverRegistrar`).
pub fn read(ix: &Index) -> Result<Vec<Registered>, String> {
    let f = ix
        .funcs
        .iter()
        .find(|f| f.qname.ends_with("SolverRegistrar::SolverRegistrar"))
        .ok_or("no SolverRegistrar::SolverRegistrar definition")?;
    let mut parser = crate::index::parser().ok_or("the C++ parser could not be set up")?;
    let tree = ix
        .tree(&mut parser, f.file)
        .ok_or("src/solver.cpp does not parse")?;
    let src = &ix.files[f.file as usize].1;
    let node = tree
        .root_node()
        .descendant_for_byte_range(f.range.0, f.range.1)
        .ok_or("registrar body not found")?;
    let body = node
        .child_by_field_name("body")
        .ok_or("registrar has no body")?;
    let mut w = Walk {
        src,
        id: 0,
        file: f.file,
        out: Vec::new(),
    };
    walk(&mut w, body);
    if w.out.is_empty() {
        return Err("no RegisterWithSolver call in SolverRegistrar".into());
    }
    for r in &mut w.out {
        if let Some(n) = custom_name(ix, r) {
            r.name = n;
        }
    }
    Ok(w.out)
}

/// A class whose `SolverDbId()` does not return `GetSolverDbId<Self>()` names itself; the
/// name is read from the registry table (`rocpath_miopen::registry`) by id.
fn custom_name(ix: &Index, r: &Registered) -> Option<String> {
    let def = ix
        .by_name
        .get("SolverDbId")?
        .iter()
        .map(|&i| &ix.funcs[i])
        .find(|f| {
            f.class
                .as_deref()
                .is_some_and(|c| c.rsplit("::").next() == Some(r.class.as_str()))
        })?;
    let body = ix.files[def.file as usize]
        .1
        .get(def.range.0..def.range.1)?;
    let body = String::from_utf8_lossy(body);
    if body.contains(&format!("GetSolverDbId<{}", r.class)) {
        return None;
    }
    let row = rocpath_miopen::registry::by_id(r.id)?;
    let name = if row.legacy_name.starts_with('(') || row.legacy_name.is_empty() {
        row.name
    } else {
        row.legacy_name
    };
    Some(name.to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn db_ids_as_miopen_computes_them() {
        assert_eq!(solver_db_id("conv::ConvAsm3x3U"), "ConvAsm3x3U");
        assert_eq!(
            solver_db_id("conv::ConvMPBidirectWinograd<2, 3>"),
            "ConvMPBidirectWinograd<2-3>"
        );
        assert_eq!(
            solver_db_id("conv::ConvOclBwdWrW2<16>"),
            "ConvOclBwdWrW2<16>"
        );
        assert_eq!(template_args("conv::ConvBinWinoRxS<3, 2>"), [3, 2]);
    }

    #[test]
    fn ids_count_every_increment() {
        let src = r#"
inline SolverRegistrar::SolverRegistrar(IdRegistryData& registry)
{
    uint64_t id = 0;
    RegisterWithSolver(registry, ++id, conv::A{}, miopenConvolutionAlgoDirect);
    ++id; // removed
    Register(registry, ++id, Primitive::Fusion, fusion::F{}.SolverDbId());
    RegisterWithSolver(
        registry, ++id, conv::B<2, 3>{}, miopenConvolutionAlgoWinograd);
}
"#;
        let mut ix = Index::default();
        let mut p = crate::index::parser().unwrap();
        ix.add_file(&mut p, "src/solver.cpp".into(), src.as_bytes().to_vec());
        let r = read(&ix).unwrap();
        let got: Vec<(u64, &str, &str)> = r
            .iter()
            .map(|r| (r.id, r.name.as_str(), r.algo.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (1, "A", "miopenConvolutionAlgoDirect"),
                (4, "B<2-3>", "miopenConvolutionAlgoWinograd")
            ]
        );
        assert_eq!(r[1].targs, [2, 3]);
        assert_eq!(r[1].line, 8);
    }
}
