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
    pub fn format(self) -> crate::TraceFormat {
        match self {
            Layout::Current => crate::TraceFormat::Csv,
            Layout::Older => crate::TraceFormat::Csv2024,
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

impl CsvError {
    /// The 1-based line of the error: the header's.
    pub fn line(&self) -> u64 {
        1
    }
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

/// Longest CSV record kept (1 MiB; rocprofv3's longest demangled kernel names are a few KB).
pub const MAX_RECORD: usize = 1 << 20;

/// What [`Bounded`] puts in place of each line of a dropped record: a one-field record the
/// readers skip ([`is_dropped`]), so that the parser's line numbers stay the file's (it does not
/// count blank lines into a record's position).
const DROPPED: &[u8] = b"\x01\n";

fn is_dropped(r: &csv::ByteRecord) -> bool {
    r.len() == 1 && r.get(0) == Some(&DROPPED[..1])
}

/// Where [`Bounded`] is in a record, as the `csv` parser would be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Q {
    FieldStart,
    Unquoted,
    Quoted,
    QuoteInQuoted,
}

/// A reader that hands the `csv` parser only records of at most `max` bytes: a longer record
/// (one long line, or a quoted field that never closes) is dropped while it is read, without
/// being stored, and its first line is kept in [`Bounded::dropped`]. Each of its lines is
/// replaced by a marker record, so the parser's line numbers stay those of the file.
/// Memory: `max` plus one chunk, whatever the input.
pub struct Bounded<R> {
    inner: R,
    max: usize,
    /// The record being gathered (ends at a line break outside quotes).
    record: Vec<u8>,
    /// Bytes ready for the parser, from `ready_pos`.
    ready: Vec<u8>,
    ready_pos: usize,
    /// Quote state of the record so far.
    state: Q,
    /// The record in progress is too long: skip to its end.
    skipping: bool,
    line: u64,
    record_line: u64,
    /// Line breaks seen while skipping, passed on as blank lines.
    skipped_breaks: u64,
    dropped: Vec<u64>,
    dropped_count: u64,
    eof: bool,
}

impl<R: Read> Bounded<R> {
    /// Wraps `inner`, keeping records of at most `max` bytes.
    pub fn new(inner: R, max: usize) -> Self {
        Bounded {
            inner,
            max: max.max(1),
            record: Vec::new(),
            ready: Vec::new(),
            ready_pos: 0,
            state: Q::FieldStart,
            skipping: false,
            line: 1,
            record_line: 1,
            skipped_breaks: 0,
            dropped: Vec::new(),
            dropped_count: 0,
            eof: false,
        }
    }

    /// First lines of the records dropped for length (at most 100), and how many in all.
    pub fn dropped(&self) -> (&[u64], u64) {
        (&self.dropped, self.dropped_count)
    }

    /// [`Bounded::byte`] for each byte of `buf`: runs of bytes that change nothing but the
    /// field state (no quote, no line break) are taken whole.
    fn feed(&mut self, mut buf: &[u8]) {
        while !buf.is_empty() {
            let run = match self.state {
                // Inside quotes only a quote, and a line feed for the line count, matter.
                Q::Quoted => memchr::memchr2(b'"', b'\n', buf),
                _ => memchr::memchr3(b'"', b'\n', b'\r', buf),
            }
            .unwrap_or(buf.len());
            let (plain, rest) = buf.split_at(run);
            if !plain.is_empty() {
                self.plain(plain);
            }
            match rest.split_first() {
                Some((&b, rest)) => {
                    self.byte(b);
                    buf = rest;
                }
                None => buf = rest,
            }
        }
    }

    /// Bytes without a quote or line break (in quotes: without a quote or line feed), as
    /// [`Bounded::byte`] would take them one by one.
    fn plain(&mut self, p: &[u8]) {
        if !self.skipping {
            self.record.extend_from_slice(p);
        }
        if self.state != Q::Quoted {
            self.state = if p.last() == Some(&b',') {
                Q::FieldStart
            } else {
                Q::Unquoted
            };
        }
        self.check_length();
    }

    /// Starts skipping the record in progress once it is longer than allowed.
    fn check_length(&mut self) {
        if !self.skipping && self.record.len() > self.max {
            self.skipping = true;
            self.record.clear();
            if self.dropped.len() < 100 {
                self.dropped.push(self.record_line);
            }
            self.dropped_count += 1;
        }
    }

    fn byte(&mut self, b: u8) {
        if !self.skipping {
            self.record.push(b);
        }
        // The `csv` parser's own states (non-strict): a quote opens a quoted field only at a
        // field's start; inside one, `""` is a quote and a lone `"` ends the quoting; CR or LF
        // outside quotes ends a record.
        self.state = match (self.state, b) {
            (Q::Quoted, b'"') => Q::QuoteInQuoted,
            (Q::Quoted, _) => Q::Quoted,
            (Q::QuoteInQuoted, b'"') => Q::Quoted,
            (Q::FieldStart, b'"') => Q::Quoted,
            (_, b',') => Q::FieldStart,
            (_, b'\r' | b'\n') => Q::FieldStart,
            _ => Q::Unquoted,
        };
        if b == b'\n' {
            self.line += 1;
            if self.state == Q::Quoted {
                if self.skipping {
                    self.skipped_breaks += 1;
                }
            } else {
                self.end_record();
            }
            return;
        }
        self.check_length();
    }

    fn end_record(&mut self) {
        if self.skipping {
            self.skipping = false;
            for _ in 0..=self.skipped_breaks {
                self.ready.extend_from_slice(DROPPED);
            }
            self.skipped_breaks = 0;
        } else {
            self.ready.extend_from_slice(&self.record);
        }
        self.record.clear();
        self.record_line = self.line;
    }

    fn fill(&mut self) -> std::io::Result<()> {
        let mut chunk = [0u8; 64 << 10];
        while self.ready_pos >= self.ready.len() && !self.eof {
            self.ready.clear();
            self.ready_pos = 0;
            let n = match self.inner.read(&mut chunk) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                self.eof = true;
                if !self.skipping {
                    self.ready.append(&mut self.record);
                }
                break;
            }
            self.feed(&chunk[..n]);
        }
        Ok(())
    }
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        self.fill()?;
        let avail = &self.ready[self.ready_pos..];
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        self.ready_pos += n;
        Ok(n)
    }
}

fn reader<R: Read>(r: R) -> csv::Reader<Bounded<R>> {
    csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .buffer_capacity(1 << 20)
        .from_reader(Bounded::new(r, MAX_RECORD))
}

fn header<R: Read>(rd: &mut csv::Reader<Bounded<R>>) -> Result<Columns, CsvError> {
    let h = rd.byte_headers().cloned();
    if rd.get_ref().dropped().0.first() == Some(&1) {
        return Err(CsvError::Header(format!(
            "line 1 is longer than {} MiB",
            MAX_RECORD >> 20
        )));
    }
    columns(&h.map_err(|e| CsvError::Header(e.to_string()))?)
}

/// Records dropped for length, as row errors.
fn report_dropped<R: Read>(rd: &csv::Reader<Bounded<R>>, agg: &mut Aggregator) {
    let (lines, count) = rd.get_ref().dropped();
    for &l in lines {
        agg.error(
            l,
            format!("record longer than {} MiB; skipped", MAX_RECORD >> 20),
        );
    }
    for _ in lines.len() as u64..count {
        agg.out.skipped_rows += 1;
    }
}

/// The earliest `Start_Timestamp` of the kernel dispatches (first pass of a phase split).
pub fn min_start<R: Read>(r: R) -> Result<Option<u64>, CsvError> {
    let mut rd = reader(r);
    let c = header(&mut rd)?;
    let mut rec = csv::ByteRecord::new();
    let mut min: Option<u64> = None;
    while let Ok(true) = rd.read_byte_record(&mut rec) {
        if is_dropped(&rec) {
            continue;
        }
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
    let c = header(&mut rd)?;
    let mut rows = Rows {
        c: &c,
        agg: Aggregator::new(boundary),
        by_id: HashMap::new(),
    };
    let mut rec = csv::ByteRecord::new();
    loop {
        match rd.read_byte_record(&mut rec) {
            Ok(true) => rows.row(&rec),
            Ok(false) => break,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                rows.agg.error(line, format!("unreadable row: {e}"));
                if matches!(e.kind(), csv::ErrorKind::Io(_)) {
                    break;
                }
            }
        }
    }
    report_dropped(&rd, &mut rows.agg);
    Ok((rows.agg.out, c.layout))
}

/// The rows of a trace being read.
struct Rows<'c> {
    c: &'c Columns,
    agg: Aggregator,
    /// Kernel_Id → kernel index; the name is still compared, so a reused id cannot mislead.
    by_id: HashMap<u64, usize>,
}

impl Rows<'_> {
    /// One record: a kernel dispatch is added; another kind of row is counted as skipped; a
    /// row without a name or times is a row error.
    fn row(&mut self, rec: &csv::ByteRecord) {
        let c = self.c;
        if is_dropped(rec) {
            return;
        }
        let line = rec.position().map_or(0, |p| p.line());
        if let Some(k) = c.kind.and_then(|i| rec.get(i)) {
            if k != b"KERNEL_DISPATCH" {
                self.agg.out.skipped_rows += 1;
                return;
            }
        }
        let Some(name) = rec.get(c.name) else {
            self.agg.error(line, "row has no Kernel_Name field".into());
            return;
        };
        let (Some(start), Some(end)) = (
            rec.get(c.start).and_then(u64_of),
            rec.get(c.end).and_then(u64_of),
        ) else {
            self.agg.error(
                line,
                "row has no numeric Start_Timestamp/End_Timestamp".into(),
            );
            return;
        };
        let kid = field(rec, c.kernel_id);
        let cached = kid
            .and_then(|id| self.by_id.get(&id).copied())
            .filter(|&i| {
                self.agg
                    .out
                    .kernels
                    .get(i)
                    .is_some_and(|k| k.name.as_bytes() == name)
            });
        let i = match cached {
            Some(i) => i,
            None => self.kernel(rec, name, kid, line),
        };
        self.agg.add(i, start, end);
    }

    /// The kernel of a row not met before (by id): its index, with the row's resources and
    /// agent.
    fn kernel(&mut self, rec: &csv::ByteRecord, name: &[u8], kid: Option<u64>, line: u64) -> usize {
        let c = self.c;
        let name = String::from_utf8_lossy(name);
        let i = self.agg.index(&name, || At {
            line: Some(line),
            member: String::new(),
        });
        // The id cache holds as many ids as there are kernels kept; past that, a row is
        // found by its name (still right, only slower).
        if let Some(id) = kid.filter(|_| self.by_id.len() < crate::model::MAX_KERNELS) {
            self.by_id.insert(id, i);
        }
        if let Some(k) = self.agg.out.kernels.get_mut(i) {
            let res = Resources {
                vgpr_count: field(rec, c.vgpr),
                accum_vgpr_count: field(rec, c.agpr),
                sgpr_count: field(rec, c.sgpr),
                lds_bytes: field(rec, c.lds),
                scratch_bytes: field(rec, c.scratch),
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
    for rec in rd.byte_records().flatten() {
        if is_dropped(&rec) || out.len() >= crate::model::MAX_AGENTS {
            continue;
        }
        let rec = csv::StringRecord::from_byte_record_lossy(rec);
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
        assert_eq!(c.errors[0].line, Some(5));
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
    fn an_overlong_record_is_dropped_without_being_stored() {
        // Line 3 is 3 MiB long: before, the parser held it whole (a 200 MB line cost ~800 MB).
        let mut lines: Vec<String> = CURRENT.lines().map(str::to_string).collect();
        lines.insert(
            2,
            format!("\"KERNEL_DISPATCH\",\"{}\"", "x".repeat(3 << 20)),
        );
        let t = lines.join("\n") + "\n";
        let (c, _) = read(t.as_bytes(), None).unwrap();
        assert_eq!(c.dispatches, 3);
        assert_eq!(c.errors.len(), 1);
        assert_eq!(c.errors[0].line, Some(3));
        assert!(c.errors[0].message.contains("longer than 1 MiB"));
        // Line numbers after the dropped record are still the file's.
        assert_eq!(c.kernels[1].first.line, Some(4));
        // A quoted field that never closes swallows the rest of the file: one record, dropped
        // once it passes the limit, not held.
        let tail = format!("\"KERNEL_DISPATCH\",\"open\n{}", "k,1,2\n".repeat(300_000));
        let t = format!("{CURRENT}{tail}");
        let (c, _) = read(t.as_bytes(), None).unwrap();
        assert_eq!(c.dispatches, 3);
        assert_eq!(c.errors.len(), 1);
        assert_eq!(c.errors[0].line, Some(5));
        // A header longer than the limit is named as such.
        let t = format!("{}\n", "h".repeat(2 << 20));
        let e = read(t.as_bytes(), None).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("cannot read the header: line 1 is longer than 1 MiB")
        );
    }

    #[test]
    fn bounded_passes_quoted_fields_through() {
        let t = "a,\"x,\"\"y\"\"\nz\",b\r\nc,d\n";
        let mut out = String::new();
        Bounded::new(t.as_bytes(), 64)
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, t);
        let mut out = String::new();
        let mut b = Bounded::new("12345\nab\n".as_bytes(), 4);
        b.read_to_string(&mut out).unwrap();
        assert_eq!(out, "\x01\nab\n");
        assert_eq!(b.dropped(), (&[1u64][..], 1));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]
        #[test]
        fn runs_taken_whole_equal_byte_by_byte(
            t in proptest::collection::vec(proptest::sample::select(b"ab,\"\r\n".to_vec()), 0..200),
            max in 1usize..40,
        ) {
            let mut whole = Bounded::new(&[][..], max);
            let mut one = Bounded::new(&[][..], max);
            whole.feed(&t);
            for &b in &t {
                one.byte(b);
            }
            proptest::prop_assert_eq!(&whole.ready, &one.ready);
            proptest::prop_assert_eq!(&whole.record, &one.record);
            proptest::prop_assert_eq!(whole.state, one.state);
            proptest::prop_assert_eq!(whole.line, one.line);
            proptest::prop_assert_eq!(whole.dropped(), one.dropped());
            proptest::prop_assert_eq!(whole.skipping, one.skipping);
        }
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
