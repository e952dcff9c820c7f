//! `ledger import`: one rocpath JSON document becomes one observation file, with the sha256 of
//! every raw input its evidence names and the raw lines its evidence points at.
//!
//! Only the common envelope (`schema`, `observed`) and the common `evidence` fields are read
//! here, so the output of any rocpath command, present or future, imports unchanged.
//! Schema-specific readings live in [`crate::schemas`].

use crate::model::*;
use crate::records;
use crate::schemas;
use crate::store::{Ledger, StoreError, WriteGuard};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Component, Path, PathBuf};
use thiserror::Error;

/// Longest quoted line, in bytes; longer lines are cut and marked.
pub const QUOTE_MAX: usize = 4096;

/// Errors of `import`.
#[derive(Debug, Error)]
pub enum ImportError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not JSON.
    #[error("{}: not a rocpath --json document: not JSON ({}{message}); give the file `rocpath --json <command>` printed", path.display(), crate::files::at_prefix(at))]
    NotJson {
        /// The file.
        path: PathBuf,
        /// Where the JSON reader stopped, when it knows.
        at: Option<crate::files::Position>,
        /// Why.
        message: String,
    },
    /// The file is JSON, but not a rocpath JSON document.
    #[error("{}: not a rocpath --json document: {why}", path.display())]
    NotRocpath {
        /// The file.
        path: PathBuf,
        /// What is missing.
        why: EnvelopeError,
    },
    /// The named file is not one rocpath reads (a FIFO, a device, a pseudo file), or the
    /// memory budget cannot hold it.
    #[error(transparent)]
    Input(#[from] rocpath_budget::input::InputError),
    /// A name given with `--as` cannot be an id.
    #[error("{0:?} cannot be an observation id: use letters, digits, '.', '_' and '-'")]
    BadId(String),
    /// Writing failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What happened to one imported file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ImportOutcome {
    /// A new observation.
    New,
    /// An observation of the same id (`--as`) was replaced by a different document.
    Replaced,
    /// The same document was already in the ledger under this id.
    Unchanged,
}

/// Summary of one imported file.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ImportReport {
    /// Observation id.
    pub id: String,
    /// The file as named.
    pub file: String,
    /// The document's schema.
    pub schema: String,
    /// What happened.
    pub outcome: ImportOutcome,
    /// Records (objects with evidence) in the document.
    pub records: usize,
    /// Distinct raw inputs named by the evidence.
    pub inputs: usize,
    /// Of those, how many could be read and hashed now.
    pub hashed: usize,
    /// Raw lines quoted.
    pub quotes: usize,
    /// Cited files not read: outside the folders the import may read (`--allow-root`).
    pub outside_roots: usize,
    /// Case records created for case documents.
    pub cases_created: Vec<String>,
    /// Open questions created for the disagreements of `explain --compare` documents.
    pub questions_created: Vec<String>,
}

/// The command part of a rocpath schema (`rocpath.case/1` → `case`, `rocpath.ledger.check/1`
/// → `ledger-check`), if the schema has the rocpath form.
pub fn schema_command(schema: &str) -> Option<String> {
    rocpath_docs::SchemaId::parse(schema).map(|s| s.name.replace(['.', '_'], "-"))
}

/// What the common envelope of a rocpath JSON document lacks.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EnvelopeError {
    /// The top level is not an object.
    #[error("the top level is not a JSON object")]
    NotObject,
    /// No `schema` string.
    #[error("no \"schema\" string at the top")]
    NoSchema,
    /// A `schema` of another form.
    #[error("schema {0:?} is not of the form rocpath.<command>/<version>")]
    Schema(String),
    /// A newer version of a schema than this rocpath reads.
    #[error(
        "schema {found} is newer than this rocpath reads ({current}); import it with the rocpath that wrote it, or a newer one"
    )]
    Newer {
        /// The document's schema.
        found: String,
        /// The version this build reads.
        current: &'static str,
    },
    /// No `observed` object.
    #[error("no \"observed\" object (tool, version, command, time, host)")]
    NoObserved,
    /// An `observed` without one of its strings.
    #[error("\"observed\" has no {0:?}")]
    Observed(&'static str),
}

/// Checks the common envelope; returns the schema.
pub fn envelope(doc: &serde_json::Value) -> Result<String, EnvelopeError> {
    let obj = doc.as_object().ok_or(EnvelopeError::NotObject)?;
    let schema = obj
        .get("schema")
        .and_then(|s| s.as_str())
        .ok_or(EnvelopeError::NoSchema)?;
    let Some(id) = rocpath_docs::SchemaId::parse(schema) else {
        return Err(EnvelopeError::Schema(schema.to_string()));
    };
    if let Some(current) = id.current()
        && id.version > current.version
    {
        return Err(EnvelopeError::Newer {
            found: schema.to_string(),
            current: current.id,
        });
    }
    let observed = obj
        .get("observed")
        .and_then(|o| o.as_object())
        .ok_or(EnvelopeError::NoObserved)?;
    for k in ["tool", "version", "command"] {
        if !observed.get(k).is_some_and(|v| v.is_string()) {
            return Err(EnvelopeError::Observed(k));
        }
    }
    Ok(schema.to_string())
}

/// Lower-case hex sha256 of a byte slice.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(d: &[u8]) -> String {
    const H: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(d.len() * 2);
    for b in d {
        s.push(H[(b >> 4) as usize] as char);
        s.push(H[(b & 15) as usize] as char);
    }
    s
}

/// sha256 and size of a file, read in 1 MiB pieces.
pub fn sha256_file(path: &Path) -> std::io::Result<(String, u64)> {
    // A path a document names: a FIFO, device or pseudo file is refused, and no more than
    // the size it had when opened is read.
    let mut input = rocpath_budget::input::open(path).map_err(|e| e.into_io())?;
    let mut f = input.reader();
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut n = 0u64;
    loop {
        let k = f.read(&mut buf)?;
        if k == 0 {
            break;
        }
        n += k as u64;
        h.update(&buf[..k]);
    }
    Ok((hex(&h.finalize()), n))
}

/// `to` relative to `from` (both absolute), with `..` where needed; `.` when equal.
pub fn relative(from: &Path, to: &Path) -> PathBuf {
    let a: Vec<Component<'_>> = from.components().collect();
    let b: Vec<Component<'_>> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut p = PathBuf::new();
    for _ in common..a.len() {
        p.push("..");
    }
    for c in &b[common..] {
        p.push(c.as_os_str());
    }
    if p.as_os_str().is_empty() {
        p.push(".");
    }
    p
}

/// Where an input path of an observation is, seen from here: absolute paths as they are,
/// relative ones under `ledger root / base`.
pub fn resolve_input(root: &Path, base: &str, path: &str) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(base).join(p)
    }
}

/// Imports one document. `name` (from `--as`) gives the observation a stable id that a later
/// import of a newer document replaces; without it the id is `<command>-<12 hex of sha256>`.
/// `cwd` is the folder relative input paths of the document are relative to.
pub fn import_file(
    guard: &WriteGuard,
    ledger: &Ledger,
    file: &Path,
    name: Option<&str>,
    cwd: &Path,
) -> Result<ImportReport, ImportError> {
    import_file_in(guard, ledger, file, name, cwd, "")
}

/// [`import_file`], recording the world the recording was made in (`--world`), for
/// documents that do not name their device. A world that differs from the one on file makes
/// the import a replacement, like a changed document.
pub fn import_file_in(
    guard: &WriteGuard,
    ledger: &Ledger,
    file: &Path,
    name: Option<&str>,
    cwd: &Path,
    world: &str,
) -> Result<ImportReport, ImportError> {
    import_file_with(
        guard,
        ledger,
        file,
        name,
        cwd,
        world,
        &[],
        &rocpath_budget::MemoryBudget::default(),
    )
}

/// The folders whose files an import may hash and quote: the folder it runs in (`cwd`, where
/// relative paths of the document lead), the ledger folder, the ledger's data root, and
/// `more` (`--allow-root`). A document that cites a file elsewhere (an SSH key, `/etc/shadow`)
/// gets an input with a note, never its hash or lines.
pub fn read_roots(ledger: &Ledger, cwd: &Path, more: &[PathBuf]) -> rocpath_budget::Fence {
    let mut roots = vec![cwd.to_path_buf(), ledger.root().to_path_buf()];
    if let Ok((_, meta)) = Ledger::open(ledger.root()) {
        if !meta.data_root.is_empty() {
            roots.push(ledger.root().join(&meta.data_root));
        }
    }
    roots.extend(more.iter().cloned());
    rocpath_budget::Fence::new(roots)
}

/// Largest document `ledger import` reads (the largest rocpath writes, an inventory of a whole
/// ROCm corpus, is about 100 MB).
pub const MAX_DOCUMENT_BYTES: u64 = 1 << 30;

/// Memory a parsed document takes per byte of its text, reserved before it is parsed.
const PARSED_PER_BYTE: u64 = 8;

/// [`import_file_in`] within the run's memory budget: the document's text and what parsing it
/// takes are reserved first, and a document that cannot fit is refused by name. The files it
/// cites are read only under [`read_roots`] (with `more_roots`).
#[allow(clippy::too_many_arguments)]
pub fn import_file_with(
    guard: &WriteGuard,
    ledger: &Ledger,
    file: &Path,
    name: Option<&str>,
    cwd: &Path,
    world: &str,
    more_roots: &[PathBuf],
    budget: &rocpath_budget::MemoryBudget,
) -> Result<ImportReport, ImportError> {
    let (bytes, _text) = rocpath_budget::input::read_bytes(
        file,
        budget,
        MAX_DOCUMENT_BYTES,
        "a rocpath JSON document",
    )?;
    let _parsed = budget
        .reserve((bytes.len() as u64).saturating_mul(PARSED_PER_BYTE))
        .map_err(|source| rocpath_budget::input::InputError::Budget {
            path: file.to_path_buf(),
            source,
        })?;
    let sha = sha256_hex(&bytes);
    let doc: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        let (at, message) = crate::files::json_error(&e);
        ImportError::NotJson {
            path: file.to_path_buf(),
            at,
            message,
        }
    })?;
    let schema = envelope(&doc).map_err(|why| ImportError::NotRocpath {
        path: file.to_path_buf(),
        why,
    })?;
    let id = observation_id(name, &schema, &sha)?;
    let recs = records::records(&doc);
    let n_records = recs.len();

    let dest = ledger.record_path(crate::files::FileKind::Observation, &id);
    let mut outcome = ImportOutcome::New;
    if let Ok(old) = fs::read(&dest) {
        outcome = ImportOutcome::Replaced;
        if let Ok(o) = crate::files::parse_observation(&old) {
            if o.imported.sha256 == sha && o.imported.world == world {
                let mut r = ImportReport::of(&o, schema, ImportOutcome::Unchanged, n_records);
                r.id = id;
                r.file = file.display().to_string();
                return Ok(r);
            }
        }
    }

    let lines = cited_lines(&recs, &doc);
    drop(recs);
    let (inputs, quotes) = hash_and_quote(&lines, cwd, &read_roots(ledger, cwd, more_roots));

    let root_abs = fs::canonicalize(ledger.root()).map_err(|source| StoreError::Io {
        path: ledger.root().to_path_buf(),
        source,
    })?;
    let cwd_abs = fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let base = relative(&root_abs, &cwd_abs);
    let obs = Observation {
        schema: OBSERVATION_SCHEMA.to_string(),
        id: id.clone(),
        imported: Imported {
            file: file.display().to_string(),
            sha256: sha,
            base: base.to_string_lossy().replace('\\', "/"),
            world: world.to_string(),
        },
        inputs,
        quotes,
        document: doc,
    };
    // The observation is written last: it is the import's commit point. Killed before it,
    // the ledger holds at most stub records that name an observation not there (which `ledger
    // check` reports as `ledger.missing_record`), and importing again is a new import that
    // writes the stubs still missing and then the observation.
    let (cases_created, questions_created) = if outcome == ImportOutcome::New {
        create_stubs(guard, ledger, &obs)?
    } else {
        (Vec::new(), Vec::new())
    };
    guard.write_observation(&obs)?;
    let mut r = ImportReport::of(&obs, schema, outcome, n_records);
    r.cases_created = cases_created;
    r.questions_created = questions_created;
    Ok(r)
}

/// The observation's id: `--as NAME` when valid, else `<command>-<12 hex of sha256>`.
fn observation_id(name: Option<&str>, schema: &str, sha: &str) -> Result<String, ImportError> {
    match name {
        Some(n) if crate::files::valid_id(n) => Ok(n.to_string()),
        Some(n) => Err(ImportError::BadId(n.to_string())),
        None => Ok(format!(
            "{}-{}",
            schema_command(schema).unwrap_or_default(),
            sha.get(..12).unwrap_or(sha)
        )),
    }
}

impl ImportReport {
    /// The report of an observation as written (no case or question created).
    fn of(o: &Observation, schema: String, outcome: ImportOutcome, records: usize) -> Self {
        ImportReport {
            id: o.id.clone(),
            file: o.imported.file.clone(),
            schema,
            outcome,
            records,
            inputs: o.inputs.len(),
            hashed: o.inputs.iter().filter(|i| i.sha256.is_some()).count(),
            quotes: o.quotes.len(),
            outside_roots: outside(&o.inputs),
            cases_created: Vec::new(),
            questions_created: Vec::new(),
        }
    }
}

/// The files the records' evidence and a trail's hops cite, each with the lines cited.
fn cited_lines(
    recs: &[records::Record],
    doc: &serde_json::Value,
) -> BTreeMap<String, BTreeSet<u64>> {
    let mut lines: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
    for r in recs {
        for l in &r.evidence.sources {
            if l.path.is_empty() {
                continue;
            }
            let e = lines.entry(l.path.clone()).or_default();
            if let Some(n) = l.line {
                e.insert(n);
            }
        }
    }
    for (path, line) in crate::follow::hop_locations(doc) {
        lines.entry(path).or_default().insert(line);
    }
    lines
}

fn outside(inputs: &[Input]) -> usize {
    inputs.iter().filter(|i| i.note == OUTSIDE_ROOTS).count()
}

/// What an input outside the read roots says.
pub const OUTSIDE_ROOTS: &str = "outside the folders an import reads (the folder it runs in, the \
     ledger and its data root); not hashed or quoted — give its folder with --allow-root to read it";

/// Each cited file hashed (relative paths from `cwd`) and its cited lines quoted; a file that
/// cannot be read, or lies outside `roots`, is an input with a note.
fn hash_and_quote(
    lines: &BTreeMap<String, BTreeSet<u64>>,
    cwd: &Path,
    roots: &rocpath_budget::Fence,
) -> (Vec<Input>, Vec<Quote>) {
    let mut inputs = Vec::new();
    let mut quotes = Vec::new();
    for (path, wanted) in lines {
        let p = Path::new(path);
        let at = if p.is_absolute() {
            p.to_path_buf()
        } else {
            cwd.join(p)
        };
        let mut input = Input {
            path: path.clone(),
            ..Input::default()
        };
        if let Err(rocpath_budget::Refused::Outside { .. }) = roots.inside(&at) {
            input.note = OUTSIDE_ROOTS.to_string();
            inputs.push(input);
            continue;
        }
        match fs::metadata(&at) {
            Ok(m) if m.is_file() => match sha256_file(&at) {
                Ok((h, n)) => {
                    input.sha256 = Some(h);
                    input.bytes = Some(n);
                    if !wanted.is_empty() {
                        quotes.extend(quote_lines(&at, path, wanted));
                    }
                }
                Err(e) => input.note = format!("could not be read when imported: {e}"),
            },
            Ok(_) => input.note = "not a regular file".to_string(),
            Err(_) => input.note = "not found when imported".to_string(),
        }
        inputs.push(input);
    }
    (inputs, quotes)
}

/// The case and question stubs a new observation opens, those not already in the ledger.
fn create_stubs(
    guard: &WriteGuard,
    ledger: &Ledger,
    obs: &Observation,
) -> Result<(Vec<String>, Vec<String>), ImportError> {
    let mut cases = Vec::new();
    let mut questions = Vec::new();
    for case in schemas::case_stubs(obs) {
        let p = ledger.record_path(crate::files::FileKind::Case, &case.id);
        if !p.exists() {
            guard.write_case(&case)?;
            cases.push(case.id);
        }
    }
    for q in schemas::question_stubs(obs) {
        let p = ledger.record_path(crate::files::FileKind::Question, &q.id);
        if !p.exists() {
            guard.write_question(&q)?;
            questions.push(q.id);
        }
    }
    Ok((cases, questions))
}

/// Reads the wanted 1-based lines (`path` is how the quotes name the file) of a text file (streamed; CR LF and invalid UTF-8
/// tolerated; each line cut at [`QUOTE_MAX`] bytes).
pub fn quote_lines(at: &Path, path: &str, wanted: &BTreeSet<u64>) -> Vec<Quote> {
    let Ok(mut input) = rocpath_budget::input::open(at) else {
        return Vec::new();
    };
    let f = input.reader();
    let Some(&last) = wanted.iter().next_back() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut r = BufReader::new(f);
    let mut buf = Vec::new();
    let mut n = 0u64;
    loop {
        buf.clear();
        match r.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        n += 1;
        if wanted.contains(&n) {
            while matches!(buf.last(), Some(b'\n' | b'\r')) {
                buf.pop();
            }
            let cut = buf.len() > QUOTE_MAX;
            buf.truncate(QUOTE_MAX);
            let mut text = String::from_utf8_lossy(&buf).into_owned();
            if cut {
                text.push_str(" [...]");
            }
            out.push(Quote {
                path: path.to_string(),
                line: n,
                text,
            });
        }
        if n >= last {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_commands() {
        assert_eq!(
            schema_command("rocpath.inventory/1").as_deref(),
            Some("inventory")
        );
        assert_eq!(
            schema_command("rocpath.ledger.check/1").as_deref(),
            Some("ledger-check")
        );
        assert_eq!(
            schema_command("rocpath.case_table/12").as_deref(),
            Some("case-table")
        );
        assert_eq!(
            schema_command("rocpath.ledger.add-claim/1").as_deref(),
            Some("ledger-add-claim")
        );
        for bad in [
            "rocpath./1",
            "rocpath.x/",
            "rocpath.x/1a",
            "other.x/1",
            "rocpath.X/1",
            "rocpath.a/b/1",
        ] {
            assert_eq!(schema_command(bad), None, "{bad}");
        }
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative(Path::new("/a/b/c"), Path::new("/a")),
            PathBuf::from("../..")
        );
        assert_eq!(
            relative(Path::new("/a"), Path::new("/a/x/y")),
            PathBuf::from("x/y")
        );
        assert_eq!(
            relative(Path::new("/a/b"), Path::new("/a/b")),
            PathBuf::from(".")
        );
        assert_eq!(
            relative(Path::new("/a/b"), Path::new("/c")),
            PathBuf::from("../../c")
        );
    }

    #[test]
    fn envelope_errors_name_what_is_missing() {
        let e = envelope(&serde_json::json!({"schema": "rocpath.isa/1"})).unwrap_err();
        assert_eq!(e, EnvelopeError::NoObserved);
        assert!(e.to_string().contains("observed"), "{e}");
        let e = envelope(&serde_json::json!([1])).unwrap_err();
        assert_eq!(e, EnvelopeError::NotObject);
        assert!(e.to_string().contains("object"), "{e}");
        let e = envelope(&serde_json::json!({"schema": "other/1"})).unwrap_err();
        assert_eq!(e, EnvelopeError::Schema("other/1".into()));
        let ok = serde_json::json!({"schema": "rocpath.isa/1",
            "observed": {"tool": "rocpath", "version": "0.1.0", "command": "rocpath isa x"}});
        assert_eq!(envelope(&ok).unwrap(), "rocpath.isa/1");
    }

    #[test]
    fn quotes_tolerate_crlf_invalid_utf8_and_long_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("log.txt");
        let mut data = b"one\r\n\xff\xfe bad\r\n".to_vec();
        data.extend(vec![b'x'; QUOTE_MAX + 10]);
        data.extend(b"\nlast");
        fs::write(&p, &data).unwrap();
        let q = quote_lines(&p, "log.txt", &[1, 2, 3, 4, 9].into_iter().collect());
        assert_eq!(q.len(), 4);
        assert_eq!(q[0].text, "one");
        assert!(q[1].text.ends_with(" bad") && q[1].text.contains('\u{fffd}'));
        assert!(q[2].text.ends_with("[...]") && q[2].text.len() < QUOTE_MAX + 10);
        assert_eq!(q[3].text, "last");
    }
}
