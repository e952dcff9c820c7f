//! References in commit messages and code comments: PR numbers (`(#1328)`, `Merge pull
//! request #12`), issue links, `#N` issue mentions, SWDEV ids — and whether each can be
//! checked by the public (links into private repositories cannot).

use serde::Serialize;
use std::sync::LazyLock;

/// One reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reference {
    /// As written (`https://github.com/ROCm/llvm-project-private/issues/389`, `#1328`,
    /// `SWDEV-411729`).
    pub text: String,
    /// `issue`, `pull_request`, `internal_ticket`, `link`.
    pub kind: &'static str,
    /// Where it was found: `subject`, `message`, `comment`.
    pub found_in: &'static str,
    /// `public`, `not publicly verifiable` (a private repository or an internal tracker),
    /// or `unknown` (a bare `#N`: public only if the repository's tracker is).
    pub access: &'static str,
}

static URL: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(r#"https?://[^\s)>"'\]]+"#).ok());
static HASH_N: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(r"(?:^|[\s(\[,])#(\d{1,7})\b").ok());
static SWDEV: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(r"\b(?:SWDEV|swdev)-\d+\b").ok());
static PR_SUBJECT: LazyLock<Option<regex::Regex>> = LazyLock::new(|| {
    regex::Regex::new(r"\(#(\d+)\)\s*$|^Merge pull request #(\d+)|\(PR #(\d+)\)").ok()
});

/// The PR number of a subject line: `… (#1328)`, `Merge pull request #1328 from …`.
pub fn pr_number(subject: &str) -> Option<u64> {
    let c = PR_SUBJECT.as_ref()?.captures(subject.trim())?;
    (1..=3)
        .find_map(|i| c.get(i))
        .and_then(|m| m.as_str().parse().ok())
}

fn url_access(url: &str) -> (&'static str, &'static str) {
    let lower = url.to_ascii_lowercase();
    let kind = if lower.contains("/pull/") {
        "pull_request"
    } else if lower.contains("/issues/") || lower.contains("/browse/") {
        "issue"
    } else {
        "link"
    };
    let private = lower.contains("-private")
        || lower.contains("private/")
        || lower.contains("internal")
        || lower.contains("ontrack")
        || lower.contains("jira.")
        || lower.contains("amd.com/")
            && !lower.contains("rocm.docs.amd.com")
            && !lower.contains("www.amd.com");
    (
        kind,
        if private {
            "not publicly verifiable"
        } else {
            "public"
        },
    )
}

/// Every reference in a text.
pub fn extract(text: &str, found_in: &'static str) -> Vec<Reference> {
    let mut out: Vec<Reference> = Vec::new();
    let mut push = |r: Reference| {
        if !out.iter().any(|o| o.text == r.text) {
            out.push(r);
        }
    };
    if let Some(re) = URL.as_ref() {
        for m in re.find_iter(text) {
            let t = m.as_str().trim_end_matches(['.', ',', ';']);
            let (kind, access) = url_access(t);
            push(Reference {
                text: t.to_string(),
                kind,
                found_in,
                access,
            });
        }
    }
    if let Some(re) = SWDEV.as_ref() {
        for m in re.find_iter(text) {
            push(Reference {
                text: m.as_str().to_string(),
                kind: "internal_ticket",
                found_in,
                access: "not publicly verifiable",
            });
        }
    }
    if let Some(re) = HASH_N.as_ref() {
        for c in re.captures_iter(text) {
            if let Some(n) = c.get(1) {
                push(Reference {
                    text: format!("#{}", n.as_str()),
                    kind: "issue",
                    found_in,
                    access: "unknown",
                });
            }
        }
    }
    out
}

/// The organisation an e-mail address belongs to, by its domain (`amd.com` → `AMD`).
/// GitHub's no-reply addresses and personal mail providers say nothing.
pub fn affiliation(email: &str) -> Option<String> {
    let domain = email.rsplit_once('@')?.1.to_ascii_lowercase();
    if domain.ends_with("users.noreply.github.com")
        || [
            "gmail.com",
            "outlook.com",
            "hotmail.com",
            "yahoo.com",
            "protonmail.com",
            "qq.com",
            "163.com",
        ]
        .contains(&domain.as_str())
    {
        return None;
    }
    Some(match domain.as_str() {
        "amd.com" | "xilinx.com" => "AMD".to_string(),
        _ => domain,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pr_and_refs() {
        assert_eq!(
            pr_number("[MLIR] Disable gfx900 from non-xdlops solver (#1328)"),
            Some(1328)
        );
        assert_eq!(pr_number("Merge pull request #77 from a/b"), Some(77));
        assert_eq!(pr_number("no number here"), None);
        let r = extract(
            "Refer to https://github.com/ROCm/llvm-project-private/issues/389. Fixes #12, see SWDEV-411729 and https://github.com/ROCm/MIOpen/pull/1328",
            "message",
        );
        let texts: Vec<(&str, &str)> = r.iter().map(|x| (x.text.as_str(), x.access)).collect();
        assert_eq!(
            texts,
            [
                (
                    "https://github.com/ROCm/llvm-project-private/issues/389",
                    "not publicly verifiable"
                ),
                ("https://github.com/ROCm/MIOpen/pull/1328", "public"),
                ("SWDEV-411729", "not publicly verifiable"),
                ("#12", "unknown"),
            ]
        );
        assert_eq!(affiliation("zhuoryin@amd.com").as_deref(), Some("AMD"));
        assert_eq!(affiliation("1234+x@users.noreply.github.com"), None);
    }
}
