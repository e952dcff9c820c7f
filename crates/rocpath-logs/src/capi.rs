//! Output of small programs that call MIOpen's C API directly (the research's probes built
//! with `hipcc … -lMIOpen`), in the two shapes recorded:
//!
//! * `key=value` lines: `solution_count=2`, `returned=2`,
//!   `solution[0] id=89 algo=0 ws=200704 time=19.5963`, `workspace_size_89=200704`,
//!   `compile_solution_89=success`, `forward_immediate_89=success`,
//!   `first64_all_equal_64=true` (`y_host[i]=…` values carry nothing);
//! * call lines in blocks: `[y=int8]` opens a block, then
//!   `GetSolutionCount: miopenStatusSuccess (0), count=1`,
//!   `GetSolution: miopenStatusSuccess (0), returned=1`, `  [0] id=85 algo=1 ws=0 time=1000.0`,
//!   `Workspace(id=89): miopenStatusBadParm (3), ws=0`.
//!
//! Only these keys are read, so a stray `X=Y` line elsewhere is not mistaken for a probe.

use crate::text::{after, f64_of, s, split_once, trim, u64_of};
use std::borrow::Cow;

/// A `miopenStatus_t` as printed: `miopenStatusBadParm (3)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status<'a> {
    /// `miopenStatusBadParm`.
    pub name: Cow<'a, str>,
    /// `3`.
    pub code: u64,
}

impl Status<'_> {
    /// `miopenStatusSuccess` is code 0.
    pub fn ok(&self) -> bool {
        self.code == 0
    }
}

/// A recognised probe line.
#[derive(Debug, Clone, PartialEq)]
pub enum Event<'a> {
    /// `[y=int8]`: a block begins, with its label.
    Block(Cow<'a, str>),
    /// `solution_count=N` / `GetSolutionCount: <status>, count=N`.
    SolutionCount {
        /// Status of the call, when printed.
        status: Option<Status<'a>>,
        /// N.
        count: Option<u64>,
    },
    /// `returned=N` / `GetSolution: <status>, returned=N`.
    Returned {
        /// Status of the call, when printed.
        status: Option<Status<'a>>,
        /// N.
        count: Option<u64>,
    },
    /// `solution[i] id=… algo=… ws=… time=…` / `[i] id=… …`.
    Solution {
        /// Rank in the returned list.
        index: u64,
        /// Solution (solver) id.
        id: u64,
        /// Algorithm.
        algo: Option<u64>,
        /// Workspace bytes.
        workspace: Option<u64>,
        /// Time, ms.
        time_ms: Option<f64>,
    },
    /// A call for one solution: `Workspace(id=N): <status>, ws=B`, `workspace_size_N=B`,
    /// `compile_solution_N=success`, `forward_immediate_N=success`.
    Step {
        /// `workspace`, `compile`, `forward_immediate`.
        call: &'static str,
        /// The solution id.
        id: u64,
        /// Whether it succeeded.
        ok: bool,
        /// What was printed (`success`, `miopenStatusBadParm (3)`, the workspace bytes).
        value: Cow<'a, str>,
    },
    /// `<name>=true|false`: a check of the output (`first64_all_equal_64`).
    Check {
        /// The check.
        name: Cow<'a, str>,
        /// Its result.
        ok: bool,
    },
}

fn status(b: &[u8]) -> Option<Status<'_>> {
    let b = trim(b);
    let (name, rest) = split_once(b, b" (")?;
    let code = u64_of(rest.strip_suffix(b")")?)?;
    name.starts_with(b"miopenStatus").then(|| Status {
        name: s(name),
        code,
    })
}

/// `name: <status>, key=N`.
fn call_line<'a>(line: &'a [u8], name: &[u8], key: &[u8]) -> Option<(Status<'a>, Option<u64>)> {
    let r = after(line, name)?;
    let (st, rest) = split_once(r, b", ")?;
    let n = after(trim(rest), key).and_then(u64_of);
    Some((status(st)?, n))
}

/// `id=89 algo=0 ws=200704 time=19.5963` after the rank.
fn solution(index: u64, r: &[u8]) -> Option<Event<'_>> {
    let mut id = None;
    let (mut algo, mut workspace, mut time_ms) = (None, None, None);
    for w in r.split(|c| *c == b' ').filter(|w| !w.is_empty()) {
        let (k, v) = split_once(w, b"=")?;
        match k {
            b"id" => id = u64_of(v),
            b"algo" => algo = u64_of(v),
            b"ws" => workspace = u64_of(v),
            b"time" => time_ms = f64_of(v),
            _ => {}
        }
    }
    Some(Event::Solution {
        index,
        id: id?,
        algo,
        workspace,
        time_ms,
    })
}

/// `[i] …` or `solution[i] …`: the rank and the rest.
fn ranked(b: &[u8]) -> Option<(u64, &[u8])> {
    let r = b
        .strip_prefix(b"solution[")
        .or_else(|| b.strip_prefix(b"["))?;
    let (i, rest) = split_once(r, b"]")?;
    Some((u64_of(i)?, trim(rest)))
}

fn key_value(line: &[u8]) -> Option<Event<'_>> {
    let (k, v) = split_once(line, b"=")?;
    let v = trim(v);
    match k {
        b"solution_count" => {
            return Some(Event::SolutionCount {
                status: None,
                count: u64_of(v),
            });
        }
        b"returned" => {
            return Some(Event::Returned {
                status: None,
                count: u64_of(v),
            });
        }
        _ => {}
    }
    for (prefix, call) in [
        (&b"workspace_size_"[..], "workspace"),
        (b"compile_solution_", "compile"),
        (b"forward_immediate_", "forward_immediate"),
    ] {
        if let Some(id) = after(k, prefix).and_then(u64_of) {
            let ok = if call == "workspace" {
                u64_of(v).is_some()
            } else {
                v.eq_ignore_ascii_case(b"success") || v.eq_ignore_ascii_case(b"ok")
            };
            return Some(Event::Step {
                call,
                id,
                ok,
                value: s(v),
            });
        }
    }
    if crate::text::find(k, b"_all_equal_").is_some() && !k.contains(&b' ') {
        let ok = match v {
            b"true" => true,
            b"false" => false,
            _ => return None,
        };
        return Some(Event::Check { name: s(k), ok });
    }
    None
}

/// Recognises a probe line.
pub fn parse(line: &[u8]) -> Option<Event<'_>> {
    let t = trim(line);
    match *t.first()? {
        b'[' => {
            if let Some((i, rest)) = ranked(t) {
                return solution(i, rest);
            }
            let label = t.strip_prefix(b"[")?.strip_suffix(b"]")?;
            (label.contains(&b'=') && !label.contains(&b' ')).then(|| Event::Block(s(label)))
        }
        b'G' => {
            if let Some((st, n)) = call_line(t, b"GetSolutionCount: ", b"count=") {
                return Some(Event::SolutionCount {
                    status: Some(st),
                    count: n,
                });
            }
            let (st, n) = call_line(t, b"GetSolution: ", b"returned=")?;
            Some(Event::Returned {
                status: Some(st),
                count: n,
            })
        }
        b'W' => {
            let r = after(t, b"Workspace(id=")?;
            let (id, rest) = split_once(r, b"): ")?;
            let (st, ws) = split_once(rest, b", ws=")?;
            let st = status(st)?;
            Some(Event::Step {
                call: "workspace",
                id: u64_of(id)?,
                ok: st.ok(),
                value: if st.ok() {
                    s(trim(ws))
                } else {
                    Cow::Owned(format!("{} ({})", st.name, st.code))
                },
            })
        }
        b's' if t.starts_with(b"solution[") => {
            let (i, rest) = ranked(t)?;
            solution(i, rest)
        }
        b's' | b'r' | b'w' | b'c' | b'f' => key_value(t),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_value_probe() {
        assert_eq!(
            parse(b"solution_count=2"),
            Some(Event::SolutionCount {
                status: None,
                count: Some(2)
            })
        );
        assert_eq!(
            parse(b"solution[0] id=89 algo=0 ws=200704 time=19.5963"),
            Some(Event::Solution {
                index: 0,
                id: 89,
                algo: Some(0),
                workspace: Some(200704),
                time_ms: Some(19.5963)
            })
        );
        assert_eq!(
            parse(b"compile_solution_89=success"),
            Some(Event::Step {
                call: "compile",
                id: 89,
                ok: true,
                value: "success".into()
            })
        );
        assert_eq!(
            parse(b"forward_immediate_89=failed"),
            Some(Event::Step {
                call: "forward_immediate",
                id: 89,
                ok: false,
                value: "failed".into()
            })
        );
        assert_eq!(
            parse(b"workspace_size_89=200704"),
            Some(Event::Step {
                call: "workspace",
                id: 89,
                ok: true,
                value: "200704".into()
            })
        );
        assert_eq!(
            parse(b"first64_all_equal_64=true"),
            Some(Event::Check {
                name: "first64_all_equal_64".into(),
                ok: true
            })
        );
        assert_eq!(parse(b"y_host[0]=64"), None);
        assert_eq!(parse(b"command=MIOpenDriver conv"), None);
        assert_eq!(parse(b"first64_all_equal_64=maybe"), None);
    }

    #[test]
    fn call_lines_in_blocks() {
        assert_eq!(parse(b"[y=int8]"), Some(Event::Block("y=int8".into())));
        assert_eq!(
            parse(b"GetSolutionCount: miopenStatusSuccess (0), count=1"),
            Some(Event::SolutionCount {
                status: Some(Status {
                    name: "miopenStatusSuccess".into(),
                    code: 0
                }),
                count: Some(1)
            })
        );
        assert!(matches!(
            parse(b"GetSolution: miopenStatusSuccess (0), returned=2"),
            Some(Event::Returned { count: Some(2), .. })
        ));
        assert!(matches!(
            parse(b"  [1] id=85 algo=1 ws=0 time=1000.00000"),
            Some(Event::Solution {
                index: 1,
                id: 85,
                ..
            })
        ));
        assert_eq!(
            parse(b"Workspace(id=89): miopenStatusBadParm (3), ws=0"),
            Some(Event::Step {
                call: "workspace",
                id: 89,
                ok: false,
                value: "miopenStatusBadParm (3)".into()
            })
        );
        assert!(matches!(
            parse(b"Workspace(id=85): miopenStatusSuccess (0), ws=0"),
            Some(Event::Step { ok: true, .. })
        ));
        // hipBLASLt's bracketed prefix and other brackets are not blocks.
        assert_eq!(parse(b"[2026-03-18 10:00:00][HIPBLASLT][1][Info]"), None);
        assert_eq!(parse(b"[x y=1]"), None);
    }
}
