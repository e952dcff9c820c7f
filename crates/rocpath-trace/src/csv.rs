//! rocprofv3 CSV output (`-f csv`): `<pid>_kernel_trace.csv` and `<pid>_agent_info.csv`.
//!
//! Columns are found by header name, so both column sets work: the current one
//! (`Kind,Agent_Id,Queue_Id,Stream_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,
//! Correlation_Id,Start_Timestamp,End_Timestamp,LDS_Block_Size,Scratch_Size,VGPR_Count,
//! Accum_VGPR_Count,SGPR_Count,Workgroup_Size_X…`) and the 2024 one (no `Stream_Id`, no register
//! counts, `Private_Segment_Size,Group_Segment_Size` instead of `LDS_Block_Size,Scratch_Size`).
//! Kernel names are demangled C++ signatures with commas inside quotes; the `csv` crate reads
//! them as one field. Rows are streamed: memory grows with the number of distinct kernels only.

use crate::model::{Agent, Aggregator, At, Collected, Resources};
use std::collections::HashMap;
use std::io::Read;

/// Which column set a header has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// The current set (with `Stream_Id`, register counts, `LDS_Block_Size`).
    Current,
    /// The 2024 set (`Private_Segment_Size`, `Group_Segment_Size`).
    Older,
}

impl Layout {
    /// `csv` or `csv_2024`.
    pub fn format(self) -> &'static str {
        match self {
            Layout::Current => "csv",
            Layout::Older => "csv_2024",
        }
    }
}

struct Columns {
    kind: Option<usize>,
    agent: Option<usize>,
    kernel_id: Option<usize>,
    name: usize,
    start: usize,
    end: usize,
    vgpr: Option<usize>,
    agpr: Option<usize>,
    sgpr: Option<usize>,
    lds: Option<usize>,
    scratch: Option<usize>,
    layout: Layout,
}

/// Errors that stop a CSV from being read at all.
#[derive(Debug, thiserror::Error)]
pub enum CsvError {
    /// The header lacks a column the reader needs.
    #[error("not a rocprofv3 kernel trace: no {0} column")]
    MissingColumn(&'static str),
    /// The header could not be read.
    #[error("cannot read the header: {0}")]
    Header(String),
}

fn columns(h: &csv::ByteRecord) -> Result<Columns, CsvError> {
    let find = |n: &str| h.iter().position(|f| f.eq_ignore_ascii_case(n.as_bytes()));
    let name = find("Kernel_Name").ok_or(CsvError::MissingColumn("Kernel_Name"))?;
    let start = find("Start_Timestamp").ok_or(CsvError::MissingColumn("Start_Timestamp"))?;
    let end = find("End_Timestamp").ok_or(CsvError::MissingColumn("End_Timestamp"))?;
    let lds = find("LDS_Block_Size").or_else(|| find("Group_Segment_Size"));
    let layout = if find("Private_Segment_Size").is_some() && find("Scratch_Size").is_none() {
        Layout::Older
    } else {
        Layout::Current
    };
    Ok(Columns {
        kind: find("Kind"),
        agent: find("Agent_Id"),
        kernel_id: find("Kernel_Id"),
        name,
        start,
        end,
        vgpr: find("VGPR_Count").or_else(|| find("Arch_VGPR_Count")),
        agpr: find("Accum_VGPR_Count"),
        sgpr: find("SGPR_Count"),
        lds,
        scratch: find("Scratch_Size").or_else(|| find("Private_Segment_Size")),
        layout,
    })
}

/// Parses an unsigned decimal (surrounding spaces allowed).
#[inline]
pub fn u64_of(b: &[u8]) -> Option<u64> {
    let b = b.trim_ascii();
    if b.is_empty() || b.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in b {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

fn field(r: &csv::ByteRecord, i: Option<usize>) -> Option<u64> {
    i.and_then(|i| r.get(i)).and_then(u64_of)
}

fn reader<R: Read>(r: R) -> csv::Reader<R> {
    csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .buffer_capacity(1 << 20)
        .from_reader(r)
}

/// The earliest `Start_Timestamp` of the kernel dispatches (first pass of a phase split).
pub fn min_start<R: Read>(r: R) -> Result<Option<u64>, CsvError> {
    let mut rd = reader(r);
    let h = rd
        .byte_headers()
        .map_err(|e| CsvError::Header(e.to_string()))?
        .clone();
    let c = columns(&h)?;
    let mut rec = csv::ByteRecord::new();
    let mut min: Option<u64> = None;
    while let Ok(true) = rd.read_byte_record(&mut rec) {
        if let Some(k) = c.kind.and_then(|i| rec.get(i)) {
            if k != b"KERNEL_DISPATCH" {
                continue;
            }
        }
        if let Some(s) = rec.get(c.start).and_then(u64_of) {
            min = Some(min.map_or(s, |m| m.min(s)));
        }
    }
    Ok(min)
}

/// Reads a kernel trace. `boundary` is an absolute phase boundary on the trace's clock.
pub fn read<R: Read>(r: R, boundary: Option<u64>) -> Result<(Collected, Layout), CsvError> {
    let mut rd = reader(r);
    let h = rd
        .byte_headers()
        .map_err(|e| CsvError::Header(e.to_string()))?
        .clone();
    let c = columns(&h)?;
    let mut agg = Aggregator::new(boundary);
    // Kernel_Id → kernel index; the name is still compared, so a reused id cannot mislead.
    let mut by_id: HashMap<u64, usize> = HashMap::new();
    let mut rec = csv::ByteRecord::new();
    loop {
        match rd.read_byte_record(&mut rec) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                agg.error(line, format!("unreadable row: {e}"));
                if matches!(e.kind(), csv::ErrorKind::Io(_)) {
                    break;
                }
                continue;
            }
        }
        let line = rec.position().map_or(0, |p| p.line());
        if let Some(k) = c.kind.and_then(|i| rec.get(i)) {
            if k != b"KERNEL_DISPATCH" {
                agg.out.skipped_rows += 1;
                continue;
            }
        }
        let Some(name) = rec.get(c.name) else {
            agg.error(line, "row has no Kernel_Name field".into());
            continue;
        };
        let (Some(start), Some(end)) = (
            rec.get(c.start).and_then(u64_of),
            rec.get(c.end).and_then(u64_of),
        ) else {
            agg.error(
                line,
                "row has no numeric Start_Timestamp/End_Timestamp".into(),
            );
            continue;
        };
        let kid = field(&rec, c.kernel_id);
        let cached = kid.and_then(|id| by_id.get(&id).copied()).filter(|&i| {
            agg.out
                .kernels
                .get(i)
                .is_some_and(|k| k.name.as_bytes() == name)
        });
        let i = match cached {
            Some(i) => i,
            None => {
                let name = String::from_utf8_lossy(name);
                let i = agg.index(&name, || At {
                    line: Some(line),
                    member: String::new(),
                });
                if let Some(id) = kid {
                    by_id.insert(id, i);
                }
                if let Some(k) = agg.out.kernels.get_mut(i) {
                    let res = Resources {
                        vgpr_count: field(&rec, c.vgpr),
                        accum_vgpr_count: field(&rec, c.agpr),
                        sgpr_count: field(&rec, c.sgpr),
                        lds_bytes: field(&rec, c.lds),
                        scratch_bytes: field(&rec, c.scratch),
                    };
                    k.resources.merge(&res);
                    if k.agent.is_none() {
                        k.agent = c
                            .agent
                            .and_then(|a| rec.get(a))
                            .map(|a| String::from_utf8_lossy(a).into_owned());
                    }
                }
                i
            }
        };
        agg.add(i, start, end);
    }
    Ok((agg.out, c.layout))
}

/// Reads `<pid>_agent_info.csv`: one row per agent (`Node_Id`, `Agent_Type`, `Name`,
/// `Product_Name`). Kernel rows name agents `Agent <Node_Id>`.
pub fn agents<R: Read>(r: R) -> Vec<Agent> {
    let mut rd = reader(r);
    let Ok(h) = rd.headers().cloned() else {
        return Vec::new();
    };
    let find = |n: &str| h.iter().position(|f| f.eq_ignore_ascii_case(n));
    let (node, kind, name, product) = (
        find("Node_Id"),
        find("Agent_Type"),
        find("Name"),
        find("Product_Name"),
    );
    let mut out = Vec::new();
    for rec in rd.records().flatten() {
        let get = |i: Option<usize>| i.and_then(|i| rec.get(i)).unwrap_or("").to_string();
        out.push(Agent {
            id: format!("Agent {}", get(node)),
            kind: get(kind),
            name: get(name),
            product: get(product),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CURRENT: &str = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"
\"KERNEL_DISPATCH\",\"Agent 1\",1,1,7,1,7,\"k_a<int, 2>(int, float)\",10,100,150,0,0,20,0,32,64,1,1,64,1,1
\"KERNEL_DISPATCH\",\"Agent 1\",1,1,7,2,8,\"k_b(int)\",11,200,260,512,0,12,4,16,64,1,1,64,1,1
\"KERNEL_DISPATCH\",\"Agent 1\",1,1,7,3,7,\"k_a<int, 2>(int, float)\",12,300,340,0,0,20,0,32,64,1,1,64,1,1
";

    const OLDER: &str = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Private_Segment_Size\",\"Group_Segment_Size\",\"Workgroup_Size_X\"
\"KERNEL_DISPATCH\",\"Agent 2\",1,3,\"k_c\",1,5,9,16,1024,64
";

    #[test]
    fn current_layout() {
        let (c, l) = read(CURRENT.as_bytes(), None).unwrap();
        assert_eq!(l, Layout::Current);
        assert_eq!(c.dispatches, 3);
        assert_eq!(c.kernels.len(), 2);
        let a = &c.kernels[0];
        assert_eq!(a.name, "k_a<int, 2>(int, float)");
        assert_eq!(
            (a.dispatches, a.total_ns, a.min_ns, a.max_ns),
            (2, 90, 40, 50)
        );
        assert_eq!(a.resources.vgpr_count, Some(20));
        assert_eq!(a.first.line, Some(2));
        assert_eq!(c.kernels[1].resources.lds_bytes, Some(512));
        assert_eq!(c.kernels[1].resources.accum_vgpr_count, Some(4));
        assert_eq!((c.first_start_ns, c.last_end_ns), (Some(100), Some(340)));
    }

    #[test]
    fn older_layout_by_header_name() {
        let (c, l) = read(OLDER.as_bytes(), None).unwrap();
        assert_eq!(l, Layout::Older);
        assert_eq!(c.dispatches, 1);
        let k = &c.kernels[0];
        assert_eq!(k.resources.lds_bytes, Some(1024));
        assert_eq!(k.resources.scratch_bytes, Some(16));
        assert_eq!(k.resources.vgpr_count, None);
        assert_eq!(k.agent.as_deref(), Some("Agent 2"));
    }

    #[test]
    fn boundary_and_min_start() {
        assert_eq!(min_start(CURRENT.as_bytes()).unwrap(), Some(100));
        let (c, _) = read(CURRENT.as_bytes(), Some(200)).unwrap();
        let a = &c.kernels[0];
        assert_eq!((a.prefill, a.decode), (1, 1));
        assert_eq!((c.kernels[1].prefill, c.kernels[1].decode), (1, 0));
    }

    #[test]
    fn bad_rows_are_counted_not_fatal() {
        let t = format!(
            "{CURRENT}\"KERNEL_DISPATCH\",\"Agent 1\",1,1,7,4,9,\"k_d\",13,x,y\n\"MEMORY_COPY\",1\n"
        );
        let (c, _) = read(t.as_bytes(), None).unwrap();
        assert_eq!(c.dispatches, 3);
        assert_eq!(c.skipped_rows, 2);
        assert_eq!(c.errors.len(), 1);
        assert_eq!(c.errors[0].at, 5);
    }

    #[test]
    fn not_a_kernel_trace() {
        assert!(matches!(
            read("\"Domain\",\"Function\"\n".as_bytes(), None),
            Err(CsvError::MissingColumn("Kernel_Name"))
        ));
        assert!(read(&b""[..], None).is_err());
    }

    #[test]
    fn reused_kernel_id_with_another_name() {
        // k_b carries k_a's Kernel_Id: the names still decide.
        let t = CURRENT.replace(",2,8,\"k_b", ",2,7,\"k_b");
        let (c, _) = read(t.as_bytes(), None).unwrap();
        assert_eq!(c.kernels.len(), 2);
        assert_eq!(c.kernels[0].dispatches, 2);
        assert_eq!(c.kernels[1].dispatches, 1);
    }
}
