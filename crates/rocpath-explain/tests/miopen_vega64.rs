#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Predictions from MIOpen's shipped gfx900_64 find-db against the real Vega64 logs
//! (`shared/fixtures/miopen-logs/vega64/`, MIOpen 3.5.1): every natural case agrees with the
//! solver the log shows, or the prediction says why it cannot be made.

use rocpath_explain::miopen::{self, Device, Query};
use rocpath_miopen::{DriverCommand, Strictness};
use std::path::{Path, PathBuf};

struct Case {
    name: String,
    command: Vec<String>,
    forced: bool,
    log: String,
}

fn cases(dir: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    let mut metas: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".meta.txt"))
        .collect();
    metas.sort();
    for m in metas {
        let meta = std::fs::read_to_string(&m).unwrap();
        let name = m
            .file_name()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches(".meta.txt")
            .to_string();
        let Some(cmd) = meta.lines().find_map(|l| l.strip_prefix("command=")) else {
            continue;
        };
        // `bash -lc set +e; MIOpenDriver …; ec=$?…` or a bare `MIOpenDriver …`.
        let Some(start) = cmd.find("MIOpenDriver") else {
            continue;
        };
        let cmd = cmd[start..].split(';').next().unwrap();
        let command: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
        let forced =
            command.iter().any(|a| a == "-S") || meta.contains("MIOPEN_DEBUG_FIND_ONLY_SOLVER");
        let log = String::from_utf8_lossy(
            &std::fs::read(dir.join(format!("{name}.log"))).unwrap_or_default(),
        )
        .into_owned();
        out.push(Case {
            name,
            command,
            forced,
            log,
        });
    }
    out
}

/// The solver the driver reports (`Solution: 14/ConvBinWinograd3x3U`).
fn logged_solver(log: &str) -> Option<String> {
    log.lines().find_map(|l| {
        let i = l.find("Solution: ")?;
        let rest = &l[i + 10..];
        let (_, name) = rest.split_once('/')?;
        Some(name.trim().to_string())
    })
}

#[test]
fn natural_vega64_cases_agree_or_say_why() {
    let Some(shared) = rocpath_testdata::shared_dir() else {
        rocpath_testdata::skip("shared data not found");
        return;
    };
    let dir = shared.join("fixtures/miopen-logs/vega64");
    let db = shared.join("data/miopen-db");
    if !dir.is_dir() || !db.is_dir() {
        rocpath_testdata::skip("vega64 logs or miopen-db not found");
        return;
    }
    let target = rocpath_arch::TargetId::parse("gfx900:xnack-").unwrap();
    let device = Device::new(&target, Some(64));
    let mut rows = Vec::new();
    let (mut agree, mut unresolved) = (0, 0);
    for c in cases(&dir) {
        if c.forced {
            continue;
        }
        let Ok(cmd) = DriverCommand::parse(&c.command, Strictness::Strict) else {
            rows.push(format!("{}\t-\t-\tnot a convolution command", c.name));
            continue;
        };
        let p = cmd.problems[0].clone();
        let key = p.fdb_key();
        // The key MIOpen looked up must be the key rocpath builds.
        if c.log.contains("Looking for key ") {
            assert!(
                c.log.contains(&format!("Looking for key {key} ")),
                "{}: MIOpen looked up another key than {key}",
                c.name
            );
        }
        let e = miopen::explain(&Query {
            device: device.clone(),
            db_dir: db.clone(),
            user_db: None,
            problem: p,
            forced: None,
            gates_doc: None,
        })
        .unwrap();
        assert_eq!(
            e.db_file.as_ref().unwrap().file.name,
            "gfx900_64.HIP.fdb.txt"
        );
        let logged = logged_solver(&c.log);
        let verdict = match (&e.predicted, &logged) {
            (Some(p), Some(l)) if &p.solver == l => {
                agree += 1;
                "agree".to_string()
            }
            (Some(p), Some(l)) => {
                panic!("{}: predicted {} but the log shows {l}", c.name, p.solver)
            }
            (Some(_), None) => "no solver in the log".to_string(),
            (None, _) => {
                let why = e
                    .no_prediction
                    .as_ref()
                    .expect("a reason when there is no prediction");
                assert!(!e.record_found, "{}: record but no prediction", c.name);
                assert_eq!(why.evidence.class.as_str(), "unresolved");
                unresolved += 1;
                format!(
                    "no record for {key} in gfx900_64.HIP.fdb.txt: measured Find / heuristic path"
                )
            }
        };
        rows.push(format!(
            "{}\t{}\t{}\t{}",
            c.name,
            logged.unwrap_or_else(|| "-".into()),
            e.predicted.map(|p| p.solver).unwrap_or_else(|| "-".into()),
            verdict
        ));
    }
    eprintln!("case\tlogged\tpredicted\tverdict");
    for r in &rows {
        eprintln!("{r}");
    }
    assert!(
        agree >= 3,
        "the FP32 1x1, FP32 3x3 and FP16 3x3 records predict their solvers"
    );
    assert!(
        unresolved >= 10,
        "the INT8, BF16 N=16 and group cases have no record"
    );
}

#[test]
fn forced_xdlops_on_gfx900_is_explained_by_the_gate() {
    let Some(shared) = rocpath_testdata::shared_dir() else {
        rocpath_testdata::skip("shared data not found");
        return;
    };
    let db = shared.join("data/miopen-db");
    if !db.is_dir() {
        return;
    }
    let cmd = DriverCommand::parse(
        &[
            "MIOpenDriver",
            "convfp16",
            "-n",
            "16",
            "-c",
            "64",
            "-H",
            "56",
            "-W",
            "56",
            "-k",
            "64",
            "-y",
            "3",
            "-x",
            "3",
            "-p",
            "1",
            "-q",
            "1",
            "-F",
            "1",
            "-S",
            "ConvHipImplicitGemmForwardV4R5Xdlops",
        ],
        Strictness::Strict,
    )
    .unwrap();
    let forced = cmd.forced_solver().map(str::to_string);
    let target = rocpath_arch::TargetId::parse("gfx900:xnack-").unwrap();
    let e = miopen::explain(&Query {
        device: Device::new(&target, Some(64)),
        db_dir: db.clone(),
        user_db: None,
        problem: cmd.problems[0].clone(),
        forced: forced.clone(),
        gates_doc: None,
    })
    .unwrap();
    assert!(e.predicted.is_none());
    let r = e
        .reasons
        .iter()
        .find(|r| r.solver == "ConvHipImplicitGemmForwardV4R5Xdlops")
        .expect("a gate reason for the forced solver");
    assert!(r.statement.contains("no mfma"), "{}", r.statement);
    assert_eq!(r.evidence.kind.as_str(), "code_verified");
    // gfx900 has 56- and 64-CU perf-dbs? Only gfx900_56.db ships: nearest CU.
    let pdb = e.perf_db_file.unwrap();
    assert_eq!(pdb.file.name, "gfx900_56.db");
    // The same problem on gfx90a passes the MFMA gate.
    let t = rocpath_arch::TargetId::parse("gfx90a").unwrap();
    let e = miopen::explain(&Query {
        device: Device::new(&t, Some(104)),
        db_dir: db,
        user_db: None,
        problem: cmd.problems[0].clone(),
        forced,
        gates_doc: None,
    })
    .unwrap();
    assert!(!e.reasons.iter().any(
        |r| r.solver == "ConvHipImplicitGemmForwardV4R5Xdlops" && r.statement.contains("mfma")
    ));
    assert_eq!(e.db_file.unwrap().file.name, "gfx90a68.HIP.fdb.txt");
}
