//! The `rocpath.provenance/1` document (`rocpath provenance`): the history of source lines —
//! the commit that introduced each, the rewrites that kept it, the references in the messages
//! and comments, and the ownership roles. `rocpath.gates/1` embeds the same per-line record for
//! a gate traced with `--blame`. `rocpath-provenance` builds these records; the ledger reads
//! them.

use rocpath_evidence::Evidence;
use serde::{Deserialize, Serialize};

/// The JSON document of `rocpath provenance`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProvenanceDoc {
    /// The checkout as given.
    pub repo: String,
    /// The lines traced.
    pub lines: Vec<LineProvenance>,
}

/// A commit as provenance reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commit {
    /// Full hash.
    pub hash: String,
    /// Author name.
    pub author: String,
    /// Author e-mail.
    pub email: String,
    /// Organisation by e-mail domain (`AMD` for amd.com), when the domain says one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affiliation: Option<String>,
    /// Author date, `YYYY-MM-DDTHH:MM:SS±HH:MM`.
    pub date: String,
    /// Author time, seconds since the epoch.
    pub time: i64,
    /// First line of the message.
    pub subject: String,
    /// PR number from the subject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pr: Option<u64>,
    /// Path of the file in this commit.
    pub path: String,
    /// Line in this commit's version of the file.
    pub line: u64,
}

/// Whether a role was filled from the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoleStatus {
    /// Filled from the git history.
    HistoryVerified,
    /// Not in the history (or the history did not show it).
    Unresolved,
}

crate::words!(RoleStatus {
    HistoryVerified => "history_verified",
    Unresolved => "unresolved",
});

/// One ownership role of the research (insertion / maintenance / operational /
/// repair-capable).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Role {
    /// `name <email>`, when the history shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub who: Option<String>,
    /// Organisation by e-mail domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affiliation: Option<String>,
    /// Filled from the history, or not.
    pub status: RoleStatus,
    /// Why.
    pub basis: String,
}

/// The four roles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Roles {
    /// Who put the gate there.
    pub insertion: Role,
    /// Who kept changing it afterwards.
    pub maintenance: Role,
    /// Who runs the path and shares workarounds (not in git history).
    pub operational: Role,
    /// Who can realistically fix the layer (not in git history).
    pub repair_capable: Role,
}

/// What a reference points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefKind {
    /// An issue (a link to one, or a bare `#N`).
    Issue,
    /// A pull request.
    PullRequest,
    /// A ticket of a tracker outside the public repository (`SWDEV-411729`).
    InternalTicket,
    /// Any other link.
    Link,
}

crate::words!(RefKind {
    Issue => "issue",
    PullRequest => "pull_request",
    InternalTicket => "internal_ticket",
    Link => "link",
});

/// Where a reference was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FoundIn {
    /// The commit's first line.
    Subject,
    /// The rest of the commit message.
    Message,
    /// The code comment next to the line.
    Comment,
}

crate::words!(FoundIn {
    Subject => "subject",
    Message => "message",
    Comment => "comment",
});

/// Whether the public can check a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Access {
    /// A public page.
    #[serde(rename = "public")]
    Public,
    /// A private repository or an internal tracker.
    #[serde(rename = "not publicly verifiable")]
    NotPublic,
    /// A bare `#N`: public only if the repository's tracker is.
    #[serde(rename = "unknown")]
    Unknown,
}

crate::words!(Access {
    Public => "public",
    NotPublic => "not publicly verifiable",
    Unknown => "unknown",
});

/// One reference in a commit message or a code comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    /// As written (`https://github.com/ROCm/llvm-project-private/issues/389`, `#1328`,
    /// `SWDEV-411729`).
    pub text: String,
    /// What it points at.
    pub kind: RefKind,
    /// Where it was found.
    pub found_in: FoundIn,
    /// Whether the public can check it.
    pub access: Access,
}

/// Provenance of one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineProvenance {
    /// Path at the newest commit.
    pub path: String,
    /// Line at the newest commit.
    pub line: u64,
    /// The line's text at the newest commit.
    pub text: String,
    /// The commit that last touched the line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<Commit>,
    /// The commit that introduced the gate on this line (the same as `last` when no later
    /// commit rewrote it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub introduced: Option<Commit>,
    /// Commits between them that rewrote the line and kept the gate, newest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rewrites: Vec<Commit>,
    /// Days between the last touch and the newest commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub untouched_days: Option<i64>,
    /// References in the commit messages and the code comment.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<Reference>,
    /// Ownership roles.
    pub roles: Roles,
    /// `history truncated at <commit>` for a shallow clone whose boundary hides the origin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<String>,
    /// What went wrong for this line, if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `confirmed`/`history_verified` when traced; `unresolved` when truncated or failed.
    pub evidence: Evidence,
}
