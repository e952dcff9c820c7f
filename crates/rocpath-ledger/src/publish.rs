//! Publishable paths: the paths of the machine that recorded or imported the data are shown
//! relative to the ledger's data root (`data_root` in `ledger.toml`, relative to the ledger
//! folder), or to the ledger folder when none is declared — never as absolute paths, and
//! never climbing out of it: a path outside the data root is published as `…/` and its last
//! part (`…/vega64-cases.json`), so a page names no folder of the building machine and no
//! place outside what is published.
//!
//! [`publishable`] rewrites a loaded ledger before a site is built from it: every string of
//! every document (evidence sources, case paths, the command lines in `observed`), the quotes,
//! the inputs and the cited sources of claims. [`raw_files`] lists the raw inputs that exist
//! here, with the relative path each is published under (`site build --copy-raw`).

use crate::import::{relative, resolve_input};
use crate::store::Loaded;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// Rewrites absolute paths to publishable relative ones.
#[derive(Debug, Clone)]
pub struct Paths {
    /// The folder paths are relative to (absolute).
    root: PathBuf,
    /// `(absolute prefix with a trailing '/', replacement)`, longest first.
    prefixes: Vec<(String, String)>,
}

fn normal(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c.as_os_str()),
        }
    }
    out
}

/// Whether an absolute path names something on this machine (the file, or its folder):
/// a path of the machine that built the ledger. Paths that only existed where the data was
/// recorded (`/home/<user>/.config/miopen/…` in a log) are the recording's own words and
/// stay as they are.
fn here(p: &str) -> bool {
    let p = p.split(':').next().unwrap_or(p);
    let p = Path::new(p);
    p.exists()
        || p.parent()
            .is_some_and(|d| d != Path::new("/") && d.is_dir())
}

fn absolute(p: &Path) -> PathBuf {
    let p = std::fs::canonicalize(p).unwrap_or_else(|_| {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir().unwrap_or_default().join(p)
        }
    });
    normal(&p)
}

impl Paths {
    /// The paths of the ledger at `ledger` with its loaded records (`data_root` from its
    /// `ledger.toml`).
    pub fn new(ledger: &Path, l: &Loaded) -> Paths {
        let ledger_abs = absolute(ledger);
        let root = if l.meta.data_root.is_empty() {
            ledger_abs.clone()
        } else {
            absolute(&ledger_abs.join(&l.meta.data_root))
        };
        let mut prefixes: BTreeMap<String, String> = BTreeMap::new();
        let mut add = |abs: &Path, rel: String| {
            let a = abs.to_string_lossy().trim_end_matches('/').to_string();
            if a.is_empty() {
                return;
            }
            let r = rel;
            let r = if r == "." {
                String::new()
            } else {
                format!("{r}/")
            };
            prefixes.insert(format!("{a}/"), r);
        };
        add(&root, ".".to_string());
        // The folders the observations were imported from, and the folders of their inputs.
        for o in &l.observations {
            let base = normal(&ledger_abs.join(&o.imported.base));
            add(&base, published(&root, &base));
            for i in &o.inputs {
                // A locator into a JSON document (`x.json#/cases/0`) names the file before `#`.
                let file = i.path.split('#').next().unwrap_or(&i.path);
                let at = normal(&resolve_input(&ledger_abs, &o.imported.base, file));
                if let Some(dir) = at.parent() {
                    add(dir, published(&root, dir));
                }
            }
        }
        let mut prefixes: Vec<(String, String)> = prefixes.into_iter().collect();
        prefixes.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
        Paths { root, prefixes }
    }

    /// The data root (absolute).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `s` with every known absolute folder replaced by its relative form.
    pub fn rewrite(&self, s: &str) -> String {
        if !s.contains('/') {
            return s.to_string();
        }
        let mut out = s.to_string();
        for (abs, rel) in &self.prefixes {
            if out.contains(abs.as_str()) {
                out = out.replace(abs.as_str(), rel);
            }
        }
        if !out.contains(" /") && !out.starts_with('/') {
            return out;
        }
        // Any other absolute path in the text, word by word.
        let mut text = String::with_capacity(out.len());
        for piece in out.split_inclusive(char::is_whitespace) {
            let word = piece.trim_end();
            let lead = word.len() - word.trim_start_matches(['(', '"', '\'', '[']).len();
            let (pre, rest) = word.split_at(lead);
            let body = rest.trim_end_matches([')', '"', '\'', ']', ',', ';', '.']);
            if body.starts_with('/') && body[1..].contains('/') && here(body) {
                text.push_str(pre);
                text.push_str(&self.path(body));
                text.push_str(&rest[body.len()..]);
                text.push_str(&piece[word.len()..]);
            } else {
                text.push_str(piece);
            }
        }
        text
    }

    /// `s` with each word that climbs out of the import folder `base` (`../data/db`, as a
    /// command line or a note gave it) published.
    fn climbing_words(&self, s: &str, base: &Path) -> String {
        if !s.contains("../") {
            return s.to_string();
        }
        let mut text = String::with_capacity(s.len());
        for piece in s.split_inclusive(char::is_whitespace) {
            let word = piece.trim_end();
            let body = word.trim_end_matches([')', '"', '\'', ']', ',', ';', '.']);
            if word.starts_with("../") && !body.trim_start_matches("../").is_empty() {
                text.push_str(&self.path(&normal(&base.join(body)).to_string_lossy()));
                text.push_str(&word[body.len()..]);
                text.push_str(&piece[word.len()..]);
            } else {
                text.push_str(piece);
            }
        }
        text
    }

    /// A path a document names, relative to its import folder `base` when not absolute, as
    /// published.
    fn input(&self, p: &str, base: &Path) -> String {
        if Path::new(p).is_absolute() {
            self.path(p)
        } else if p.starts_with("../") {
            self.path(&normal(&base.join(p)).to_string_lossy())
        } else {
            p.to_string()
        }
    }

    /// A path as published: relative to the data root, or `…/<last part>` outside it; a
    /// JSON pointer after `#` is kept.
    pub fn path(&self, p: &str) -> String {
        if !Path::new(p).is_absolute() {
            return p.to_string();
        }
        match p.split_once('#') {
            Some((file, pointer)) => format!(
                "{}#{pointer}",
                published(&self.root, &normal(Path::new(file)))
            ),
            None => published(&self.root, &normal(Path::new(p))),
        }
    }

    /// The path of `abs` relative to the data root, when it is inside it.
    fn inside(&self, abs: &Path) -> Option<String> {
        let r = relative(&self.root, abs)
            .to_string_lossy()
            .replace('\\', "/");
        (!r.split('/').any(|c| c == "..") && !Path::new(&r).is_absolute()).then_some(r)
    }

    /// Every string of a document imported from the folder `base` (absolute): absolute
    /// paths, and paths that climb out of `base` (`../data/x.db`, as a command line gave
    /// them), published.
    fn value(&self, v: &mut Value, base: &Path) {
        match v {
            Value::String(s) => {
                if s.starts_with('/') && !s.contains(char::is_whitespace) && here(s) {
                    // A path on its own: relative to the data root.
                    *s = self.path(s);
                } else if s.starts_with("../") && !s.contains(char::is_whitespace) {
                    *s = self.path(&normal(&base.join(s.as_str())).to_string_lossy());
                } else if s.contains('/') {
                    *s = self.climbing_words(&self.rewrite(s), base);
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| self.value(x, base)),
            Value::Object(m) => {
                // Keys can be paths too (an inventory's `coverage` is keyed by library).
                if m.keys().any(|k| k.contains('/')) {
                    let old = std::mem::take(m);
                    for (k, mut x) in old {
                        let mut key = Value::String(k);
                        self.value(&mut key, base);
                        let mut key = match key {
                            Value::String(k) => k,
                            _ => String::new(),
                        };
                        // Two paths outside the data root with the same last part stay two
                        // entries.
                        let first = key.clone();
                        let mut n = 1;
                        while m.contains_key(&key) {
                            n += 1;
                            key = format!("{first} ({n})");
                        }
                        self.value(&mut x, base);
                        m.insert(key, x);
                    }
                } else {
                    m.values_mut().for_each(|x| self.value(x, base));
                }
            }
            _ => {}
        }
    }
}

/// `abs` as published under `root`: relative inside it, `…/<last part>` outside it.
fn published(root: &Path, abs: &Path) -> String {
    let r = relative(root, abs).to_string_lossy().replace('\\', "/");
    if r.split('/').any(|c| c == "..") || Path::new(&r).is_absolute() {
        let last = abs.file_name().map(|n| n.to_string_lossy().into_owned());
        format!("…/{}", last.unwrap_or_default())
    } else {
        r
    }
}

/// The first word of a command line without its folder (`/x/target/debug/rocpath --json …` →
/// `rocpath --json …`).
fn command_name(cmd: &str) -> String {
    match cmd.split_once(' ') {
        Some((exe, rest)) if exe.contains('/') => {
            format!("{} {rest}", exe.rsplit('/').next().unwrap_or(exe))
        }
        None if cmd.contains('/') => cmd.rsplit('/').next().unwrap_or(cmd).to_string(),
        _ => cmd.to_string(),
    }
}

/// Rewrites a loaded ledger's paths for publishing (see the module notes).
pub fn publishable(ledger: &Path, l: &mut Loaded) -> Paths {
    let paths = Paths::new(ledger, l);
    let ledger_abs = absolute(ledger);
    for o in &mut l.observations {
        if let Some(Value::String(c)) = o.document.pointer_mut("/observed/command") {
            *c = command_name(c);
        }
        let base = normal(&ledger_abs.join(&o.imported.base));
        paths.value(&mut o.document, &base);
        o.imported.file = paths.path(&paths.rewrite(&o.imported.file));
        for i in &mut o.inputs {
            i.path = paths.input(&i.path, &base);
        }
        for q in &mut o.quotes {
            q.path = paths.input(&q.path, &base);
        }
    }
    for c in &mut l.claims {
        // A derived statement names what its documents named (a library by its path).
        c.statement.ja = paths.rewrite(&c.statement.ja);
        c.statement.en = paths.rewrite(&c.statement.en);
        for s in &mut c.support {
            if let Some(loc) = &mut s.source {
                loc.path = paths.path(&paths.rewrite(&loc.path));
            }
        }
    }
    paths
}

/// A raw input to publish: where it is here, its published relative path, and the sha256 it
/// had when imported.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RawFile {
    /// The file here.
    pub source: PathBuf,
    /// Its path under the published `raw/` folder (no `..`, no leading `/`).
    pub published: String,
    /// Its sha256 when imported: a file that differs now is not published.
    pub sha256: String,
}

/// A raw input not published, and why.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct RawSkipped {
    /// The input as the observation names it.
    pub path: String,
    /// Why it is not published.
    pub why: String,
}

/// The raw inputs of the ledger's observations that exist here as regular files under the
/// data root, each once; those outside the data root are not published (a ledger could name
/// any file of the machine) and are listed with the reason. Call it before [`publishable`]
/// (it reads the paths as imported).
pub fn raw_files(ledger: &Path, l: &Loaded) -> (Vec<RawFile>, Vec<RawSkipped>) {
    let paths = Paths::new(ledger, l);
    let ledger_abs = absolute(ledger);
    let mut out: BTreeMap<String, (PathBuf, String)> = BTreeMap::new();
    let mut skipped = std::collections::BTreeSet::new();
    for o in &l.observations {
        for i in &o.inputs {
            let Some(sha) = &i.sha256 else { continue };
            let at = normal(&resolve_input(&ledger_abs, &o.imported.base, &i.path));
            if !std::fs::metadata(&at).is_ok_and(|m| m.is_file()) {
                continue;
            }
            let Some(rel) = paths.inside(&at) else {
                skipped.insert(RawSkipped {
                    path: i.path.clone(),
                    why: "outside the ledger's data root; not published".into(),
                });
                continue;
            };
            let published: Vec<&str> = rel
                .split('/')
                .filter(|c| !c.is_empty() && *c != ".")
                .collect();
            if !published.is_empty() {
                out.entry(published.join("/")).or_insert((at, sha.clone()));
            }
        }
    }
    let files = out
        .into_iter()
        .map(|(published, (source, sha256))| RawFile {
            source,
            published,
            sha256,
        })
        .collect();
    (files, skipped.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_lose_their_folder() {
        assert_eq!(
            command_name("/w/target/debug/rocpath --json case read x.log"),
            "rocpath --json case read x.log"
        );
        assert_eq!(command_name("rocpath trace"), "rocpath trace");
        assert_eq!(command_name("/usr/bin/rocpath"), "rocpath");
    }

    #[test]
    fn prefixes_are_replaced_longest_first() {
        let p = Paths {
            root: PathBuf::from("/data"),
            prefixes: vec![
                ("/data/logs/vega64/".into(), "logs/vega64/".into()),
                ("/data/".into(), String::new()),
            ],
        };
        assert_eq!(
            p.rewrite("read /data/logs/vega64/a.log and /data/b.txt"),
            "read logs/vega64/a.log and b.txt"
        );
        assert_eq!(p.path("/data/x/y.log"), "x/y.log");
        let tmp = std::env::temp_dir();
        let t = tmp.display();
        // A path of this machine outside the data root, inside a sentence: its last part.
        assert_eq!(
            p.rewrite(&format!("the first find-db in {t}/db (see \"{t}/y.txt\").")),
            "the first find-db in …/db (see \"…/y.txt\")."
        );
        // A path of the recording machine stays as recorded.
        let rec = "in /home/nobody-here-x/.config/miopen/a.txt";
        assert_eq!(p.rewrite(rec), rec);
        // Outside the data root: the last part only, nothing climbs out.
        assert_eq!(p.path("/elsewhere/y.log"), "…/y.log");
        assert_eq!(p.path("rel/y.log"), "rel/y.log");
    }

    #[test]
    fn relative_paths_of_a_document_are_published_from_its_import_folder() {
        let p = Paths {
            root: PathBuf::from("/data"),
            prefixes: vec![("/data/".into(), String::new())],
        };
        let mut doc = serde_json::json!({
            "db": "../data/miopen-db/gfx900_56.db.bz2",
            "out": "../../elsewhere/x.json",
            "note": "a sentence with ../ inside stays",
            "cmd": "explain --db ../../elsewhere/db --compare x.json",
            "at": "/data/run/x.json#/cases/6/db_lookups",
            "kept": "logs/a.log"
        });
        p.value(&mut doc, Path::new("/data/run"));
        assert_eq!(doc["db"], "data/miopen-db/gfx900_56.db.bz2");
        assert_eq!(doc["out"], "…/x.json");
        assert_eq!(doc["note"], "a sentence with ../ inside stays");
        assert_eq!(doc["cmd"], "explain --db …/db --compare x.json");
        assert_eq!(doc["at"], "run/x.json#/cases/6/db_lookups");
        assert_eq!(doc["kept"], "logs/a.log");
        let mut keyed = serde_json::json!({"coverage": {"../../elsewhere/lib.so": {"gfx900": 1}}});
        p.value(&mut keyed, Path::new("/data/run"));
        assert_eq!(keyed["coverage"]["…/lib.so"]["gfx900"], 1);
        let mut two = serde_json::json!({"../../a/lib.so": 1, "../../b/lib.so": 2});
        p.value(&mut two, Path::new("/data/run"));
        assert_eq!(
            (two["…/lib.so"].as_i64(), two["…/lib.so (2)"].as_i64()),
            (Some(1), Some(2))
        );
    }
}
