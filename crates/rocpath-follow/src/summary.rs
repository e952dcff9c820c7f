//! Where a trail ends, for a reader who wants the answer before the tree: the reads that
//! decide something (conditions, resolved ones first), the places where the value leaves the
//! repositories (each naming its boundary), and why the other branches stop.

use crate::model::{FollowDoc, Hop, HopEvidence, HopKind};

/// Why a branch of the tree stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stop {
    /// The value is not used further (a variable never read, a result dropped).
    FlowEnds,
    /// The value reaches something followed at another hop (a cycle or a join, a result
    /// followed from the call it returns to).
    Joined,
    /// The value reaches a construct the trail does not follow (named in the hop's note).
    NotFollowed,
    /// A limit (`--limit`, `--depth`, `--fan-out`) left the rest out.
    Limit,
}

impl Stop {
    /// As people read it.
    pub fn as_str(self) -> &'static str {
        match self {
            Stop::FlowEnds => "flow ends",
            Stop::Joined => "followed above",
            Stop::NotFollowed => "construct not followed",
            Stop::Limit => "limit",
        }
    }
}

/// A hop taken by a name alone: a field of that name whose type is not resolved, a JSON key,
/// a flag, a variable or a C field matched by name, one of several definitions of a called
/// name. (A call's result taken to depend on its argument, or what a condition decides, is an
/// inference about flow, not about which code is meant.)
fn is_name_match(h: &Hop) -> bool {
    h.evidence == HopEvidence::Inferred
        && matches!(
            h.kind,
            HopKind::Field
                | HopKind::Json
                | HopKind::Flag
                | HopKind::Env
                | HopKind::Cgo
                | HopKind::CallArg
        )
}

/// A call's result taken to depend on the argument (`h`, among its `siblings`) that the trail
/// does not bear out: the argument's own hop into the function called reaches no return of
/// that function. (A getter's `Uint("KEY", 0)` result is borne out: its key reaches the
/// function's return; a scheduler's `newServerFn(…, numParallel)` result is not.)
fn unshown_result(h: &Hop, siblings: &[Hop]) -> bool {
    fn returns(h: &Hop, f: &str) -> bool {
        h.children.iter().any(|c| {
            (c.kind == HopKind::Return && c.evidence == HopEvidence::CodeVerified && c.symbol == f)
                || returns(c, f)
        })
    }
    h.kind == HopKind::Return
        && h.evidence == HopEvidence::Inferred
        && !siblings
            .iter()
            .any(|s| s.kind == HopKind::CallArg && s.symbol == h.symbol && returns(s, &h.symbol))
}

/// The guesses on the way to a hop (itself included, the start left out), of two kinds: calls'
/// results the trail does not bear out — it followed the value into the function and saw it
/// not come back —, and name matches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Guesses {
    results: usize,
    names: usize,
}

/// Every hop of a start's tree, depth first, with its depth and the guesses on the way to it.
/// A decision reached through resolved hops is listed before one reached through a field of
/// the same name in another type, and any decision the value itself reaches before one
/// reached through a result that may not carry it.
fn guessed_walk(root: &Hop) -> Vec<(usize, Guesses, &Hop)> {
    fn go<'a>(h: &'a Hop, depth: usize, g: Guesses, out: &mut Vec<(usize, Guesses, &'a Hop)>) {
        out.push((depth, g, h));
        for c in &h.children {
            let g = Guesses {
                results: g.results + usize::from(unshown_result(c, &h.children)),
                names: g.names + usize::from(is_name_match(c)),
            };
            go(c, depth + 1, g, out);
        }
    }
    let mut out = Vec::new();
    go(root, 0, Guesses::default(), &mut out);
    out
}

/// Where a trail ends.
#[derive(Debug, Default)]
pub struct Ends<'d> {
    /// Conditions deciding on the value, each line once: those reached through no call result
    /// the trail does not bear out first, then through the fewest name matches, then by start,
    /// then the shallowest.
    pub decisions: Vec<&'d Hop>,
    /// Hops where the value leaves the repositories given (`unresolved`, the boundary in
    /// the note), in the order of the tree.
    pub boundaries: Vec<&'d Hop>,
    /// The other leaves and the hops cut by a limit, counted by why they stop.
    pub stops: Vec<(Stop, usize)>,
}

fn stop_of(h: &Hop) -> Option<Stop> {
    let note = h.note.as_deref().unwrap_or("");
    if note.contains("(--limit)") || note.contains("--depth limit") || note.contains("(--fan-out)")
    {
        return Some(Stop::Limit);
    }
    if !h.children.is_empty() {
        return None;
    }
    if note.contains("followed above") || note.contains("returned to the call") {
        return Some(Stop::Joined);
    }
    if note.contains("not followed") {
        return Some(Stop::NotFollowed);
    }
    Some(Stop::FlowEnds)
}

/// Where the trail of `doc` ends.
pub fn ends(doc: &FollowDoc) -> Ends<'_> {
    let mut e = Ends::default();
    let mut decisions: Vec<(Guesses, usize, usize, &Hop)> = Vec::new();
    let mut stops = std::collections::BTreeMap::new();
    // The starts come definition first: the decisions of an earlier start before a later one's.
    let walk = doc.hops.iter().enumerate().flat_map(|(start, r)| {
        guessed_walk(r)
            .into_iter()
            .map(move |(depth, guesses, h)| (start, depth, guesses, h))
    });
    for (start, depth, guesses, h) in walk {
        if h.kind == HopKind::Branch {
            decisions.push((guesses, start, depth, h));
        } else if h.evidence == HopEvidence::Unresolved {
            e.boundaries.push(h);
        } else if let Some(s) = stop_of(h) {
            *stops.entry(s).or_insert(0) += 1;
        }
    }
    decisions.sort_by_key(|(guesses, start, depth, h)| (*guesses, *start, *depth, h.id));
    // A condition reached twice (from two starts, or through a join) is listed once, where
    // it ranks first.
    let mut listed = std::collections::HashSet::new();
    e.decisions = decisions
        .into_iter()
        .map(|(_, _, _, h)| h)
        .filter(|h| listed.insert((h.path.as_str(), h.line)))
        .collect();
    e.stops = stops.into_iter().collect();
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(id: usize, line: u64, kind: HopKind, children: Vec<Hop>) -> Hop {
        Hop {
            id,
            path: "envconfig/config.go".into(),
            line,
            commit: None,
            text: String::new(),
            kind,
            evidence: HopEvidence::CodeVerified,
            symbol: "loadTimeout".into(),
            note: None,
            children,
        }
    }

    #[test]
    fn a_condition_reached_from_two_starts_is_listed_once_where_it_ranks_first() {
        // Shaped like `OLLAMA_LOAD_TIMEOUT`: the getter's start and the help text's both reach
        // `loadTimeout <= 0` (config.go:159).
        let start = |id: usize, line: u64| {
            hop(
                id,
                line,
                HopKind::Env,
                vec![hop(id + 1, 159, HopKind::Branch, vec![])],
            )
        };
        let doc = FollowDoc {
            spec: "OLLAMA_LOAD_TIMEOUT".into(),
            repos: Vec::new(),
            depth: 24,
            limit: 400,
            matched: 2,
            truncated: false,
            hops: vec![start(1, 151), start(3, 320)],
            skipped: Vec::new(),
            notes: Vec::new(),
        };
        let ids: Vec<usize> = ends(&doc).decisions.iter().map(|h| h.id).collect();
        assert_eq!(ids, vec![2]);
    }
}
