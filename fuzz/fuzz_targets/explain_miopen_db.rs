#![no_main]
//! MIOpen find-db text, find-db records, find-db keys and MIOpenDriver command lines from
//! arbitrary bytes: never a panic, and every key that parses serializes back to itself.
use libfuzzer_sys::fuzz_target;
use rocpath_explain::miopen::db;
use rocpath_miopen::{DriverCommand, Problem, Strictness};

fuzz_target!(|data: &[u8]| {
    let fdb = db::FindDb::from_bytes(data.to_vec());
    let keys: Vec<String> = fdb.keys().take(64).map(str::to_string).collect();
    for k in &keys {
        let _ = fdb.record(k);
        if let Ok(p) = Problem::from_fdb_key(k) {
            let _ = (p.network_config(), p.perf_db_key());
        }
    }
    let text = String::from_utf8_lossy(data);
    let _ = db::parse_record(&text);
    if let Ok(p) = Problem::from_fdb_key(&text) {
        assert_eq!(Problem::from_fdb_key(&p.fdb_key()).ok(), Some(p));
    }
    let args: Vec<&str> = text.split_whitespace().take(256).collect();
    for mode in [Strictness::Strict, Strictness::Tolerant] {
        let Ok(d) = DriverCommand::parse(&args, mode) else {
            continue;
        };
        for p in d.problems {
            let _ = Problem::from_fdb_key(&p.fdb_key());
        }
    }
});
