//! The fields of each producer's document that the derivation reads through a projection of
//! its own, as JSON paths (`cases[].device.arch`), taken from the digest's types: what a producer must keep for
//! the rules to see its findings. A test holds them against the shape of what each producer
//! prints, so a field renamed on one side is found there rather than read as missing.
//!
//! The paths come from walking the types' `Deserialize` implementations with a deserializer
//! that answers every question with one sample (one item of a list, one entry of a map, the
//! first variant of an enum) and records the field names it is asked for. (A `#[serde(flatten)]`
//! field is asked for as a map and would be recorded as one entry: the digest's types use none.)

use super::digest as d;
use serde::de::{
    self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};
use std::cell::Cell;

thread_local! {
    /// While set, `digest::lenient` reads its type directly, so its fields are recorded.
    static TRACING: Cell<bool> = const { Cell::new(false) };
}

/// Whether the fields of the digest's types are being recorded.
pub(crate) fn tracing() -> bool {
    TRACING.with(Cell::get)
}

/// The JSON paths the derivation reads of a document of `schema` (a current schema id), in
/// the order of the digest's types; `None` for a schema no rule reads, and for the documents
/// read with their producer's own types (`rocpath-docs`: a check, a trail, gates and
/// provenance, an inventory, an ISA census, a lanes summary, Ollama runs, a strace report, a kernel
/// trace, a case, comparisons), which have no projection that could drift: only `explain gemm`
/// is read through one.
pub fn fields_read(schema: &str) -> Option<Vec<String>> {
    use rocpath_docs::schema as s;
    let paths = match schema {
        x if x == s::EXPLAIN_GEMM.id => trace::<d::GemmDoc>(),
        _ => return None,
    };
    Some(paths)
}

fn trace<'de, T: serde::Deserialize<'de>>() -> Vec<String> {
    TRACING.with(|t| t.set(true));
    let mut out = Vec::new();
    let _ = T::deserialize(Tracer {
        path: String::new(),
        out: &mut out,
        depth: 0,
    });
    TRACING.with(|t| t.set(false));
    out
}

/// Lists nested deeper than this are read empty (every document is shallower).
const MAX_DEPTH: usize = 12;

struct Tracer<'o> {
    path: String,
    out: &'o mut Vec<String>,
    depth: usize,
}

impl<'o> Tracer<'o> {
    fn at<'p>(&'p mut self, part: &str) -> Tracer<'p> {
        let path = match (self.path.is_empty(), part) {
            (_, "[]") => format!("{}[]", self.path),
            (true, p) => p.to_string(),
            (false, p) => format!("{}.{p}", self.path),
        };
        Tracer {
            path,
            out: self.out,
            depth: self.depth + 1,
        }
    }
}

/// Deserializer methods answered as another one (`deserialize_u8` as `deserialize_u64`).
macro_rules! same_as {
    ($($($f:ident)* => $to:ident;)*) => {
        $($(
            fn $f<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
                self.$to(v)
            }
        )*)*
    };
}

impl<'de> Deserializer<'de> for Tracer<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        v.visit_str("")
    }
    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        v.visit_bool(false)
    }
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        v.visit_some(self)
    }
    fn deserialize_seq<V: Visitor<'de>>(mut self, v: V) -> Result<V::Value, Self::Error> {
        // A type that holds itself (a trail's `children`) is walked this deep, then empty.
        let tracer = (self.depth <= MAX_DEPTH).then(|| self.at("[]"));
        v.visit_seq(One { tracer })
    }
    fn deserialize_map<V: Visitor<'de>>(mut self, v: V) -> Result<V::Value, Self::Error> {
        v.visit_map(Fields {
            names: &["*"],
            next: 0,
            tracer: self.at("*"),
            keyed: true,
        })
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        names: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Self::Error> {
        v.visit_map(Fields {
            names,
            next: 0,
            tracer: self,
            keyed: false,
        })
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Self::Error> {
        let first = variants.first().copied().unwrap_or_default();
        v.visit_enum(first.into_deserializer())
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        v.visit_unit()
    }
    fn deserialize_u64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        v.visit_u64(0)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        v.visit_i64(0)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        v.visit_f64(0.0)
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        v: V,
    ) -> Result<V::Value, Self::Error> {
        v.visit_newtype_struct(self)
    }
    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        v.visit_unit()
    }
    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf identifier unit_struct tuple tuple_struct
    }
    same_as! {
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u128 => deserialize_u64;
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i128 => deserialize_i64;
        deserialize_f32 => deserialize_f64;
    }
}

/// A list of one item.
struct One<'o> {
    tracer: Option<Tracer<'o>>,
}

impl<'de> SeqAccess<'de> for One<'_> {
    type Error = de::value::Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Self::Error> {
        match self.tracer.take() {
            Some(t) => seed.deserialize(t).map(Some),
            None => Ok(None),
        }
    }
}

/// A struct's fields (recorded as paths), or a map's one entry.
struct Fields<'o> {
    names: &'static [&'static str],
    next: usize,
    tracer: Tracer<'o>,
    keyed: bool,
}

impl<'de> MapAccess<'de> for Fields<'_> {
    type Error = de::value::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some(name) = self.names.get(self.next) else {
            return Ok(None);
        };
        seed.deserialize(name.into_deserializer()).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let name = self.names.get(self.next).copied().unwrap_or_default();
        self.next += 1;
        let child = if self.keyed {
            Tracer {
                path: self.tracer.path.clone(),
                out: self.tracer.out,
                depth: self.tracer.depth,
            }
        } else {
            self.tracer.at(name)
        };
        child.out.push(child.path.clone());
        seed.deserialize(child)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocpath_docs::schema as s;

    #[test]
    fn paths_of_every_read_schema() {
        // Read with their producers' own types: nothing projected.
        for schema in [
            s::CASE,
            s::EXPLAIN_COMPARE,
            s::CHECK,
            s::FOLLOW,
            s::GATES,
            s::INVENTORY,
            s::ISA,
            s::PROVENANCE,
            s::LANES,
            s::STRACE,
        ] {
            assert!(fields_read(schema.id).is_none(), "{}", schema.id);
        }
        let gemm = fields_read(s::EXPLAIN_GEMM.id).unwrap_or_default();
        assert!(gemm.len() > 5, "{gemm:?}");
        assert!(fields_read(s::SURVEY.id).is_none());
        // Tracing ends with the walk: documents are read as before.
        assert!(!tracing());
    }
}
