//! How deeply a source file nests, measured before it is parsed: the trail climbs from a node
//! to the function around it, and a syntax tree answers each parent step from the root down,
//! so a generated file nested hundreds of thousands of levels deep makes every climb cost the
//! square of its depth. Files nested past [`MAX_NESTING`] are left out of the index by name.

use crate::lang::Lang;

/// Deepest nesting read: brackets (`{`, `(`, `[`) outside strings and comments, and for Python
/// also indentation levels. Hand-written code stays far below it.
pub const MAX_NESTING: usize = 256;

/// The nesting depth of `src`, counted up to `MAX_NESTING + 1` (it stops there).
pub fn depth(lang: Lang, src: &[u8]) -> usize {
    let brackets = bracket_depth(lang, src);
    if lang == Lang::Python && brackets <= MAX_NESTING {
        brackets.max(indent_depth(src))
    } else {
        brackets
    }
}

fn bracket_depth(lang: Lang, src: &[u8]) -> usize {
    let (mut depth, mut max, mut i) = (0usize, 0usize, 0usize);
    while i < src.len() && max <= MAX_NESTING {
        let b = src[i];
        i = match b {
            b'"' | b'\'' => skip_quoted(src, i + 1, b),
            b'`' if lang == Lang::Go => skip_until(src, i + 1, b"`"),
            b'#' if lang == Lang::Python => skip_until(src, i + 1, b"\n"),
            b'/' if lang != Lang::Python && src.get(i + 1) == Some(&b'/') => {
                skip_until(src, i + 2, b"\n")
            }
            b'/' if lang != Lang::Python && src.get(i + 1) == Some(&b'*') => {
                skip_until(src, i + 2, b"*/")
            }
            b'{' | b'(' | b'[' => {
                depth += 1;
                max = max.max(depth);
                i + 1
            }
            b'}' | b')' | b']' => {
                depth = depth.saturating_sub(1);
                i + 1
            }
            _ => i + 1,
        };
    }
    max
}

/// Past the closing `quote` (a backslash escapes; a line break ends a broken literal).
fn skip_quoted(src: &[u8], mut i: usize, quote: u8) -> usize {
    while i < src.len() {
        match src[i] {
            b'\\' => i += 2,
            b'\n' => return i + 1,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// Past the first `end` at or after `i`.
fn skip_until(src: &[u8], i: usize, end: &[u8]) -> usize {
    memchr::memmem::find(src.get(i..).unwrap_or(&[]), end).map_or(src.len(), |k| i + k + end.len())
}

/// Python's indentation levels: a stack of the indentations of the enclosing blocks.
fn indent_depth(src: &[u8]) -> usize {
    let mut stack: Vec<usize> = Vec::new();
    let mut max = 0;
    for line in src.split(|&b| b == b'\n') {
        let width = line
            .iter()
            .take_while(|b| **b == b' ' || **b == b'\t')
            .map(|&b| if b == b'\t' { 8 } else { 1 })
            .sum::<usize>();
        let rest = &line[line.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
        if rest.is_empty() || rest[0] == b'#' {
            continue;
        }
        while stack.last().is_some_and(|&top| top >= width) {
            stack.pop();
        }
        stack.push(width);
        max = max.max(stack.len() - 1);
        if max > MAX_NESTING {
            break;
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_in_code_count_and_in_strings_and_comments_do_not() {
        assert_eq!(depth(Lang::Cpp, b"int f() { if (a[0]) { return 1; } }"), 3);
        assert_eq!(
            depth(
                Lang::Cpp,
                b"const char* s = \"{{{{\"; // ((((\n/* [[[ */ int x;"
            ),
            0
        );
        assert_eq!(depth(Lang::Go, b"s := `{{{` + \"(\\\"(\"; f(g(h()))"), 3);
        assert_eq!(depth(Lang::Python, b"x = '((('  # {{{\ny = [(1, 2)]\n"), 2);
    }

    #[test]
    fn python_indentation_is_nesting() {
        let src = b"def f():\n    if a:\n        if b:\n            return 1\n    return 2\n";
        assert_eq!(depth(Lang::Python, src), 3);
    }

    #[test]
    fn counting_stops_past_the_limit() {
        let deep = "{".repeat(1_000_000);
        assert_eq!(depth(Lang::Cpp, deep.as_bytes()), MAX_NESTING + 1);
        let py: String = (0..400)
            .map(|i| format!("{}if x:\n", " ".repeat(i)))
            .collect();
        assert_eq!(depth(Lang::Python, py.as_bytes()), MAX_NESTING + 1);
    }
}
