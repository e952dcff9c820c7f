//! A finding meets the claim on file: what the rule owns is replaced, what a person changed
//! is kept, and a change of counts, class or exceptions is dated in the history.

use super::Finding;
use crate::model::*;
use rocpath_evidence::Class;

fn counts(agree: u64, of: u64) -> String {
    if of == 0 {
        String::new()
    } else {
        format!("{agree}/{of}")
    }
}

fn class_name(c: Option<Class>) -> &'static str {
    match c {
        Some(Class::Confirmed) => "confirmed",
        Some(Class::Inferred) => "inferred",
        Some(Class::Unresolved) => "unresolved",
        Some(Class::Limited) => "limited",
        None => "-",
    }
}

fn derived_of(f: &Finding) -> Derived {
    Derived {
        key: f.key.clone(),
        agree: f.agree,
        of: f.of,
        exceptions: f.exceptions.clone(),
        class: Some(f.class),
        statement: f.statement.clone(),
    }
}

/// The claim a finding writes when no claim of its id is on file.
fn new_claim(f: &Finding, date: &str) -> Claim {
    let c = counts(f.agree, f.of);
    let sep = if c.is_empty() { "" } else { ": " };
    Claim {
        schema: CLAIM_SCHEMA.to_string(),
        id: f.id(),
        statement: f.statement.clone(),
        class: Some(f.class),
        kind: Some(f.kind),
        world: f.world.clone(),
        floor: f.floor,
        layer: f.layer,
        selection: f.selection,
        falsified_by: Text::default(),
        support: f.support.clone(),
        history: vec![HistoryEntry {
            date: date.to_string(),
            class: Some(f.class),
            kind: Some(f.kind),
            note: Text::new(
                format!("{} が導出{sep}{c}", f.rule),
                format!("derived by {}{sep}{c}", f.rule),
            ),
        }],
        derived_by: f.rule.to_string(),
        review: None,
        derived: Some(derived_of(f)),
    }
}

/// Whether a derived claim is as its rule wrote it: no review, and the statement and class
/// the rule generated.
pub fn untouched(c: &Claim) -> bool {
    let Some(d) = &c.derived else {
        return false;
    };
    c.review.is_none()
        && c.statement == d.statement
        && c.class == d.class
        && c.falsified_by.is_empty()
}

/// The claim to write for `f`, or `None` when the claim on file already says it. `date` dates
/// a history entry when the counts, the class or the exceptions changed.
pub fn merge(old: Option<&Claim>, f: &Finding, date: &str) -> Option<Claim> {
    let Some(old) = old else {
        return Some(new_claim(f, date));
    };
    let mut c = old.clone();
    let before = old.derived.clone().unwrap_or_default();
    // A statement differing from what the rule generated last time is a person's: kept.
    if old.statement.ja == before.statement.ja {
        c.statement.ja = f.statement.ja.clone();
    }
    if old.statement.en == before.statement.en {
        c.statement.en = f.statement.en.clone();
    }
    let class_edited = old.derived.is_some() && old.class != before.class;
    if !class_edited {
        c.class = Some(f.class);
        c.kind = Some(f.kind);
    }
    c.schema = CLAIM_SCHEMA.to_string();
    c.world = f.world.clone();
    c.floor = f.floor;
    c.layer = f.layer;
    c.selection = f.selection;
    c.support = f.support.clone();
    c.derived_by = f.rule.to_string();
    let now = derived_of(f);
    let moved = before.class != now.class
        || (before.agree, before.of) != (now.agree, now.of)
        || before.exceptions != now.exceptions;
    if moved {
        let was = format!(
            "{} {}",
            class_name(before.class),
            counts(before.agree, before.of)
        );
        let is = format!("{} {}", class_name(now.class), counts(now.agree, now.of));
        let kept = if class_edited {
            (
                format!("(人が付けたクラス {} を維持)", class_name(old.class)),
                format!(
                    " (the class a person set, {}, is kept)",
                    class_name(old.class)
                ),
            )
        } else {
            Default::default()
        };
        let date = match old.history.last() {
            Some(l) if l.date.as_str() > date => l.date.clone(),
            _ => date.to_string(),
        };
        c.history.push(HistoryEntry {
            date,
            class: (before.class != now.class && !class_edited).then_some(f.class),
            kind: None,
            note: Text::new(
                format!("再導出: {} → {}{}", was.trim(), is.trim(), kept.0),
                format!("derived again: {} → {}{}", was.trim(), is.trim(), kept.1),
            ),
        });
    }
    c.derived = Some(now);
    (c != *old).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocpath_evidence::Proof;

    fn finding(agree: u64, of: u64) -> Finding {
        Finding {
            rule: super::super::rule::CASE_GROUP,
            key: "k".into(),
            statement: Text::new(format!("{agree}/{of} ja"), format!("{agree}/{of} en")),
            class: if agree == of {
                Class::Confirmed
            } else {
                Class::Limited
            },
            kind: Proof::RuntimeVerified,
            world: "gfx900".into(),
            floor: None,
            layer: None,
            selection: Some(SelectionKind::Natural),
            agree,
            of,
            exceptions: (agree != of)
                .then(|| "c: x".to_string())
                .into_iter()
                .collect(),
            support: Vec::new(),
            cases: Vec::new(),
        }
    }

    #[test]
    fn unchanged_is_none_and_changes_are_dated() {
        let c = merge(None, &finding(2, 2), "2026-01-01").unwrap();
        assert_eq!(c.history.len(), 1);
        assert_eq!(merge(Some(&c), &finding(2, 2), "2026-02-01"), None);
        let d = merge(Some(&c), &finding(2, 3), "2026-02-01").unwrap();
        assert_eq!(d.class, Some(Class::Limited));
        assert_eq!(d.history.len(), 2);
        assert_eq!(d.history[1].date, "2026-02-01");
        assert_eq!(d.history[1].class, Some(Class::Limited));
        assert_eq!(
            d.history[1].note.en,
            "derived again: confirmed 2/2 → limited 2/3"
        );
    }

    #[test]
    fn a_persons_edits_survive() {
        let mut c = merge(None, &finding(2, 2), "2026-01-01").unwrap();
        c.statement.en = "My own words.".into();
        c.class = Some(Class::Inferred);
        c.review = Some(Review::Edited);
        c.falsified_by = Text::new("", "a run that selects another solver");
        let d = merge(Some(&c), &finding(3, 3), "2026-02-01").unwrap();
        assert_eq!(d.statement.en, "My own words.");
        assert_eq!(d.statement.ja, "3/3 ja");
        assert_eq!(d.class, Some(Class::Inferred));
        assert_eq!(d.review, Some(Review::Edited));
        assert_eq!(d.falsified_by, c.falsified_by);
        assert_eq!(d.derived.as_ref().unwrap().of, 3);
        assert_eq!(merge(Some(&d), &finding(3, 3), "2026-03-01"), None);
    }
}
