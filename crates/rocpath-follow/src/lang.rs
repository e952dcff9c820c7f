//! The languages `follow` reads, each with its grammar, and how a file's extension names one.

use std::path::Path;

/// A language with a grammar.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Lang {
    /// Go.
    Go,
    /// C, C++, CUDA, HIP (read with the C++ grammar).
    Cpp,
    /// Python.
    Python,
}

impl Lang {
    /// The language of a file, by its extension.
    pub fn of(path: &Path) -> Option<Lang> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "go" => Lang::Go,
            "py" => Lang::Python,
            "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" | "cu" | "cuh" | "hip"
            | "inl" | "ipp" => Lang::Cpp,
            _ => return None,
        })
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Lang::Go => "go",
            Lang::Cpp => "cpp",
            Lang::Python => "python",
        }
    }

    pub(crate) fn parse_name(s: &str) -> Option<Lang> {
        Some(match s {
            "go" => Lang::Go,
            "cpp" => Lang::Cpp,
            "python" => Lang::Python,
            _ => return None,
        })
    }
}
