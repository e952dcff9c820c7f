#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Gates in small excerpts written here in the shapes real ROCm-stack code has (MIOpen
//! solvers and predicates, ggml-hip family macros and cc predicates, Ollama's Go lists,
//! Tensile logic folders, CMake target lists), plus bad input: non-UTF-8 sources, a huge
//! generated file, a folder that is not a checkout.

use rocpath_gates::{Effect, Kind, Layer, Options, Verdict, for_target, scan};
use std::path::Path;

fn write(dir: &Path, rel: &str, bytes: &[u8]) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

const XDLOPS_UTIL: &str = r#"// Written for rocpath's tests in the shape of an XDLops capability helper.
#pragma once
namespace solver {
static inline bool IsXdlopsSupport(const ExecutionContext& ctx)
{
    const auto name = ctx.GetStream().GetDeviceName();
    const bool ok = StartsWith(name, "gfx908") || StartsWith(name, "gfx90a") ||
                    StartsWith(name, "gfx94");
    return ok && !env::disabled(XDLOPS_SWITCH);
}
} // namespace solver
"#;

const XDL_SOLVER: &str = r#"#include "util.hpp"
namespace solver {
bool ConvImplicitGemmXdl::IsApplicable(const ExecutionContext& ctx, const Problem& p) const
{
    if(!IsXdlopsSupport(ctx))
        return false;
    return p.IsFp32();
}

bool ConvDirectNaive::IsApplicable(const ExecutionContext& ctx, const Problem&) const
{
    // gfx900 and gfx906 keep this path; everything else uses the tuned kernels
    if(ctx.GetStream().GetDeviceName() == "gfx1201")
        MIOPEN_THROW("not on this device");
    return true;
}
} // namespace solver
"#;

const GGML_LIKE: &str = r#"// Shaped like a HIP vendor header and a dispatch helper.
#if defined(__gfx1200__) || defined(__gfx1201__)
#define RDNA4
#endif

static bool use_dot4(const int cc) {
#if defined(RDNA4)
    return true;
#else
    return cc >= GGML_CUDA_CC_VEGA20;
#endif
}

static int pick(const int cc) {
    if (GGML_CUDA_CC_IS_RDNA4(cc)) {
        return 1;
    } else {
        return 0;
    }
}
"#;

const GO_LIST: &str = "package discover\n\n// Targets that need an override.\nvar iGPUTargets = map[string]struct{}{\n\t\"gfx1151\": {},\n\t\"gfx1103\": {},\n}\n\nfunc (d *Device) Supported(gfx string) bool {\n\tif strings.HasPrefix(gfx, \"gfx9\") {\n\t\treturn false\n\t}\n\treturn true\n}\n";

const CMAKE: &str = "set(DEFAULT_GPU_TARGETS \"gfx900;gfx906;gfx942;gfx1201\")\n";

#[test]
fn excerpts_read_as_three_layers() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "src/include/util.hpp", XDLOPS_UTIL.as_bytes());
    write(d, "src/solver/xdl.cpp", XDL_SOLVER.as_bytes());
    write(d, "ggml-cuda/common.cuh", GGML_LIKE.as_bytes());
    write(d, "discover/gpu.go", GO_LIST.as_bytes());
    write(d, "CMakeLists.txt", CMAKE.as_bytes());
    write(
        d,
        "library/src/blas3/Tensile/Logic/asm_full/vega10/kernels.yaml",
        b"- x\n",
    );
    write(
        d,
        "library/src/blas3/Tensile/Logic/asm_full/navi48/kernels.yaml",
        b"- x\n",
    );
    write(
        d,
        "tests/test_gfx.cpp",
        b"bool t(){ return name == \"gfx900\"; }\n",
    );
    let r = scan(&[d.to_path_buf()], &Options::default()).unwrap();
    assert!(
        r.gates.iter().all(|g| !g.path.starts_with("tests/")),
        "test folders are skipped"
    );

    // The XDLops predicate is resolved through its definition, not the MFMA table.
    let xdl = r
        .gates
        .iter()
        .find(|g| g.function.as_deref() == Some("ConvImplicitGemmXdl::IsApplicable"))
        .unwrap();
    assert_eq!(xdl.kind, Kind::Predicate);
    assert_eq!(
        xdl.covers,
        ["gfx908", "gfx90a", "gfx942", "gfx940", "gfx941"]
    );
    assert!(
        xdl.evidence
            .note
            .contains("definition at src/include/util.hpp:7"),
        "{}",
        xdl.evidence.note
    );
    assert_eq!(xdl.guards.as_deref(), Some("ConvImplicitGemmXdl"));
    // A comment naming gfx900 is not a gate; the throw excludes gfx1201.
    let naive: Vec<_> = r
        .gates
        .iter()
        .filter(|g| g.path == "src/solver/xdl.cpp" && g.kind == Kind::String)
        .collect();
    assert_eq!(naive.len(), 1);
    assert_eq!(naive[0].effect, Effect::Excludes);
    assert_eq!(naive[0].covers, ["gfx1201"]);

    let rows = for_target(&r, "gfx900");
    let find =
        |path: &str, line: Option<u64>| rows.iter().find(|x| x.path == path && x.line == line);
    // Build: in the CMake list and a Tensile logic folder.
    let cm = find("CMakeLists.txt", Some(1)).unwrap();
    assert_eq!(
        (cm.layer, cm.verdict, cm.named),
        (Layer::Build, Verdict::Includes, true)
    );
    let logic = rows.iter().find(|x| x.path.ends_with("vega10")).unwrap();
    assert_eq!(logic.verdict, Verdict::Includes);
    assert!(
        !rows
            .iter()
            .any(|x| x.path.ends_with("navi48") && x.verdict == Verdict::Includes)
    );
    // Selection: XDLops keeps gfx900 out (not listed); Fallback: the RDNA4 #if has an #else.
    let x = rows
        .iter()
        .find(|x| x.function.as_deref() == Some("ConvImplicitGemmXdl::IsApplicable"))
        .unwrap();
    assert_eq!(
        (x.layer, x.verdict, x.named),
        (Layer::Selection, Verdict::Excludes, false)
    );
    let fb = rows
        .iter()
        .find(|x| x.path == "ggml-cuda/common.cuh" && x.line == Some(7))
        .unwrap();
    assert_eq!(
        (fb.layer, fb.verdict),
        (Layer::Fallback, Verdict::FallsBack)
    );
    // `cc >= GGML_CUDA_CC_VEGA20` leaves gfx900 out, takes gfx906.
    let cmp = r.gates.iter().find(|g| g.kind == Kind::Compare).unwrap();
    assert!(
        cmp.covers.contains(&"gfx906".to_string()) && !cmp.covers.contains(&"gfx900".to_string())
    );
    // Go: a list in a variable and a HasPrefix that returns false.
    let go: Vec<_> = r
        .gates
        .iter()
        .filter(|g| g.language.as_str() == "go")
        .collect();
    assert_eq!(go.len(), 3, "{go:#?}");
    assert_eq!(go[0].symbol.as_deref(), Some("iGPUTargets"));
    assert_eq!(go[2].function.as_deref(), Some("Device.Supported"));
    assert_eq!(go[2].effect, Effect::Excludes);

    let rows = for_target(&r, "gfx1201");
    let rd = rows
        .iter()
        .find(|x| x.path == "ggml-cuda/common.cuh" && x.line == Some(2))
        .unwrap();
    assert_eq!(rd.verdict, Verdict::Includes);
    assert_eq!(
        rd.function.as_deref(),
        Some("RDNA4"),
        "the macro the block defines"
    );
    let pred = r
        .gates
        .iter()
        .find(|g| g.kind == Kind::Predicate && g.path.ends_with("common.cuh"))
        .unwrap();
    assert_eq!(pred.covers, ["gfx1200", "gfx1201"]);
    assert_eq!(pred.evidence.class, rocpath_evidence::Class::Inferred);
    assert!(pred.alternative);
}

#[test]
fn bad_input_is_reported_and_the_scan_goes_on() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    // Latin-1 comment, then a gate.
    let mut latin = b"// r\xe9sum\xe9 of the \xabgfx\xbb checks\nbool ok(const std::string& n)\n{\n    if(n == \"gfx906\")\n        return false;\n    return true;\n}\n".to_vec();
    latin.extend_from_slice(b"// \xff\xfe\n");
    write(d, "latin1.cpp", &latin);
    // A generated file over the limit.
    let mut huge = String::new();
    while huge.len() < 300_000 {
        huge.push_str("static const char* k = \"gfx900\";\n");
    }
    write(d, "generated/table.hpp", huge.as_bytes());
    // A binary file with a C++ name.
    write(d, "blob.h", b"\0\0gfx900\0");
    let r = scan(
        &[d.to_path_buf()],
        &Options {
            max_file_bytes: 200_000,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(r.gates.len(), 1, "{:#?}", r.gates);
    assert_eq!(r.gates[0].covers, ["gfx906"]);
    assert_eq!(r.gates[0].function.as_deref(), Some("ok"));
    assert!(
        r.issues
            .iter()
            .any(|i| i.path == "generated/table.hpp" && i.message.contains("limit"))
    );
    assert!(
        r.issues
            .iter()
            .any(|i| i.message.contains("not a git checkout"))
    );
    // A missing root is an error of the call, not a panic.
    assert!(scan(&[d.join("missing")], &Options::default()).is_err());
}

/// An ignore file that is a FIFO (a walk that applies it would wait forever) or holds more
/// patterns than the limit (each compiles to a matcher of several KiB) is not applied and is
/// named: at the root the checkout is read without ignore rules, in a subfolder that folder
/// is left out.
#[cfg(unix)]
#[test]
fn ignore_files_that_are_fifos_or_huge_are_named_not_applied() {
    let checkout = || {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "src/util.hpp", XDLOPS_UTIL.as_bytes());
        write(dir.path(), "sub/util.hpp", XDLOPS_UTIL.as_bytes());
        dir
    };
    let scan_one = |root: &Path| {
        let report = scan(&[root.to_path_buf()], &Options::default()).unwrap();
        let messages: Vec<String> = report.issues.iter().map(|i| i.message.clone()).collect();
        let read: Vec<String> = report.gates.iter().map(|g| g.path.clone()).collect();
        (messages, read)
    };
    let huge = checkout();
    let lines = "sub/\n".repeat(rocpath_budget::special::MAX_IGNORE_LINES + 1);
    write(huge.path(), ".gitignore", lines.as_bytes());
    let (messages, read) = scan_one(huge.path());
    assert!(
        messages
            .iter()
            .any(|m| m.contains(".gitignore: 10001 lines")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("ignore rules not applied")),
        "{messages:?}"
    );
    assert!(read.iter().any(|p| p.starts_with("sub/")), "{read:?}");

    let fifo = checkout();
    let made = std::process::Command::new("mkfifo")
        .arg(fifo.path().join("sub/.gitignore"))
        .status();
    assert!(made.unwrap().success(), "mkfifo");
    let (messages, read) = scan_one(fifo.path());
    assert!(
        messages
            .iter()
            .any(|m| m.contains("sub/.gitignore: a FIFO") && m.contains("folder is not read")),
        "{messages:?}"
    );
    assert!(read.iter().any(|p| p.starts_with("src/")), "{read:?}");
    assert!(!read.iter().any(|p| p.starts_with("sub/")), "{read:?}");
}

/// A file is read only when its size fits the run's memory budget; one that does not is
/// reported with the option that raises it, and the rest of the checkout is scanned.
#[test]
fn a_file_larger_than_the_memory_budget_is_reported_not_read() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/util.hpp", XDLOPS_UTIL.as_bytes());
    let big = XDLOPS_UTIL.repeat(5_000);
    write(dir.path(), "src/big.hpp", big.as_bytes());
    let opts = Options {
        memory: Some(rocpath_budget::MemoryBudget::new(1 << 20)),
        ..Options::default()
    };
    let report = scan(&[dir.path().to_path_buf()], &opts).unwrap();
    let read: Vec<&str> = report.gates.iter().map(|g| g.path.as_str()).collect();
    assert!(read.contains(&"src/util.hpp"), "{read:?}");
    assert!(!read.contains(&"src/big.hpp"), "{read:?}");
    let issue = report
        .issues
        .iter()
        .find(|i| i.path == "src/big.hpp")
        .expect("the big file is named");
    assert!(issue.message.contains("--max-memory"), "{}", issue.message);
}
