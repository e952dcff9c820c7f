//! The tree-sitter grammars rocpath reads source with: C, C++, HIP, CUDA and OpenCL with the
//! C++ grammar, Python, Go. [`parse`] keeps one parser per language and thread (a parser is
//! costly to make and not `Sync`), so the readers of gates and of value trails share them.

use std::cell::RefCell;
use tree_sitter::{Parser, Tree};

/// A language with a grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    /// C, C++, HIP, CUDA, OpenCL.
    Cpp,
    /// Python.
    Python,
    /// Go.
    Go,
}

impl Lang {
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Cpp => "cpp",
            Lang::Python => "python",
            Lang::Go => "go",
        }
    }
}

thread_local! {
    static PARSERS: RefCell<Vec<(Lang, Parser)>> = const { RefCell::new(Vec::new()) };
}

/// Parses `src` (only `range` of it when given) with one parser per language and thread;
/// `None` when the grammar cannot be loaded or the parser gives up.
pub fn parse(lang: Lang, src: &[u8], range: Option<tree_sitter::Range>) -> Option<Tree> {
    PARSERS.with(|cell| {
        let mut v = cell.borrow_mut();
        if !v.iter().any(|(l, _)| *l == lang) {
            let mut p = Parser::new();
            let language: tree_sitter::Language = match lang {
                Lang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
                Lang::Python => tree_sitter_python::LANGUAGE.into(),
                Lang::Go => tree_sitter_go::LANGUAGE.into(),
            };
            p.set_language(&language).ok()?;
            v.push((lang, p));
        }
        let (_, p) = v.iter_mut().find(|(l, _)| *l == lang)?;
        p.reset();
        match range {
            Some(r) => p.set_included_ranges(&[r]).ok()?,
            None => p.set_included_ranges(&[]).ok()?,
        }
        p.parse(src, None)
    })
}
