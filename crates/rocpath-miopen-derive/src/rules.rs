//! The hand-written rules (`rocpath_miopen::model::RULES`): what the evaluator assumes about
//! MIOpen's primitives, the build switches of a release build, and the functions a newer
//! release changed. Each rule cites `path:line[-line]@commit` (or
//! `owner/repo:path:line@commit` for another repository) and carries a hash of the cited
//! lines, so a checkout where those lines changed reports the rule as not re-derivable.

use crate::lower::Lowerer;
use rocpath_miopen::model::ir::{Overlay, Rule, Site};
use serde::Deserialize;
use sha2::Digest;
use std::path::Path;

/// One rule of the file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleDef {
    /// Rule id.
    pub id: String,
    /// What it says.
    pub says: String,
    /// Citation.
    pub cite: String,
    /// `sha256:` of the cited lines, whitespace-collapsed (first 16 hex digits).
    pub hash: String,
    /// A build flag this rule sets.
    #[serde(default)]
    pub build: Option<String>,
    /// Its value.
    #[serde(default)]
    pub value: Option<i64>,
    /// A release whose function this rule replaces.
    #[serde(default)]
    pub overlay: Option<String>,
    /// The replaced function (qualified).
    #[serde(default)]
    pub function: Option<String>,
    /// The class the replacement is a member of.
    #[serde(default)]
    pub class: Option<String>,
    /// The replacement body (C++).
    #[serde(default)]
    pub body: Option<String>,
    /// Forced-solver fate (`build_failure`, `runtime_abort`).
    #[serde(default)]
    pub fate: Option<String>,
    /// Solvers a forced-solver rule covers.
    #[serde(default)]
    pub solvers: Vec<String>,
    /// Architecture feature whose absence the rule needs.
    #[serde(default)]
    pub lacks: Option<String>,
    /// Device prefixes the rule applies to.
    #[serde(default)]
    pub targets: Vec<String>,
    /// The recordings a rule was fitted to, when what it says was taken from runs rather than
    /// read in the cited source.
    #[serde(default)]
    pub calibrated: Option<String>,
}

#[derive(Deserialize)]
struct File {
    rule: Vec<RuleDef>,
}

impl RuleDef {
    /// The rule as the model carries it.
    pub fn to_rule(&self) -> Rule {
        Rule {
            id: self.id.clone(),
            says: self.says.clone(),
            fate: self.fate.clone(),
            solvers: self.solvers.clone(),
            lacks: self.lacks.clone(),
            targets: self.targets.clone(),
            calibrated: self.calibrated.clone(),
            cite: self.cite.clone(),
            text: self.hash.clone(),
        }
    }
}

/// Why the rules file does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// Not TOML of the rules' shape.
    #[error("{0}")]
    Toml(String),
    /// Two rules with one id.
    #[error("rule {0} appears twice")]
    Twice(String),
    /// A citation that is not `path:line[-line]@commit`.
    #[error("rule {id}: citation {cite:?} is not path:line[-line]@commit")]
    Cite {
        /// The rule.
        id: String,
        /// Its citation.
        cite: String,
    },
}

/// Parses the rules file.
pub fn load(text: &str) -> Result<Vec<RuleDef>, RulesError> {
    let f: File = toml::from_str(text).map_err(|e| RulesError::Toml(e.to_string()))?;
    let mut ids = std::collections::HashSet::new();
    for r in &f.rule {
        if !ids.insert(r.id.as_str()) {
            return Err(RulesError::Twice(r.id.clone()));
        }
        if parse_cite(&r.cite).is_none() {
            return Err(RulesError::Cite {
                id: r.id.clone(),
                cite: r.cite.clone(),
            });
        }
    }
    Ok(f.rule)
}

/// A citation: repository (when another), path, first and last line, commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cite {
    /// `owner/repo`, when the citation names one.
    pub repo: Option<String>,
    /// Path.
    pub path: String,
    /// First line.
    pub first: u32,
    /// Last line.
    pub last: u32,
    /// Commit (prefix).
    pub commit: String,
}

/// Parses `[owner/repo:]path:a[-b]@commit`.
pub fn parse_cite(c: &str) -> Option<Cite> {
    let (loc, commit) = c.rsplit_once('@')?;
    let (head, lines) = loc.rsplit_once(':')?;
    let (first, last) = match lines.split_once('-') {
        Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
        None => {
            let a = lines.parse().ok()?;
            (a, a)
        }
    };
    let (repo, path) = match head.split_once(':') {
        Some((r, p)) if r.contains('/') => (Some(r.to_string()), p.to_string()),
        _ => (None, head.to_string()),
    };
    (first >= 1 && last >= first).then_some(Cite {
        repo,
        path,
        first,
        last,
        commit: commit.to_string(),
    })
}

/// The whitespace-collapsed text of lines `first..=last` of `text`.
pub fn cited_text(text: &str, first: u32, last: u32) -> Option<String> {
    let lines: Vec<&str> = text
        .lines()
        .skip(first as usize - 1)
        .take((last - first + 1) as usize)
        .collect();
    if lines.len() != (last - first + 1) as usize {
        return None;
    }
    Some(
        lines
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The hash a rule carries for a cited text.
pub fn hash(text: &str) -> String {
    let d = sha2::Sha256::digest(text.as_bytes());
    let hex: String = d.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Result of checking the rules against a checkout.
#[derive(Debug, Default)]
pub struct Checked {
    /// Rules whose cited lines were found and match.
    pub checked: usize,
    /// Rules whose cited lines were found elsewhere, unchanged (id, the citation there).
    pub moved: Vec<(String, String)>,
    /// Rules whose cited lines differ or are missing (id, why).
    pub drifted: Vec<(String, String)>,
    /// Rules citing another repository.
    pub not_checked: Vec<String>,
}

/// Checks every rule's cited lines against the MIOpen folder `mroot`.
pub fn check(rules: &[RuleDef], mroot: &Path, commit: Option<&str>, repository: &str) -> Checked {
    let mut out = Checked::default();
    for r in rules {
        let Some(c) = parse_cite(&r.cite) else {
            continue;
        };
        let path = match &c.repo {
            None if repository == "ROCm/MIOpen" => c.path.clone(),
            None => c.path.clone(),
            Some(repo) if repo == repository => {
                c.path.trim_start_matches("projects/miopen/").to_string()
            }
            Some(_) => {
                out.not_checked.push(r.id.clone());
                continue;
            }
        };
        let file = mroot.join(&path);
        let found = rocpath_budget::input::read_text(
            &file,
            &rocpath_budget::MemoryBudget::default(),
            64 << 20,
            "a MIOpen source file",
        )
        .ok()
        .map(|(t, _)| t)
        .and_then(|text| cited_text(&text, c.first, c.last));
        if found.as_deref().map(hash).as_deref() == Some(r.hash.as_str()) {
            out.checked += 1;
            continue;
        }
        if let Some((p, first, last)) = relocate(mroot, &path, c.last - c.first + 1, &r.hash) {
            let at = commit.map_or("checkout", |s| s.get(..8).unwrap_or(s));
            let prefix = match &c.repo {
                Some(repo) => format!("{repo}:projects/miopen/"),
                None => String::new(),
            };
            out.moved
                .push((r.id.clone(), format!("{prefix}{p}:{first}-{last}@{at}")));
            continue;
        }
        let why = match found {
            None if !file.is_file() => format!("{path} is missing"),
            None => format!("{path} has no lines {}-{}", c.first, c.last),
            Some(t) => format!(
                "{path}:{}-{} differs from the lines the rule cites at {} (checkout at {}; now {}: {:?})",
                c.first,
                c.last,
                c.commit,
                commit.map_or("an unknown commit", |s| s.get(..8).unwrap_or(s)),
                hash(&t),
                t.chars().take(160).collect::<String>()
            ),
        };
        out.drifted.push((r.id.clone(), why));
    }
    out
}

/// Finds `n` consecutive lines with the rule's hash: elsewhere in the cited file, else in a
/// file of the same name anywhere in the checkout (a file moved between folders).
fn relocate(mroot: &Path, path: &str, n: u32, want: &str) -> Option<(String, u32, u32)> {
    let mut candidates = vec![path.to_string()];
    let name = path.rsplit('/').next().unwrap_or(path);
    let mut others = Vec::new();
    same_name(mroot, mroot, name, 0, &mut others);
    others.retain(|p| p != path);
    others.sort();
    candidates.extend(others);
    candidates.into_iter().find_map(|p| {
        let (text, _held) = rocpath_budget::input::read_text(
            &mroot.join(&p),
            &rocpath_budget::MemoryBudget::default(),
            64 << 20,
            "a MIOpen source file",
        )
        .ok()?;
        let first = find_window(&text, n, want)?;
        Some((p, first, first + n - 1))
    })
}

/// The first line of a window of `n` lines whose collapsed text has hash `want`.
fn find_window(text: &str, n: u32, want: &str) -> Option<u32> {
    let lines: Vec<String> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let n = n as usize;
    (0..lines.len().saturating_sub(n - 1)).find_map(|i| {
        let joined = lines[i..i + n]
            .iter()
            .filter(|l| !l.is_empty())
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" ");
        (hash(&joined) == want).then_some(i as u32 + 1)
    })
}

/// Paths (relative to `root`, `/`-separated) of files called `name` under `dir`; hidden
/// folders skipped, eight levels at most.
fn same_name(root: &Path, dir: &Path, name: &str, depth: u32, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let file_name = e.file_name();
        let Some(n) = file_name.to_str() else {
            continue;
        };
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() && !n.starts_with('.') && depth < 8 {
            same_name(root, &p, name, depth + 1, out);
        } else if ft.is_file() && n == name {
            if let Ok(rel) = p.strip_prefix(root) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
}

/// Lowers the overlay rules into the function table, grouped by release.
pub fn overlays(rules: &[RuleDef], lw: &mut Lowerer, rules_file: u32) -> Vec<Overlay> {
    let mut out: Vec<Overlay> = Vec::new();
    for (i, r) in rules.iter().enumerate() {
        let (Some(v), Some(f), Some(body)) = (&r.overlay, &r.function, &r.body) else {
            continue;
        };
        let id = lw.synthetic(
            f,
            r.class.as_deref(),
            &[],
            body,
            Site {
                file: rules_file,
                line: i as u32 + 1,
            },
        );
        match out.iter_mut().find(|o| &o.version == v) {
            Some(o) => {
                o.functions.push((f.clone(), id));
                o.rules.push(r.id.clone());
            }
            None => out.push(Overlay {
                version: v.clone(),
                functions: vec![(f.clone(), id)],
                rules: vec![r.id.clone()],
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_rules_file_that_does_not_read_says_which_rule_and_why() {
        assert!(load(rocpath_miopen::model::RULES).is_ok());
        let rule = |id: &str, cite: &str| {
            format!(
                "[[rule]]\nid = \"{id}\"\nsays = \"s\"\ncite = \"{cite}\"\nhash = \"sha256:0\"\n"
            )
        };
        let twice = rule("a", "src/x.cpp:1@2d1fd997") + &rule("a", "src/x.cpp:2@2d1fd997");
        assert_eq!(load(&twice).unwrap_err(), RulesError::Twice("a".into()));
        let bad = rule("b", "src/x.cpp");
        assert_eq!(
            load(&bad).unwrap_err().to_string(),
            r#"rule b: citation "src/x.cpp" is not path:line[-line]@commit"#
        );
        assert!(matches!(load("[[rule]]\nid = 3"), Err(RulesError::Toml(_))));
    }

    #[test]
    fn citations() {
        let c = parse_cite("src/solver.cpp:291-715@2d1fd997").unwrap();
        assert_eq!(
            (c.repo, c.path.as_str(), c.first, c.last),
            (None, "src/solver.cpp", 291, 715)
        );
        let c = parse_cite("ROCm/rocm-libraries:projects/miopen/src/x.hpp:12@00bcc23b").unwrap();
        assert_eq!(c.repo.as_deref(), Some("ROCm/rocm-libraries"));
        assert!(parse_cite("src/x.cpp@abc").is_none());
        assert!(parse_cite("src/x.cpp:9-3@abc").is_none());
        assert_eq!(cited_text("a\n  b  c\nd\n", 2, 3).unwrap(), "b c d");
        assert_eq!(cited_text("a\n", 2, 3), None);
    }

    #[test]
    fn drift_is_reported() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("src")).unwrap();
        std::fs::write(d.path().join("src/a.cpp"), "x\nreturn  true;\n").unwrap();
        let good = RuleDef {
            id: "r1".into(),
            says: String::new(),
            cite: "src/a.cpp:2@abc".into(),
            hash: hash("return true;"),
            build: None,
            value: None,
            overlay: None,
            function: None,
            class: None,
            body: None,
            fate: None,
            solvers: Vec::new(),
            lacks: None,
            targets: Vec::new(),
            calibrated: None,
        };
        let mut bad = good.clone();
        bad.id = "r2".into();
        bad.hash = hash("return false;");
        let mut gone = good.clone();
        gone.id = "r3".into();
        gone.cite = "src/b.cpp:1@abc".into();
        let c = check(&[good, bad, gone], d.path(), Some("abc"), "ROCm/MIOpen");
        assert_eq!(c.checked, 1);
        let ids: Vec<&str> = c.drifted.iter().map(|(i, _)| i.as_str()).collect();
        assert_eq!(ids, ["r2", "r3"]);
    }

    #[test]
    fn unchanged_lines_that_moved_are_found() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("src/conv")).unwrap();
        std::fs::create_dir_all(d.path().join("src/other")).unwrap();
        // Shifted by two lines in the same file.
        std::fs::write(
            d.path().join("src/a.cpp"),
            "x\n// new\n\nif(a)\n   return  true;\n",
        )
        .unwrap();
        // The cited file moved into another folder (as src/solver/*.cpp became src/solver/conv/).
        std::fs::write(d.path().join("src/conv/b.cpp"), "int f();\nreturn false;\n").unwrap();
        let rule = |id: &str, cite: &str, text: &str| RuleDef {
            id: id.into(),
            says: String::new(),
            cite: cite.into(),
            hash: hash(text),
            build: None,
            value: None,
            overlay: None,
            function: None,
            class: None,
            body: None,
            fate: None,
            solvers: Vec::new(),
            lacks: None,
            targets: Vec::new(),
            calibrated: None,
        };
        let rules = [
            rule("shifted", "src/a.cpp:2-3@abc", "if(a) return true;"),
            rule("moved", "src/b.cpp:2@abc", "return false;"),
            rule("gone", "src/a.cpp:1@abc", "return maybe;"),
        ];
        let c = check(&rules, d.path(), None, "ROCm/MIOpen");
        assert_eq!(
            c.moved,
            [
                ("shifted".to_string(), "src/a.cpp:4-5@checkout".to_string()),
                (
                    "moved".to_string(),
                    "src/conv/b.cpp:2-2@checkout".to_string()
                )
            ]
        );
        assert_eq!(c.drifted.len(), 1);
        assert!(c.drifted[0].1.contains("differs"), "{:?}", c.drifted);
    }
}
