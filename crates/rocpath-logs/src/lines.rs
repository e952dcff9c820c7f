//! Cutting a byte stream into lines with bounded memory.
//!
//! Logs are streamed, never loaded whole: a [`LineSplitter`] takes chunks as they are read and
//! calls back once per line. It accepts LF and CRLF endings (a lone CR inside a line is kept),
//! any bytes (invalid UTF-8 is the parsers' business), and lines of any length: a line longer
//! than `max_line` is delivered cut to `max_line` bytes with `truncated` set, and its remainder
//! is skipped without being stored. Memory is `max_line` plus one chunk at most.

/// One line of input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number.
    pub no: u64,
    /// The bytes, without the line terminator.
    pub bytes: &'a [u8],
    /// The line was longer than the limit and was cut.
    pub truncated: bool,
}

/// Streaming line splitter. See the module documentation.
#[derive(Debug)]
pub struct LineSplitter {
    carry: Vec<u8>,
    max_line: usize,
    next_no: u64,
    /// The current line already exceeded `max_line` and was delivered; skip to its end.
    skipping: bool,
    truncated_lines: u64,
}

/// Default longest line kept whole: 1 MiB.
pub const DEFAULT_MAX_LINE: usize = 1 << 20;

impl Default for LineSplitter {
    fn default() -> Self {
        LineSplitter::new(DEFAULT_MAX_LINE)
    }
}

#[inline]
fn strip_cr(b: &[u8]) -> &[u8] {
    b.strip_suffix(b"\r").unwrap_or(b)
}

impl LineSplitter {
    /// A splitter that keeps lines up to `max_line` bytes (at least 1).
    pub fn new(max_line: usize) -> Self {
        LineSplitter {
            carry: Vec::new(),
            max_line: max_line.max(1),
            next_no: 1,
            skipping: false,
            truncated_lines: 0,
        }
    }

    /// Lines delivered so far.
    pub fn lines(&self) -> u64 {
        self.next_no - 1
    }

    /// How many lines were longer than the limit.
    pub fn truncated_lines(&self) -> u64 {
        self.truncated_lines
    }

    fn emit(&mut self, bytes: &[u8], truncated: bool, f: &mut impl FnMut(Line<'_>)) {
        let no = self.next_no;
        self.next_no += 1;
        if truncated {
            self.truncated_lines += 1;
        }
        f(Line {
            no,
            bytes: strip_cr(bytes),
            truncated,
        });
    }

    /// Feeds the next chunk; calls `f` for every line it completes.
    pub fn push(&mut self, mut chunk: &[u8], f: &mut impl FnMut(Line<'_>)) {
        while !chunk.is_empty() {
            let nl = memchr::memchr(b'\n', chunk);
            if self.skipping {
                match nl {
                    Some(i) => {
                        self.skipping = false;
                        chunk = &chunk[i + 1..];
                        continue;
                    }
                    None => return,
                }
            }
            match nl {
                Some(i) => {
                    let (line, rest) = (&chunk[..i], &chunk[i + 1..]);
                    if self.carry.is_empty() {
                        if line.len() > self.max_line {
                            self.emit(&line[..self.max_line], true, f);
                        } else {
                            self.emit(line, false, f);
                        }
                    } else {
                        let room = self.max_line - self.carry.len();
                        let mut carry = std::mem::take(&mut self.carry);
                        let truncated = line.len() > room;
                        carry.extend_from_slice(&line[..line.len().min(room)]);
                        self.emit(&carry, truncated, f);
                        carry.clear();
                        self.carry = carry;
                    }
                    chunk = rest;
                }
                None => {
                    let room = self.max_line - self.carry.len();
                    if chunk.len() > room {
                        // The line is too long: deliver what fits now, skip the rest.
                        let mut carry = std::mem::take(&mut self.carry);
                        carry.extend_from_slice(&chunk[..room]);
                        self.emit(&carry, true, f);
                        carry.clear();
                        self.carry = carry;
                        self.skipping = true;
                    } else {
                        self.carry.extend_from_slice(chunk);
                    }
                    return;
                }
            }
        }
    }

    /// Ends the input: delivers a last line that had no terminator.
    pub fn finish(&mut self, f: &mut impl FnMut(Line<'_>)) {
        if !self.carry.is_empty() {
            let carry = std::mem::take(&mut self.carry);
            self.emit(&carry, false, f);
        }
        self.skipping = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]], max: usize) -> Vec<(u64, Vec<u8>, bool)> {
        let mut s = LineSplitter::new(max);
        let mut out = Vec::new();
        let mut f = |l: Line<'_>| out.push((l.no, l.bytes.to_vec(), l.truncated));
        for c in chunks {
            s.push(c, &mut f);
        }
        s.finish(&mut f);
        out
    }

    #[test]
    fn lf_crlf_and_last_line() {
        let v = split(&[b"a\r\nbb\nc"], 100);
        assert_eq!(
            v,
            vec![
                (1, b"a".to_vec(), false),
                (2, b"bb".to_vec(), false),
                (3, b"c".to_vec(), false)
            ]
        );
    }

    #[test]
    fn lines_across_chunks() {
        let v = split(&[b"ab", b"c\nd", b"e\r", b"\n"], 100);
        assert_eq!(
            v,
            vec![(1, b"abc".to_vec(), false), (2, b"de".to_vec(), false)]
        );
    }

    #[test]
    fn long_lines_are_cut_and_counted() {
        let v = split(&[b"0123456789\nxy\n"], 4);
        assert_eq!(
            v,
            vec![(1, b"0123".to_vec(), true), (2, b"xy".to_vec(), false)]
        );
        // Across chunks, with the cut inside the carry.
        let v = split(&[b"01", b"23456", b"789", b"\nxy"], 4);
        assert_eq!(
            v,
            vec![(1, b"0123".to_vec(), true), (2, b"xy".to_vec(), false)]
        );
        let mut s = LineSplitter::new(4);
        s.push(b"0123456789\n", &mut |_| {});
        assert_eq!(s.truncated_lines(), 1);
        assert_eq!(s.lines(), 1);
    }

    #[test]
    fn empty_lines_and_input() {
        assert_eq!(split(&[b""], 10), vec![]);
        assert_eq!(
            split(&[b"\n\n"], 10),
            vec![(1, vec![], false), (2, vec![], false)]
        );
    }
}
