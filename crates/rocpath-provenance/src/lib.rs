//! Git provenance of source gates.
//!
//! - [`blame::trace`]: for each gate line, the commit that last touched it and the commit
//!   that introduced the gate (following renames and rewrites that kept the gate), with
//!   author, date, subject, PR number, referenced issues (links into private repositories
//!   are "not publicly verifiable"), how long the line has stayed untouched, and the
//!   research's ownership roles filled where the history shows them.
//! - [`walk::blame_many`]: the history walk behind it — git's blame algorithm for many
//!   lines of many files in one pass, folder trees compared before blobs.
//! - [`gates::blame_gates`]: every gate line of a `rocpath-gates` scan traced, one batched
//!   walk per checkout, and the JSON documents of the gates and provenance commands.
//! - [`timeline::timeline`]: per release tag, which of a target's gates and build-list
//!   entries exist: added / kept / retreated / removed.
//!
//! Shallow clones give `unresolved: history truncated at <commit>`.

pub mod blame;
pub mod gates;
pub mod refs;
pub mod timeline;
pub mod walk;
