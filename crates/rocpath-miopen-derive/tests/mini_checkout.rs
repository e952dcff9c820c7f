#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
//! End to end on a small MIOpen-shaped checkout written here: the registry's positional ids,
//! `IsApplicable` bodies lowered and evaluated per device and environment, a construct the
//! reader does not translate left unresolved at its line, and a file that does not parse
//! reported without stopping the rest.

use rocpath_miopen::model::context::{Device, Env};
use rocpath_miopen::model::eval::{Evaluator, Input, Outcome};
use rocpath_miopen::{DataType, Problem};
use std::collections::HashMap;
use std::path::Path;

const REGISTRY: &str = r#"
namespace miopen { namespace solver {
inline SolverRegistrar::SolverRegistrar(IdRegistryData& registry)
{
    uint64_t id = 0; // 0 is reserved for invalid value.
    RegisterWithSolver(registry, ++id, conv::ConvMiniAsm{}, miopenConvolutionAlgoDirect);
    ++id; // removed ConvMiniOld
    RegisterWithSolver(registry, ++id, conv::ConvMiniXdlops{}, miopenConvolutionAlgoImplicitGEMM);
    RegisterWithSolver(registry, ++id, conv::ConvMiniLoop{}, miopenConvolutionAlgoDirect);
    RegisterWithSolver(registry, ++id, conv::ConvMiniTie{}, miopenConvolutionAlgoGEMM);
    RegisterWithSolver(registry, ++id, conv::ConvMiniOutParam{}, miopenConvolutionAlgoGEMM);
    RegisterWithSolver(registry, ++id, conv::ConvMiniUnknownLoop{}, miopenConvolutionAlgoDirect);
}
} }
"#;

const HEADER: &str = r#"
namespace miopen { namespace solver { namespace conv {
struct ConvMiniAsm final : ConvSolver
{
    bool IsApplicable(const ExecutionContext&, const miopen::conv::ProblemDescription&) const override;
    bool IsDynamic() const override { return true; }
};
struct ConvMiniXdlops final : ConvSolver
{
    bool IsApplicable(const ExecutionContext&, const miopen::conv::ProblemDescription&) const override;
};
struct ConvMiniLoop final : ConvSolver
{
    bool IsApplicable(const ExecutionContext&, const miopen::conv::ProblemDescription&) const override;
};
struct ConvMiniUnknownLoop final : ConvSolver
{
    bool IsApplicable(const ExecutionContext&, const miopen::conv::ProblemDescription&) const override;
};
struct ConvMiniTie final : ConvSolver
{
    bool IsApplicable(const ExecutionContext&, const miopen::conv::ProblemDescription&) const override;
};
struct ConvMiniOutParam final : ConvSolver
{
    bool IsApplicable(const ExecutionContext&, const miopen::conv::ProblemDescription&) const override;
};
} } }
"#;

/// The data-type predicates live in the problem description, as in MIOpen; the getters under
/// them are the evaluator's primitives.
const PROBLEM: &str = r#"
namespace miopen { namespace conv {
struct ProblemDescription : ProblemDescriptionBase
{
    bool IsFp32() const
    {
        return GetInDataType() == miopenFloat && GetWeightsDataType() == miopenFloat &&
               GetOutDataType() == miopenFloat;
    }
    bool IsFp16() const
    {
        return GetInDataType() == miopenHalf && GetWeightsDataType() == miopenHalf &&
               GetOutDataType() == miopenHalf;
    }
    bool IsBfp16() const
    {
        return GetInDataType() == miopenBFloat16 && GetWeightsDataType() == miopenBFloat16 &&
               GetOutDataType() == miopenBFloat16;
    }
};
} }
"#;

const SOLVERS: &str = r#"
MIOPEN_DECLARE_ENV_VAR_BOOL(MIOPEN_DEBUG_CONV_MINI_ASM)

namespace miopen { namespace solver { namespace conv {

static bool IsMiniShape(const ProblemDescription& problem)
{
    return problem.GetInChannels() % 4 == 0 && problem.GetWeightsHeight() == 3;
}

bool ConvMiniAsm::IsApplicable(const ExecutionContext& ctx, const ProblemDescription& problem) const
{
    if(env::disabled(MIOPEN_DEBUG_CONV_MINI_ASM))
        return false;
    const auto device_name = ctx.GetStream().GetDeviceName();
    if(!(StartsWith(device_name, "gfx9") || device_name == "gfx1201"))
        return false;
    if(!problem.IsFp32())
        return false;
    return IsMiniShape(problem);
}

bool ConvMiniXdlops::IsApplicable(const ExecutionContext& ctx, const ProblemDescription& problem) const
{
    const auto device_name = ctx.GetStream().GetDeviceName();
    if(!(device_name == "gfx908" || StartsWith(device_name, "gfx94")))
        return false;
    return problem.IsFp16() || problem.IsBfp16();
}

bool ConvMiniLoop::IsApplicable(const ExecutionContext& ctx, const ProblemDescription& problem) const
{
    if(!problem.IsFp32())
        return false;
    int n = 0;
    while(n < problem.GetInChannels())
        n += 7;
    int sum = 0;
    for(int i = 0; i < 4; ++i)
    {
        if(i == 2)
            continue;
        sum += i;
    }
    int tile = 0;
    try
    {
        if(problem.GetInChannels() % 3 != 0)
            MIOPEN_THROW("no tile");
        tile = 3;
    }
    catch(...)
    {
        tile = -1;
    }
    return n == 70 && sum == 4 && tile == -1;
}

bool ConvMiniUnknownLoop::IsApplicable(const ExecutionContext& ctx, const ProblemDescription& problem) const
{
    int n = 0;
    while(MiniUndefined(problem))
        n++;
    return n > 0;
}

static std::tuple<int, int> GemmSize(const ProblemDescription& problem)
{
    return std::make_tuple(problem.GetOutChannels(), problem.GetInChannels() * 9);
}

bool ConvMiniTie::IsApplicable(const ExecutionContext&, const ProblemDescription& problem) const
{
    int m = 0;
    int k = 0;
    std::tie(m, std::ignore) = GemmSize(problem);
    std::tie(std::ignore, k) = GemmSize(problem);
    return m % 32 == 0 && k % 64 == 0;
}

bool ConvMiniOutParam::IsApplicable(const ExecutionContext&, const ProblemDescription& problem) const
{
    int m = 0;
    FillGemmSize(problem, m);
    return m % 32 == 0;
}

} } }
"#;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn checkout() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "src/solver.cpp", REGISTRY);
    write(d.path(), "src/include/miopen/conv/solvers.hpp", HEADER);
    write(
        d.path(),
        "src/include/miopen/conv/problem_description.hpp",
        PROBLEM,
    );
    write(d.path(), "src/solver/conv/conv_mini.cpp", SOLVERS);
    // Not C++ at all: parsed with errors, the rest goes on.
    write(
        d.path(),
        "src/solver/conv/garbage.cpp",
        "}}}{{ \u{0} bool ( ; template<",
    );
    d
}

fn verdict(
    model: &rocpath_miopen::model::ir::Model,
    solver: &str,
    target: &str,
    t: DataType,
    env: &[&str],
) -> Outcome {
    let ev = Evaluator::new(model, None);
    let mut p =
        Problem::from_fdb_key("64-56-56-3x3-64-56-56-16-1x1-1x1-1x1-0-NCHW-FP32-F").unwrap();
    p.types = [t, t, t];
    let dev = Device::parse(target, Some(64)).unwrap();
    let env = Env::from_pairs(env.iter().copied()).unwrap();
    let build = HashMap::new();
    let inp = Input {
        problem: &p,
        device: &dev,
        env: &env,
        build: &build,
        always_enable_naive: false,
    };
    let s = model.solvers.iter().find(|s| s.name == solver).unwrap();
    ev.solver_fn(s, s.is_applicable.unwrap(), &inp, true)
        .outcome
}

#[test]
fn a_small_checkout_derives_into_a_model_that_decides() {
    let d = checkout();
    let (model, report) = rocpath_miopen_derive::derive(d.path(), &|_, _| {}).unwrap();
    let ids: Vec<(u64, &str)> = model
        .solvers
        .iter()
        .map(|s| (s.id, s.name.as_str()))
        .collect();
    assert_eq!(
        ids,
        [
            (1, "ConvMiniAsm"),
            (3, "ConvMiniXdlops"),
            (4, "ConvMiniLoop"),
            (5, "ConvMiniTie"),
            (6, "ConvMiniOutParam"),
            (7, "ConvMiniUnknownLoop"),
        ]
    );
    assert_eq!(report.solvers, 6);
    assert!(report.solvers_without_is_applicable.is_empty());
    // Every pinned rule cites a file this checkout does not have.
    assert_eq!(report.rules_checked, 0);
    assert!(!report.rules_drifted.is_empty());
    assert!(
        model
            .env
            .iter()
            .any(|e| e.name == "MIOPEN_DEBUG_CONV_MINI_ASM")
    );

    let yes = Outcome::Bool { v: true };
    let no = Outcome::Bool { v: false };
    assert_eq!(
        verdict(&model, "ConvMiniAsm", "gfx900:xnack-", DataType::Fp32, &[]),
        yes
    );
    assert_eq!(
        verdict(&model, "ConvMiniAsm", "gfx1201", DataType::Fp32, &[]),
        yes
    );
    assert_eq!(
        verdict(&model, "ConvMiniAsm", "gfx1030", DataType::Fp32, &[]),
        no
    );
    assert_eq!(
        verdict(&model, "ConvMiniAsm", "gfx900", DataType::Fp16, &[]),
        no
    );
    assert_eq!(
        verdict(
            &model,
            "ConvMiniAsm",
            "gfx900",
            DataType::Fp32,
            &["MIOPEN_DEBUG_CONV_MINI_ASM=0"]
        ),
        no
    );
    assert_eq!(
        verdict(&model, "ConvMiniXdlops", "gfx900", DataType::Fp16, &[]),
        no
    );
    assert_eq!(
        verdict(&model, "ConvMiniXdlops", "gfx942", DataType::Fp16, &[]),
        yes
    );
    // while, for with continue, try/catch: n = 70 for C = 64, sum = 0 + 1 + 3, the throw
    // (64 % 3 != 0) runs the handler.
    assert_eq!(
        verdict(&model, "ConvMiniLoop", "gfx900", DataType::Fp32, &[]),
        yes
    );
    // A loop whose condition cannot be decided: unresolved at its line.
    match verdict(&model, "ConvMiniUnknownLoop", "gfx900", DataType::Fp32, &[]) {
        Outcome::Unknown(u) => {
            let at = SOLVERS
                .lines()
                .position(|l| l.contains("while(MiniUndefined"))
                .unwrap()
                + 1;
            assert_eq!(u.line as usize, at, "{u:?}");
        }
        o => panic!("the loop cannot be decided: {o:?}"),
    }
    assert_eq!(
        verdict(&model, "ConvMiniLoop", "gfx900", DataType::Fp16, &[]),
        no
    );
}

#[test]
fn a_folder_that_is_not_miopen_is_refused_by_name() {
    let d = tempfile::tempdir().unwrap();
    let e = rocpath_miopen_derive::derive(d.path(), &|_, _| {}).unwrap_err();
    assert!(
        e.to_string().contains(&d.path().display().to_string()),
        "{e}"
    );
}

/// `batchnorm::ProblemDescription` has members of the names `conv::ProblemDescription` calls
/// on itself, and its header is read first (as in MIOpen): the call inside a
/// `conv::ProblemDescription` member must still reach the conv one.
#[test]
fn a_call_inside_a_class_reaches_its_own_member_not_a_namesake_in_another_namespace() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "src/solver.cpp",
        r#"
namespace miopen { namespace solver {
inline SolverRegistrar::SolverRegistrar(IdRegistryData& registry)
{
    uint64_t id = 0;
    RegisterWithSolver(registry, ++id, conv::ConvMiniHalf{}, miopenConvolutionAlgoDirect);
}
} }
"#,
    );
    write(
        d.path(),
        "src/include/miopen/batchnorm/problem_description.hpp",
        r#"
namespace miopen { namespace batchnorm {
struct ProblemDescription : ProblemDescriptionBase
{
    bool IsFp16() const { return false; }
};
} }
"#,
    );
    write(
        d.path(),
        "src/include/miopen/conv/problem_description.hpp",
        r#"
namespace miopen { namespace conv {
struct ProblemDescription : ProblemDescriptionBase
{
    bool IsFp16() const
    {
        return GetInDataType() == miopenHalf && GetWeightsDataType() == miopenHalf &&
               GetOutDataType() == miopenHalf;
    }
    bool IsHalfRequired() const
    {
        if(!IsFp16())
            return false;
        return true;
    }
};
} }
"#,
    );
    write(
        d.path(),
        "src/solver/conv/conv_mini_half.cpp",
        r#"
namespace miopen { namespace solver { namespace conv {
struct ConvMiniHalf final : ConvSolver
{
    bool IsApplicable(const ExecutionContext&, const miopen::conv::ProblemDescription&) const override;
};
bool ConvMiniHalf::IsApplicable(const ExecutionContext&, const ProblemDescription& problem) const
{
    return problem.IsHalfRequired();
}
} } }
"#,
    );
    let (model, _) = rocpath_miopen_derive::derive(d.path(), &|_, _| {}).unwrap();
    let required = model
        .functions
        .iter()
        .find(|f| f.name.ends_with("conv::ProblemDescription::IsHalfRequired"))
        .unwrap();
    let callee_classes: Vec<&str> = model
        .functions
        .iter()
        .filter(|f| f.name.ends_with("::IsFp16"))
        .filter_map(|f| f.class.as_deref())
        .collect();
    assert_eq!(
        callee_classes,
        ["miopen::conv::ProblemDescription"],
        "{}",
        required.name
    );
    assert_eq!(
        verdict(&model, "ConvMiniHalf", "gfx900", DataType::Fp16, &[]),
        Outcome::Bool { v: true }
    );
    assert_eq!(
        verdict(&model, "ConvMiniHalf", "gfx900", DataType::Fp32, &[]),
        Outcome::Bool { v: false }
    );
}
