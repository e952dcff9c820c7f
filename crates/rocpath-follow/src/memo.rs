//! The trail's steps remembered per commit and work tree state: where each followed item led
//! (and where each SPEC started), kept beside the index in the cache folder, one file per set
//! of repositories and commits. A follow through the same work trees by the same build of the
//! program reuses them and parses only what it has not followed before; a work tree changed
//! since, or another build, starts them afresh.

use crate::engine::{Draft, Expansion, Item};
use crate::index::IndexOptions;
use crate::model::Skipped;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

const FORMAT: &str = "rocpath.follow.memo/9";

#[derive(Default, Serialize, Deserialize)]
struct Stored {
    format: String,
    /// The work tree state of each repository ([`crate::index::work_tree_state`]), and the
    /// build of the program that followed the steps last.
    states: Vec<String>,
    origins: Vec<(String, Vec<Draft>)>,
    expansions: Vec<(Item, Expansion)>,
    skipped: Vec<Skipped>,
}

/// Remembered steps.
#[derive(Default)]
pub struct Memo {
    path: Option<PathBuf>,
    states: Vec<String>,
    origins: HashMap<String, Vec<Draft>>,
    expansions: HashMap<Item, Expansion>,
    /// Files found unreadable or broken while the steps were first followed.
    pub skipped: Vec<Skipped>,
    dirty: bool,
}

impl Memo {
    /// The memo of these repositories (root, commit, work tree state) in `dir`; an empty one
    /// when it was kept for other work tree states.
    pub fn open(
        dir: Option<&Path>,
        repos: &[(PathBuf, Option<String>, String)],
        opts: &IndexOptions,
    ) -> Memo {
        let Some(dir) = dir else {
            return Memo::default();
        };
        let mut h = Sha256::new();
        h.update(FORMAT.as_bytes());
        h.update(opts.max_file_bytes.to_le_bytes());
        h.update([u8::from(opts.include_tests)]);
        for (root, commit, _) in repos {
            let c = commit.as_deref().unwrap_or("-");
            let abs = root.canonicalize().unwrap_or_else(|_| root.clone());
            h.update(abs.as_os_str().as_encoded_bytes());
            h.update([0]);
            h.update(c.as_bytes());
            h.update([0]);
        }
        let hex: String = h.finalize()[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let path = dir.join(format!("{hex}.trail.json"));
        let mut states: Vec<String> = repos.iter().map(|r| r.2.clone()).collect();
        states.push(program_identity());
        let stored: Stored = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .filter(|s: &Stored| s.format == FORMAT && s.states == states)
            .unwrap_or_default();
        Memo {
            path: Some(path),
            states,
            origins: stored.origins.into_iter().collect(),
            expansions: stored.expansions.into_iter().collect(),
            skipped: stored.skipped,
            dirty: false,
        }
    }

    /// Where a SPEC started before.
    pub fn origins(&self, spec: &str) -> Option<Vec<Draft>> {
        self.origins.get(spec).cloned()
    }

    /// Remembers where a SPEC starts.
    pub fn set_origins(&mut self, spec: &str, d: &[Draft]) {
        if self.path.is_some() {
            self.origins.insert(spec.to_string(), d.to_vec());
            self.dirty = true;
        }
    }

    /// Where an item led before.
    pub fn expansion(&self, item: &Item) -> Option<Expansion> {
        self.expansions.get(item).cloned()
    }

    /// Remembers where an item leads.
    pub fn set_expansion(&mut self, item: &Item, e: &Expansion) {
        if self.path.is_some() {
            self.expansions.insert(item.clone(), e.clone());
            self.dirty = true;
        }
    }

    /// Writes the memo when something was added (a failure only makes the next run slower).
    pub fn save(mut self, skipped: &[Skipped]) {
        let Some(path) = self.path.take().filter(|_| self.dirty) else {
            return;
        };
        for s in skipped {
            if !self.skipped.contains(s) {
                self.skipped.push(s.clone());
            }
        }
        let mut origins: Vec<_> = self.origins.into_iter().collect();
        origins.sort_by(|a, b| a.0.cmp(&b.0));
        let stored = Stored {
            format: FORMAT.to_string(),
            states: self.states,
            origins,
            expansions: self.expansions.into_iter().collect(),
            skipped: self.skipped,
        };
        let _ = write(&path, &stored);
    }
}

/// The running program's size and modification time: the steps remembered by another build
/// (whose trail logic may differ) are not reused.
fn program_identity() -> String {
    std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let t = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .unwrap_or_default();
            format!("{}:{}.{}", m.len(), t.as_secs(), t.subsec_nanos())
        })
        .unwrap_or_default()
}

fn write(path: &Path, s: &Stored) -> std::io::Result<()> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
    serde_json::to_writer(&mut w, s).map_err(std::io::Error::from)?;
    w.flush()?;
    drop(w);
    std::fs::rename(&tmp, path)
}
