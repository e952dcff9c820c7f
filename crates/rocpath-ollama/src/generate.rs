//! Ollama `/api/generate` responses: one JSON object (`stream:false`), an error object
//! (`{"error":"…"}`), a stream (one object per line, `done:false` chunks then a `done:true`
//! object; captured raw or as `<ns>\t<json>` lines with the arrival time), or a file of several
//! responses (one per line — the benchmark harness's JSONL).
//!
//! Files written by hand-made harnesses are often malformed; [`records`] tolerates records
//! separated by a literal `\n` (backslash, n) instead of a newline, blank lines, non-JSON lines
//! (reported), and a trailing literal `\n`. Durations are read from Ollama's fields
//! (`total_duration`, …) or the harness's renamed ones (`total_duration_ns`, …).

use serde_json::Value;

/// One JSON record of a file, with the 1-based line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// 1-based line.
    pub line: u64,
    /// Receive time, when the line was captured as `<ns>\t<json>`.
    pub at_ns: Option<u64>,
    /// The value, or why it is not JSON.
    pub value: Result<Value, String>,
}

/// Splits a text into JSON records (see the module doc for what is tolerated).
pub fn records(text: &str) -> Vec<Record> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        line_records((i + 1) as u64, raw, &mut |r| out.push(r));
    }
    out
}

/// The JSON records of one line (`line` is its 1-based number): none for a blank line, several
/// when records are glued with a literal `\n`. The streaming form of [`records`].
pub fn line_records(line: u64, raw: &str, f: &mut dyn FnMut(Record)) {
    let mut l = raw.trim();
    if l.is_empty() {
        return;
    }
    let mut at_ns = None;
    if let Some((ns, rest)) = l.split_once('\t') {
        if let Ok(v) = ns.trim().parse::<u64>() {
            at_ns = Some(v);
            l = rest.trim();
        }
    }
    // Records glued with a literal backslash-n: split where one object ends and the next
    // begins, outside strings.
    for part in split_literal_newlines(l) {
        let p = part.trim();
        if p.is_empty() {
            continue;
        }
        let value = serde_json::from_str::<Value>(p).map_err(|e| e.to_string());
        f(Record { line, at_ns, value });
    }
}

fn split_literal_newlines(l: &str) -> Vec<&str> {
    let b = l.as_bytes();
    let mut parts = Vec::new();
    let (mut depth, mut in_str, mut esc, mut start) = (0i32, false, false, 0usize);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
        } else {
            match c {
                b'"' => in_str = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => depth -= 1,
                b'\\' if depth == 0 && b.get(i + 1) == Some(&b'n') => {
                    parts.push(&l[start..i]);
                    start = i + 2;
                    i += 2;
                    continue;
                }
                _ => {}
            }
        }
        i += 1;
    }
    parts.push(&l[start..]);
    parts
}

fn u(v: &Value, keys: &[&str]) -> Option<u64> {
    keys.iter().find_map(|k| match v.get(*k) {
        Some(Value::Number(n)) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        _ => None,
    })
}

fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

pub use rocpath_docs::ollama::{Channel, Rates, Response, Stream, TtftBasis};

/// Reads a response object (Ollama's field names, or the harness's `*_ns` names).
pub fn response_of(v: &Value) -> Response {
    Response {
        model: s(v, "model"),
        done: v.get("done").and_then(Value::as_bool),
        done_reason: s(v, "done_reason"),
        total_duration_ns: u(v, &["total_duration", "total_duration_ns"]),
        load_duration_ns: u(v, &["load_duration", "load_duration_ns"]),
        prompt_eval_count: u(v, &["prompt_eval_count"]),
        prompt_eval_duration_ns: u(v, &["prompt_eval_duration", "prompt_eval_duration_ns"]),
        eval_count: u(v, &["eval_count"]),
        eval_duration_ns: u(v, &["eval_duration", "eval_duration_ns"]),
        response_chars: v
            .get("response")
            .and_then(Value::as_str)
            .map_or(0, |t| t.chars().count() as u64),
        thinking_chars: v
            .get("thinking")
            .and_then(Value::as_str)
            .map_or(0, |t| t.chars().count() as u64),
        error: s(v, "error"),
    }
}

/// What a generate file holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    /// Zero bytes (or only blanks).
    Empty,
    /// One response (or error) object, with its line.
    Single(Response, u64),
    /// A stream: its summary and the final object (if it came).
    Stream(Stream, Option<(Response, u64)>),
    /// Several complete responses (benchmark JSONL): how many, and the line of the first.
    Many {
        /// Responses.
        count: u64,
        /// Line of the first.
        first_line: u64,
    },
    /// Not JSON at all (first error).
    NotJson(String),
}

/// Reads a generate file. `request_start_ns` is the request's start on the capture clock, if
/// known.
pub fn parse(text: &str, request_start_ns: Option<u64>) -> Document {
    let mut r = GenerateReader::new();
    for (i, l) in text.lines().enumerate() {
        r.line((i + 1) as u64, l);
    }
    r.finish(request_start_ns)
}

/// Reads a generate file from disk, streamed (see [`crate::input`]).
pub fn read_file(
    path: &std::path::Path,
    request_start_ns: Option<u64>,
) -> Result<Document, crate::input::ReadError> {
    let mut r = GenerateReader::new();
    crate::input::for_each_line(path, &mut |l| r.line(l.no, l.text))?;
    Ok(r.finish(request_start_ns))
}

/// A generate file read line by line: memory stays the same whatever the number of records
/// (the first response, the last final object and the stream's counters are kept).
#[derive(Debug, Clone, Default)]
pub struct GenerateReader {
    records: u64,
    objects: u64,
    first: Option<(Response, u64)>,
    first_error: Option<String>,
    any_chunk: bool,
    stream: Stream,
    fin: Option<(Response, u64)>,
}

impl GenerateReader {
    /// An empty reader.
    pub fn new() -> Self {
        GenerateReader {
            stream: Stream {
                first_token_channel: Channel::None,
                ..Stream::default()
            },
            ..GenerateReader::default()
        }
    }

    /// Feeds one line (1-based number).
    pub fn line(&mut self, no: u64, raw: &str) {
        line_records(no, raw, &mut |r| self.record(r));
    }

    /// Feeds one record.
    pub fn record(&mut self, r: Record) {
        self.records += 1;
        let v = match r.value {
            Ok(v) if v.is_object() => v,
            Ok(_) => return,
            Err(e) => {
                self.first_error.get_or_insert(e);
                return;
            }
        };
        self.objects += 1;
        if self.first.is_none() {
            self.first = Some((response_of(&v), r.line));
        }
        self.stream_row(&v, r.line, r.at_ns);
    }

    fn stream_row(&mut self, v: &Value, line: u64, at: Option<u64>) {
        let st = &mut self.stream;
        st.json_rows += 1;
        let done = v.get("done").and_then(Value::as_bool);
        if done == Some(false) {
            self.any_chunk = true;
            st.chunks += 1;
            let has = |k: &str| {
                v.get(k)
                    .and_then(Value::as_str)
                    .is_some_and(|t| !t.is_empty())
            };
            let (r, t) = (has("response"), has("thinking"));
            st.response_chunks += u64::from(r);
            st.thinking_chunks += u64::from(t);
            if (r || t) && st.first_token_line.is_none() {
                st.first_token_line = Some(line);
                st.first_token_ns = at;
                st.first_token_channel = if r {
                    Channel::Response
                } else {
                    Channel::Thinking
                };
            }
        } else if done == Some(true) || v.get("error").is_some() {
            st.done_ns = at;
            self.fin = Some((response_of(v), line));
        }
    }

    /// What the file held.
    pub fn finish(self, request_start_ns: Option<u64>) -> Document {
        if self.records == 0 {
            return Document::Empty;
        }
        let Some(first) = self.first else {
            return Document::NotJson(self.first_error.unwrap_or_else(|| "no JSON object".into()));
        };
        if self.any_chunk {
            let mut st = self.stream;
            let total = self.fin.as_ref().and_then(|(r, _)| r.total_duration_ns);
            let (start, basis) = match (request_start_ns, st.done_ns, total) {
                (Some(s), _, _) => (Some(s), Some(TtftBasis::RequestStart)),
                (None, Some(d), Some(t)) => {
                    (d.checked_sub(t), Some(TtftBasis::DoneMinusTotalDuration))
                }
                _ => (None, None),
            };
            if let (Some(s), Some(f)) = (start, st.first_token_ns) {
                st.ttft_ms = Some(f.saturating_sub(s) as f64 / 1e6);
                st.ttft_basis = basis;
            }
            return Document::Stream(st, self.fin);
        }
        if self.objects == 1 {
            return Document::Single(first.0, first.1);
        }
        Document::Many {
            count: self.objects,
            first_line: first.1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_and_error_and_empty() {
        let d = parse(
            r#"{"model":"m","done":true,"done_reason":"length","total_duration":14197760256,"load_duration":8319156173,"prompt_eval_count":23,"prompt_eval_duration":396918244,"eval_count":140,"eval_duration":5239115189,"response":"","thinking":"ok"}"#,
            None,
        );
        let Document::Single(r, 1) = d else {
            panic!("{d:?}")
        };
        let rates = r.rates();
        assert!((rates.eval_rate.unwrap() - 26.722).abs() < 1e-3);
        assert!((rates.e2e_rate.unwrap() - 9.8607).abs() < 1e-3);
        assert_eq!(r.thinking_chars, 2);
        let Document::Single(e, _) = parse(
            "{\"error\":\"invalid character '\\\\n' in string literal\"}\n",
            None,
        ) else {
            panic!()
        };
        assert!(e.error.unwrap().contains("invalid character"));
        assert_eq!(parse("", None), Document::Empty);
        assert_eq!(parse("  \n", None), Document::Empty);
        assert!(matches!(parse("not json", None), Document::NotJson(_)));
    }

    #[test]
    fn literal_backslash_n_separators() {
        let t = r#"{"a":"x\ny","eval_count":1,"eval_duration":2}\n{"eval_count":3,"eval_duration":4}\n"#;
        let r = records(t);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].value.as_ref().unwrap()["a"], "x\ny");
        assert_eq!(
            parse(t, None),
            Document::Many {
                count: 2,
                first_line: 1
            }
        );
        assert_eq!(r[1].value.as_ref().unwrap()["eval_count"], 3);
    }

    #[test]
    fn stream_with_capture_times() {
        let t = "1000\t{\"done\":false,\"response\":\"\",\"thinking\":\"\"}\n\
                 1500\t{\"done\":false,\"thinking\":\"Hmm\"}\n\
                 1600\t{\"done\":false,\"response\":\"Hi\"}\n\
                 2000\t{\"done\":true,\"done_reason\":\"stop\",\"total_duration\":1200,\"eval_count\":2,\"eval_duration\":100}\n";
        let Document::Stream(st, Some((fin, 4))) = parse(t, None) else {
            panic!()
        };
        assert_eq!(
            (st.chunks, st.response_chunks, st.thinking_chunks),
            (3, 1, 1)
        );
        assert_eq!(st.first_token_channel, Channel::Thinking);
        assert_eq!(st.first_token_ns, Some(1500));
        // start estimated as 2000 - 1200 = 800 → 700 ns
        assert_eq!(st.ttft_ms, Some(0.0007));
        assert_eq!(st.ttft_basis, Some(TtftBasis::DoneMinusTotalDuration));
        assert_eq!(fin.done_reason.as_deref(), Some("stop"));
        let Document::Stream(st, _) = parse(t, Some(1000)) else {
            panic!()
        };
        assert_eq!(st.ttft_ms, Some(0.0005));
    }

    #[test]
    fn harness_field_names() {
        let r = response_of(
            &serde_json::json!({"eval_count":128,"eval_duration_ns":606812373,"total_duration_ns":1760663169,"model":null}),
        );
        assert!((r.rates().eval_rate.unwrap() - 210.938).abs() < 1e-3);
        assert_eq!(r.model, None);
    }
}
