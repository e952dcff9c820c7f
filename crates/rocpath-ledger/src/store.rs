//! The ledger folder on disk: layout, the writer lock, atomic writes and loading.
//!
//! ```text
//! LEDGER/
//!   ledger.toml              title, description, declared worlds
//!   claims/<id>.toml         one claim per file
//!   questions/<id>.toml      one open question per file
//!   cases/<id>.toml          one case per file
//!   observations/<id>.json   one imported rocpath JSON document per file
//!   .lock                    held (flock) by the one process that writes
//! ```
//!
//! Every write goes to a temporary file in the same folder, is flushed to disk and renamed over
//! the final name, so a reader (or a process killed mid-write) never sees half a record.
//! Temporary files start with `.tmp-`; loaders skip every name that starts with `.`.

use crate::files::{self, FileKind, ParseError};
use crate::model::*;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Errors of ledger storage.
#[derive(Debug, Error)]
pub enum StoreError {
    /// An I/O error on a named path.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The folder is not a ledger.
    #[error("{0}: not a rocpath ledger (no ledger.toml; create one with `rocpath ledger init`)")]
    NotALedger(PathBuf),
    /// `ledger.toml` could not be read.
    #[error("{path}: {error}")]
    Meta {
        /// The path.
        path: PathBuf,
        /// Why.
        error: ParseError,
    },
    /// `init` on a folder that already is a ledger.
    #[error("{0}: already a ledger (ledger.toml exists)")]
    Exists(PathBuf),
    /// Another process holds the writer lock.
    #[error(
        "{path}: another rocpath process is writing this ledger ({holder}); wait for it to finish and run the command again"
    )]
    Busy {
        /// The ledger folder.
        path: PathBuf,
        /// What the lock file says about its holder.
        holder: String,
    },
    /// A record could not be serialized.
    #[error(transparent)]
    Serialize(#[from] files::SerializeError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The folders of the record kinds.
pub const DIRS: [&str; 4] = ["claims", "questions", "cases", "observations"];

/// A ledger folder.
#[derive(Debug, Clone)]
pub struct Ledger {
    root: PathBuf,
}

impl Ledger {
    /// Creates a new ledger in `root` (created if needed; may already hold other files).
    pub fn init(root: &Path, meta: &LedgerMeta) -> Result<Ledger, StoreError> {
        fs::create_dir_all(root).map_err(io(root))?;
        let l = Ledger {
            root: root.to_path_buf(),
        };
        let guard = l.lock("init")?;
        if l.root.join("ledger.toml").exists() {
            return Err(StoreError::Exists(root.to_path_buf()));
        }
        for d in DIRS {
            let p = root.join(d);
            fs::create_dir_all(&p).map_err(io(&p))?;
        }
        guard.write_file(
            Path::new(".gitignore"),
            b"# written by rocpath while it works\n/.lock\n.tmp-*\n",
        )?;
        let text = files::to_toml(meta)?;
        guard.write_file(Path::new("ledger.toml"), text.as_bytes())?;
        Ok(l)
    }

    /// Opens an existing ledger (reads `ledger.toml`).
    pub fn open(root: &Path) -> Result<(Ledger, LedgerMeta), StoreError> {
        let p = root.join("ledger.toml");
        let text = match fs::read_to_string(&p) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(StoreError::NotALedger(root.to_path_buf()));
            }
            Err(e) => return Err(io(&p)(e)),
        };
        let meta = files::parse_meta(&text).map_err(|error| StoreError::Meta { path: p, error })?;
        Ok((
            Ledger {
                root: root.to_path_buf(),
            },
            meta,
        ))
    }

    /// The ledger folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Takes the writer lock, or fails at once with [`StoreError::Busy`] when another process
    /// (or another open of the lock in this one) holds it. The lock is an advisory `flock` on
    /// `.lock`: the operating system releases it when the holder exits, however it exits.
    /// `purpose` is written into the lock file for the refusal message of a second writer.
    pub fn lock(&self, purpose: &str) -> Result<WriteGuard, StoreError> {
        let p = self.root.join(".lock");
        let mut f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&p)
            .map_err(io(&p))?;
        if !try_lock(&f).map_err(io(&p))? {
            let mut holder = String::new();
            let _ = f.read_to_string(&mut holder);
            let holder = holder.trim();
            return Err(StoreError::Busy {
                path: self.root.clone(),
                holder: if holder.is_empty() {
                    "holder unknown".to_string()
                } else {
                    holder.to_string()
                },
            });
        }
        f.set_len(0).map_err(io(&p))?;
        let _ = writeln!(f, "pid {}: {purpose}", std::process::id());
        let g = WriteGuard {
            root: self.root.clone(),
            _lock: f,
        };
        g.remove_temporaries();
        Ok(g)
    }

    /// Path of a record file.
    pub fn record_path(&self, kind: FileKind, id: &str) -> PathBuf {
        self.root.join(relative_path(kind, id))
    }

    /// Reads every record but the observations, and lists the observation files for a reader
    /// that takes them one at a time (`check::check_ledger`).
    pub fn load_without_observations(&self) -> Result<(Loaded, Vec<ObservationFile>), StoreError> {
        let (_, meta) = Ledger::open(&self.root)?;
        let mut out = Loaded {
            meta,
            ..Loaded::default()
        };
        for (dir, kind) in [
            ("claims", FileKind::Claim),
            ("questions", FileKind::Question),
            ("cases", FileKind::Case),
        ] {
            self.load_dir(dir, kind, &mut out)?;
        }
        let files = list(&self.root.join("observations"), "json")?
            .into_iter()
            .map(|(name, path)| ObservationFile {
                id: name.strip_suffix(".json").unwrap_or(&name).to_string(),
                rel: format!("observations/{name}"),
                path,
            })
            .collect();
        Ok((out, files))
    }

    fn load_dir(&self, dir: &str, kind: FileKind, out: &mut Loaded) -> Result<(), StoreError> {
        let ext = if kind == FileKind::Observation {
            "json"
        } else {
            "toml"
        };
        for (name, path) in list(&self.root.join(dir), ext)? {
            let rel = format!("{dir}/{name}");
            let bytes = fs::read(&path).map_err(io(&path))?;
            let stem = name.strip_suffix(&format!(".{ext}")).unwrap_or(&name);
            if let Err(e) = load_one(kind, &bytes, stem, out) {
                out.unreadable.push((rel, e));
            }
        }
        Ok(())
    }

    /// Reads every record. Files that cannot be read are returned as problems, not errors, so
    /// that one bad file does not hide the rest.
    pub fn load(&self) -> Result<Loaded, StoreError> {
        let (_, meta) = Ledger::open(&self.root)?;
        let mut out = Loaded {
            meta,
            ..Loaded::default()
        };
        for (dir, kind) in [
            ("claims", FileKind::Claim),
            ("questions", FileKind::Question),
            ("cases", FileKind::Case),
            ("observations", FileKind::Observation),
        ] {
            self.load_dir(dir, kind, &mut out)?;
        }
        Ok(out)
    }
}

fn load_one(kind: FileKind, bytes: &[u8], stem: &str, out: &mut Loaded) -> Result<(), ParseError> {
    let text = || std::str::from_utf8(bytes).map_err(|e| ParseError::utf8(&e));
    let id_matches = |id: &str| {
        if id == stem {
            Ok(())
        } else {
            Err(ParseError::IdMismatch {
                id: id.to_string(),
                stem: stem.to_string(),
            })
        }
    };
    match kind {
        FileKind::Claim => {
            let c = files::parse_claim(text()?)?;
            id_matches(&c.id)?;
            out.claims.push(c);
        }
        FileKind::Question => {
            let q = files::parse_question(text()?)?;
            id_matches(&q.id)?;
            out.questions.push(q);
        }
        FileKind::Case => {
            let c = files::parse_case(text()?)?;
            id_matches(&c.id)?;
            out.cases.push(c);
        }
        FileKind::Observation => {
            let o = files::parse_observation(bytes)?;
            id_matches(&o.id)?;
            out.observations.push(o);
        }
        FileKind::Meta => {}
    }
    Ok(())
}

/// `(file name, path)` of the files with extension `ext` in `dir`, sorted, skipping names that
/// start with `.` (temporaries, the lock). A missing folder is empty.
fn list(dir: &Path, ext: &str) -> Result<Vec<(String, PathBuf)>, StoreError> {
    let rd = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(dir)(e)),
    };
    let mut v = Vec::new();
    for e in rd {
        let e = e.map_err(io(dir))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !name.ends_with(&format!(".{ext}")) {
            continue;
        }
        if e.file_type().map_err(io(dir))?.is_file() {
            v.push((name, e.path()));
        }
    }
    v.sort();
    Ok(v)
}

/// The path of a record relative to the ledger folder.
pub fn relative_path(kind: FileKind, id: &str) -> PathBuf {
    match kind {
        FileKind::Meta => PathBuf::from("ledger.toml"),
        FileKind::Claim => Path::new("claims").join(format!("{id}.toml")),
        FileKind::Question => Path::new("questions").join(format!("{id}.toml")),
        FileKind::Case => Path::new("cases").join(format!("{id}.toml")),
        FileKind::Observation => Path::new("observations").join(format!("{id}.json")),
    }
}

#[cfg(unix)]
fn try_lock(f: &File) -> std::io::Result<bool> {
    use rustix::fs::{FlockOperation, flock};
    match flock(f, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Flushes the file system that holds `path` (all its written data reaches the disk).
#[cfg(target_os = "linux")]
fn flush_file_system(path: &Path) -> std::io::Result<()> {
    let f = File::open(path)?;
    rustix::fs::syncfs(&f).map_err(std::io::Error::from)
}

/// Flushes the files one by one where the system has no `syncfs`.
#[cfg(not(target_os = "linux"))]
fn flush_file_system(path: &Path) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    for e in fs::read_dir(dir)?.flatten() {
        if e.file_name().to_string_lossy().starts_with(".tmp-") {
            File::open(e.path())?.sync_all()?;
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn try_lock(_f: &File) -> std::io::Result<bool> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "the ledger writer lock needs a Unix system",
    ))
}

/// Proof of holding the writer lock; all writes go through it.
#[derive(Debug)]
pub struct WriteGuard {
    root: PathBuf,
    _lock: File,
}

impl WriteGuard {
    /// Writes `bytes` to `rel` (relative to the ledger folder) atomically: temporary file in
    /// the same folder, flushed, renamed over the final name, folder flushed.
    pub fn write_file(&self, rel: &Path, bytes: &[u8]) -> Result<(), StoreError> {
        let dest = self.root.join(rel);
        let dir = dest.parent().unwrap_or(&self.root).to_path_buf();
        fs::create_dir_all(&dir).map_err(io(&dir))?;
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!(".tmp-{name}.{}", std::process::id()));
        let r = (|| {
            let mut f = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&tmp)
                .map_err(io(&tmp))?;
            f.write_all(bytes).map_err(io(&tmp))?;
            f.sync_all().map_err(io(&tmp))?;
            fs::rename(&tmp, &dest).map_err(io(&dest))?;
            if let Ok(d) = File::open(&dir) {
                let _ = d.sync_all();
            }
            Ok(())
        })();
        if r.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        r
    }

    /// Writes many claims at once, each atomically as [`WriteGuard::write_file`] does, with
    /// one flush of the file system instead of one per file: every temporary file is written,
    /// the file system is flushed, then each is renamed over its final name and the folder is
    /// flushed. A reader never sees half a record; a crash leaves each claim old or new.
    pub fn write_claims(&self, claims: &[Claim]) -> Result<(), StoreError> {
        let dir = self.root.join("claims");
        fs::create_dir_all(&dir).map_err(io(&dir))?;
        let mut pending = Vec::with_capacity(claims.len());
        let r = (|| {
            for c in claims {
                let text = files::to_toml(c)?;
                let dest = self.root.join(relative_path(FileKind::Claim, &c.id));
                let tmp = dir.join(format!(".tmp-{}.toml.{}", c.id, std::process::id()));
                pending.push((tmp.clone(), dest));
                let mut f = File::create(&tmp).map_err(io(&tmp))?;
                f.write_all(text.as_bytes()).map_err(io(&tmp))?;
            }
            if let Some((first, _)) = pending.first() {
                flush_file_system(first).map_err(io(first))?;
            }
            for (tmp, dest) in &pending {
                fs::rename(tmp, dest).map_err(io(dest))?;
            }
            if let Ok(d) = File::open(&dir) {
                let _ = d.sync_all();
            }
            Ok(())
        })();
        if r.is_err() {
            for (tmp, _) in &pending {
                let _ = fs::remove_file(tmp);
            }
        }
        r
    }

    /// Writes a claim to `claims/<id>.toml`.
    pub fn write_claim(&self, c: &Claim) -> Result<(), StoreError> {
        let text = files::to_toml(c)?;
        self.write_file(&relative_path(FileKind::Claim, &c.id), text.as_bytes())
    }

    /// Writes a question to `questions/<id>.toml`.
    pub fn write_question(&self, q: &Question) -> Result<(), StoreError> {
        let text = files::to_toml(q)?;
        self.write_file(&relative_path(FileKind::Question, &q.id), text.as_bytes())
    }

    /// Writes a case to `cases/<id>.toml`.
    pub fn write_case(&self, c: &Case) -> Result<(), StoreError> {
        let text = files::to_toml(c)?;
        self.write_file(&relative_path(FileKind::Case, &c.id), text.as_bytes())
    }

    /// Writes an observation to `observations/<id>.json`.
    pub fn write_observation(&self, o: &Observation) -> Result<(), StoreError> {
        let bytes = files::observation_to_json(o)?;
        self.write_file(&relative_path(FileKind::Observation, &o.id), &bytes)
    }

    /// Removes a claim file (derivation removes the derived claims no rule produces any more
    /// and no person touched).
    pub fn remove_claim(&self, id: &str) -> Result<(), StoreError> {
        let p = self.root.join(relative_path(FileKind::Claim, id));
        fs::remove_file(&p).map_err(io(&p))
    }

    /// Removes temporaries left by a writer that was killed (only the lock holder may).
    fn remove_temporaries(&self) {
        for d in std::iter::once(self.root.clone()).chain(DIRS.iter().map(|d| self.root.join(d))) {
            if let Ok(rd) = fs::read_dir(&d) {
                for e in rd.flatten() {
                    if e.file_name().to_string_lossy().starts_with(".tmp-") {
                        let _ = fs::remove_file(e.path());
                    }
                }
            }
        }
    }
}

/// An observation file not read yet.
#[derive(Debug, Clone)]
pub struct ObservationFile {
    /// Path relative to the ledger folder (`observations/<id>.json`).
    pub rel: String,
    /// Path.
    pub path: PathBuf,
    /// The id its name gives it.
    pub id: String,
}

/// Everything a ledger holds, as read.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// `ledger.toml`.
    pub meta: LedgerMeta,
    /// Claims, by file name.
    pub claims: Vec<Claim>,
    /// Questions, by file name.
    pub questions: Vec<Question>,
    /// Cases, by file name.
    pub cases: Vec<Case>,
    /// Observations, by file name.
    pub observations: Vec<Observation>,
    /// Files that could not be read: path relative to the ledger, why.
    pub unreadable: Vec<(String, ParseError)>,
}
