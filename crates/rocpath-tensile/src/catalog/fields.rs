//! A map's entries by key, each kept as its raw bytes: catalog maps do not put `type` first
//! (`{"index": 0, "type": "FreeSizeA"}`), so a node is read whole before it is interpreted.

use super::Error;
use rocpath_mpack::{Kind, Reader, SkipMemo};
use smallvec::SmallVec;

/// One entry of a map: the key's bytes, the absolute offset of the value, the value's bytes.
type Field<'a> = (&'a [u8], u64, &'a [u8]);

/// The entries of one map: key, absolute offset of the value, raw bytes of the value.
pub(super) struct Fields<'a> {
    /// Offset of the map.
    pub offset: u64,
    entries: SmallVec<[Field<'a>; 6]>,
    memo: Option<&'a SkipMemo>,
}

/// A decoding error at `offset`.
pub(super) fn dec_err(offset: u64, msg: &str) -> Error {
    Error::Catalog {
        offset,
        msg: msg.to_string(),
    }
}

impl<'a> Fields<'a> {
    /// Reads the next value, which must be a map.
    pub fn read(rd: &mut Reader<'a>) -> Result<Self, Error> {
        let offset = rd.offset();
        if rd.peek()? != Kind::Map {
            rd.skip()?;
            return Err(dec_err(offset, "expected a map"));
        }
        let n = rd.map_len()?;
        let mut entries = SmallVec::new();
        for _ in 0..n {
            match rd.key_or_skip()? {
                Some(k) => {
                    let at = rd.offset();
                    entries.push((k, at, rd.raw()?));
                }
                None => rd.skip()?,
            }
        }
        Ok(Fields {
            offset,
            entries,
            memo: rd.memo(),
        })
    }

    /// A reader over the value of `key`, if the map has it (the first, if repeated).
    pub fn get(&self, key: &str) -> Option<Reader<'a>> {
        self.entries
            .iter()
            .find(|(k, _, _)| *k == key.as_bytes())
            .map(|&(_, at, raw)| {
                let rd = Reader::with_base(raw, at);
                match self.memo {
                    Some(m) => rd.with_memo(m),
                    None => rd,
                }
            })
    }

    /// A reader over the value of `key`, or an error naming the missing key.
    pub fn req(&self, key: &str) -> Result<Reader<'a>, Error> {
        self.get(key)
            .ok_or_else(|| dec_err(self.offset, &format!("no `{key}` in this map")))
    }

    /// The string value of `type`.
    pub fn type_name(&self) -> Result<&'a str, Error> {
        Ok(self.req("type")?.str()?)
    }
}
