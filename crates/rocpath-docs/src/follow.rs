//! The `rocpath.follow/1` document: a trail of hops through source code, their kinds and
//! evidence. Written by `rocpath follow --json` (`rocpath-follow`), read by the ledger (its
//! derivation rules and the steps it quotes at import) and the site, all through these types.

use serde::{Deserialize, Serialize};

/// How the value got to a hop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HopKind {
    /// Where the trail starts: a definition, a declaration or a key.
    Origin,
    /// Assigned to a variable (`x := v`, `a.b = v`, `int n = v;`, `x = v`).
    Assign,
    /// Passed as an argument to a call.
    CallArg,
    /// Received as a parameter of the function called.
    Param,
    /// Returned; the trail goes on at the callers.
    Return,
    /// Read from or written to a struct field (also `Field: v` in a struct literal).
    Field,
    /// Carried as a JSON key or as the fields of a type encoded and decoded as JSON.
    Json,
    /// Passed as a command-line flag, or read by a flag definition.
    Flag,
    /// Passed through an environment variable.
    Env,
    /// Crossed from Go into C through cgo.
    Cgo,
    /// A condition decides on it.
    Branch,
}

impl HopKind {
    /// The name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            HopKind::Origin => "origin",
            HopKind::Assign => "assign",
            HopKind::CallArg => "call-arg",
            HopKind::Param => "param",
            HopKind::Return => "return",
            HopKind::Field => "field",
            HopKind::Json => "json",
            HopKind::Flag => "flag",
            HopKind::Env => "env",
            HopKind::Cgo => "cgo",
            HopKind::Branch => "branch",
        }
    }
}

/// How well a hop is established.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HopEvidence {
    /// Read in the syntax: the value is visibly there.
    CodeVerified,
    /// A bridge matched by name (a JSON key, a flag, a variable, a field of the same name).
    Inferred,
    /// The trail leaves the repositories given (the boundary is named in the note).
    Unresolved,
}

impl HopEvidence {
    /// The name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            HopEvidence::CodeVerified => "code_verified",
            HopEvidence::Inferred => "inferred",
            HopEvidence::Unresolved => "unresolved",
        }
    }

    /// The evidence class and kind of proof of the project's evidence model.
    pub fn class_proof(self) -> (rocpath_evidence::Class, rocpath_evidence::Proof) {
        use rocpath_evidence::{Class, Proof};
        match self {
            HopEvidence::CodeVerified => (Class::Confirmed, Proof::CodeVerified),
            HopEvidence::Inferred => (Class::Inferred, Proof::Hypothesis),
            HopEvidence::Unresolved => (Class::Unresolved, Proof::Speculative),
        }
    }
}

/// One step of the trail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hop {
    /// Its number in the document (1-based, depth first from the first start), which
    /// "followed above" notes point at.
    #[serde(default)]
    pub id: usize,
    /// The file, relative to its repository (prefixed by the repository's name when several
    /// repositories are followed).
    pub path: String,
    /// 1-based line.
    pub line: u64,
    /// The commit of the repository (`None` outside a git checkout).
    pub commit: Option<String>,
    /// The source line, trimmed.
    pub text: String,
    /// How the value got here.
    pub kind: HopKind,
    /// How well the hop is established.
    pub evidence: HopEvidence,
    /// What the value is here (`num_gpu`, `requestedLayers`, `.NumGpuLayers`, `-ngl`).
    pub symbol: String,
    /// Why the hop is inferred or unresolved, a cycle, a limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Where the value goes from here.
    #[serde(default)]
    pub children: Vec<Hop>,
}

impl Hop {
    /// Hops in the tree, this one included.
    pub fn count(&self) -> usize {
        1 + self.children.iter().map(Hop::count).sum::<usize>()
    }

    /// Every hop in the tree, depth first, with its depth.
    pub fn walk(&self) -> Vec<(usize, &Hop)> {
        let mut out = Vec::new();
        fn go<'a>(h: &'a Hop, d: usize, out: &mut Vec<(usize, &'a Hop)>) {
            out.push((d, h));
            for c in &h.children {
                go(c, d + 1, out);
            }
        }
        go(self, 0, &mut out);
        out
    }
}

/// A repository followed through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoInfo {
    /// The name used as a path prefix (the folder name).
    pub name: String,
    /// Where it is.
    pub root: String,
    /// Its HEAD commit, when it is a git checkout.
    pub commit: Option<String>,
    /// Source files indexed.
    pub files: usize,
    /// Whether the index came from the cache.
    pub cached: bool,
    /// Source files whose work tree differs from the commit (edited, added, removed).
    #[serde(default, skip_serializing_if = "crate::is_zero")]
    pub changed: usize,
}

/// A file left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// The file.
    pub path: String,
    /// Why (too large, binary, unparseable, a link loop).
    pub reason: String,
}

/// The `rocpath.follow/1` document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FollowDoc {
    /// The SPEC as given.
    pub spec: String,
    /// The repositories.
    pub repos: Vec<RepoInfo>,
    /// The depth limit.
    pub depth: usize,
    /// The hop limit.
    pub limit: usize,
    /// Places the SPEC matched (each is a root of `hops`).
    pub matched: usize,
    /// Whether a limit cut the trail short.
    pub truncated: bool,
    /// The trail: one root per place the SPEC matched.
    pub hops: Vec<Hop>,
    /// Files left out.
    #[serde(default)]
    pub skipped: Vec<Skipped>,
    /// Notes (limits reached, matches left out).
    #[serde(default)]
    pub notes: Vec<String>,
}

impl FollowDoc {
    /// All hops.
    pub fn hop_count(&self) -> usize {
        self.hops.iter().map(Hop::count).sum()
    }
}
