//! Properties on arbitrary input: the lexical index never panics and names only what is in
//! the text; a follow through arbitrary (mostly broken) source never panics, stays within its
//! limits, and points only at lines of the files.

use proptest::prelude::*;
use rocpath_follow::index::{Lang, definitions, tokens};
use rocpath_follow::{Hop, Options, follow};

fn source() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(&b"func f(a int) int { b := a; if b > 0 { return g(b) }; return b }\n"[..]),
        Just(&b"x.F = C.int(y.N)\n"[..]),
        Just(&b"int f(int a) { int b = a; if (b) return h(b); return p.n; }\n"[..]),
        Just(&b"def f(a):\n    b = a\n    if b:\n        return g(b)\n"[..]),
        Just(&b"os.Setenv(\"K\", v); getenv(\"K\"); args = [\"-n\", v]\n"[..]),
        Just(&b"{ ( } ) \" ' \\ \x00 \xff\n"[..]),
        Just(&b"type T struct { F int `json:\"f\"` }\n"[..]),
    ];
    (
        proptest::collection::vec(piece, 0..12),
        proptest::collection::vec(any::<u8>(), 0..64),
    )
        .prop_map(|(ps, noise)| {
            let mut v: Vec<u8> = ps.concat();
            let at = v.len() / 2;
            v.splice(at..at, noise);
            v
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_lexical_index_names_only_what_is_there(src in source()) {
        for t in tokens(&src) {
            prop_assert!(memchr::memmem::find(&src, t.as_bytes()).is_some());
        }
        for lang in [Lang::Go, Lang::Cpp, Lang::Python] {
            let toks = tokens(&src);
            for d in definitions(lang, &src) {
                prop_assert!(toks.contains(&d), "{d}");
            }
        }
    }

    #[test]
    fn a_follow_through_arbitrary_source_stays_in_bounds(src in source(), ext in 0usize..3) {
        let d = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
        let name = ["a.go", "a.cpp", "a.py"][ext];
        std::fs::write(d.path().join(name), &src).unwrap_or_else(|e| unreachable!("{e}"));
        let lines = src.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        let opts = Options { cache: false, limit: 60, ..Options::default() };
        for spec in ["a", "b", "F", "K", "-n", &format!("{name}:1")] {
            if let Ok(doc) = follow(spec, &[d.path().to_path_buf()], &opts) {
                prop_assert!(doc.hop_count() <= opts.limit.max(doc.hops.len()));
                for h in doc.hops.iter().flat_map(Hop::walk).map(|(_, h)| h) {
                    prop_assert!(h.line >= 1 && h.line <= lines, "{} of {lines}", h.line);
                }
            }
        }
    }
}
