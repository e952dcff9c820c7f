//! YAML Tensile libraries: parsed with `yaml-rust2`, re-encoded as MessagePack and summarized
//! by the same walker, so both formats follow one set of rules.

use crate::{Error, LibrarySummary, summarize_msgpack};
use yaml_rust2::{Yaml, YamlLoader};

/// Largest YAML library accepted (the YAML form is only used by older, smaller builds).
pub const MAX_YAML_BYTES: usize = 256 << 20;

fn encode(y: &Yaml, out: &mut Vec<u8>, depth: u32) -> Result<(), Error> {
    if depth > 200 {
        return Err(Error::Yaml("nesting deeper than 200".into()));
    }
    let w = |r: Result<(), rmp::encode::ValueWriteError>| r.map_err(|e| Error::Yaml(e.to_string()));
    match y {
        Yaml::Real(s) => w(rmp::encode::write_f64(out, s.parse().unwrap_or(0.0)))?,
        Yaml::Integer(i) => {
            if *i >= 0 {
                w(rmp::encode::write_uint(out, *i as u64).map(|_| ()))?
            } else {
                w(rmp::encode::write_sint(out, *i).map(|_| ()))?
            }
        }
        Yaml::String(s) => w(rmp::encode::write_str(out, s))?,
        Yaml::Boolean(b) => {
            rmp::encode::write_bool(out, *b).map_err(|e| Error::Yaml(e.to_string()))?
        }
        Yaml::Array(a) => {
            w(rmp::encode::write_array_len(out, a.len() as u32).map(|_| ()))?;
            for v in a {
                encode(v, out, depth + 1)?;
            }
        }
        Yaml::Hash(h) => {
            w(rmp::encode::write_map_len(out, h.len() as u32).map(|_| ()))?;
            for (k, v) in h {
                encode(k, out, depth + 1)?;
                encode(v, out, depth + 1)?;
            }
        }
        Yaml::Alias(_) | Yaml::Null | Yaml::BadValue => {
            rmp::encode::write_nil(out).map_err(|e| Error::Yaml(e.to_string()))?
        }
    }
    Ok(())
}

/// Summarizes a YAML Tensile library (the same structure as the MessagePack form).
pub fn summarize_yaml(text: &str) -> Result<LibrarySummary, Error> {
    if text.len() > MAX_YAML_BYTES {
        return Err(Error::Yaml(format!(
            "{} bytes, over the {MAX_YAML_BYTES}-byte limit",
            text.len()
        )));
    }
    let docs = YamlLoader::load_from_str(text).map_err(|e| Error::Yaml(e.to_string()))?;
    let doc = docs
        .into_iter()
        .next()
        .ok_or_else(|| Error::Yaml("empty document".into()))?;
    let mut out = Vec::new();
    encode(&doc, &mut out, 0)?;
    summarize_msgpack(&out)
}
