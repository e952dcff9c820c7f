//! rocprofv3 JSON output (`-f json`, `<pid>_results.json`): a top-level
//! `rocprofiler-sdk-tool` array with one object per process holding `agents`,
//! `kernel_symbols` (an array, or an object keyed by id) and `buffer_records.kernel_dispatch`
//! (`start_timestamp`, `end_timestamp`, `dispatch_info.kernel_id`, `dispatch_info.agent_id.handle`).
//!
//! Only the fields rocpath uses are kept; each dispatch is kept as three integers until the
//! names are known, because the tool may write the symbols after the records.

use crate::model::{Agent, Aggregator, At, Collected, Resources};
use serde::Deserialize;
use std::collections::HashMap;

#[derive(Deserialize)]
struct Doc {
    #[serde(rename = "rocprofiler-sdk-tool")]
    tool: OneOrMany,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    Many(Vec<Process>),
    One(Box<Process>),
}

#[derive(Deserialize, Default)]
struct Process {
    #[serde(default)]
    agents: Vec<JAgent>,
    #[serde(default)]
    kernel_symbols: Symbols,
    #[serde(default)]
    buffer_records: Records,
}

#[derive(Deserialize, Default)]
#[serde(untagged)]
enum Symbols {
    List(Vec<Option<Symbol>>),
    Map(HashMap<String, Symbol>),
    #[default]
    None,
}

#[derive(Deserialize, Clone)]
struct Symbol {
    kernel_id: Option<u64>,
    kernel_name: Option<String>,
    formatted_kernel_name: Option<String>,
    demangled_kernel_name: Option<String>,
    truncated_kernel_name: Option<String>,
    sgpr_count: Option<u64>,
    arch_vgpr_count: Option<u64>,
    accum_vgpr_count: Option<u64>,
    group_segment_size: Option<u64>,
    private_segment_size: Option<u64>,
}

#[derive(Deserialize, Default)]
struct Records {
    #[serde(default)]
    kernel_dispatch: Vec<Dispatch>,
}

#[derive(Deserialize)]
struct Handle {
    handle: u64,
}

#[derive(Deserialize)]
struct DispatchInfo {
    kernel_id: u64,
    agent_id: Option<Handle>,
}

#[derive(Deserialize)]
struct Dispatch {
    start_timestamp: u64,
    end_timestamp: u64,
    dispatch_info: DispatchInfo,
}

#[derive(Deserialize)]
struct JAgent {
    id: Option<Handle>,
    #[serde(rename = "type")]
    kind: Option<serde_json::Value>,
    name: Option<String>,
    product_name: Option<String>,
}

/// Errors of the JSON reader.
#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    /// Not JSON, or not rocprofv3's document (the error says where).
    #[error(
        "not a rocprofv3 JSON document ({0}); give the `*_results.json` rocprofv3 wrote with `-f json`"
    )]
    Parse(serde_json::Error),
}

impl JsonError {
    /// The 1-based line of the error.
    pub fn line(&self) -> u64 {
        match self {
            JsonError::Parse(e) => e.line() as u64,
        }
    }
}

fn symbol_name(s: &Symbol) -> Option<String> {
    s.formatted_kernel_name
        .clone()
        .or_else(|| s.demangled_kernel_name.clone())
        .or_else(|| s.truncated_kernel_name.clone())
        .or_else(|| s.kernel_name.clone())
        .filter(|n| !n.is_empty())
}

/// Reads a document. `prompt_eval_ns` asks for the research's boundary (first dispatch +
/// duration); `absolute` for a fixed one. Returns the collected aggregates and the boundary
/// actually used.
pub fn read(
    bytes: &[u8],
    absolute: Option<u64>,
    prompt_eval_ns: Option<u64>,
) -> Result<(Collected, Option<u64>), JsonError> {
    let doc: Doc = serde_json::from_slice(bytes).map_err(JsonError::Parse)?;
    let procs = match doc.tool {
        OneOrMany::Many(v) => v,
        OneOrMany::One(p) => vec![*p],
    };
    let min_start = procs
        .iter()
        .flat_map(|p| p.buffer_records.kernel_dispatch.iter())
        .map(|d| d.start_timestamp)
        .min();
    let boundary =
        absolute.or_else(|| prompt_eval_ns.and_then(|p| min_start.map(|s| s.saturating_add(p))));
    let mut agg = Aggregator::new(boundary);
    let mut agents = Vec::new();
    for (pi, p) in procs.iter().enumerate() {
        let (mut a, handles) = agents_of(p);
        agents.append(&mut a);
        dispatches(p, pi, &symbols_of(p), &handles, &mut agg);
    }
    agg.out.agents = agents;
    Ok((agg.out, boundary))
}

/// A process's agents, and their names by handle.
fn agents_of(p: &Process) -> (Vec<Agent>, HashMap<u64, String>) {
    let mut handles: HashMap<u64, String> = HashMap::new();
    let mut agents = Vec::new();
    for a in &p.agents {
        let kind = match &a.kind {
            Some(serde_json::Value::Number(n)) if n.as_u64() == Some(2) => "GPU".to_string(),
            Some(serde_json::Value::Number(n)) if n.as_u64() == Some(1) => "CPU".to_string(),
            Some(serde_json::Value::String(s)) => {
                s.trim_start_matches("ROCPROFILER_AGENT_TYPE_").to_string()
            }
            _ => String::new(),
        };
        let id = a.id.as_ref().map_or(0, |h| h.handle);
        let name = a.name.clone().unwrap_or_default();
        handles.insert(id, name.clone());
        agents.push(Agent {
            id: id.to_string(),
            kind,
            name,
            product: a.product_name.clone().unwrap_or_default(),
        });
    }
    (agents, handles)
}

/// A process's kernel symbols by kernel id (a list's index stands for a missing id; a map's
/// key too).
fn symbols_of(p: &Process) -> HashMap<u64, Symbol> {
    let mut syms: HashMap<u64, Symbol> = HashMap::new();
    match &p.kernel_symbols {
        Symbols::List(v) => {
            for (i, s) in v.iter().enumerate() {
                if let Some(s) = s {
                    syms.insert(s.kernel_id.unwrap_or(i as u64), s.clone());
                }
            }
        }
        Symbols::Map(m) => {
            for (k, s) in m {
                if let Some(id) = s.kernel_id.or_else(|| k.parse().ok()) {
                    syms.insert(id, s.clone());
                }
            }
        }
        Symbols::None => {}
    }
    syms
}

/// Adds a process's dispatches (`pi`: its index in the document) to the aggregator; a kernel
/// met for the first time gets its name, resources and agent.
fn dispatches(
    p: &Process,
    pi: usize,
    syms: &HashMap<u64, Symbol>,
    handles: &HashMap<u64, String>,
    agg: &mut Aggregator,
) {
    let mut idx: HashMap<u64, usize> = HashMap::new();
    for (di, d) in p.buffer_records.kernel_dispatch.iter().enumerate() {
        let kid = d.dispatch_info.kernel_id;
        let i = match idx.get(&kid) {
            Some(&i) => i,
            None => {
                let sym = syms.get(&kid);
                let name = sym
                    .and_then(symbol_name)
                    .unwrap_or_else(|| format!("<kernel_id {kid}>"));
                let i = agg.index(&name, || At {
                    line: None,
                    member: format!(
                        "rocprofiler-sdk-tool[{pi}].buffer_records.kernel_dispatch[{di}]"
                    ),
                });
                first_seen(agg, i, sym, d, handles);
                idx.insert(kid, i);
                i
            }
        };
        agg.add(i, d.start_timestamp, d.end_timestamp);
    }
}

/// A kernel's resources from its symbol, and its agent from the first dispatch that names one.
fn first_seen(
    agg: &mut Aggregator,
    i: usize,
    sym: Option<&Symbol>,
    d: &Dispatch,
    handles: &HashMap<u64, String>,
) {
    let Some(k) = agg.out.kernels.get_mut(i) else {
        return;
    };
    if let Some(s) = sym {
        k.resources.merge(&Resources {
            vgpr_count: s.arch_vgpr_count,
            accum_vgpr_count: s.accum_vgpr_count,
            sgpr_count: s.sgpr_count,
            lds_bytes: s.group_segment_size,
            scratch_bytes: s.private_segment_size,
        });
    }
    if k.agent.is_none() {
        k.agent = d.dispatch_info.agent_id.as_ref().map(|h| {
            handles
                .get(&h.handle)
                .cloned()
                .unwrap_or_else(|| h.handle.to_string())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_as_list_and_map() {
        let list = r#"{"rocprofiler-sdk-tool":[{"metadata":{"pid":1},
          "agents":[{"id":{"handle":5},"type":2,"name":"gfx942","product_name":"MI300X"}],
          "kernel_symbols":[null,{"kernel_id":1,"kernel_name":"_Z1kv.kd","formatted_kernel_name":"k()","arch_vgpr_count":8,"sgpr_count":16}],
          "buffer_records":{"kernel_dispatch":[
            {"start_timestamp":10,"end_timestamp":20,"dispatch_info":{"kernel_id":1,"agent_id":{"handle":5}}},
            {"start_timestamp":30,"end_timestamp":45,"dispatch_info":{"kernel_id":1,"agent_id":{"handle":5}}},
            {"start_timestamp":50,"end_timestamp":51,"dispatch_info":{"kernel_id":9}}]}}]}"#;
        let (c, b) = read(list.as_bytes(), None, Some(25)).unwrap();
        assert_eq!(b, Some(35));
        assert_eq!(c.dispatches, 3);
        assert_eq!(c.kernels[0].name, "k()");
        assert_eq!(c.kernels[0].total_ns, 25);
        assert_eq!((c.kernels[0].prefill, c.kernels[0].decode), (2, 0));
        assert_eq!(c.kernels[0].agent.as_deref(), Some("gfx942"));
        assert_eq!(c.kernels[0].resources.vgpr_count, Some(8));
        assert_eq!(c.kernels[1].name, "<kernel_id 9>");
        assert_eq!(c.agents[0].kind, "GPU");
        let map = r#"{"rocprofiler-sdk-tool":{"kernel_symbols":{"3":{"kernel_name":"x"}},
          "buffer_records":{"kernel_dispatch":[{"start_timestamp":1,"end_timestamp":2,"dispatch_info":{"kernel_id":3}}]}}}"#;
        let (c, _) = read(map.as_bytes(), None, None).unwrap();
        assert_eq!(c.kernels[0].name, "x");
    }

    #[test]
    fn not_rocprofv3() {
        assert!(read(b"{}", None, None).is_err());
        assert!(read(b"[1,2", None, None).is_err());
    }
}
