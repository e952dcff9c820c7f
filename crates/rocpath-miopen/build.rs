//! Deflates the shipped MIOpen models (`data/miopen-model-*.json`, 1.8 MB of JSON each) into
//! `OUT_DIR`, so the binary holds them compressed (about 190 KB each); `model::release` inflates
//! one when it is first asked for.

use std::error::Error;
use std::io::Write;
use std::path::PathBuf;

/// The models `model::release` ships, by name (`data/miopen-model-<name>.json`).
const MODELS: [&str; 3] = ["rocm-6.2.2", "rocm-6.3.1", "2d1fd997"];

fn main() -> Result<(), Box<dyn Error>> {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("cargo sets OUT_DIR")?);
    for name in MODELS {
        let src = format!("data/miopen-model-{name}.json");
        println!("cargo:rerun-if-changed={src}");
        let json = std::fs::read(&src)?;
        let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
        z.write_all(&json)?;
        std::fs::write(
            out.join(format!("miopen-model-{name}.json.deflate")),
            z.finish()?,
        )?;
    }
    Ok(())
}
