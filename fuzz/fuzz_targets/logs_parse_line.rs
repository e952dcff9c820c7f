#![no_main]
//! Every rocpath-logs entry point on arbitrary bytes: the line splitter (with a tiny line
//! limit and uneven chunks), `parse_line` on every line, the key/record/command decoders and
//! the Tensile kernel-name decoder on the text of every line.
use libfuzzer_sys::fuzz_target;
use rocpath_miopen::{DriverCommand, Problem, findrec};
use rocpath_logs::{LineSplitter, parse_line};

fuzz_target!(|data: &[u8]| {
    let mut s = LineSplitter::new(97);
    let mut n = 0u64;
    let cut = data.first().map_or(7, |b| usize::from(*b % 13) + 1);
    for chunk in data.chunks(cut) {
        s.push(chunk, &mut |l| {
            n += 1;
            assert_eq!(l.no, n);
            assert!(l.bytes.len() <= 97);
            let _ = parse_line(l.bytes);
        });
    }
    s.finish(&mut |l| {
        let _ = parse_line(l.bytes);
    });
    for line in data.split(|b| *b == b'\n') {
        let _ = parse_line(line);
        let t = String::from_utf8_lossy(line);
        let _ = Problem::from_fdb_key(&t).map(|p| p.fdb_key());
        let _ = Problem::from_network_config(&t).map(|p| p.short());
        let _ = Problem::from_perf_db_key(&t).map(|p| p.network_config());
        let _ = DriverCommand::parse_line(&t);
        let _ = findrec::parse_record(&t);
        let _ = rocpath_logs::tensile::decode(&t);
    }
});
