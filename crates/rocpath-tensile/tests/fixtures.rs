//! Real Tensile libraries from Debian's rocBLAS 6.4.4 and hipBLASLt 7.1.1 packages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_tensile::summarize;
use rocpath_testdata::codeobjects_dir;

#[test]
fn lazy_index_and_solution_files() {
    let Some(dir) = codeobjects_dir() else { return };
    let read = |n: &str| std::fs::read(dir.join(n)).unwrap();

    let lazy = summarize(
        "x.dat",
        &read("rocblas4-6.4.4_TensileLibrary_lazy_gfx90a.dat"),
    )
    .unwrap();
    assert!(lazy.is_lazy_index());
    assert_eq!(lazy.library_type.as_deref(), Some("Hardware"));
    assert_eq!(lazy.processors.iter().collect::<Vec<_>>(), ["gfx90a"]);
    assert_eq!(lazy.cu_counts.iter().collect::<Vec<_>>(), [&104]);
    assert!(
        lazy.placeholders
            .iter()
            .any(|p| p == "TensileLibrary_Type_BB_HPA_Contraction_l_Alik_Bjlk_Cijk_Dijk_gfx90a")
    );
    assert!(lazy.placeholders.iter().any(|p| p.ends_with("_fallback")));

    let bb = summarize("x.dat", &read("rocblas4-6.4.4_TensileLibrary_Type_BB_HPA_Contraction_l_Alik_Bjlk_Cijk_Dijk_gfx90a.dat")).unwrap();
    assert_eq!(bb.solutions, 7);
    assert_eq!(bb.solutions_by_processor.get("*"), Some(&7));
    assert_eq!(
        bb.problem_types.keys().collect::<Vec<_>>(),
        ["Contraction_l_Alik_Bjlk_Cijk_Dijk BB_HPA"]
    );
    assert!(
        bb.solution_list[0]
            .kernel
            .starts_with("Cijk_Alik_Bjlk_BBS_BH_MT16x160x32_MI16x16x16x1")
    );

    let ss = summarize(
        "x.dat",
        &read(
            "rocblas4-6.4.4_TensileLibrary_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1102.dat",
        ),
    )
    .unwrap();
    assert_eq!(ss.solutions, 1);
    assert_eq!(
        ss.problem_types.keys().collect::<Vec<_>>(),
        ["Contraction_l_Ailk_Bjlk_Cijk_Dijk SS"]
    );

    let lt = summarize("x.dat", &read("hipblaslt-7.1.1_TensileLibrary_SS_SS_UA_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1201.dat")).unwrap();
    assert_eq!(lt.solutions, 1);
    assert_eq!(lt.solution_list[0].index, Some(62781));
}

#[test]
fn prefixes_are_errors_not_panics() {
    let Some(dir) = codeobjects_dir() else { return };
    let data = std::fs::read(dir.join("rocblas4-6.4.4_TensileLibrary_lazy_gfx90a.dat")).unwrap();
    for cut in (0..data.len()).step_by(31) {
        assert!(summarize("x.dat", &data[..cut]).is_err(), "cut {cut}");
    }
}

#[test]
fn yaml_and_msgpack_agree() {
    let Some(dir) = codeobjects_dir() else { return };
    let data = std::fs::read(dir.join("rocblas4-6.4.4_TensileLibrary_lazy_gfx90a.dat")).unwrap();
    let v = rmpv::decode::read_value(&mut &data[..]).unwrap();
    // Re-express the file as YAML (JSON is YAML) and summarize both.
    fn to_json(v: &rmpv::Value) -> String {
        match v {
            rmpv::Value::Map(m) => format!(
                "{{{}}}",
                m.iter()
                    .map(|(k, v)| format!("{}: {}", to_json(k), to_json(v)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            rmpv::Value::Array(a) => {
                format!("[{}]", a.iter().map(to_json).collect::<Vec<_>>().join(", "))
            }
            rmpv::Value::String(s) => format!("{:?}", s.as_str().unwrap()),
            other => other.to_string(),
        }
    }
    let yaml = to_json(&v);
    let a = summarize("x.dat", &data).unwrap();
    let b = summarize("x.yaml", yaml.as_bytes()).unwrap();
    assert_eq!(a, b);
}
