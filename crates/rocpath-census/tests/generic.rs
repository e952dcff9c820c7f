//! Generic-target code objects (code object v6, `tests/data/generic`, see PROVENANCE.md):
//! decoded with the generation of the processors they cover, instruction for instruction as
//! llvm-objdump-22 decodes them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_census::{Options, Progress, run};
use std::path::Path;

struct Quiet;
impl Progress for Quiet {}

#[test]
fn generic_objects_match_the_llvm_histograms() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/generic");
    let report = run(std::slice::from_ref(&dir), &Options::default(), &Quiet);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.code_objects.len(), 6);
    for c in &report.code_objects {
        let name = Path::new(&c.path)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let want =
            rocpath_testdata::read_histogram(&dir.join(format!("{name}.mnemonics.tsv"))).unwrap();
        assert_eq!(c.counts.mnemonics, want, "{name}");
        let processor = name.trim_start_matches("k_").trim_end_matches(".hsaco");
        assert_eq!(c.target.processor, processor);
        assert_eq!(c.counts.unknown, 0, "{name}");
    }
}
