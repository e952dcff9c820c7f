//! What the `rocpath.inventory/1` and `rocpath.isa/1` documents say of every code object they
//! list: how its sha256 was obtained, and the other entries of its container that point at the
//! same bytes (`rocpath-sources` fills both while it reads containers).

use serde::{Deserialize, Serialize};

/// How the sha256 of an object was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum HashSource {
    /// Not hashed (the question did not need it).
    NotHashed,
    /// Computed from the bytes during this run (the default: documents written before
    /// hashing became optional always computed it).
    #[default]
    Computed,
    /// Taken from the hash cache: computed from the same file (same device, inode, size and
    /// modification time) by an earlier run.
    Cached,
}

crate::words!(HashSource {
    NotHashed => "not_hashed",
    Computed => "computed",
    Cached => "cached",
});

/// Entries of a container that point at the same code object as the one reported (the same
/// offset in an offload bundle, the same stored bytes in a kpack archive): the object is read
/// once, under one of them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedBy {
    /// How many other entries point at it.
    pub entries: u64,
    /// Their ids, the first [`SharedBy::MAX_IDS`] of them in header order.
    pub ids: Vec<String>,
}

impl SharedBy {
    /// Most entry ids kept.
    pub const MAX_IDS: usize = 64;

    /// A note for the evidence of the object, `done` saying what was done once (`read`,
    /// `decoded`).
    pub fn note(&self, done: &str) -> String {
        let listed = if self.ids.len() as u64 == self.entries {
            String::new()
        } else {
            format!(" (the first {} listed in shared_by)", self.ids.len())
        };
        format!(
            "{} other entries of this container point at the same bytes{listed}; the code object is {done} and listed once",
            self.entries
        )
    }
}
