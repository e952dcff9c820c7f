//! One-command studies: `rocpath study build STUDY.toml -o OUT`.
//!
//! A study file declares where its recordings are and which reader reads each set of them:
//! MIOpen case logs (`case read`, and `explain --compare` against the model), kernel traces
//! (`trace`), Ollama runs (`ollama read`), strace splits (`strace`), A/B lanes
//! (`lanes summarize`) and source checkouts (`gates`). [`plan`] turns the file into steps —
//! one rocpath command per document, each with the observation id and world it is imported
//! under —, skipping the sets whose recordings are not there; [`run`] executes them with the
//! rocpath binary given, imports the documents into `OUT/ledger`, derives the claims, checks
//! the ledger and builds `OUT/site`.
//!
//! ```toml
//! schema = "rocpath.study/1"
//! title = { ja = "…", en = "…" }
//! data_roots = ["../../../shared/fixtures", "$ROCPATH_SHARED/fixtures"]
//!
//! [[cases]]
//! name = "vega64"
//! world = "gfx900"
//! dir = "miopen-logs/vega64"
//! files = ["*.log"]
//! exclude = ["*_extract.log"]
//! compare = true
//! ```

mod plan;
mod run;

pub use plan::{Plan, Step, plan};
pub use run::{Progress, Report, run};

use rocpath_ledger::model::Text;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Schema of a study file.
pub const STUDY_SCHEMA: &str = "rocpath.study/1";

/// A study file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Study {
    /// Always [`STUDY_SCHEMA`].
    pub schema: String,
    /// Title of the ledger and site.
    #[serde(default)]
    pub title: Text,
    /// Candidate folders of the recordings, relative to the study file (or `$VAR/…`): the
    /// first that exists is the data root.
    #[serde(default)]
    pub data_roots: Vec<String>,
    /// MIOpen case logs.
    #[serde(default)]
    pub cases: Vec<Set>,
    /// rocprofv3 outputs.
    #[serde(default)]
    pub traces: Vec<Set>,
    /// Ollama / llama.cpp runs.
    #[serde(default)]
    pub runs: Vec<Set>,
    /// strace splits.
    #[serde(default)]
    pub strace: Vec<Set>,
    /// A/B lanes.
    #[serde(default)]
    pub lanes: Vec<LaneSet>,
    /// Source checkouts read for gates.
    #[serde(default)]
    pub repositories: Vec<Set>,
    /// Installs, libraries or code objects: what they ship per target (`inventory`).
    #[serde(default)]
    pub inventory: Vec<Set>,
    /// The same, checked against devices (`check`, the targets in `args`: `["--target",
    /// "gfx900"]`).
    #[serde(default)]
    pub check: Vec<Set>,
    /// Code objects whose instructions are classified (`isa`).
    #[serde(default)]
    pub isa: Vec<Set>,
}

/// A set of recordings read by one reader.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Set {
    /// Name (observation ids start with it).
    pub name: String,
    /// The world the recordings were made in (`gfx900`).
    #[serde(default)]
    pub world: String,
    /// Paths relative to the data root.
    #[serde(default)]
    pub paths: Vec<String>,
    /// A folder relative to the data root, with `files` naming the files in it.
    #[serde(default)]
    pub dir: String,
    /// File-name patterns in `dir` (`*` matches any run of characters).
    #[serde(default)]
    pub files: Vec<String>,
    /// File-name patterns left out.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Cases: also compare them with the model's predictions (`explain --compare`).
    #[serde(default)]
    pub compare: bool,
    /// Cases: MIOpen's database folder for the comparison, relative to the data root.
    #[serde(default)]
    pub db: String,
    /// Extra arguments of the reader.
    #[serde(default)]
    pub args: Vec<String>,
}

/// A/B lanes: `NAME=FILE` each, files relative to the data root.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneSet {
    /// Name (the observation id).
    pub name: String,
    /// The world.
    #[serde(default)]
    pub world: String,
    /// `NAME=FILE[,FILE…]`, the first is lane a.
    pub lanes: Vec<String>,
    /// Metric (`eval_rate` when not given).
    #[serde(default)]
    pub metric: String,
}

/// Errors of reading a study file or running it.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The study file is not one rocpath reads (a FIFO, a device, too large).
    #[error(transparent)]
    Input(#[from] rocpath_budget::input::InputError),
    /// The file is not a study file.
    #[error("{}: {message}; see `rocpath study build --help` for the form", path.display())]
    Form {
        /// The file.
        path: PathBuf,
        /// What is wrong (with line and column when the TOML reader knows).
        message: String,
    },
    /// None of the data roots exists.
    #[error("{}: none of the data roots exists ({tried}); put the recordings there or add a data_roots entry", path.display())]
    NoData {
        /// The study file.
        path: PathBuf,
        /// The folders tried.
        tried: String,
    },
    /// The ledger failed.
    #[error(transparent)]
    Store(#[from] rocpath_ledger::store::StoreError),
    /// Deriving failed.
    #[error(transparent)]
    Derive(#[from] rocpath_ledger::derive::DeriveError),
    /// Building the site failed.
    #[error(transparent)]
    Site(#[from] rocpath_site::SiteError),
}

/// Largest study file read.
pub const STUDY_MAX_BYTES: u64 = 4 << 20;

/// Reads a study file.
pub fn load(path: &Path) -> Result<Study, StudyError> {
    // A study file is a short TOML text: read through the input layer, bounded.
    let (text, _held) = rocpath_budget::input::read_text(
        path,
        &rocpath_budget::MemoryBudget::default(),
        STUDY_MAX_BYTES,
        "a study file",
    )?;
    let form = |message: String| StudyError::Form {
        path: path.to_path_buf(),
        message,
    };
    let s: Study = toml::from_str(&text).map_err(|e| {
        let at = e
            .span()
            .map(|r| {
                let before = &text[..r.start.min(text.len())];
                format!("line {}: ", before.matches('\n').count() + 1)
            })
            .unwrap_or_default();
        form(format!("{at}{}", e.message().trim_end()))
    })?;
    if s.schema != STUDY_SCHEMA {
        return Err(form(format!(
            "schema {:?}: expected {STUDY_SCHEMA:?}",
            s.schema
        )));
    }
    let sets = || {
        s.cases
            .iter()
            .chain(&s.traces)
            .chain(&s.runs)
            .chain(&s.strace)
            .chain(&s.repositories)
            .chain(&s.inventory)
            .chain(&s.check)
            .chain(&s.isa)
    };
    let names = sets()
        .map(|x| x.name.as_str())
        .chain(s.lanes.iter().map(|l| l.name.as_str()));
    for n in names {
        if !rocpath_ledger::files::valid_id(n) {
            return Err(form(format!(
                "name {n:?} cannot start an observation id: use letters, digits, '.', '_' and '-'"
            )));
        }
    }
    for set in sets() {
        let fields = set
            .paths
            .iter()
            .map(|p| ("paths", p.as_str()))
            .chain([("dir", set.dir.as_str()), ("db", set.db.as_str())]);
        for (field, value) in fields {
            relative_to_root(value)
                .map_err(|why| form(format!("set {:?}: {field} {value:?} {why}", set.name)))?;
        }
    }
    for l in &s.lanes {
        for file in l
            .lanes
            .iter()
            .filter_map(|x| x.split_once('=').map(|(_, f)| f))
        {
            for f in file.split(',') {
                relative_to_root(f)
                    .map_err(|why| form(format!("lanes {:?}: file {f:?} {why}", l.name)))?;
            }
        }
    }
    Ok(s)
}

/// Whether a path of a set is given relative to the data root, so the study reads the same
/// recordings wherever it is copied (an absolute path or `~` would read this machine's). A
/// path may climb out of the data root (`../data/miopen-db`, a database folder beside the
/// recordings); pages then show it by its name only (`rocpath_ledger::publish`).
fn relative_to_root(p: &str) -> Result<(), &'static str> {
    let path = Path::new(p);
    if path.has_root() || path.is_absolute() || p.starts_with('~') {
        return Err("is not relative to the data root: give it relative to the data root");
    }
    Ok(())
}

/// Whether a file name matches a pattern where `*` matches any run of characters.
pub fn matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    true
}

/// The `rocpath.study.build` document ([`rocpath_docs::schema::STUDY_BUILD`]).
#[derive(Debug, serde::Serialize)]
pub struct BuildDoc {
    /// The study file.
    pub study: String,
    /// The output folder.
    pub out: String,
    /// What was done.
    #[serde(flatten)]
    pub report: Report,
    /// Evidence: the site was written (at its `site/index.html`).
    pub evidence: rocpath_evidence::Evidence,
}

impl BuildDoc {
    /// The document of a study built into `out`.
    pub fn new(study: &Path, out: &Path, report: Report) -> Self {
        use rocpath_evidence::{Class, Evidence, Locator, Proof};
        BuildDoc {
            study: study.display().to_string(),
            out: out.display().to_string(),
            report,
            evidence: Evidence::new(
                Class::Confirmed,
                Proof::ShippedArtifactVerified,
                "site.built",
            )
            .at(Locator::file(
                out.join("site/index.html").display().to_string(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(matches("*.log", "a.log"));
        assert!(!matches("*.log", "a.log.1"));
        assert!(matches("*_extract.log", "x.solver_extract.log"));
        assert!(matches(
            "tinyllama_*_195741.*",
            "tinyllama_r0_w0_k0_first_20260320_195741.json"
        ));
        assert!(!matches("tinyllama_warmup_*", "tinyllama_r0_first.json"));
        assert!(matches("a*b*c", "aXbYc"));
        assert!(!matches("a*b*c", "aXc"));
        assert!(matches("exact", "exact"));
        assert!(!matches("ab*ba", "aba"));
    }

    #[test]
    fn a_set_given_by_an_absolute_path_is_refused_with_its_name() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.toml");
        for (set, name) in [
            ("[[cases]]\nname = \"a\"\ndir = \"/var/log\"\n", "\"a\""),
            (
                "[[inventory]]\nname = \"b\"\npaths = [\"/etc/passwd\"]\n",
                "\"b\"",
            ),
            ("[[cases]]\nname = \"c\"\ndb = \"~/miopen\"\n", "\"c\""),
            (
                "[[lanes]]\nname = \"d\"\nlanes = [\"A=x.jsonl\", \"B=/tmp/y.jsonl\"]\n",
                "\"d\"",
            ),
        ] {
            std::fs::write(&p, format!("schema = \"rocpath.study/1\"\n{set}")).unwrap();
            let e = load(&p).unwrap_err().to_string();
            assert!(
                e.contains("not relative to the data root") && e.contains(name),
                "{e}"
            );
        }
        // Beside the recordings (`../data/miopen-db`) is a path relative to the data root.
        std::fs::write(
            &p,
            "schema = \"rocpath.study/1\"\n[[cases]]\nname = \"a\"\ndir = \"logs\"\ndb = \"../data/miopen-db\"\n",
        )
        .unwrap();
        assert!(load(&p).is_ok());
    }

    #[test]
    fn bad_files_are_named() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.toml");
        std::fs::write(
            &p,
            "schema = \"rocpath.study/1\"\n[[cases]]\nname = \"a b\"\n",
        )
        .unwrap();
        let e = load(&p).unwrap_err().to_string();
        assert!(e.contains("\"a b\""), "{e}");
        std::fs::write(&p, "schema = \"rocpath.study/1\"\nbogus = 1\n").unwrap();
        let e = load(&p).unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
    }
}
