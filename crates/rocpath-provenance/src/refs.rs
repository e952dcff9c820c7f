//! References in commit messages and code comments: PR numbers (`(#1328)`, `Merge pull
//! request #12`), issue links, `#N` issue mentions, SWDEV ids — and whether each can be
//! checked by the public (links into private repositories cannot).

use std::sync::LazyLock;

pub use rocpath_docs::provenance::{Access, FoundIn, RefKind, Reference};

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

fn url_access(url: &str) -> (RefKind, Access) {
    let lower = url.to_ascii_lowercase();
    let kind = if lower.contains("/pull/") {
        RefKind::PullRequest
    } else if lower.contains("/issues/") || lower.contains("/browse/") {
        RefKind::Issue
    } else {
        RefKind::Link
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
            Access::NotPublic
        } else {
            Access::Public
        },
    )
}

/// Every reference in a text.
pub fn extract(text: &str, found_in: FoundIn) -> Vec<Reference> {
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
                kind: RefKind::InternalTicket,
                found_in,
                access: Access::NotPublic,
            });
        }
    }
    if let Some(re) = HASH_N.as_ref() {
        for c in re.captures_iter(text) {
            if let Some(n) = c.get(1) {
                push(Reference {
                    text: format!("#{}", n.as_str()),
                    kind: RefKind::Issue,
                    found_in,
                    access: Access::Unknown,
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
            FoundIn::Message,
        );
        let texts: Vec<(&str, &str)> = r
            .iter()
            .map(|x| (x.text.as_str(), x.access.as_str()))
            .collect();
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
