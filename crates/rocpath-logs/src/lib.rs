//! Streaming, tolerant parsers for what the ROCm stack writes while it runs.
//!
//! Pure: bytes in, typed events out. Nothing here opens a file, reads a clock or allocates in
//! proportion to its input. The caller feeds chunks of bytes to a [`LineSplitter`], which cuts
//! them into lines (LF or CRLF, any bytes, lines longer than a limit truncated and flagged), and
//! hands each line to [`parse_line`], which recognises it and returns an [`Event`] borrowing
//! from the line, or `None` for the many lines that carry nothing.
//!
//! | module | what it reads |
//! |---|---|
//! | [`miopen`] | MIOpen's log (`MIOPEN_LOG_LEVEL` up to 7, `MIOPEN_ENABLE_LOGGING[_CMD]`) and MIOpenDriver's own lines |
//! | [`rocblas`] | `ROCBLAS_LAYER` trace / bench / profile / internal lines, fallback and Tensile-library messages, Tensile `Running kernel:` |
//! | [`tensile`] | the Tensile kernel-name grammar (`Cijk_Ailk_Bljk_HB_MT64x64x16_MI32x32x8x1_…`) |
//! | [`hipblaslt`] | hipBLASLt's `[date][HIPBLASLT][pid][Level][func]` lines and `hipblaslt-bench` lines |
//! | [`runtime`] | HIP runtime errors, GPU memory faults, assertions, shell crash messages (any locale), `__EXIT_CODE=N` markers |
//! | [`capi`] | output of programs that call MIOpen's C API directly (solution lists, workspace, compile and immediate-run results) |

pub mod capi;
pub mod hipblaslt;
pub mod lines;
pub mod miopen;
pub mod rocblas;
pub mod runtime;
pub mod tensile;
mod text;

pub use lines::{Line, LineSplitter};

/// One recognised line.
#[derive(Debug, Clone, PartialEq)]
pub enum Event<'a> {
    /// A MIOpen log line or a MIOpenDriver output line.
    Miopen(miopen::Event<'a>),
    /// A rocBLAS or Tensile line.
    Rocblas(rocblas::Event<'a>),
    /// A hipBLASLt line.
    Hipblaslt(hipblaslt::Event<'a>),
    /// A HIP runtime, process or shell line.
    Runtime(runtime::Event<'a>),
    /// A line of a MIOpen C-API probe program.
    Capi(capi::Event<'a>),
}

/// Recognises one line (without its line terminator). Returns `None` for lines that carry
/// nothing the case model uses. Never panics, whatever the bytes.
///
/// An `__EXIT_CODE=N` marker glued to the end of other output comes back as
/// [`runtime::Event::ExitMarker`] with the text before it in `before`; parse that again to
/// see what it says.
pub fn parse_line(line: &[u8]) -> Option<Event<'_>> {
    let first = *line.first()?;
    // A wrapper's exit marker is the last thing on its line.
    let tail = &line[line.len().saturating_sub(32)..];
    if tail.len() >= 13 && text::find(tail, b"__EXIT_CODE=").is_some() {
        if let Some(e) = runtime::parse(line) {
            return Some(Event::Runtime(e));
        }
    }
    // Most lines of a level-6 log carry the MIOpen prefix: decide them without further search.
    if first == b'M' || first.is_ascii_digit() {
        if let Some(body) = miopen::strip_prefix(line) {
            return miopen::parse_body(body).map(Event::Miopen);
        }
    }
    match first {
        b'r' | b'.' | b'-' | b'R' => {
            if let Some(e) = rocblas::parse(line) {
                return Some(Event::Rocblas(e));
            }
        }
        b'[' | b'h' => {
            if let Some(e) = hipblaslt::parse(line) {
                return Some(Event::Hipblaslt(e));
            }
        }
        _ => {}
    }
    if let Some(e) = capi::parse(line) {
        return Some(Event::Capi(e));
    }
    if let Some(e) = miopen::parse_driver(line) {
        return Some(Event::Miopen(e));
    }
    if let Some(e) = rocblas::parse_anywhere(line) {
        return Some(Event::Rocblas(e));
    }
    runtime::parse(line).map(Event::Runtime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatch() {
        assert!(matches!(
            parse_line(b"MIOpen(HIP): Info [get_device_name] Raw device name: gfx900:xnack-"),
            Some(Event::Miopen(miopen::Event::DeviceName(_)))
        ));
        assert_eq!(parse_line(b"MIOpen(HIP): \tx = 1"), None);
        assert!(matches!(
            parse_line(b"rocblas_sgemm,N,N,1,2,3,1,0x1,1,0x2,3,0,0x3,1,atomics_allowed"),
            Some(Event::Rocblas(rocblas::Event::Trace(_)))
        ));
        assert!(matches!(
            parse_line(b"Long Name: out_data_type Not Found !__EXIT_CODE=0"),
            Some(Event::Runtime(runtime::Event::ExitMarker { code: 0, .. }))
        ));
        assert!(matches!(
            parse_line(b"RunForwardGPU() FAILED, rc = 0x3"),
            Some(Event::Miopen(miopen::Event::DriverFailed { rc: 3, .. }))
        ));
        assert_eq!(parse_line(b""), None);
        assert_eq!(parse_line(b"\xff\xfe garbage"), None);
    }
}
