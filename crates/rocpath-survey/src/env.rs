//! The variables that change what the ROCm stack reports or loads, and where each applies:
//! the shell (this process's environment on a live machine, `/etc/environment`) or a systemd
//! service (`Environment=` and `EnvironmentFile=` of its unit and drop-ins). A service does not
//! see the shell's variables, and the shell does not see a service's.

use crate::error::SurveyError;
use crate::root::Root;
use crate::rules;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The scope of the shell: what programs started by a user see.
pub const SHELL: &str = "shell";

/// Variables that change which device the runtime reports, which devices it shows, or which
/// files the libraries load.
const WATCHED: &[&str] = &[
    "HSA_OVERRIDE_GFX_VERSION",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
    "HSA_XNACK",
    "ROCBLAS_TENSILE_LIBPATH",
    "HIPBLASLT_TENSILE_LIBPATH",
    "ROCBLAS_USE_HIPBLASLT",
    "MIOPEN_USER_DB_PATH",
    "MIOPEN_CUSTOM_CACHE_DIR",
    "MIOPEN_FIND_MODE",
    "OLLAMA_LLM_LIBRARY",
    "ROCM_PATH",
    "LD_LIBRARY_PATH",
];

/// Variables that decide which Python a command runs (read, not reported as settings).
const SEARCH: &[&str] = &["PATH", "PYENV_ROOT", "PYENV_VERSION"];

/// Whether a variable is one the survey reports.
pub fn watched(name: &str) -> bool {
    WATCHED.contains(&name)
        || name
            .strip_prefix("HSA_OVERRIDE_GFX_VERSION_")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// One variable setting.
#[derive(Debug, Clone, Serialize)]
pub struct Variable {
    /// Name.
    pub name: String,
    /// Value.
    pub value: String,
    /// Where it applies: `shell` or a unit name (`ollama.service`).
    pub scope: String,
    /// Where it was read: `environment` (this process) or a file.
    pub source: String,
    /// Line in the file.
    pub line: Option<usize>,
    /// Evidence.
    pub evidence: Evidence,
    /// 1 for a service's `EnvironmentFile=`, which wins over its `Environment=` lines.
    #[serde(skip)]
    rank: u8,
}

/// Every watched variable found, by scope.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// In the order read; later settings of a name in a scope win.
    pub vars: Vec<Variable>,
    /// Service units found (whether or not they set a watched variable).
    pub units: Vec<String>,
    /// The shell's `PATH`, `PYENV_ROOT` and `PYENV_VERSION` (the last setting wins), which
    /// decide the Python a command runs.
    pub search: Vec<Variable>,
}

impl Env {
    /// The value of a variable in a scope (the last setting wins).
    pub fn get(&self, scope: &str, name: &str) -> Option<&Variable> {
        self.vars
            .iter()
            .enumerate()
            .filter(|(_, v)| v.scope == scope && v.name == name)
            .max_by_key(|(i, v)| (v.rank, *i))
            .map(|(_, v)| v)
    }

    /// The shell's value of a search variable ([`SEARCH`]).
    pub fn search(&self, name: &str) -> Option<&Variable> {
        self.search.iter().rev().find(|v| v.name == name)
    }

    /// Whether a service unit of this name exists.
    pub fn has_unit(&self, unit: &str) -> bool {
        self.units.iter().any(|u| u == unit)
    }

    /// Keeps the last setting of each (scope, name): what a program in that scope sees.
    pub fn effective(&self) -> Vec<Variable> {
        let mut last: BTreeMap<(&str, &str), &Variable> = BTreeMap::new();
        for v in &self.vars {
            last.insert((v.scope.as_str(), v.name.as_str()), v);
        }
        let mut out: Vec<Variable> = last
            .into_keys()
            .filter_map(|(scope, name)| self.get(scope, name))
            .cloned()
            .collect();
        out.sort_by(|a, b| {
            (a.scope != SHELL, &a.scope, &a.name).cmp(&(b.scope != SHELL, &b.scope, &b.name))
        });
        out
    }
}

fn variable(name: &str, value: &str, scope: &str, file: &str, line: Option<usize>) -> Variable {
    variable_ranked(name, value, scope, file, line, 0)
}

fn variable_ranked(
    name: &str,
    value: &str,
    scope: &str,
    file: &str,
    line: Option<usize>,
    rank: u8,
) -> Variable {
    let mut loc = Locator::file(file);
    if let Some(l) = line {
        loc = loc.with_line(l as u64);
    }
    Variable {
        name: name.to_string(),
        value: value.to_string(),
        scope: scope.to_string(),
        source: file.to_string(),
        line,
        evidence: Evidence::new(
            Class::Confirmed,
            Proof::ShippedArtifactVerified,
            rules::VARIABLE,
        )
        .at(loc)
        .because(format!("{name}={value} is set for {scope}")),
        rank,
    }
}

/// Reads the watched variables: `/etc/environment`, then `process` (this process's
/// environment, on a live machine), then the systemd service units.
pub fn read(
    root: &Root,
    process: Option<&[(String, String)]>,
    errors: &mut Vec<SurveyError>,
) -> Env {
    let mut env = Env::default();
    let etc = root.join(Path::new("/etc/environment"));
    let text = match crate::read_text(&etc) {
        Ok(t) => Some(t),
        // Most machines have one, but none is not a problem; anything else is said.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => {
            errors.push(SurveyError::Io {
                path: etc.clone(),
                source,
            });
            None
        }
    };
    if let Some(text) = text {
        for (line, k, v) in env_file(&text, &etc, errors) {
            if SEARCH.contains(&k.as_str()) {
                let f = etc.display().to_string();
                env.search.push(variable(&k, &v, SHELL, &f, Some(line)));
            }
            if watched(&k) {
                env.vars.push(variable(
                    &k,
                    &v,
                    SHELL,
                    &etc.display().to_string(),
                    Some(line),
                ));
            }
        }
    }
    for (k, v) in process.unwrap_or_default() {
        if SEARCH.contains(&k.as_str()) {
            env.search.push(variable(k, v, SHELL, "environment", None));
        }
        if watched(k) {
            env.vars.push(variable(k, v, SHELL, "environment", None));
        }
    }
    for (unit, files) in units(root) {
        env.units.push(unit.clone());
        for f in &files {
            unit_file(root, f, &unit, &mut env.vars, errors);
        }
    }
    env
}

/// Unit folders, most important first.
const UNIT_DIRS: &[&str] = &[
    "/etc/systemd/system",
    "/run/systemd/system",
    "/usr/local/lib/systemd/system",
    "/usr/lib/systemd/system",
    "/lib/systemd/system",
];

/// Service units and their files in the order systemd reads them: the unit from the first
/// folder that has it, then its drop-ins (`<unit>.d/*.conf`, a name in an earlier folder
/// hiding the same name in a later one) sorted by file name.
fn units(root: &Root) -> BTreeMap<String, Vec<PathBuf>> {
    let mut main: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut drops: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    let mut seen_dirs = Vec::new();
    for d in UNIT_DIRS {
        let host = match root.resolve(Path::new(d)) {
            Ok(p) => root.join(&p),
            Err(_) => continue,
        };
        if seen_dirs.contains(&host) {
            continue;
        }
        seen_dirs.push(host.clone());
        let Ok(rd) = std::fs::read_dir(&host) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(unit) = name.strip_suffix(".d").filter(|u| u.ends_with(".service")) {
                let Ok(confs) = std::fs::read_dir(e.path()) else {
                    continue;
                };
                for c in confs.flatten() {
                    let cn = c.file_name().to_string_lossy().into_owned();
                    if cn.ends_with(".conf") {
                        let slot = drops.entry(unit.to_string()).or_default();
                        slot.entry(cn).or_insert_with(|| c.path());
                    }
                }
            } else if name.ends_with(".service") {
                main.entry(name).or_insert_with(|| e.path());
            }
        }
    }
    let mut out: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for (unit, path) in main {
        out.entry(unit).or_default().push(path);
    }
    for (unit, confs) in drops {
        out.entry(unit).or_default().extend(confs.into_values());
    }
    out
}

/// Reads one unit file's `[Service]` `Environment=` and `EnvironmentFile=` settings.
fn unit_file(
    root: &Root,
    path: &Path,
    unit: &str,
    into: &mut Vec<Variable>,
    errors: &mut Vec<SurveyError>,
) {
    let Ok(text) = crate::read_text(path) else {
        return;
    };
    // Only units that set a watched variable are read further than this.
    if !text.contains("Environment") {
        return;
    }
    let file = path.display().to_string();
    let mut section = String::new();
    for (line, l) in logical_lines(&text) {
        let t = l.trim();
        if t.starts_with('[') && t.ends_with(']') {
            section = t.to_string();
            continue;
        }
        if section != "[Service]" {
            continue;
        }
        if let Some(v) = t.strip_prefix("Environment=") {
            if v.trim().is_empty() {
                // An empty assignment resets what `Environment=` set so far.
                into.retain(|x| x.scope != unit || x.rank > 0);
                continue;
            }
            for w in words(v) {
                match w.split_once('=') {
                    Some((k, val)) if watched(k) => {
                        into.push(variable(k, val, unit, &file, Some(line)))
                    }
                    Some(_) => {}
                    None => errors.push(SurveyError::Malformed {
                        path: path.to_path_buf(),
                        line,
                        what: format!("Environment= word {w:?} has no `=`"),
                    }),
                }
            }
        } else if let Some(v) = t.strip_prefix("EnvironmentFile=") {
            let (optional, f) = match v.trim().strip_prefix('-') {
                Some(f) => (true, f),
                None => (false, v.trim()),
            };
            let host = root.resolve(Path::new(f)).map(|p| root.join(&p));
            match host.and_then(|h| {
                crate::read_text(&h)
                    .map(|t| (h, t))
                    .map_err(|source| SurveyError::Io {
                        path: root.join(Path::new(f)),
                        source,
                    })
            }) {
                Ok((h, text)) => {
                    for (n, k, val) in env_file(&text, &h, errors) {
                        if watched(&k) {
                            let f = h.display().to_string();
                            into.push(variable_ranked(&k, &val, unit, &f, Some(n), 1));
                        }
                    }
                }
                Err(e) if !optional => errors.push(e),
                Err(_) => {}
            }
        }
    }
}

/// Lines with `\` continuations joined, comments dropped; each with its first line number.
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut cur: Option<(usize, String)> = None;
    for (i, l) in text.lines().enumerate() {
        let t = l.trim_end();
        if cur.is_none() && (t.trim_start().starts_with('#') || t.trim_start().starts_with(';')) {
            continue;
        }
        let (n, mut acc) = cur.take().unwrap_or((i + 1, String::new()));
        match t.strip_suffix('\\') {
            Some(part) => {
                acc.push_str(part);
                acc.push(' ');
                cur = Some((n, acc));
            }
            None => {
                acc.push_str(t);
                out.push((n, acc));
            }
        }
    }
    out.extend(cur);
    out
}

/// Splits a systemd value into words: double and single quotes group, a backslash escapes.
pub fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (_, '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                in_word = true;
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

/// `KEY=VALUE` lines of `/etc/environment` or an `EnvironmentFile=` (comments and blank
/// lines skipped, one pair of quotes around the value removed).
fn env_file(
    text: &str,
    path: &Path,
    errors: &mut Vec<SurveyError>,
) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with(';') {
            continue;
        }
        let t = t.strip_prefix("export ").unwrap_or(t);
        let Some((k, v)) = t.split_once('=') else {
            errors.push(SurveyError::Malformed {
                path: path.to_path_buf(),
                line: i + 1,
                what: "not a KEY=VALUE line".into(),
            });
            continue;
        };
        let v = v.trim();
        let v = ['"', '\'']
            .iter()
            .find_map(|q| v.strip_prefix(*q).and_then(|r| r.strip_suffix(*q)))
            .unwrap_or(v);
        out.push((i + 1, k.trim().to_string(), v.to_string()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn systemd_words() {
        assert_eq!(
            words(r#"A=1 "B=two words" 'C=x\'y' D=e\ f"#),
            ["A=1", "B=two words", "C=x'y", "D=e f"]
        );
        assert!(words("   ").is_empty());
    }

    #[test]
    fn watched_names() {
        assert!(watched("HSA_OVERRIDE_GFX_VERSION_1"));
        assert!(!watched("HSA_OVERRIDE_GFX_VERSION_"));
        assert!(!watched("HSA_OVERRIDE_GFX_VERSION_x"));
        assert!(!watched("PATH"));
    }

    #[test]
    fn units_drop_ins_and_resets() {
        let d = tempfile::tempdir().unwrap();
        let root = Root::new(d.path());
        let etc = d.path().join("etc/systemd/system");
        let lib = d.path().join("usr/lib/systemd/system");
        std::fs::create_dir_all(etc.join("ollama.service.d")).unwrap();
        std::fs::create_dir_all(lib.join("ollama.service.d")).unwrap();
        std::fs::write(
            lib.join("ollama.service"),
            "[Unit]\nEnvironment=HSA_XNACK=1\n[Service]\nEnvironment=\"HSA_OVERRIDE_GFX_VERSION=10.3.0\" \\\n  HIP_VISIBLE_DEVICES=0\nEnvironmentFile=-/etc/ollama.env\n",
        )
        .unwrap();
        std::fs::write(
            lib.join("ollama.service.d/10-gpu.conf"),
            "[Service]\nEnvironment=HIP_VISIBLE_DEVICES=1\n",
        )
        .unwrap();
        std::fs::write(
            etc.join("ollama.service.d/10-gpu.conf"),
            "[Service]\nEnvironment=HSA_OVERRIDE_GFX_VERSION=9.0.0\n",
        )
        .unwrap();
        std::fs::write(
            etc.join("ollama.service.d/20-reset.conf"),
            "[Service]\nEnvironment=\nEnvironment=ROCR_VISIBLE_DEVICES=0 junk\n",
        )
        .unwrap();
        let mut errors = Vec::new();
        let env = read(
            &root,
            Some(&[("HSA_OVERRIDE_GFX_VERSION".into(), "11.0.0".into())]),
            &mut errors,
        );
        assert!(env.has_unit("ollama.service"));
        // The etc drop-in hides the lib one of the same name; the reset empties the list.
        let svc: Vec<_> = env
            .effective()
            .into_iter()
            .filter(|v| v.scope == "ollama.service")
            .map(|v| format!("{}={}", v.name, v.value))
            .collect();
        assert_eq!(svc, ["ROCR_VISIBLE_DEVICES=0"]);
        assert_eq!(
            env.get(SHELL, "HSA_OVERRIDE_GFX_VERSION")
                .map(|v| v.value.as_str()),
            Some("11.0.0")
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(matches!(&errors[0], SurveyError::Malformed { line: 3, .. }));
    }
}
