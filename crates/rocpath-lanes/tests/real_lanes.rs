#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! MI25 vs Vega64 (seed-system.md §5.4): every median, p10/p90, mean, stdev and ratio the
//! author's summaries state, from the JSONL next to them.

use rocpath_lanes::{BOOTSTRAP_ITERATIONS, Metric, summarize_files};

fn f2(x: f64) -> String {
    format!("{x:.2}")
}

struct Expect {
    tag: &'static str,
    mi25: [&'static str; 7], // min, p10, median, p90, max, mean, stdev ("" = not stated)
    vega: [&'static str; 7],
    ratio: &'static str,
}

const SETS: &[Expect] = &[
    Expect {
        tag: "rocm_repeat_20260323_184113",
        mi25: ["184.92", "", "201.86", "", "210.94", "198.10", "10.69"],
        vega: ["236.73", "", "255.55", "", "258.33", "252.67", "8.07"],
        ratio: "1.266",
    },
    Expect {
        tag: "rocm_threads16_keepalive10m_repeat_20260323_192700",
        mi25: ["199.99", "", "221.55", "", "222.48", "216.11", "8.51"],
        vega: ["243.19", "", "243.37", "", "243.79", "243.42", "0.20"],
        ratio: "1.098",
    },
    Expect {
        tag: "rocm_forksame_repeat_20260323_202017",
        mi25: ["208.45", "", "219.45", "", "224.33", "216.98", "6.51"],
        vega: ["214.66", "", "248.50", "", "248.77", "241.58", "13.47"],
        ratio: "1.132",
    },
    Expect {
        tag: "rocm_forksame_thread4_20run_20260323_203048",
        mi25: [
            "201.46", "209.39", "215.24", "217.54", "217.76", "214.11", "4.17",
        ],
        vega: [
            "218.85", "240.81", "243.61", "244.39", "244.49", "241.88", "5.82",
        ],
        ratio: "1.132",
    },
    Expect {
        tag: "rocm_forksame_coldstart_10run_20260323_203158",
        mi25: [
            "197.87", "203.96", "213.95", "217.17", "223.38", "212.56", "6.62",
        ],
        vega: [
            "213.49", "224.87", "256.15", "259.96", "260.40", "247.02", "16.24",
        ],
        ratio: "1.197",
    },
    Expect {
        tag: "rocm_forksame_smi_verified_5run_20260323_203402",
        mi25: [
            "216.19", "217.47", "221.72", "221.88", "221.91", "220.21", "2.22",
        ],
        vega: [
            "233.25", "236.99", "243.31", "244.71", "244.77", "241.71", "4.31",
        ],
        ratio: "1.097",
    },
];

#[test]
fn every_summary_figure() {
    let Some(dir) = rocpath_testdata::fixture_dir("ollama-runs/mi25-vega64") else {
        return;
    };
    for e in SETS {
        let a = format!(
            "MI25={}",
            dir.join(format!("mi25_{}.jsonl", e.tag)).display()
        );
        let b = format!(
            "Vega64={}",
            dir.join(format!("vega64_{}.jsonl", e.tag)).display()
        );
        let (s, errors) = summarize_files(&[a, b], &Metric::EvalRate, 2000);
        assert!(errors.is_empty());
        for (lane, want) in s.lanes.iter().zip([e.mi25, e.vega]) {
            let st = lane.stats.unwrap();
            let got = [st.min, st.p10, st.median, st.p90, st.max, st.mean, st.stdev].map(f2);
            for (i, w) in want.iter().enumerate() {
                if !w.is_empty() {
                    assert_eq!(got[i], *w, "{} {} field {i}", e.tag, lane.name);
                }
            }
        }
        let c = &s.comparisons[0];
        assert_eq!((c.a.as_str(), c.b.as_str()), ("MI25", "Vega64"));
        assert_eq!(format!("{:.3}", c.ratio_of_medians), e.ratio, "{}", e.tag);
        assert!(c.ci_low <= c.ratio_of_medians && c.ratio_of_medians <= c.ci_high);
    }
}

#[test]
fn load_duration_and_total_duration_tables() {
    let Some(dir) = rocpath_testdata::fixture_dir("ollama-runs/mi25-vega64") else {
        return;
    };
    // coldstart load_duration (s): MI25 median 0.9933, Vega64 0.8465.
    let lanes = ["mi25", "vega64"].map(|h| {
        dir.join(format!(
            "{h}_rocm_forksame_coldstart_10run_20260323_203158.jsonl"
        ))
        .display()
        .to_string()
    });
    let (s, _) = summarize_files(&lanes, &Metric::LoadS, 100);
    assert_eq!(format!("{:.4}", s.lanes[0].stats.unwrap().median), "0.9933");
    assert_eq!(format!("{:.4}", s.lanes[1].stats.unwrap().median), "0.8465");
    assert_eq!(format!("{:.4}", s.lanes[1].stats.unwrap().p90), "0.9235");
    // repeat total_duration (s): MI25 median 1.8281 stdev 0.0983, Vega64 1.4918.
    let lanes = ["mi25", "vega64"].map(|h| {
        dir.join(format!("{h}_rocm_repeat_20260323_184113.jsonl"))
            .display()
            .to_string()
    });
    let (s, _) = summarize_files(&lanes, &Metric::TotalS, 100);
    assert_eq!(format!("{:.4}", s.lanes[0].stats.unwrap().median), "1.8281");
    assert_eq!(format!("{:.4}", s.lanes[0].stats.unwrap().stdev), "0.0983");
    assert_eq!(format!("{:.4}", s.lanes[1].stats.unwrap().median), "1.4918");
}

#[test]
fn vega64_distro_vs_fork_sets() {
    let Some(dir) = rocpath_testdata::fixture_dir("ollama-runs/mi25-vega64") else {
        return;
    };
    // worklog §14.1: medians and ratios per set; set 1 is the malformed file (records glued
    // with a literal `\n`).
    let sets = [
        ("204838", "242.805", "241.422", "1.0057", "1.0633"),
        ("205542", "242.106", "242.193", "0.9996", "1.0582"),
        ("205615", "241.800", "242.092", "0.9988", "1.0595"),
        ("205710", "241.955", "241.923", "1.0001", "1.0571"),
    ];
    let mut pooled_d = Vec::new();
    let mut pooled_f = Vec::new();
    for (ts, md, mf, r, total_ratio) in sets {
        let d = dir
            .join(format!(
                "vega64_distro11435_thread16_keep10m_20run_20260323_{ts}.jsonl"
            ))
            .display()
            .to_string();
        let f = dir
            .join(format!(
                "vega64_fork21445_thread16_keep10m_20run_20260323_{ts}.jsonl"
            ))
            .display()
            .to_string();
        // distro / fork: fork is lane a.
        let (s, _) = summarize_files(
            &[format!("fork={f}"), format!("distro={d}")],
            &Metric::EvalRate,
            1000,
        );
        assert_eq!(s.lanes[0].values.len(), 20, "{ts}");
        assert_eq!(format!("{:.3}", s.lanes[1].stats.unwrap().median), md);
        assert_eq!(format!("{:.3}", s.lanes[0].stats.unwrap().median), mf);
        assert_eq!(format!("{:.4}", s.comparisons[0].ratio_of_medians), r);
        if ts == "204838" {
            assert_eq!(s.lanes[0].literal_newline_records, 19);
            assert_eq!(s.lanes[0].meta_records, 20);
        }
        let (t, _) = summarize_files(
            &[format!("distro={d}"), format!("fork={f}")],
            &Metric::TotalS,
            1000,
        );
        assert_eq!(
            format!("{:.4}", t.comparisons[0].ratio_of_medians),
            total_ratio
        );
        pooled_d.push(d);
        pooled_f.push(f);
    }
    let (s, _) = summarize_files(
        &[
            format!("fork={}", pooled_f.join(",")),
            format!("distro={}", pooled_d.join(",")),
        ],
        &Metric::EvalRate,
        BOOTSTRAP_ITERATIONS,
    );
    assert_eq!(s.lanes[0].values.len(), 80);
    assert_eq!(
        format!("{:.3}", s.lanes[1].stats.unwrap().median),
        "242.094"
    );
    assert_eq!(
        format!("{:.3}", s.lanes[0].stats.unwrap().median),
        "241.923"
    );
    assert_eq!(
        format!("{:.4}", s.comparisons[0].ratio_of_medians),
        "1.0007"
    );
    assert_eq!(s.comparisons[0].verdict.as_str(), "no_difference_shown");
}

#[test]
fn failed_runs_are_counted() {
    let Some(dir) = rocpath_testdata::fixture_dir("ollama-runs/mi25-vega64") else {
        return;
    };
    // The first Vega64 repeat set: five runs that all failed (null fields, eval_count 0).
    let p = dir
        .join("vega64_rocm_repeat_20260323_183958.jsonl")
        .display()
        .to_string();
    let (s, _) = summarize_files(&[p], &Metric::EvalRate, 100);
    assert_eq!(
        (
            s.lanes[0].records,
            s.lanes[0].failed,
            s.lanes[0].values.len()
        ),
        (5, 5, 0)
    );
    assert!(s.lanes[0].stats.is_none());
    assert_eq!(s.lanes[0].evidence.class.as_str(), "unresolved");
}

#[test]
fn deterministic() {
    let Some(dir) = rocpath_testdata::fixture_dir("ollama-runs/mi25-vega64") else {
        return;
    };
    let lanes = ["mi25", "vega64"].map(|h| {
        dir.join(format!(
            "{h}_rocm_forksame_thread4_20run_20260323_203048.jsonl"
        ))
        .display()
        .to_string()
    });
    let a = serde_json::to_string(&summarize_files(&lanes, &Metric::EvalRate, 5000).0).unwrap();
    let b = serde_json::to_string(&summarize_files(&lanes, &Metric::EvalRate, 5000).0).unwrap();
    assert_eq!(a, b);
    let (s, _) = summarize_files(&lanes, &Metric::EvalRate, 5000);
    assert_eq!(s.comparisons[0].verdict.as_str(), "differ");
    assert!(s.comparisons[0].p_value < 0.001);
}
