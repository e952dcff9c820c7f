//! What the HIP runtime, the C/C++ runtime and the shell print when a run goes wrong, and the
//! `__EXIT_CODE=N` markers wrapper scripts append.
//!
//! Shell messages are localised: bash prints `Aborted (core dumped)` in English and
//! `中止 (コアダンプ)` in a Japanese locale; both are recognised.

use crate::text::{find, i64_of, s};
use std::borrow::Cow;

/// A recognised runtime line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event<'a> {
    /// `__EXIT_CODE=N` (possibly glued to the end of the previous output: `before` is the text
    /// in front of it on the same line).
    ExitMarker {
        /// The code.
        code: i64,
        /// Text before the marker on the same line.
        before: &'a [u8],
    },
    /// `…: Assertion '…' failed.` (glibc/libstdc++ assertion).
    Assertion(Cow<'a, str>),
    /// A shell's report of a crashed child: `Aborted (core dumped)`, `Segmentation fault`,
    /// `Killed`, or their Japanese forms.
    ShellCrash {
        /// `SIGABRT`, `SIGSEGV`, `SIGKILL`, `SIGBUS`, `SIGFPE`, `SIGILL`.
        signal: &'static str,
        /// The line.
        line: Cow<'a, str>,
    },
    /// `terminate called after throwing an instance of '…'`.
    Terminate(Cow<'a, str>),
    /// `Memory access fault by GPU node-1 (Agent handle: …) on address 0x…. Reason: …`.
    GpuMemoryFault(Cow<'a, str>),
    /// A HIP runtime error (`hipErrorNoBinaryForGpu`, `invalid device function`, …), an HSA
    /// status error, or the runtime saying it has no code object for the device.
    HipError {
        /// The error name, when printed (`hipErrorNoBinaryForGpu`).
        code: Cow<'a, str>,
        /// The line.
        line: Cow<'a, str>,
    },
}

const CRASHES: &[(&[u8], &str)] = &[
    (b"Aborted", "SIGABRT"),
    ("中止".as_bytes(), "SIGABRT"),
    (b"Segmentation fault", "SIGSEGV"),
    ("セグメンテーション違反".as_bytes(), "SIGSEGV"),
    (b"Bus error", "SIGBUS"),
    ("バスエラー".as_bytes(), "SIGBUS"),
    (b"Floating point exception", "SIGFPE"),
    ("浮動小数点例外".as_bytes(), "SIGFPE"),
    (b"Illegal instruction", "SIGILL"),
    ("不正な命令".as_bytes(), "SIGILL"),
    (b"Killed", "SIGKILL"),
    ("強制終了".as_bytes(), "SIGKILL"),
];

const HIP_ERRORS: &[(&[u8], &str)] = &[
    (b"hipErrorNoBinaryForGpu", "hipErrorNoBinaryForGpu"),
    (b"no kernel image is available", "hipErrorNoBinaryForGpu"),
    (b"invalid device function", "hipErrorInvalidDeviceFunction"),
    (
        b"hipErrorInvalidDeviceFunction",
        "hipErrorInvalidDeviceFunction",
    ),
    (
        b"hipErrorSharedObjectInitFailed",
        "hipErrorSharedObjectInitFailed",
    ),
    (b"hipErrorInvalidKernelFile", "hipErrorInvalidKernelFile"),
    (b"hipErrorOutOfMemory", "hipErrorOutOfMemory"),
    (b"hipErrorIllegalAddress", "hipErrorIllegalAddress"),
    (b"hipErrorLaunchFailure", "hipErrorLaunchFailure"),
    (b"Cannot find CO in the bundle", "no_code_object_for_isa"),
    (
        b"No compatible code objects found",
        "no_code_object_for_isa",
    ),
    (b"HSA_STATUS_ERROR", "HSA_STATUS_ERROR"),
];

/// Recognises a runtime line anywhere in the line. Call it only for lines no library parser
/// claimed (it searches the whole line).
pub fn parse(line: &[u8]) -> Option<Event<'_>> {
    if let Some(i) = find(line, b"__EXIT_CODE=") {
        let v = &line[i + 12..];
        let end = v
            .iter()
            .position(|c| !(c.is_ascii_digit() || *c == b'-'))
            .unwrap_or(v.len());
        if let Some(code) = i64_of(&v[..end]) {
            return Some(Event::ExitMarker {
                code,
                before: &line[..i],
            });
        }
    }
    if find(line, b"Memory access fault by GPU").is_some() {
        return Some(Event::GpuMemoryFault(s(line)));
    }
    if find(line, b"Assertion").is_some() && find(line, b"failed").is_some() {
        return Some(Event::Assertion(s(line)));
    }
    if find(line, b"terminate called after throwing").is_some() {
        return Some(Event::Terminate(s(line)));
    }
    for (needle, code) in HIP_ERRORS {
        if find(line, needle).is_some() {
            let code = if *code == "HSA_STATUS_ERROR" {
                let i = find(line, b"HSA_STATUS_ERROR").unwrap_or(0);
                let end = line[i..]
                    .iter()
                    .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                    .map_or(line.len(), |e| i + e);
                s(&line[i..end])
            } else {
                Cow::Borrowed(*code)
            };
            return Some(Event::HipError {
                code,
                line: s(line),
            });
        }
    }
    // Shell crash reports: "bash: line 1: 123 Aborted (core dumped) cmd",
    // "bash: 1 行: 552371 中止 (コアダンプ) cmd", "Segmentation fault (core dumped)".
    let shellish = find(line, b"core dumped").is_some()
        || find(line, "コアダンプ".as_bytes()).is_some()
        || line.starts_with(b"bash: ")
        || line.starts_with(b"sh: ")
        || line.starts_with(b"zsh: ");
    if shellish {
        for (needle, sig) in CRASHES {
            if find(line, needle).is_some() {
                return Some(Event::ShellCrash {
                    signal: sig,
                    line: s(line),
                });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_markers() {
        assert_eq!(
            parse(b"__EXIT_CODE=134"),
            Some(Event::ExitMarker {
                code: 134,
                before: b""
            })
        );
        assert_eq!(
            parse(b"Long Name: out_data_type Not Found !__EXIT_CODE=0"),
            Some(Event::ExitMarker {
                code: 0,
                before: b"Long Name: out_data_type Not Found !"
            })
        );
    }

    #[test]
    fn crashes_in_two_locales() {
        let ja =
            "bash: 1 行: 552371 中止                     (コアダンプ) MIOpenDriver convfp16 -n 16";
        assert!(matches!(
            parse(ja.as_bytes()),
            Some(Event::ShellCrash {
                signal: "SIGABRT",
                ..
            })
        ));
        assert!(matches!(
            parse(b"bash: line 1: 99 Segmentation fault      (core dumped) ./a.out"),
            Some(Event::ShellCrash {
                signal: "SIGSEGV",
                ..
            })
        ));
        assert!(matches!(
            parse(b"/usr/include/c++/15.2.1/bits/stl_vector.h:1263: reference std::vector<std::basic_string<char>>::operator[](size_type): Assertion '__n < this->size()' failed."),
            Some(Event::Assertion(_))
        ));
        assert!(matches!(
            parse(b"Memory access fault by GPU node-1 (Agent handle: 0x55) on address 0x7f. Reason: Page not present or supervisor privilege."),
            Some(Event::GpuMemoryFault(_))
        ));
        assert!(matches!(
            parse(b"HIP error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"),
            Some(Event::HipError { .. })
        ));
        assert_eq!(parse(b"all fine"), None);
        assert_eq!(parse(b"Killed the bug"), None);
    }
}
