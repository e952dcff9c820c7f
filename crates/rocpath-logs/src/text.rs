//! Small byte-string helpers shared by the parsers.

use std::borrow::Cow;

/// The line as text: borrowed when it is valid UTF-8, replaced characters otherwise.
pub fn lossy(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(b),
    }
}

/// Position of `needle` in `hay`. Log lines are short and needles are literals: a `memchr`
/// for the first byte and a compare beats building a searcher per call.
#[inline]
pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, _) = needle.split_first()?;
    if hay.len() < needle.len() {
        return None;
    }
    let last = hay.len() - needle.len();
    let mut i = 0;
    while i <= last {
        let j = i + memchr::memchr(first, &hay[i..=last])?;
        if &hay[j..j + needle.len()] == needle {
            return Some(j);
        }
        i = j + 1;
    }
    None
}

/// Position of the last `needle` in `hay`.
#[inline]
pub fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::rfind(hay, needle)
}

/// The part after `prefix`, if `b` starts with it.
#[inline]
pub fn after<'a>(b: &'a [u8], prefix: &[u8]) -> Option<&'a [u8]> {
    b.strip_prefix(prefix)
}

/// The parts before and after the first `sep`.
#[inline]
pub fn split_once<'a>(b: &'a [u8], sep: &[u8]) -> Option<(&'a [u8], &'a [u8])> {
    let i = find(b, sep)?;
    Some((&b[..i], &b[i + sep.len()..]))
}

/// The parts before and after the last `sep`.
#[inline]
pub fn rsplit_once<'a>(b: &'a [u8], sep: &[u8]) -> Option<(&'a [u8], &'a [u8])> {
    let i = rfind(b, sep)?;
    Some((&b[..i], &b[i + sep.len()..]))
}

/// Trims ASCII whitespace on both sides.
#[inline]
pub fn trim(b: &[u8]) -> &[u8] {
    b.trim_ascii()
}

/// Parses an unsigned decimal integer (surrounding spaces allowed).
pub fn u64_of(b: &[u8]) -> Option<u64> {
    let b = trim(b);
    if b.is_empty() || b.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    Some(v)
}

/// Parses a signed decimal integer.
pub fn i64_of(b: &[u8]) -> Option<i64> {
    let b = trim(b);
    match b.first()? {
        b'-' => u64_of(&b[1..])
            .and_then(|v| i64::try_from(v).ok())
            .map(|v| -v),
        b'+' => u64_of(&b[1..]).and_then(|v| i64::try_from(v).ok()),
        _ => u64_of(b).and_then(|v| i64::try_from(v).ok()),
    }
}

/// Parses an integer written in decimal or `0x` hexadecimal.
pub fn int_of(b: &[u8]) -> Option<i64> {
    let b = trim(b);
    if let Some(h) = b.strip_prefix(b"0x").or_else(|| b.strip_prefix(b"0X")) {
        if h.is_empty() || h.len() > 15 {
            return None;
        }
        let s = std::str::from_utf8(h).ok()?;
        return i64::from_str_radix(s, 16).ok();
    }
    i64_of(b)
}

/// Parses a floating-point number.
pub fn f64_of(b: &[u8]) -> Option<f64> {
    let b = trim(b);
    if b.is_empty() || b.len() > 40 {
        return None;
    }
    std::str::from_utf8(b).ok()?.parse().ok()
}

/// The text as `&str` when valid UTF-8 (the common case), else a lossy copy.
pub fn s(b: &[u8]) -> Cow<'_, str> {
    lossy(trim(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(u64_of(b" 42 "), Some(42));
        assert_eq!(u64_of(b"4x"), None);
        assert_eq!(u64_of(b"99999999999999999999999"), None);
        assert_eq!(int_of(b"0x3"), Some(3));
        assert_eq!(int_of(b"-7"), Some(-7));
        assert_eq!(int_of(b"0x"), None);
        assert_eq!(f64_of(b"1.065296"), Some(1.065296));
        assert_eq!(f64_of(b"3.40282e+38"), Some(3.40282e38));
        assert_eq!(f64_of(b"x"), None);
    }

    #[test]
    fn finding() {
        assert_eq!(find(b"abcabd", b"abd"), Some(3));
        assert_eq!(find(b"ab", b"abc"), None);
        assert_eq!(find(b"xxab", b"ab"), Some(2));
        assert_eq!(find(b"abc", b""), None);
        assert_eq!(find(b"aaa", b"aa"), Some(0));
    }

    #[test]
    fn splitting() {
        assert_eq!(
            split_once(b"a: b: c", b": "),
            Some((&b"a"[..], &b"b: c"[..]))
        );
        assert_eq!(
            rsplit_once(b"a: b: c", b": "),
            Some((&b"a: b"[..], &b"c"[..]))
        );
        assert_eq!(lossy(b"ok\xff"), "ok\u{fffd}");
    }
}
