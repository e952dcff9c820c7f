//! A bounded, zero-copy pull reader for MessagePack.
//!
//! AMDGPU code objects carry their kernel metadata as MessagePack in an ELF note, and Tensile
//! libraries (`TensileLibrary*.dat`) are MessagePack files of up to a hundred megabytes. Both
//! are read here without building a value tree: the caller pulls maps, arrays and scalars and
//! skips what it does not need. Markers are decoded by the `rmp` crate.
//!
//! Nothing here allocates according to a declared length: every length is checked against the
//! bytes that remain before it is used, nesting depth is capped, and every error carries the
//! byte offset where it was found.
//!
//! ```
//! use rocpath_mpack::Reader;
//! // {"a": [1, "x"], "b": true}
//! let buf = [0x82, 0xa1, b'a', 0x92, 0x01, 0xa1, b'x', 0xa1, b'b', 0xc3];
//! let mut rd = Reader::new(&buf);
//! let n = rd.map_len().unwrap();
//! assert_eq!(n, 2);
//! assert_eq!(rd.str().unwrap(), "a");
//! rd.skip().unwrap();
//! assert_eq!(rd.str().unwrap(), "b");
//! assert_eq!(rd.bool().unwrap(), true);
//! assert!(rd.is_empty());
//! ```

use rmp::Marker;

/// Maximum nesting depth accepted by [`Reader::skip`] and the typed readers.
pub const MAX_DEPTH: u32 = 128;

/// A MessagePack decoding error, with the byte offset where it happened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The data ended inside a value.
    #[error("msgpack truncated at offset {offset}: needed {needed} more bytes")]
    Truncated {
        /// Offset of the value.
        offset: u64,
        /// Bytes missing.
        needed: u64,
    },
    /// A value of another type was found.
    #[error("msgpack type mismatch at offset {offset}: expected {expected}, found {found}")]
    Type {
        /// Offset of the marker.
        offset: u64,
        /// What the caller asked for.
        expected: &'static str,
        /// What the marker says.
        found: &'static str,
    },
    /// Nesting deeper than [`MAX_DEPTH`].
    #[error("msgpack nesting deeper than {MAX_DEPTH} at offset {offset}")]
    TooDeep {
        /// Offset of the value.
        offset: u64,
    },
    /// A declared length larger than the remaining bytes could possibly hold.
    #[error("msgpack length {len} at offset {offset} exceeds the {remaining} bytes that remain")]
    LengthBomb {
        /// Offset of the marker.
        offset: u64,
        /// Declared length.
        len: u64,
        /// Bytes left in the buffer.
        remaining: u64,
    },
    /// A string that is not UTF-8.
    #[error("msgpack string at offset {offset} is not UTF-8")]
    Utf8 {
        /// Offset of the string bytes.
        offset: u64,
    },
}

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// A scalar or container header, as seen by [`Reader::peek`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// nil
    Nil,
    /// true/false
    Bool,
    /// any integer
    Int,
    /// f32/f64
    Float,
    /// str
    Str,
    /// bin
    Bin,
    /// array
    Array,
    /// map
    Map,
    /// ext
    Ext,
}

/// Called with byte ranges the reader has moved past (see [`Reader::with_release`]).
pub type ReleaseFn<'a> = &'a (dyn Fn(&[u8]) + Sync);

/// A pull reader over a MessagePack byte slice.
#[derive(Clone)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    release: Option<ReleaseFn<'a>>,
    released: usize,
    memo: Option<&'a SkipMemo>,
}

/// Where the large values of one buffer end, for readers that skip the same value more than
/// once (a map read whole to find its fields, then each field read again, nested: the largest
/// values are walked once per level). Keyed by the address of a value's first byte, so every
/// reader over the same buffer shares it; it lives no longer than the buffer it is lent with.
#[derive(Debug, Default)]
pub struct SkipMemo {
    ends: std::cell::RefCell<rustc_hash::FxHashMap<usize, usize>>,
}

/// Containers at least this long (bytes) are remembered.
const MEMO_MIN: usize = 512;

impl std::fmt::Debug for Reader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("len", &self.data.len())
            .field("pos", &self.pos)
            .field("base", &self.base)
            .finish()
    }
}

/// Consumed bytes are handed to the release callback in pieces of this size.
const RELEASE_STEP: usize = 8 << 20;

fn marker_name(m: Marker) -> &'static str {
    match m {
        Marker::Null => "nil",
        Marker::True | Marker::False => "bool",
        Marker::FixPos(_)
        | Marker::FixNeg(_)
        | Marker::U8
        | Marker::U16
        | Marker::U32
        | Marker::U64
        | Marker::I8
        | Marker::I16
        | Marker::I32
        | Marker::I64 => "int",
        Marker::F32 | Marker::F64 => "float",
        Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => "str",
        Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => "bin",
        Marker::FixArray(_) | Marker::Array16 | Marker::Array32 => "array",
        Marker::FixMap(_) | Marker::Map16 | Marker::Map32 => "map",
        Marker::FixExt1
        | Marker::FixExt2
        | Marker::FixExt4
        | Marker::FixExt8
        | Marker::FixExt16
        | Marker::Ext8
        | Marker::Ext16
        | Marker::Ext32 => "ext",
        Marker::Reserved => "reserved",
    }
}

impl<'a> Reader<'a> {
    /// A reader over `data`; offsets in errors count from 0.
    pub fn new(data: &'a [u8]) -> Self {
        Reader {
            data,
            pos: 0,
            base: 0,
            release: None,
            released: 0,
            memo: None,
        }
    }

    /// Calls `f` with each stretch of bytes the reader has moved past (in steps of 8 MiB), so
    /// a caller reading a memory-mapped file can drop the pages it no longer needs.
    pub fn with_release(mut self, f: ReleaseFn<'a>) -> Self {
        self.release = Some(f);
        self
    }

    /// A reader whose error offsets are shifted by `base` (the slice's offset in its file).
    pub fn with_base(data: &'a [u8], base: u64) -> Self {
        Reader {
            data,
            pos: 0,
            base,
            release: None,
            released: 0,
            memo: None,
        }
    }

    /// The same reader, remembering in `memo` where the large values it skips end (see
    /// [`SkipMemo`]); `memo` must not be shared with readers over another buffer.
    pub fn with_memo(mut self, memo: &'a SkipMemo) -> Self {
        self.memo = Some(memo);
        self
    }

    /// The memo this reader was given, to hand on to readers over parts of the same buffer.
    pub fn memo(&self) -> Option<&'a SkipMemo> {
        self.memo
    }

    /// Current offset (including the base).
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// True when every byte has been consumed.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        match end {
            Some(end) => {
                let s = self.data.get(self.pos..end).unwrap_or(&[]);
                self.pos = end;
                if let Some(f) = self.release {
                    if self.pos - self.released >= RELEASE_STEP {
                        f(self.data.get(self.released..self.pos).unwrap_or(&[]));
                        self.released = self.pos;
                    }
                }
                Ok(s)
            }
            None => Err(Error::Truncated {
                offset: self.offset(),
                needed: (n - self.remaining()) as u64,
            }),
        }
    }

    fn be(&mut self, n: usize) -> Result<u64> {
        let b = self.take(n)?;
        Ok(b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x)))
    }

    fn marker(&mut self) -> Result<(Marker, u64)> {
        let off = self.offset();
        let b = self.take(1)?;
        Ok((Marker::from_u8(b.first().copied().unwrap_or(0xc1)), off))
    }

    /// The kind of the next value, without consuming it.
    pub fn peek(&self) -> Result<Kind> {
        let b = self.data.get(self.pos).copied().ok_or(Error::Truncated {
            offset: self.offset(),
            needed: 1,
        })?;
        // By the marker byte's ranges (the msgpack specification's table), without building
        // the marker: peeking is on the path of every value a walker visits.
        Ok(match b {
            0x00..=0x7f | 0xe0..=0xff | 0xcc..=0xd3 => Kind::Int,
            0x80..=0x8f | 0xde | 0xdf => Kind::Map,
            0x90..=0x9f | 0xdc | 0xdd => Kind::Array,
            0xa0..=0xbf | 0xd9..=0xdb => Kind::Str,
            0xc0 => Kind::Nil,
            0xc2 | 0xc3 => Kind::Bool,
            0xc4..=0xc6 => Kind::Bin,
            0xc7..=0xc9 | 0xd4..=0xd8 => Kind::Ext,
            0xca | 0xcb => Kind::Float,
            _ => {
                return Err(Error::Type {
                    offset: self.offset(),
                    expected: "a value",
                    found: "reserved",
                });
            }
        })
    }

    fn check_len(&self, off: u64, len: u64, min_bytes_each: u64) -> Result<usize> {
        let remaining = self.remaining() as u64;
        if len.saturating_mul(min_bytes_each) > remaining {
            return Err(Error::LengthBomb {
                offset: off,
                len,
                remaining,
            });
        }
        usize::try_from(len).map_err(|_| Error::LengthBomb {
            offset: off,
            len,
            remaining,
        })
    }

    /// Reads a map header and returns the number of key/value pairs.
    pub fn map_len(&mut self) -> Result<usize> {
        let (m, off) = self.marker()?;
        let len = match m {
            Marker::FixMap(n) => u64::from(n),
            Marker::Map16 => self.be(2)?,
            Marker::Map32 => self.be(4)?,
            other => {
                self.pos -= 1;
                return Err(Error::Type {
                    offset: off,
                    expected: "map",
                    found: marker_name(other),
                });
            }
        };
        self.check_len(off, len, 2)
    }

    /// Reads an array header and returns the number of elements.
    pub fn array_len(&mut self) -> Result<usize> {
        let (m, off) = self.marker()?;
        let len = match m {
            Marker::FixArray(n) => u64::from(n),
            Marker::Array16 => self.be(2)?,
            Marker::Array32 => self.be(4)?,
            other => {
                self.pos -= 1;
                return Err(Error::Type {
                    offset: off,
                    expected: "array",
                    found: marker_name(other),
                });
            }
        };
        self.check_len(off, len, 1)
    }

    /// Reads a string.
    pub fn str(&mut self) -> Result<&'a str> {
        let (m, off) = self.marker()?;
        let len = match m {
            Marker::FixStr(n) => u64::from(n),
            Marker::Str8 => self.be(1)?,
            Marker::Str16 => self.be(2)?,
            Marker::Str32 => self.be(4)?,
            other => {
                self.pos -= 1;
                return Err(Error::Type {
                    offset: off,
                    expected: "str",
                    found: marker_name(other),
                });
            }
        };
        let len = self.check_len(off, len, 1)?;
        let at = self.offset();
        let b = self.take(len)?;
        std::str::from_utf8(b).map_err(|_| Error::Utf8 { offset: at })
    }

    /// Reads a string's bytes as they are (no UTF-8 check), or returns `None` (consuming the
    /// value) if it is another type: for map keys compared with known names, as a C++ loader
    /// compares them.
    pub fn key_or_skip(&mut self) -> Result<Option<&'a [u8]>> {
        let start = self.pos;
        let (m, off) = self.marker()?;
        let len = match m {
            Marker::FixStr(n) => u64::from(n),
            Marker::Str8 => self.be(1)?,
            Marker::Str16 => self.be(2)?,
            Marker::Str32 => self.be(4)?,
            _ => {
                self.pos = start;
                self.skip()?;
                return Ok(None);
            }
        };
        let len = self.check_len(off, len, 1)?;
        Ok(Some(self.take(len)?))
    }

    /// Reads a string, or returns `None` (consuming the value) if it is another type.
    pub fn str_or_skip(&mut self) -> Result<Option<&'a str>> {
        if self.peek()? == Kind::Str {
            Ok(Some(self.str()?))
        } else {
            self.skip()?;
            Ok(None)
        }
    }

    /// Reads a boolean.
    pub fn bool(&mut self) -> Result<bool> {
        let (m, off) = self.marker()?;
        match m {
            Marker::True => Ok(true),
            Marker::False => Ok(false),
            other => {
                self.pos -= 1;
                Err(Error::Type {
                    offset: off,
                    expected: "bool",
                    found: marker_name(other),
                })
            }
        }
    }

    /// Reads an integer as i128 (covers u64 and i64).
    pub fn int(&mut self) -> Result<i128> {
        let (m, off) = self.marker()?;
        Ok(match m {
            Marker::FixPos(n) => i128::from(n),
            Marker::FixNeg(n) => i128::from(n),
            Marker::U8 => i128::from(self.be(1)?),
            Marker::U16 => i128::from(self.be(2)?),
            Marker::U32 => i128::from(self.be(4)?),
            Marker::U64 => i128::from(self.be(8)?),
            Marker::I8 => i128::from(self.be(1)? as u8 as i8),
            Marker::I16 => i128::from(self.be(2)? as u16 as i16),
            Marker::I32 => i128::from(self.be(4)? as u32 as i32),
            Marker::I64 => i128::from(self.be(8)? as i64),
            other => {
                self.pos -= 1;
                return Err(Error::Type {
                    offset: off,
                    expected: "int",
                    found: marker_name(other),
                });
            }
        })
    }

    /// Reads a number as f64: a float (f32 widened exactly) or an integer (converted as C++
    /// converts an integer to `double`), as a serializer that reads a `double` field accepts.
    pub fn float(&mut self) -> Result<f64> {
        if self.peek()? == Kind::Int {
            return Ok(self.int()? as f64);
        }
        let (m, off) = self.marker()?;
        Ok(match m {
            Marker::F32 => f64::from(f32::from_bits(self.be(4)? as u32)),
            Marker::F64 => f64::from_bits(self.be(8)?),
            other => {
                self.pos -= 1;
                return Err(Error::Type {
                    offset: off,
                    expected: "number",
                    found: marker_name(other),
                });
            }
        })
    }

    /// Reads a non-negative integer that fits u64, or returns `None` (consuming the value)
    /// for any other value.
    pub fn u64_or_skip(&mut self) -> Result<Option<u64>> {
        if self.peek()? == Kind::Int {
            Ok(u64::try_from(self.int()?).ok())
        } else {
            self.skip()?;
            Ok(None)
        }
    }

    /// Reads a boolean, or returns `None` (consuming the value) for any other value.
    pub fn bool_or_skip(&mut self) -> Result<Option<bool>> {
        if self.peek()? == Kind::Bool {
            Ok(Some(self.bool()?))
        } else {
            self.skip()?;
            Ok(None)
        }
    }

    /// Skips one whole value, however deeply nested (up to [`MAX_DEPTH`]).
    pub fn skip(&mut self) -> Result<()> {
        let Some(memo) = self.memo else {
            return self.walk_value(None);
        };
        // Only the value asked for is looked up: readers over a buffer's parts skip its values
        // outer level first, so an inner value is met again only as the target of a later skip.
        if let Some(len) = self.known_len(memo) {
            self.take(len)?;
            return Ok(());
        }
        self.walk_value(Some(memo))
    }

    /// The length of the container starting at `pos`, if `memo` has seen it whole.
    fn known_len(&self, memo: &SkipMemo) -> Option<usize> {
        // Only containers can be long: fixmap/fixarray (0x80..=0x9f), array/map 16/32.
        if !matches!(self.data.get(self.pos), Some(0x80..=0x9f | 0xdc..=0xdf)) {
            return None;
        }
        let addr = self.data.as_ptr() as usize + self.pos;
        let len = memo.ends.borrow().get(&addr).copied()?;
        (len <= self.remaining()).then_some(len)
    }

    /// Walks past the next value; with a memo, the long containers walked (the value and those
    /// nested in it) are added to it.
    fn walk_value(&mut self, memo: Option<&SkipMemo>) -> Result<()> {
        // Iterative: `pending` counts values still to skip at each open level, `start` where
        // that level's container began. The first levels of the stack live on the stack:
        // skipping is on the path of every value a walker does not read, and should not allocate.
        let mut pending: u64 = 1;
        let mut start = self.pos;
        let mut near = [(0u64, 0usize); 16];
        let mut far: Vec<(u64, usize)> = Vec::new();
        let mut depth = 0usize;
        loop {
            while pending == 0 {
                if depth == 0 {
                    return Ok(());
                }
                if let Some(memo) = memo.filter(|_| self.pos - start >= MEMO_MIN) {
                    let addr = self.data.as_ptr() as usize + start;
                    memo.ends.borrow_mut().insert(addr, self.pos - start);
                }
                depth -= 1;
                (pending, start) = match near.get(depth) {
                    Some(&p) => p,
                    None => far.pop().unwrap_or((0, 0)),
                };
            }
            let at = self.pos;
            pending -= 1;
            let (m, off) = self.marker()?;
            let children = self.past_scalar(m, off)?;
            if children > 0 {
                self.check_len(off, children, 1)?;
                if depth >= MAX_DEPTH as usize {
                    return Err(Error::TooDeep { offset: off });
                }
                match near.get_mut(depth) {
                    Some(slot) => *slot = (pending, start),
                    None => far.push((pending, start)),
                }
                depth += 1;
                pending = children;
                start = at;
            }
        }
    }

    /// Moves past the payload of a value whose marker `m` (at `off`) was read: a scalar's bytes,
    /// and nothing for a container, whose count of values is returned (a map's keys and values).
    fn past_scalar(&mut self, m: Marker, off: u64) -> Result<u64> {
        Ok(match m {
            Marker::Null | Marker::True | Marker::False | Marker::FixPos(_) | Marker::FixNeg(_) => {
                0
            }
            Marker::U8 | Marker::I8 => {
                self.take(1)?;
                0
            }
            Marker::U16 | Marker::I16 => {
                self.take(2)?;
                0
            }
            Marker::U32 | Marker::I32 | Marker::F32 => {
                self.take(4)?;
                0
            }
            Marker::U64 | Marker::I64 | Marker::F64 => {
                self.take(8)?;
                0
            }
            Marker::FixStr(n) => {
                self.take(usize::from(n))?;
                0
            }
            Marker::Str8 | Marker::Bin8 => {
                let n = self.be(1)?;
                self.take(self.check_len(off, n, 1)?)?;
                0
            }
            Marker::Str16 | Marker::Bin16 => {
                let n = self.be(2)?;
                self.take(self.check_len(off, n, 1)?)?;
                0
            }
            Marker::Str32 | Marker::Bin32 => {
                let n = self.be(4)?;
                self.take(self.check_len(off, n, 1)?)?;
                0
            }
            Marker::FixExt1 => self.take(2).map(|_| 0)?,
            Marker::FixExt2 => self.take(3).map(|_| 0)?,
            Marker::FixExt4 => self.take(5).map(|_| 0)?,
            Marker::FixExt8 => self.take(9).map(|_| 0)?,
            Marker::FixExt16 => self.take(17).map(|_| 0)?,
            Marker::Ext8 | Marker::Ext16 | Marker::Ext32 => {
                let w = match m {
                    Marker::Ext8 => 1,
                    Marker::Ext16 => 2,
                    _ => 4,
                };
                let n = self.be(w)?;
                let n = self.check_len(off, n, 1)?;
                self.take(n.saturating_add(1))?;
                0
            }
            Marker::FixArray(n) => u64::from(n),
            Marker::Array16 => self.be(2)?,
            Marker::Array32 => self.be(4)?,
            Marker::FixMap(n) => u64::from(n) * 2,
            Marker::Map16 => self.be(2)? * 2,
            Marker::Map32 => self.be(4)? * 2,
            Marker::Reserved => {
                return Err(Error::Type {
                    offset: off,
                    expected: "a value",
                    found: "reserved",
                });
            }
        })
    }

    /// Returns the raw bytes of the next value and skips it.
    pub fn raw(&mut self) -> Result<&'a [u8]> {
        let start = self.pos;
        self.skip()?;
        Ok(self.data.get(start..self.pos).unwrap_or(&[]))
    }

    /// Iterates over a map whose keys are strings, calling `f(key, reader)` for each entry;
    /// `f` must consume exactly the value (read it or call [`Reader::skip`]). Non-string keys
    /// are skipped together with their values.
    pub fn for_each_entry(
        &mut self,
        mut f: impl FnMut(&'a str, &mut Reader<'a>) -> Result<()>,
    ) -> Result<()> {
        let n = self.map_len()?;
        for _ in 0..n {
            match self.str_or_skip()? {
                Some(k) => f(k, self)?,
                None => self.skip()?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peek_agrees_with_the_marker_for_every_byte() {
        for b in 0..=255u8 {
            let data = [b];
            let want = match marker_name(Marker::from_u8(b)) {
                "nil" => Some(Kind::Nil),
                "bool" => Some(Kind::Bool),
                "int" => Some(Kind::Int),
                "float" => Some(Kind::Float),
                "str" => Some(Kind::Str),
                "bin" => Some(Kind::Bin),
                "array" => Some(Kind::Array),
                "map" => Some(Kind::Map),
                "ext" => Some(Kind::Ext),
                _ => None,
            };
            assert_eq!(Reader::new(&data).peek().ok(), want, "byte {b:#x}");
        }
    }
    use proptest::prelude::*;

    fn encode(v: &rmpv::Value) -> Vec<u8> {
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, v).unwrap();
        out
    }

    #[test]
    fn reads_nested() {
        let v = rmpv::Value::Map(vec![
            (
                "k".into(),
                rmpv::Value::Array(vec![1.into(), (-5).into(), u64::MAX.into()]),
            ),
            ("s".into(), "x".repeat(300).into()),
            ("f".into(), rmpv::Value::F64(1.5)),
        ]);
        let b = encode(&v);
        let mut rd = Reader::new(&b);
        let mut seen = Vec::new();
        rd.for_each_entry(|k, rd| {
            seen.push(k.to_string());
            match k {
                "k" => {
                    assert_eq!(rd.array_len()?, 3);
                    assert_eq!(rd.int()?, 1);
                    assert_eq!(rd.int()?, -5);
                    assert_eq!(rd.int()?, i128::from(u64::MAX));
                    Ok(())
                }
                "s" => {
                    assert_eq!(rd.str()?.len(), 300);
                    Ok(())
                }
                _ => rd.skip(),
            }
        })
        .unwrap();
        assert_eq!(seen, ["k", "s", "f"]);
        assert!(rd.is_empty());
    }

    #[test]
    fn length_bomb_is_an_error() {
        // array32 declaring 4 billion elements, then nothing.
        let b = [0xdd, 0xff, 0xff, 0xff, 0xff];
        let mut rd = Reader::new(&b);
        assert!(matches!(rd.array_len(), Err(Error::LengthBomb { .. })));
        let mut rd = Reader::new(&b);
        assert!(matches!(rd.skip(), Err(Error::LengthBomb { .. })));
        // str32 declaring 4 GiB.
        let b = [0xdb, 0xff, 0xff, 0xff, 0xff, b'a'];
        assert!(matches!(
            Reader::new(&b).str(),
            Err(Error::LengthBomb { .. })
        ));
    }

    #[test]
    fn depth_is_capped() {
        let b = vec![0x91u8; 10_000]; // [[[[...
        let mut rd = Reader::new(&b);
        assert!(matches!(rd.skip(), Err(Error::TooDeep { .. })));
    }

    #[test]
    fn errors_carry_offsets() {
        let b = [0x82, 0xa1, b'a', 0x01, 0xa1];
        let mut rd = Reader::with_base(&b, 1000);
        let e = rd.skip().unwrap_err();
        assert_eq!(
            e,
            Error::Truncated {
                offset: 1005,
                needed: 1
            }
        );
    }

    proptest! {
        #[test]
        fn skip_never_panics(data in proptest::collection::vec(any::<u8>(), 0..512)) {
            let mut rd = Reader::new(&data);
            while !rd.is_empty() {
                let before = rd.offset();
                if rd.skip().is_err() { break; }
                // A value read is at least one byte.
                prop_assert!(rd.offset() > before && rd.offset() <= data.len() as u64);
            }
        }

        #[test]
        fn skip_consumes_exactly_one_value(xs in proptest::collection::vec(any::<i64>(), 0..50), s in ".{0,40}") {
            let v = rmpv::Value::Array(vec![
                rmpv::Value::Array(xs.iter().map(|&x| x.into()).collect()),
                rmpv::Value::Map(vec![(s.clone().into(), rmpv::Value::Binary(s.into_bytes()))]),
            ]);
            let mut b = encode(&v);
            b.push(0xc0);
            let mut rd = Reader::new(&b);
            rd.skip().unwrap();
            prop_assert_eq!(rd.peek().unwrap(), Kind::Nil);
        }

        /// With a memo, every value of a nested document skips to the same place as without
        /// one, in whatever order the readers over its parts skip (outer first, then inner
        /// from the memo), and on truncated copies the memo changes no outcome.
        #[test]
        fn memo_skips_like_a_walk(v in nested(), cut in any::<usize>()) {
            let b = encode(&v);
            let memo = SkipMemo::default();
            for data in [&b[..], &b[..cut % (b.len() + 1)]] {
                let mut plain = Reader::new(data);
                let mut memod = Reader::new(data).with_memo(&memo);
                prop_assert_eq!(plain.skip().is_ok(), memod.skip().is_ok());
                prop_assert_eq!(plain.offset(), memod.offset());
                // Every value start reached by stepping into containers: skip from there.
                let mut starts = vec![0usize];
                let mut rd = Reader::new(data);
                while !rd.is_empty() {
                    let k = rd.peek();
                    let r = match k {
                        Ok(Kind::Array) => rd.array_len().map(|_| ()),
                        Ok(Kind::Map) => rd.map_len().map(|_| ()),
                        _ => rd.skip(),
                    };
                    if r.is_err() { break; }
                    starts.push(rd.offset() as usize);
                }
                for &at in &starts {
                    let part = &data[at.min(data.len())..];
                    let mut p = Reader::with_base(part, at as u64);
                    let mut m = Reader::with_base(part, at as u64).with_memo(&memo);
                    prop_assert_eq!(p.skip().is_ok(), m.skip().is_ok());
                    prop_assert_eq!(p.offset(), m.offset());
                }
            }
        }
    }

    /// Nested arrays and maps, some of them long enough to be remembered.
    fn nested() -> impl Strategy<Value = rmpv::Value> {
        let leaf = prop_oneof![
            any::<i64>().prop_map(rmpv::Value::from),
            ".{0,12}".prop_map(rmpv::Value::from),
            proptest::collection::vec(any::<u8>(), 0..700).prop_map(rmpv::Value::Binary),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..20).prop_map(rmpv::Value::Array),
                proptest::collection::vec((".{0,6}".prop_map(rmpv::Value::from), inner), 0..8)
                    .prop_map(rmpv::Value::Map),
            ]
        })
    }
}
