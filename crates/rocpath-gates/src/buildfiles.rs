//! Build lists: CMake commands (`set(GPU_TARGETS …)`, `list(APPEND AMDGPU_TARGETS …)`,
//! `if(… MATCHES "gfx9")`, `list(FILTER … INCLUDE REGEX …)`), presets and other JSON
//! (`"AMDGPU_TARGETS": "gfx900;…"`), shell and Dockerfile lines (`rm …/*gfx90[06]*`,
//! `AMDGPU_TARGETS=…`), and Tensile logic folder names (`Logic/asm_full/vega10`).

use crate::model::{Effect, Kind, Pattern};
use crate::syntax::{Found, line_starts, references_near};
use crate::targets::{self, Match};

/// A CMake command: name, arguments (quotes removed, `;` lists split), 0-based row of each.
struct Command {
    name: String,
    row: usize,
    args: Vec<(String, usize, bool)>,
}

/// Splits CMake source into commands. Comments (`#`, `#[[ ]]`), quoted and bracket
/// arguments and nested parentheses are handled; a malformed file yields what was read.
fn commands(src: &[u8]) -> Vec<Command> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut row = 0usize;
    let n = src.len();
    while i < n {
        let c = src[i];
        if c == b'\n' {
            row += 1;
            i += 1;
            continue;
        }
        if c == b'#' {
            // Bracket comment `#[[ … ]]` or line comment.
            if src[i..].starts_with(b"#[[") {
                let end = find(src, i + 3, b"]]").unwrap_or(n);
                row += src[i..end].iter().filter(|&&b| b == b'\n').count();
                i = end + 2;
            } else {
                while i < n && src[i] != b'\n' {
                    i += 1;
                }
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < n && (src[i].is_ascii_alphanumeric() || src[i] == b'_') {
                i += 1;
            }
            let name = String::from_utf8_lossy(&src[s..i]).to_ascii_lowercase();
            let mut j = i;
            while j < n && (src[j] == b' ' || src[j] == b'\t') {
                j += 1;
            }
            if j < n && src[j] == b'(' {
                let start_row = row;
                let (args, end, rows) = arguments(src, j + 1, row);
                row = rows;
                i = end;
                out.push(Command {
                    name,
                    row: start_row,
                    args,
                });
            }
            continue;
        }
        i += 1;
    }
    out
}

fn find(src: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    memchr::memmem::find(src.get(from..)?, pat).map(|k| from + k)
}

/// Arguments from just after `(` to the matching `)`. Returns args, the end offset and the
/// row there.
fn arguments(
    src: &[u8],
    mut i: usize,
    mut row: usize,
) -> (Vec<(String, usize, bool)>, usize, usize) {
    let n = src.len();
    let mut args = Vec::new();
    let mut depth = 1;
    let mut cur = String::new();
    let mut cur_row = row;
    let push = |cur: &mut String, args: &mut Vec<(String, usize, bool)>, r: usize, q: bool| {
        if !cur.is_empty() || q {
            for part in cur.split(';') {
                if !part.is_empty() {
                    args.push((part.to_string(), r, q));
                }
            }
            cur.clear();
        }
    };
    while i < n {
        let c = src[i];
        match c {
            b'\n' => {
                push(&mut cur, &mut args, cur_row, false);
                row += 1;
                i += 1;
            }
            b' ' | b'\t' | b'\r' => {
                push(&mut cur, &mut args, cur_row, false);
                i += 1;
            }
            b'#' if cur.is_empty() => {
                while i < n && src[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                push(&mut cur, &mut args, cur_row, false);
                let s = i + 1;
                let start_row = row;
                i += 1;
                while i < n && src[i] != b'"' {
                    if src[i] == b'\\' {
                        i += 1;
                    }
                    if i < n && src[i] == b'\n' {
                        row += 1;
                    }
                    i += 1;
                }
                let mut q = String::from_utf8_lossy(&src[s..i.min(n)]).into_owned();
                push(&mut q, &mut args, start_row, true);
                i += 1;
            }
            b'(' => {
                depth += 1;
                cur.push('(');
                i += 1;
            }
            b')' => {
                depth -= 1;
                if depth == 0 {
                    push(&mut cur, &mut args, cur_row, false);
                    return (args, i + 1, row);
                }
                cur.push(')');
                i += 1;
            }
            _ => {
                if cur.is_empty() {
                    cur_row = row;
                }
                cur.push(c as char);
                i += 1;
            }
        }
    }
    push(&mut cur, &mut args, cur_row, false);
    (args, n, row)
}

fn is_target_var(v: &str) -> bool {
    let u = v.to_ascii_uppercase();
    u.contains("TARGET") || u.contains("ARCH") || u.contains("GPUS") || u.contains("GFX")
}

fn found(
    kind: Kind,
    effect: Effect,
    patterns: Vec<Pattern>,
    symbol: Option<String>,
    row: usize,
    src: &[u8],
    starts: &[usize],
) -> Found {
    let text = {
        let a = starts.get(row).copied().unwrap_or(src.len());
        let b = starts.get(row + 1).copied().unwrap_or(src.len());
        let s = String::from_utf8_lossy(src.get(a..b).unwrap_or(&[]))
            .trim()
            .to_string();
        s.chars().take(240).collect()
    };
    Found {
        line: row as u64 + 1,
        kind,
        effect,
        alternative: false,
        patterns,
        predicate: None,
        function: None,
        symbol,
        text,
        references: references_near(src, starts, row),
    }
}

/// Gates in a CMake file.
pub fn cmake(src: &[u8]) -> Vec<Found> {
    let starts = line_starts(src);
    let mut out = Vec::new();
    for c in commands(src) {
        match c.name.as_str() {
            "set" | "list" | "option" => out.extend(cmake_list(&c, src, &starts)),
            "if" | "elseif" | "while" => out.extend(cmake_condition(&c, src, &starts)),
            _ => {}
        }
    }
    out
}

/// What a `set`/`option`/`list` command does to a variable: the variable, the values it
/// names, and for a `list` that removes or filters, the effect.
type ListOperands<'c> = (String, Vec<&'c (String, usize, bool)>, Option<Effect>);

/// `set(VAR a b c [CACHE TYPE doc])` / `list(APPEND VAR a b)` / `list(FILTER VAR
/// INCLUDE|EXCLUDE REGEX re)`; `None` for a list operation that names no values.
fn list_operands(c: &Command) -> Option<ListOperands<'_>> {
    if c.name != "list" {
        let var = c.args.first().map(|a| a.0.clone()).unwrap_or_default();
        let vals = c
            .args
            .iter()
            .skip(1)
            .take_while(|a| !matches!(a.0.as_str(), "CACHE" | "PARENT_SCOPE" | "FORCE"))
            .collect();
        return Some((var, vals, None));
    }
    let arg_upper = |i: usize| {
        c.args
            .get(i)
            .map(|a| a.0.to_ascii_uppercase())
            .unwrap_or_default()
    };
    let var = c.args.get(1).map(|a| a.0.clone()).unwrap_or_default();
    match arg_upper(0).as_str() {
        "APPEND" | "PREPEND" | "INSERT" => Some((var, c.args.iter().skip(2).collect(), None)),
        "REMOVE_ITEM" => Some((var, c.args.iter().skip(2).collect(), Some(Effect::Excludes))),
        "FILTER" => {
            let e = if arg_upper(2) == "EXCLUDE" {
                Effect::Excludes
            } else {
                Effect::Includes
            };
            Some((var, c.args.iter().skip(4).collect(), Some(e)))
        }
        _ => None,
    }
}

/// The gates of a `set`/`option`/`list` command on a target variable, one per line so that
/// each entry can be blamed on its own.
fn cmake_list(c: &Command, src: &[u8], starts: &[usize]) -> Vec<Found> {
    let Some((var, vals, filter)) = list_operands(c) else {
        return Vec::new();
    };
    if !is_target_var(&var) {
        return Vec::new();
    }
    let regex_filter = c.name == "list"
        && filter.is_some()
        && c.args
            .get(3)
            .is_some_and(|a| a.0.eq_ignore_ascii_case("REGEX"));
    let mut pats: Vec<Pattern> = Vec::new();
    let mut first_row = None;
    for (v, r, _) in vals {
        let res = if regex_filter {
            targets::resolve_regex(v).map(|c| (c, Match::Regex))
        } else {
            targets::resolve_token(v)
        };
        if let Some((covers, how)) = res {
            first_row.get_or_insert(*r);
            pats.push(Pattern {
                text: v.clone(),
                how,
                covers,
            });
        }
    }
    let Some(row) = first_row else {
        return Vec::new();
    };
    let (kind, effect) = match filter {
        Some(e) if regex_filter => (Kind::BuildFilter, e),
        Some(e) => (Kind::BuildList, e),
        None => (Kind::BuildList, Effect::Includes),
    };
    let mut by_row: Vec<(usize, Vec<Pattern>)> = Vec::new();
    for p in pats {
        let r = c.args.iter().find(|a| a.0 == p.text).map_or(row, |a| a.1);
        match by_row.iter_mut().find(|(x, _)| *x == r) {
            Some((_, v)) => v.push(p),
            None => by_row.push((r, vec![p])),
        }
    }
    by_row
        .into_iter()
        .map(|(r, ps)| found(kind, effect, ps, Some(var.clone()), r, src, starts))
        .collect()
}

/// The gate of `if(GPU_TARGETS MATCHES "gfx9")` / `if(ARCH STREQUAL "gfx900")` (and
/// `elseif`, `while`), excluding under an odd number of `NOT`s.
fn cmake_condition(c: &Command, src: &[u8], starts: &[usize]) -> Option<Found> {
    let mut pats = Vec::new();
    let mut neg = false;
    for (k, (a, _, _)) in c.args.iter().enumerate() {
        if a == "NOT" {
            neg = !neg;
        }
        let op = k
            .checked_sub(1)
            .and_then(|p| c.args.get(p))
            .map(|x| x.0.to_ascii_uppercase());
        let res = match op.as_deref() {
            Some("MATCHES") => targets::resolve_regex(a).map(|v| (v, Match::Regex)),
            _ => targets::resolve_token(a),
        };
        if let Some((covers, how)) = res {
            pats.push(Pattern {
                text: a.clone(),
                how,
                covers,
            });
        }
    }
    if pats.is_empty() {
        return None;
    }
    let sym = c.args.first().map(|a| a.0.clone());
    let e = if neg {
        Effect::Excludes
    } else {
        Effect::Includes
    };
    let mut f = found(Kind::BuildFilter, e, pats, sym, c.row, src, starts);
    f.alternative = true;
    Some(f)
}

/// Gates in JSON (CMake presets and the like): `"…TARGETS…": "gfx900;gfx906"`.
pub fn json(src: &[u8]) -> Vec<Found> {
    let starts = line_starts(src);
    let mut out = Vec::new();
    for (row, w) in starts.iter().enumerate() {
        let end = starts.get(row + 1).copied().unwrap_or(src.len());
        let line = String::from_utf8_lossy(src.get(*w..end).unwrap_or(&[]));
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let key = k.trim().trim_matches('"');
        if !is_target_var(key) {
            continue;
        }
        let val = v.trim().trim_end_matches(',').trim().trim_matches('"');
        let Some((covers, how)) = targets::resolve_literal(val, false) else {
            continue;
        };
        let p = Pattern {
            text: val.to_string(),
            how,
            covers,
        };
        out.push(found(
            Kind::BuildList,
            Effect::Includes,
            vec![p],
            Some(key.to_string()),
            row,
            src,
            &starts,
        ));
    }
    out
}

/// Gates in shell scripts and Dockerfiles: removals (`rm …gfx90[06]…`) and target lists
/// (`AMDGPU_TARGETS=…`, `--offload-arch=gfx…`).
pub fn shell(src: &[u8]) -> Vec<Found> {
    let starts = line_starts(src);
    let mut out = Vec::new();
    for row in 0..starts.len() {
        let a = starts[row];
        let end = starts.get(row + 1).copied().unwrap_or(src.len());
        let line = String::from_utf8_lossy(src.get(a..end).unwrap_or(&[]));
        let t = line.trim();
        if t.starts_with('#') || !t.contains("gfx") {
            continue;
        }
        let removal = t.split_whitespace().any(|w| w == "rm");
        let mut pats = Vec::new();
        for w in
            t.split(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == '=' || c == ',')
        {
            if !w.contains("gfx") {
                continue;
            }
            let res = if removal && w.contains(['*', '?', '[']) {
                targets::resolve_glob(w).map(|c| (c, Match::Glob))
            } else if removal {
                // a path naming one target (`…/gfx900/…`, `…_gfx906.co`)
                w.split(['/', '_', '.', '-'])
                    .find_map(targets::resolve_token)
            } else {
                targets::resolve_literal(w, false)
            };
            if let Some((covers, how)) = res {
                pats.push(Pattern {
                    text: w.to_string(),
                    how,
                    covers,
                });
            }
        }
        if pats.is_empty() {
            continue;
        }
        let (kind, effect) = if removal {
            (Kind::ArtifactRemoval, Effect::Excludes)
        } else {
            (Kind::BuildList, Effect::Includes)
        };
        out.push(found(kind, effect, pats, None, row, src, &starts));
    }
    out
}

/// A Tensile logic folder for a target: a path component named by codename or gfx name
/// below a `Logic` folder (`library/src/blas3/Tensile/Logic/asm_full/vega10`).
pub fn tensile_logic(rel_dir: &str) -> Option<Pattern> {
    let comps: Vec<&str> = rel_dir.split('/').collect();
    let li = comps.iter().position(|c| c.eq_ignore_ascii_case("logic"))?;
    let last = *comps.last()?;
    if comps.len() <= li + 1 {
        return None;
    }
    let lower = last.to_ascii_lowercase();
    if let Some(c) = targets::codename(&lower) {
        return Some(Pattern {
            text: last.to_string(),
            how: Match::Codename,
            covers: c.iter().map(|s| s.to_string()).collect(),
        });
    }
    targets::processor_of(&lower).map(|p| Pattern {
        text: last.to_string(),
        how: Match::Exact,
        covers: vec![p.to_string()],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmake_lists_and_filters() {
        let src = br#"
# gfx803 is not built any more
set(DEFAULT_GPU_TARGETS
    gfx900
    gfx906:xnack-
    gfx1201)
set(MIOPEN_EMBED_DB "" CACHE STRING "Example gfx906_60;gfx900_56")
set(KDB_BZ2_FILES gfx942.kdb.bz2)
list(APPEND GPU_TARGETS "gfx942;gfx950")
list(FILTER AMDGPU_TARGETS INCLUDE REGEX "^gfx(94[0-9]|1201)$")
if(GPU_TARGETS MATCHES "gfx90a")
endif()
"#;
        let v = cmake(src);
        let lines: Vec<u64> = v.iter().map(|f| f.line).collect();
        assert_eq!(lines, [4, 5, 6, 9, 10, 11], "{v:?}");
        assert_eq!(v[0].symbol.as_deref(), Some("DEFAULT_GPU_TARGETS"));
        assert_eq!(v[3].patterns.len(), 2);
        assert_eq!(v[4].kind, Kind::BuildFilter);
        assert!(v[4].patterns[0].covers.contains(&"gfx1201".to_string()));
        assert_eq!(v[5].patterns[0].covers, ["gfx90a"]);
    }

    #[test]
    fn shell_json_logic() {
        let d = shell(b"RUN rm -f dist/lib/ollama/rocblas/library/*gfx90[06]*\nENV AMDGPU_TARGETS=gfx1100;gfx1201\n");
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].effect, Effect::Excludes);
        assert_eq!(d[0].patterns[0].covers, ["gfx900", "gfx906"]);
        let j = json(b"{\n  \"AMDGPU_TARGETS\": \"gfx900;gfx1201\",\n  \"name\": \"gfx\"\n}\n");
        assert_eq!(j.len(), 1);
        assert_eq!(j[0].line, 2);
        assert_eq!(
            tensile_logic("library/src/blas3/Tensile/Logic/asm_full/vega10")
                .unwrap()
                .covers,
            ["gfx900"]
        );
        assert!(tensile_logic("library/src/blas3/Tensile/Logic").is_none());
    }
}
