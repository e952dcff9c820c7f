//! strace output lines.
//!
//! ```text
//! 01:47:08.419501 openat(AT_FDCWD, "/…/libggml-hip.so", O_RDONLY|O_CLOEXEC) = 9
//! openat(AT_FDCWD, "librocblas.so.5", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)
//! 3269468 01:47:08.4 openat(AT_FDCWD, "/x", O_RDONLY <unfinished ...>
//! 3269468 01:47:08.5 <... openat resumed>) = 11
//! 1774265452.805432 openat2(AT_FDCWD, "/x", {flags=O_RDONLY, …}, 24) = 3
//! ```
//!
//! A line may start with a pid (`strace -f` without `-ff`, or `[pid N]`), then a timestamp
//! (`-t` `HH:MM:SS`, `-tt` `HH:MM:SS.ffffff`, `-ttt` epoch seconds), then the call.

/// One `openat`/`openat2`/`open` call, or half of one.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// A complete call.
    Open(Open),
    /// `… <unfinished ...>`: the path is known, the result comes later.
    Unfinished {
        /// pid from the line, if printed.
        pid: Option<u64>,
        /// Timestamp text.
        time: Option<String>,
        /// Path.
        path: String,
    },
    /// `<... openat resumed>) = N`: the result of an unfinished call.
    Resumed {
        /// pid from the line, if printed.
        pid: Option<u64>,
        /// Result.
        result: i64,
        /// errno name on failure.
        errno: Option<String>,
    },
}

/// An open call with its result.
#[derive(Debug, Clone, PartialEq)]
pub struct Open {
    /// pid from the line, if printed.
    pub pid: Option<u64>,
    /// Timestamp as printed.
    pub time: Option<String>,
    /// The path opened.
    pub path: String,
    /// Result (fd, or -1).
    pub result: i64,
    /// errno name on failure (`ENOENT`).
    pub errno: Option<String>,
}

impl Open {
    /// Whether the open succeeded.
    pub fn ok(&self) -> bool {
        self.result >= 0
    }
}

/// Seconds of a timestamp: `HH:MM:SS[.ffffff]` since midnight, or epoch seconds.
pub fn seconds(t: &str) -> Option<f64> {
    let p: Vec<&str> = t.split(':').collect();
    match p.as_slice() {
        [h, m, s] => Some(
            h.parse::<f64>().ok()? * 3600.0
                + m.parse::<f64>().ok()? * 60.0
                + s.parse::<f64>().ok()?,
        ),
        [s] => s.parse().ok(),
        _ => None,
    }
}

fn is_time(t: &str) -> bool {
    !t.is_empty()
        && t.bytes()
            .all(|c| c.is_ascii_digit() || c == b':' || c == b'.')
        && (t.contains(':') || t.contains('.'))
}

/// Unquotes strace's C-style string (`\"`, `\\`, `\n`, octal `\NNN`, hex `\xNN`).
fn unquote(s: &str) -> Option<(String, &str)> {
    let s = s.strip_prefix('"')?;
    let mut out: Vec<u8> = Vec::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                return Some((String::from_utf8_lossy(&out).into_owned(), &s[i + 1..]));
            }
            b'\\' if i + 1 < b.len() => {
                let c = b[i + 1];
                match c {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'x' if i + 3 < b.len() => {
                        let v = u8::from_str_radix(std::str::from_utf8(&b[i + 2..i + 4]).ok()?, 16)
                            .ok()?;
                        out.push(v);
                        i += 4;
                        continue;
                    }
                    b'0'..=b'7' => {
                        let end = (i + 1..(i + 4).min(b.len()))
                            .take_while(|&j| (b'0'..=b'7').contains(&b[j]))
                            .last()?;
                        let v = u8::from_str_radix(std::str::from_utf8(&b[i + 1..=end]).ok()?, 8)
                            .ok()?;
                        out.push(v);
                        i = end + 1;
                        continue;
                    }
                    other => out.push(other),
                }
                i += 2;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    None
}

fn result(s: &str) -> Option<(i64, Option<String>)> {
    let r = s
        .rsplit_once(") = ")
        .map(|(_, r)| r)
        .or_else(|| s.strip_prefix("= "))?;
    let mut it = r.split_whitespace();
    let n: i64 = it.next()?.parse().ok()?;
    let errno = it.next().filter(|e| e.starts_with('E')).map(str::to_string);
    Some((n, errno))
}

/// Parses one line. `None` for anything that is not an open call (signals, other syscalls,
/// exit lines).
pub fn parse(line: &str) -> Option<Call> {
    let mut rest = line.trim_start();
    let mut pid = None;
    if let Some(r) = rest.strip_prefix("[pid ") {
        let (p, r) = r.split_once(']')?;
        pid = p.trim().parse().ok();
        rest = r.trim_start();
    } else if let Some((first, r)) = rest.split_once(' ') {
        // A bare pid before the timestamp or the call.
        if !first.is_empty() && first.bytes().all(|c| c.is_ascii_digit()) && !first.contains('.') {
            let next = r.trim_start();
            if next.starts_with("open")
                || next.starts_with("<...")
                || next.split(' ').next().is_some_and(is_time)
            {
                pid = first.parse().ok();
                rest = next;
            }
        }
    }
    let mut time = None;
    if let Some((first, r)) = rest.split_once(' ') {
        if is_time(first) {
            time = Some(first.to_string());
            rest = r.trim_start();
        }
    }
    if let Some(r) = rest.strip_prefix("<... ") {
        if !(r.starts_with("openat resumed")
            || r.starts_with("openat2 resumed")
            || r.starts_with("open resumed"))
        {
            return None;
        }
        let (result, errno) = result(r)?;
        return Some(Call::Resumed { pid, result, errno });
    }
    let args = rest
        .strip_prefix("openat2(")
        .or_else(|| rest.strip_prefix("openat("))
        .or_else(|| rest.strip_prefix("open("))?;
    // openat: dirfd first; open: the path first.
    let path_at = if args.starts_with('"') {
        args
    } else {
        args.split_once(", ").map(|(_, p)| p)?
    };
    let (path, after) = unquote(path_at)?;
    if after.contains("<unfinished") {
        return Some(Call::Unfinished { pid, time, path });
    }
    let (result, errno) = result(after)?;
    Some(Call::Open(Open {
        pid,
        time,
        path,
        result,
        errno,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let c = parse(
            r#"01:47:08.419501 openat(AT_FDCWD, "/a/libggml-hip.so", O_RDONLY|O_CLOEXEC) = 9"#,
        )
        .unwrap();
        let Call::Open(o) = c else { panic!() };
        assert_eq!(
            (o.time.as_deref(), o.path.as_str(), o.result, o.ok()),
            (Some("01:47:08.419501"), "/a/libggml-hip.so", 9, true)
        );
        let Call::Open(o) = parse(r#"openat(AT_FDCWD, "librocblas.so.5", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)"#).unwrap() else {
            panic!()
        };
        assert_eq!(
            (o.time, o.result, o.errno.as_deref()),
            (None, -1, Some("ENOENT"))
        );
        assert!(matches!(
            parse(r#"3269468 01:47:08.4 openat(AT_FDCWD, "/x y\"z", O_RDONLY <unfinished ...>"#),
            Some(Call::Unfinished { pid: Some(3269468), path, .. }) if path == "/x y\"z"
        ));
        assert!(matches!(
            parse("[pid 42] 01:47:08.5 <... openat resumed>) = 11"),
            Some(Call::Resumed {
                pid: Some(42),
                result: 11,
                ..
            })
        ));
        assert!(
            matches!(parse(r#"1774265452.805432 openat2(AT_FDCWD, "/x", {flags=O_RDONLY}, 24) = 3"#), Some(Call::Open(o)) if o.path == "/x")
        );
        assert!(
            matches!(parse(r#"open("/etc/ld.so.cache", O_RDONLY) = 3"#), Some(Call::Open(o)) if o.path == "/etc/ld.so.cache")
        );
        assert_eq!(
            parse("01:47:08.399936 --- SIGURG {si_signo=SIGURG} ---"),
            None
        );
        assert_eq!(parse("+++ exited with 0 +++"), None);
        assert_eq!(
            parse(r#"openat(AT_FDCWD, "/\303\251", O_RDONLY) = 3"#)
                .map(|c| matches!(c, Call::Open(o) if o.path == "/é")),
            Some(true)
        );
        assert_eq!(
            seconds("01:47:09.972815").map(|s| (s * 1e6).round() as u64),
            Some(6_429_972_815)
        );
    }
}
