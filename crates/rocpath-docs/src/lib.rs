//! The JSON documents rocpath writes, in one place.
//!
//! Every `--json` document opens with `"schema": "rocpath.<name>/<version>"` and an
//! `"observed"` block (tool, version, command, time, host). This crate holds what every
//! producer and reader of those documents must agree on:
//!
//! - [`schema`]: every schema the tool writes, its name, its current version and the command
//!   that prints it, defined once ([`schema::ALL`]); producers print through these constants
//!   and readers (the ledger, `fleet`) match on them.
//! - [`ErrorItem`]: the one item type of every document's `errors[]`: what could not be read,
//!   where (path, container, offset, line) and why, with its evidence when the item is a
//!   finding of its own.
//! - [`case`], [`check`], [`compare`], [`follow`], [`gates`], [`inventory`], [`isa`],
//!   [`lanes`], [`ollama`], [`provenance`], [`strace`], [`trace`]: the types of the
//!   `rocpath.case/1` (and `case-meta/1`), `check/1`, `explain.compare/1`, `follow/1`,
//!   `gates/1`, `inventory/1`, `isa/1`, `lanes/2`, `ollama/2`, `provenance/1`, `strace/1` and
//!   `trace/2` documents (with [`conv`], MIOpen's convolution problem and its keys, and
//!   [`tensile`] and [`object`], what two of them share), which their producers write (as
//!   their models) and the ledger, the site and the renderers read.
//! - [`migrate`]: the explicit steps that turn an older version of a document into the current
//!   one, so a reader handles exactly one shape per schema. The ledger applies them to what it
//!   imported earlier; the files it keeps stay as the producer printed them.
//!
//! The crate depends on `serde`, `serde_json`, `rocpath-evidence` and `rocpath-arch` (the one
//! target-id type, which documents print) only, so every crate can use it without pulling a
//! domain's logic in.

pub mod case;
pub mod check;
pub mod compare;
pub mod conv;
pub mod error;
pub mod follow;
pub mod gates;
pub mod inventory;
pub mod isa;
pub mod lanes;
pub mod migrate;
pub mod object;
pub mod ollama;
pub mod provenance;
pub mod schema;
pub mod strace;
pub mod tensile;
pub mod trace;

pub use error::ErrorItem;
pub use migrate::{MigrateError, Migrated, upgrade};
pub use schema::{Schema, SchemaId};

/// A count left out of a document when it is 0 (`skip_serializing_if`).
pub(crate) fn is_zero<T: Default + PartialEq>(n: &T) -> bool {
    *n == T::default()
}

/// `as_str` (the document's word for each variant) and `Display` for a closed set of states.
macro_rules! words {
    ($t:ty { $($v:ident => $s:literal),* $(,)? }) => {
        impl $t {
            /// Every value, in declaration order.
            pub const ALL: &'static [Self] = &[$(Self::$v),*];

            /// The document's word for it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$v => $s,)*
                }
            }
        }
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
pub(crate) use words;
