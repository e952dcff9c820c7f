//! YAML Tensile libraries: parsed event by event with `yaml-rust2` and written straight to
//! MessagePack, which the walker of the `.dat` form then summarizes, so both formats follow
//! one set of rules.
//!
//! No YAML tree is built: a tree would copy the anchored node at every alias, and a few
//! hundred bytes of nested aliases (a "billion laughs" document) would expand to gigabytes.
//! Here an alias copies the anchored node's MessagePack bytes, and the output — aliases
//! expanded — may not grow past [`MAX_EXPANSION`] times the text (plus 1 MiB); every byte of
//! it is reserved from the run's memory budget first. A document over either bound is refused
//! with [`Error::Expansion`] or [`Error::Budget`].

use crate::{Error, LibrarySummary, summarize_msgpack};
use rocpath_budget::{MemoryBudget, Reservation};
use std::collections::HashMap;
use yaml_rust2::Yaml;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Largest YAML library accepted (the YAML form is only used by older, smaller builds).
pub const MAX_YAML_BYTES: usize = 256 << 20;

/// How many times its own size a document may grow to with its aliases expanded. Without
/// aliases MessagePack is at most ~2.5 times the YAML text (`[]` → a 5-byte array header).
pub const MAX_EXPANSION: usize = 8;

/// Deepest nesting accepted (the walker stops at the same depth).
const MAX_DEPTH: usize = 200;

/// Bytes reserved from the budget at a time as the output grows.
const RESERVE_STEP: u64 = 1 << 20;

/// An open sequence or mapping: where its header is, how many items it has so far.
struct Frame {
    header_at: usize,
    items: u64,
    anchor: usize,
}

/// Receives parser events and writes MessagePack. Sequences and mappings are written with
/// 32-bit length headers that are patched when they end.
struct Encoder {
    out: Vec<u8>,
    max_out: usize,
    held: Reservation,
    stack: Vec<Frame>,
    /// Anchor id → byte range of the anchored node in `out`.
    anchors: HashMap<usize, (usize, usize)>,
    done: bool,
    error: Option<Error>,
}

impl MarkedEventReceiver for Encoder {
    fn on_event(&mut self, ev: Event, _mark: Marker) {
        if self.error.is_some() || self.done {
            return;
        }
        if let Err(e) = self.event(ev) {
            self.error = Some(e);
        }
    }
}

impl Encoder {
    fn event(&mut self, ev: Event) -> Result<(), Error> {
        match ev {
            Event::SequenceStart(anchor, _) => self.open(0xdd, anchor),
            Event::MappingStart(anchor, _) => self.open(0xdf, anchor),
            Event::SequenceEnd | Event::MappingEnd => self.close(),
            Event::Scalar(v, style, anchor, tag) => {
                let start = self.out.len();
                encode_scalar(&resolve(v, style, tag), &mut self.out)?;
                self.finish(start, anchor)
            }
            Event::Alias(id) => self.alias(id),
            _ => Ok(()),
        }
    }

    fn open(&mut self, marker: u8, anchor: usize) -> Result<(), Error> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(Error::Yaml(format!("nesting deeper than {MAX_DEPTH}")));
        }
        let header_at = self.out.len();
        self.out.extend_from_slice(&[marker, 0, 0, 0, 0]);
        self.grown()?;
        self.stack.push(Frame {
            header_at,
            items: 0,
            anchor,
        });
        Ok(())
    }

    fn close(&mut self) -> Result<(), Error> {
        let Some(f) = self.stack.pop() else {
            return Err(Error::Yaml(
                "end of a collection that was not opened".into(),
            ));
        };
        let is_map = self.out.get(f.header_at) == Some(&0xdf);
        let n = if is_map { f.items / 2 } else { f.items };
        let n = u32::try_from(n).map_err(|_| Error::Yaml("collection too long".into()))?;
        if let Some(len) = self.out.get_mut(f.header_at + 1..f.header_at + 5) {
            len.copy_from_slice(&n.to_be_bytes());
        }
        self.finish(f.header_at, f.anchor)
    }

    /// An alias: the anchored node's bytes again, if the output may grow by them.
    fn alias(&mut self, id: usize) -> Result<(), Error> {
        let start = self.out.len();
        match self.anchors.get(&id).copied() {
            Some((s, e)) => {
                if start.saturating_add(e - s) > self.max_out {
                    return Err(self.too_large());
                }
                self.out.extend_from_within(s..e);
            }
            None => self.out.push(0xc0),
        }
        self.finish(start, 0)
    }

    /// A node ended at the end of the output: record its anchor, count it in its parent.
    fn finish(&mut self, start: usize, anchor: usize) -> Result<(), Error> {
        self.grown()?;
        if anchor > 0 {
            self.anchors.insert(anchor, (start, self.out.len()));
        }
        match self.stack.last_mut() {
            Some(f) => f.items += 1,
            None => self.done = true,
        }
        Ok(())
    }

    /// Checks the output against the expansion bound and reserves its growth.
    fn grown(&mut self) -> Result<(), Error> {
        let len = self.out.len() as u64;
        if self.out.len() > self.max_out {
            return Err(self.too_large());
        }
        if len > self.held.bytes() {
            self.held
                .ensure(len.saturating_add(RESERVE_STEP))
                .map_err(Error::Budget)?;
        }
        Ok(())
    }

    fn too_large(&self) -> Error {
        Error::Expansion {
            limit: self.max_out as u64,
        }
    }
}

/// The value of a scalar, by the rules of `yaml-rust2`'s loader: quoted scalars are strings,
/// plain ones are typed by their text (or by a `!!bool`/`!!int`/`!!float`/`!!null` tag).
fn resolve(v: String, style: TScalarStyle, tag: Option<Tag>) -> Yaml {
    if style != TScalarStyle::Plain {
        return Yaml::String(v);
    }
    let Some(Tag { handle, suffix }) = tag else {
        return Yaml::from_str(&v);
    };
    if handle != "tag:yaml.org,2002:" {
        return Yaml::String(v);
    }
    match (suffix.as_str(), v.as_str()) {
        ("bool", "true" | "True" | "TRUE") => Yaml::Boolean(true),
        ("bool", "false" | "False" | "FALSE") => Yaml::Boolean(false),
        ("int", _) => v.parse().map(Yaml::Integer).unwrap_or(Yaml::BadValue),
        ("float", _) if v.parse::<f64>().is_ok() => Yaml::Real(v),
        ("null", "~" | "null") => Yaml::Null,
        ("bool" | "float" | "null", _) => Yaml::BadValue,
        _ => Yaml::String(v),
    }
}

fn encode_scalar(y: &Yaml, out: &mut Vec<u8>) -> Result<(), Error> {
    let w = |e: rmp::encode::ValueWriteError| Error::Yaml(e.to_string());
    match y {
        Yaml::Real(s) => rmp::encode::write_f64(out, s.parse().unwrap_or(0.0)).map_err(w)?,
        Yaml::Integer(i) if *i >= 0 => {
            rmp::encode::write_uint(out, *i as u64).map_err(w)?;
        }
        Yaml::Integer(i) => {
            rmp::encode::write_sint(out, *i).map_err(w)?;
        }
        Yaml::String(s) => rmp::encode::write_str(out, s).map_err(w)?,
        Yaml::Boolean(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
        _ => out.push(0xc0),
    }
    Ok(())
}

/// Summarizes a YAML Tensile library (the same structure as the MessagePack form), with a
/// budget of its own (see [`summarize_yaml_in`]).
pub fn summarize_yaml(text: &str) -> Result<LibrarySummary, Error> {
    summarize_yaml_in(text, &MemoryBudget::default())
}

/// Summarizes a YAML Tensile library, reserving the memory of its MessagePack form from
/// `budget`. Aliases are expanded up to [`MAX_EXPANSION`] times the text.
pub fn summarize_yaml_in(text: &str, budget: &MemoryBudget) -> Result<LibrarySummary, Error> {
    let (bytes, _held) = yaml_to_msgpack_in(text, budget)?;
    summarize_msgpack(&bytes)
}

/// Converts a YAML Tensile library to its MessagePack form (the bytes the `.dat` of the same
/// library would hold), with a budget of its own.
pub fn yaml_to_msgpack(text: &str) -> Result<Vec<u8>, Error> {
    Ok(yaml_to_msgpack_in(text, &MemoryBudget::default())?.0)
}

/// Converts a YAML Tensile library to MessagePack, reserving the output from `budget` (the
/// reservation is returned with the bytes). Aliases are expanded up to [`MAX_EXPANSION`] times
/// the text.
pub fn yaml_to_msgpack_in(
    text: &str,
    budget: &MemoryBudget,
) -> Result<(Vec<u8>, Reservation), Error> {
    if text.len() > MAX_YAML_BYTES {
        return Err(Error::Yaml(format!(
            "{} bytes, over the {MAX_YAML_BYTES}-byte limit",
            text.len()
        )));
    }
    let mut enc = Encoder {
        out: Vec::new(),
        max_out: text
            .len()
            .saturating_mul(MAX_EXPANSION)
            .saturating_add(1 << 20),
        held: Reservation::empty(budget),
        stack: Vec::new(),
        anchors: HashMap::new(),
        done: false,
        error: None,
    };
    Parser::new_from_str(text)
        .load(&mut enc, false)
        .map_err(|e| Error::Yaml(e.to_string()))?;
    if let Some(e) = enc.error {
        return Err(e);
    }
    if !enc.done {
        return Err(Error::Yaml("empty document".into()));
    }
    Ok((enc.out, enc.held))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A "billion laughs" document: nine levels of nine aliases each, 535 bytes of text that a
    /// tree builder expands to 9^9 strings.
    pub(crate) fn alias_bomb() -> String {
        let mut y = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        for w in names.windows(2) {
            let refs = vec![format!("*{}", w[0]); 9].join(",");
            y.push_str(&format!("{}: &{} [{refs}]\n", w[1], w[1]));
        }
        y
    }

    #[test]
    fn an_alias_bomb_is_refused_not_expanded() {
        let y = alias_bomb();
        assert!(y.len() < 600, "{}", y.len());
        let e = summarize_yaml(&y).unwrap_err();
        assert!(matches!(e, Error::Expansion { .. }), "{e}");
        assert!(e.to_string().contains("aliases"), "{e}");
    }

    #[test]
    fn the_budget_bounds_the_output_too() {
        let y = alias_bomb();
        let small = MemoryBudget::with_wait(64 << 10, std::time::Duration::ZERO);
        let e = summarize_yaml_in(&y, &small).unwrap_err();
        assert!(matches!(e, Error::Budget(_)), "{e}");
        assert_eq!(small.in_use(), 0, "the reservation is given back");
    }

    #[test]
    fn aliases_within_bounds_are_expanded() {
        let y = "defs:\n  - &p {type: AMDGPU, value: {type: Processor, value: gfx90a}}\nsolutions: []\nlibrary:\n  type: Hardware\n  rows:\n  - predicate: *p\n    library: {type: Placeholder, value: L_gfx90a}\n";
        let s = summarize_yaml(y).unwrap();
        assert!(s.processors.contains("gfx90a"));
        assert_eq!(s.placeholders, ["L_gfx90a"]);
    }

    #[test]
    fn scalars_are_typed_as_the_loader_types_them() {
        let mut out = Vec::new();
        for (text, style, want) in [
            ("12", TScalarStyle::Plain, Yaml::Integer(12)),
            ("12", TScalarStyle::DoubleQuoted, Yaml::String("12".into())),
            ("true", TScalarStyle::Plain, Yaml::Boolean(true)),
            ("~", TScalarStyle::Plain, Yaml::Null),
            ("1.5", TScalarStyle::Plain, Yaml::Real("1.5".into())),
        ] {
            assert_eq!(resolve(text.into(), style, None), want, "{text}");
            encode_scalar(&want, &mut out).unwrap();
        }
        assert_eq!(&out[..3], &[12, 0xa2, b'1']);
    }
}
