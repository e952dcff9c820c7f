//! Solutions of a catalog (`Serialization/ContractionSolution.hpp`): the kernel name, index,
//! the three predicates, the problem type and the size mapping fields selection reads.
//!
//! TensileLite solutions (hipBLASLt; `tensilelite/include/Tensile/Serialization/
//! ContractionSolution.hpp:55-70, 78-131, 155-193` as stored in the reference's sources) carry
//! more: `kernelName`, the transpositions and compute types in `problemType`, the bias, gradient
//! and amax flags the workspace needs, `workspaceSizePerElemBias` and `packBatchDims`; there
//! `persistentKernel` is optional (`mapOptional`, :106). A solution is read as TensileLite's when
//! it has `kernelName` (required there, absent from Tensile's).

use super::fields::{Fields, dec_err};
use super::pred::{self, DataType, HwLeaf, Pred, ProblemLeaf, TaskLeaf};
use super::{Error, int, list_len};
use rocpath_mpack::{Kind, Reader};

/// One solution.
#[derive(Debug, Clone)]
pub struct Solution {
    /// `index`: the solution's number in the library.
    pub index: i64,
    /// `name`: the kernel name (`Cijk_…`).
    pub name: String,
    /// `libraryLogicIndex`.
    pub library_logic_index: i64,
    /// `problemType`.
    pub problem_type: ProblemType,
    /// `hardwarePredicate`.
    pub hardware: Pred<HwLeaf>,
    /// `problemPredicate`.
    pub problem: Pred<ProblemLeaf>,
    /// `taskPredicate`.
    pub task: Pred<TaskLeaf>,
    /// `sizeMapping`.
    pub size_mapping: SizeMapping,
    /// TensileLite `kernelName` (absent from Tensile catalogs).
    pub kernel_name: Option<String>,
}

/// `problemType`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProblemType {
    /// `operationIdentifier`.
    pub operation: String,
    /// `aType`, `bType`, `cType`, `dType`.
    pub types: [DataType; 4],
    /// `highPrecisionAccumulate`.
    pub hpa: bool,
    /// `stridedBatched` (default true).
    pub strided_batched: bool,
    /// `useBeta`.
    pub use_beta: bool,
    /// TensileLite `transA` (false when absent).
    pub trans_a: bool,
    /// TensileLite `transB`.
    pub trans_b: bool,
    /// TensileLite `computeInputType`.
    pub compute_input: Option<DataType>,
    /// TensileLite `computeType`.
    pub compute: Option<DataType>,
    /// TensileLite `groupedGemm`.
    pub grouped_gemm: bool,
    /// TensileLite `useBias` (0 when absent).
    pub use_bias: i64,
    /// TensileLite `useGradient`.
    pub use_gradient: bool,
    /// TensileLite `outputAmaxD`.
    pub output_amax_d: bool,
}

/// The `sizeMapping` fields that selection reads.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SizeMapping {
    /// `macroTile` x, y.
    pub macro_tile: [u64; 2],
    /// `depthU`.
    pub depth_u: u64,
    /// `globalSplitU`.
    pub global_split_u: u64,
    /// `streamK`.
    pub stream_k: i64,
    /// `streamKAtomic`.
    pub stream_k_atomic: i64,
    /// `persistentKernel`.
    pub persistent_kernel: i64,
    /// `sourceKernel`: built from source (`.hsaco`) rather than assembly (`.co`).
    pub source_kernel: bool,
    /// `workspaceSizePerElemC`.
    pub workspace_per_elem_c: u64,
    /// `globalAccumulation`.
    pub global_accumulation: i64,
    /// TensileLite `workspaceSizePerElemBias`.
    pub workspace_per_elem_bias: u64,
    /// `packBatchDims` (bit 0: batch packed into X, bit 1: into Y).
    pub pack_batch_dims: i64,
    /// `persistentKernelAlongBatch`.
    pub persistent_kernel_along_batch: bool,
}

/// Reads the `solutions` array.
pub(super) fn read_all(rd: &mut Reader<'_>) -> Result<Vec<Solution>, Error> {
    let n = list_len(rd)?;
    let mut out = Vec::with_capacity(n.min(1 << 14));
    for _ in 0..n {
        out.push(read(rd)?);
    }
    Ok(out)
}

pub(super) fn read(rd: &mut Reader<'_>) -> Result<Solution, Error> {
    let f = Fields::read(rd)?;
    let hardware = pred::read(&mut f.req("hardwarePredicate")?, pred::hw_leaf, 0)?;
    let problem = pred::read(&mut f.req("problemPredicate")?, pred::problem_leaf, 0)?;
    let task = match f.get("taskPredicate") {
        Some(mut r) if pred::is_map(&r) => pred::read(&mut r, pred::task_leaf, 0)?,
        _ => Pred::True,
    };
    let kernel_name = match f.get("kernelName") {
        Some(mut r) => Some(r.str()?.to_string()),
        None => None,
    };
    let lite = kernel_name.is_some();
    Ok(Solution {
        index: int(&mut f.req("index")?)?,
        name: f.req("name")?.str()?.to_string(),
        library_logic_index: match f.get("libraryLogicIndex") {
            Some(mut r) if r.peek()? == Kind::Int => int(&mut r)?,
            _ => -1,
        },
        problem_type: problem_type(&Fields::read(&mut f.req("problemType")?)?)?,
        hardware,
        problem,
        task,
        size_mapping: size_mapping(&Fields::read(&mut f.req("sizeMapping")?)?, lite)?,
        kernel_name,
    })
}

fn flag(f: &Fields<'_>, key: &str, default: bool) -> Result<bool, Error> {
    Ok(match f.get(key) {
        Some(mut r) => r.bool()?,
        None => default,
    })
}

fn problem_type(f: &Fields<'_>) -> Result<ProblemType, Error> {
    let t = |k: &str| -> Result<DataType, Error> { pred::data_type(&mut f.req(k)?) };
    Ok(ProblemType {
        operation: f.req("operationIdentifier")?.str()?.to_string(),
        types: [t("aType")?, t("bType")?, t("cType")?, t("dType")?],
        hpa: flag(f, "highPrecisionAccumulate", false)?,
        strided_batched: flag(f, "stridedBatched", true)?,
        use_beta: flag(f, "useBeta", true)?,
        trans_a: flag(f, "transA", false)?,
        trans_b: flag(f, "transB", false)?,
        compute_input: opt_type(f, "computeInputType")?,
        compute: opt_type(f, "computeType")?,
        grouped_gemm: flag(f, "groupedGemm", false)?,
        use_bias: opt_int(f, "useBias")?,
        use_gradient: flag(f, "useGradient", false)?,
        output_amax_d: flag(f, "outputAmaxD", false)?,
    })
}

fn opt_type(f: &Fields<'_>, key: &str) -> Result<Option<DataType>, Error> {
    match f.get(key) {
        Some(mut r) => Ok(Some(pred::data_type(&mut r)?)),
        None => Ok(None),
    }
}

fn opt_int(f: &Fields<'_>, key: &str) -> Result<i64, Error> {
    match f.get(key) {
        Some(mut r) if r.peek()? == Kind::Bool => Ok(i64::from(r.bool()?)),
        Some(mut r) => int(&mut r),
        None => Ok(0),
    }
}

fn req_int(f: &Fields<'_>, key: &str) -> Result<i64, Error> {
    if f.get(key).is_none() {
        return Err(dec_err(
            f.offset,
            &format!("no `{key}` in this sizeMapping"),
        ));
    }
    opt_int(f, key)
}

fn size_mapping(f: &Fields<'_>, lite: bool) -> Result<SizeMapping, Error> {
    let mut mt = f.req("macroTile")?;
    let off = mt.offset();
    let n = list_len(&mut mt)?;
    if n < 2 {
        return Err(dec_err(off, "macroTile with fewer than two values"));
    }
    let x = int(&mut mt)? as u64;
    let y = int(&mut mt)? as u64;
    Ok(SizeMapping {
        macro_tile: [x, y],
        depth_u: req_int(f, "depthU")? as u64,
        global_split_u: req_int(f, "globalSplitU")? as u64,
        stream_k: opt_int(f, "streamK")?,
        stream_k_atomic: opt_int(f, "streamKAtomic")?,
        persistent_kernel: if lite {
            opt_int(f, "persistentKernel")?
        } else {
            req_int(f, "persistentKernel")?
        },
        source_kernel: req_int(f, "sourceKernel")? != 0,
        workspace_per_elem_c: req_int(f, "workspaceSizePerElemC")? as u64,
        global_accumulation: opt_int(f, "globalAccumulation")?,
        workspace_per_elem_bias: opt_int(f, "workspaceSizePerElemBias")? as u64,
        pack_batch_dims: opt_int(f, "packBatchDims")?,
        persistent_kernel_along_batch: opt_int(f, "persistentKernelAlongBatch")? != 0,
    })
}
