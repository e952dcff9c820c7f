//! Predicates of a catalog: the boolean combinators (`Predicates.hpp`: `TruePred`,
//! `FalsePred`, `And`, `Or`, `Not`) over leaves of three kinds — hardware
//! (`AMDGPUPredicates.hpp`), problem (`ContractionProblemPredicates.hpp`) and task
//! (`TaskPredicates.hpp`) — with the field names of `Serialization/ContractionPredicates.hpp`
//! and `Serialization/Predicates.hpp` (ROCm/Tensile@be49885f).
//!
//! TensileLite (hipBLASLt 7.1) adds leaves and changes two value shapes: `TypesEqual` holds five
//! types (the fifth is the compute-input type) and `GlobalSplitUCheckMinK` a pair `[depthU,
//! GSU]` (`tensilelite/include/Tensile/ContractionProblemPredicates.hpp:1247-1263, 1604-1640`,
//! names from `Serialization/ContractionPredicates.hpp:60-125`, as stored in the reference's
//! sources). Those shapes decode to their own variants so that each model reads only the shape
//! its library reads.

use super::fields::{Fields, dec_err};
use super::{Error, list_len};
use rocpath_mpack::{Kind, Reader};

/// A predicate over leaves `L`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Pred<L> {
    /// `TruePred`.
    True,
    /// `FalsePred`.
    False,
    /// `And`: all, in order.
    And(Vec<Pred<L>>),
    /// `Or`: any, in order.
    Or(Vec<Pred<L>>),
    /// `Not`.
    Not(Box<Pred<L>>),
    /// A leaf.
    Leaf(L),
}

/// Deepest predicate nesting accepted.
const MAX_PRED_DEPTH: u32 = 32;

/// Reads a predicate whose leaves `leaf` decodes.
pub(super) fn read<L>(
    rd: &mut Reader<'_>,
    leaf: fn(&Fields<'_>) -> Result<L, Error>,
    depth: u32,
) -> Result<Pred<L>, Error> {
    let f = Fields::read(rd)?;
    if depth > MAX_PRED_DEPTH {
        return Err(dec_err(f.offset, "predicates nested too deep"));
    }
    Ok(match f.type_name()? {
        "TruePred" => Pred::True,
        "FalsePred" => Pred::False,
        "And" | "Or" => {
            let mut r = f.req("value")?;
            let n = list_len(&mut r)?;
            let mut v = Vec::with_capacity(n.min(64));
            for _ in 0..n {
                v.push(read(&mut r, leaf, depth + 1)?);
            }
            if f.type_name()? == "And" {
                Pred::And(v)
            } else {
                Pred::Or(v)
            }
        }
        "Not" => Pred::Not(Box::new(read(&mut f.req("value")?, leaf, depth + 1)?)),
        _ => Pred::Leaf(leaf(&f)?),
    })
}

/// A hardware predicate leaf.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HwLeaf {
    /// `AMDGPU`: the device is an AMD GPU and the inner predicate holds for it.
    Amdgpu(Box<Pred<GpuLeaf>>),
    /// A leaf this reader does not know.
    Unknown(String),
}

/// A leaf of the predicate inside `AMDGPU`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum GpuLeaf {
    /// `Processor`: the processor equals.
    Processor(String),
    /// `CUCount`: the compute-unit count equals.
    CuCount(i64),
    /// `IsAPU`.
    IsApu(i64),
    /// `TargetProcessor`: the device runs kernels built for this processor.
    TargetProcessor(String),
    /// A leaf this reader does not know.
    Unknown(String),
}

pub(super) fn hw_leaf(f: &Fields<'_>) -> Result<HwLeaf, Error> {
    Ok(match f.type_name()? {
        "AMDGPU" => HwLeaf::Amdgpu(Box::new(read(&mut f.req("value")?, gpu_leaf, 1)?)),
        other => HwLeaf::Unknown(other.to_string()),
    })
}

fn gpu_leaf(f: &Fields<'_>) -> Result<GpuLeaf, Error> {
    let int = || -> Result<i64, Error> { super::int(&mut f.req("value")?) };
    Ok(match f.type_name()? {
        "Processor" => GpuLeaf::Processor(f.req("value")?.str()?.to_string()),
        "CUCount" => GpuLeaf::CuCount(int()?),
        "IsAPU" => GpuLeaf::IsApu(int()?),
        "TargetProcessor" => GpuLeaf::TargetProcessor(f.req("value")?.str()?.to_string()),
        other => GpuLeaf::Unknown(other.to_string()),
    })
}

/// A task predicate leaf (`TaskPredicates.hpp`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TaskLeaf {
    /// `WorkspaceCheck`: the solution's workspace fits the problem's.
    WorkspaceCheck,
    /// A leaf this reader does not know.
    Unknown(String),
}

pub(super) fn task_leaf(f: &Fields<'_>) -> Result<TaskLeaf, Error> {
    Ok(match f.type_name()? {
        "WorkspaceCheck" => TaskLeaf::WorkspaceCheck,
        other => TaskLeaf::Unknown(other.to_string()),
    })
}

/// Tensile's data types (`DataTypes.hpp`), by the names the catalogs use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataType {
    /// `Float` (f32).
    Float,
    /// `Double`.
    Double,
    /// `ComplexFloat`.
    ComplexFloat,
    /// `ComplexDouble`.
    ComplexDouble,
    /// `Half`.
    Half,
    /// `Int8x4` (packed).
    Int8x4,
    /// `Int32`.
    Int32,
    /// `BFloat16`.
    BFloat16,
    /// `Int8`.
    Int8,
    /// `Int64`.
    Int64,
    /// `XFloat32`.
    XFloat32,
    /// `Float8` (e4m3).
    Float8,
    /// `BFloat8` (e5m2).
    BFloat8,
    /// `Float8BFloat8` (mixed, hipBLASLt).
    Float8BFloat8,
    /// `BFloat8Float8` (mixed, hipBLASLt).
    BFloat8Float8,
    /// `None` (unset).
    None,
}

impl DataType {
    /// Parses a catalog name.
    pub fn parse(s: &str) -> Option<Self> {
        use DataType::*;
        Some(match s {
            "Float" => Float,
            "Double" => Double,
            "ComplexFloat" => ComplexFloat,
            "ComplexDouble" => ComplexDouble,
            "Half" => Half,
            "Int8x4" => Int8x4,
            "Int32" => Int32,
            "BFloat16" => BFloat16,
            "Int8" => Int8,
            "Int64" => Int64,
            "XFloat32" => XFloat32,
            "Float8" => Float8,
            "BFloat8" => BFloat8,
            "Float8BFloat8" => Float8BFloat8,
            "BFloat8Float8" => BFloat8Float8,
            "None" => None,
            _ => return Option::None,
        })
    }

    /// The catalog name.
    pub fn name(self) -> &'static str {
        use DataType::*;
        match self {
            Float => "Float",
            Double => "Double",
            ComplexFloat => "ComplexFloat",
            ComplexDouble => "ComplexDouble",
            Half => "Half",
            Int8x4 => "Int8x4",
            Int32 => "Int32",
            BFloat16 => "BFloat16",
            Int8 => "Int8",
            Int64 => "Int64",
            XFloat32 => "XFloat32",
            Float8 => "Float8",
            BFloat8 => "BFloat8",
            Float8BFloat8 => "Float8BFloat8",
            BFloat8Float8 => "BFloat8Float8",
            None => "None",
        }
    }

    /// Bytes per element (`DataTypeInfo::elementSize`).
    pub fn bytes(self) -> u64 {
        use DataType::*;
        match self {
            Double | ComplexFloat | Int64 => 8,
            ComplexDouble => 16,
            Float | Int8x4 | Int32 | XFloat32 => 4,
            Half | BFloat16 => 2,
            Int8 | Float8 | BFloat8 | Float8BFloat8 | BFloat8Float8 => 1,
            None => 0,
        }
    }

    /// Elements packed in one (`DataTypeInfo::packing`: 4 for `Int8x4`).
    pub fn packing(self) -> u64 {
        if self == DataType::Int8x4 { 4 } else { 1 }
    }

    /// Tensile's one-letter code in kernel and file names (`S`, `D`, `H`, …).
    pub fn code(self) -> &'static str {
        use DataType::*;
        match self {
            Float => "S",
            Double => "D",
            ComplexFloat => "C",
            ComplexDouble => "Z",
            Half => "H",
            Int8x4 => "4xi8",
            Int32 => "I",
            BFloat16 => "B",
            Int8 => "I8",
            Int64 => "I64",
            XFloat32 => "X",
            Float8 => "F8",
            BFloat8 => "B8",
            Float8BFloat8 => "F8B8",
            BFloat8Float8 => "B8F8",
            None => "",
        }
    }
}

pub(super) fn data_type(rd: &mut Reader<'_>) -> Result<DataType, Error> {
    let off = rd.offset();
    let s = rd.str()?;
    DataType::parse(s).ok_or_else(|| dec_err(off, &format!("unknown data type `{s}`")))
}

/// A value of a catalog that is a float, equal to another and hashed by its bits, so that
/// predicates holding one can be compared and grouped (two NaNs of the same bits are equal).
#[derive(Clone, Copy)]
pub struct Float(pub f64);

impl PartialEq for Float {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Float {}

impl std::hash::Hash for Float {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

impl std::fmt::Debug for Float {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A restriction on alpha or beta (`ScalarValueTypes.hpp`: `Any`, `1`, `-1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarValue {
    /// Any value.
    Any,
    /// Exactly 1.
    One,
    /// Exactly -1.
    NegativeOne,
}

impl ScalarValue {
    /// The category of a value (`toScalarValueEnum`).
    pub fn of(v: f64) -> Self {
        if v == 1.0 {
            ScalarValue::One
        } else if v == -1.0 {
            ScalarValue::NegativeOne
        } else {
            ScalarValue::Any
        }
    }

    /// The catalog name.
    pub fn name(self) -> &'static str {
        match self {
            ScalarValue::Any => "Any",
            ScalarValue::One => "1",
            ScalarValue::NegativeOne => "-1",
        }
    }
}

/// `BufferLoadOffsetLimitCheck`'s packet (`ContractionSolution.hpp: BufferLoadCheckPacket`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BufferLoadCheck {
    /// `ShiftPtrElemA`.
    pub shift_a: u64,
    /// `ShiftPtrElemB`.
    pub shift_b: u64,
    /// `DUorMT0`.
    pub du_or_mt0: u64,
    /// `DUorMT1`.
    pub du_or_mt1: u64,
}

/// A problem predicate leaf (`ContractionProblemPredicates.hpp`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ProblemLeaf {
    Free0SizeMultiple {
        index: u64,
        value: u64,
    },
    Free1SizeMultiple {
        index: u64,
        value: u64,
    },
    BatchSizeMultiple {
        index: u64,
        value: u64,
    },
    BatchSizeEqual {
        index: u64,
        value: u64,
    },
    /// A negative index counts from the last bound index.
    BoundSizeMultiple {
        index: i64,
        value: u64,
    },
    ProblemSizeEqual {
        index: u64,
        value: u64,
    },
    MaxProblemSizeGreaterThan(u64),
    LeadingFree0SizesGreaterOrEqual(u64),
    LeadingFree1SizesGreaterOrEqual(u64),
    SizeEqual {
        index: u64,
        value: u64,
    },
    SizeGreaterThan {
        index: u64,
        value: u64,
    },
    SizeLessThan {
        index: u64,
        value: u64,
    },
    SizeMultiple {
        index: u64,
        value: u64,
    },
    /// `min <= size < max`.
    SizeInRange {
        index: u64,
        min: u64,
        max: u64,
    },
    /// Tensor 0–3 (A–D), stride index, value.
    StrideEqual {
        tensor: u8,
        index: u64,
        value: u64,
    },
    LdcEqualsLdd,
    CEqualsD,
    AiGreaterThanEqual(Float),
    AiLessThanEqual(Float),
    AlphaValue(ScalarValue),
    BetaValue(ScalarValue),
    BetaZero,
    BetaOne,
    HighPrecisionAccumulate(bool),
    /// `Any`, `Assembly` or `Source`.
    KernelLanguageCompatible(String),
    DeterministicMode(bool),
    /// `Any`, `MFMA` or `VALU`.
    ArithmeticUnitCompatible(String),
    TypesEqual([DataType; 4]),
    OperationIdentifierEqual(String),
    BufferLoadOffsetLimitCheck(BufferLoadCheck),
    BufferStoreOffsetLimitCheck(u64),
    PersistentKernelCheck,
    GlobalSplitUCheckMinK(u64),
    CdStridesEqual,
    StridedBatched(bool),
    CuEfficiency,
    ExperimentalGrid,
    ExperimentalDTree,
    Fp16AltImpl,
    Fp16AltImplRound,
    F32XdlMathOp(DataType),
    EqualityMatching,
    StochasticRounding(bool),
    /// TensileLite `TypesEqual`: A, B, C, D and the compute-input type.
    TypesEqualCompute([DataType; 5]),
    /// TensileLite `GlobalSplitUCheckMinK`: `[depthU, GSU]` (GSU -1: automatic).
    GlobalSplitUCheckMinKGsu([i64; 2]),
    /// TensileLite `SynchronizerSizeCheck` `[MT0, MT1, stores, waves, ..., GSU]`.
    SynchronizerSizeCheck {
        index: u64,
        value: [i64; 6],
    },
    /// TensileLite `WorkgroupNumberCheck` `[MT0, MT1, GSU]`.
    WorkgroupNumberCheck {
        index: u64,
        value: [i64; 3],
    },
    /// `BufferLoadOffsetLimitCheck_Beta` (MT1).
    BufferLoadOffsetLimitCheckBeta(u64),
    AmaxDCheck(bool),
    GroupedGemm(bool),
    SwizzleTensorA(bool),
    SwizzleTensorB(bool),
    /// `DataTypeE`.
    DataTypeE(DataType),
    /// `UseGradient`.
    UseGradient(bool),
    /// `Activation`: an `ActivationType` name (`None`, `Hipblaslt_all`, …).
    Activation(String),
    ActivationComputeType(DataType),
    ActivationNoGuard(bool),
    /// `ActivationEnumWhiteList`: activation names.
    ActivationEnumWhiteList(Vec<String>),
    /// `UseBias` (0–3).
    UseBias(i64),
    UseE(bool),
    /// `UseScaleAB`: `""`, `Scalar` or `Vector`.
    UseScaleAB(String),
    UseScaleCD(bool),
    UseScaleAlphaVec(i64),
    BiasDataTypeWhiteList(Vec<DataType>),
    /// `BiasSrcWhiteList`: tensor numbers (A 0 … D 3).
    BiasSrcWhiteList(Vec<i64>),
    Sparse(i64),
    SupportDeviceUserArguments(bool),
    /// `WorkgroupMappingXCCCheck` `[XCC, XCCG]`.
    WorkgroupMappingXccCheck([i64; 2]),
    ExperimentalStreamK,
    ExperimentalMlp,
    RangeMatching,
    FreeSizeMatching,
    /// A leaf this reader does not know (the name).
    Unknown(String),
}

fn u(rd: &mut Reader<'_>) -> Result<u64, Error> {
    // size_t fields: a negative value wraps as it does when C++ stores it.
    Ok(rd.int()? as i64 as u64)
}

fn boolean(rd: &mut Reader<'_>) -> Result<bool, Error> {
    Ok(rd.bool()?)
}

fn scalar(rd: &mut Reader<'_>) -> Result<ScalarValue, Error> {
    let off = rd.offset();
    Ok(match rd.str()? {
        "Any" => ScalarValue::Any,
        "1" => ScalarValue::One,
        "-1" => ScalarValue::NegativeOne,
        s => return Err(dec_err(off, &format!("invalid scalar value `{s}`"))),
    })
}

fn buffer_load(rd: &mut Reader<'_>) -> Result<BufferLoadCheck, Error> {
    let f = Fields::read(rd)?;
    Ok(BufferLoadCheck {
        shift_a: u(&mut f.req("ShiftPtrElemA")?)?,
        shift_b: u(&mut f.req("ShiftPtrElemB")?)?,
        du_or_mt0: u(&mut f.req("DUorMT0")?)?,
        du_or_mt1: u(&mut f.req("DUorMT1")?)?,
    })
}

/// `TypesEqual`: four types (Tensile) or five (TensileLite: the compute-input type last).
fn types_equal(rd: &mut Reader<'_>) -> Result<ProblemLeaf, Error> {
    let off = rd.offset();
    let n = list_len(rd)?;
    if n != 4 && n != 5 {
        return Err(dec_err(off, "TypesEqual needs four or five types"));
    }
    let four = [
        data_type(rd)?,
        data_type(rd)?,
        data_type(rd)?,
        data_type(rd)?,
    ];
    Ok(if n == 5 {
        let [a, b, c, d] = four;
        ProblemLeaf::TypesEqualCompute([a, b, c, d, data_type(rd)?])
    } else {
        ProblemLeaf::TypesEqual(four)
    })
}

/// A list of exactly `N` integers (`std::array<int, N>`).
fn ints<const N: usize>(rd: &mut Reader<'_>, what: &str) -> Result<[i64; N], Error> {
    let off = rd.offset();
    if list_len(rd)? != N {
        return Err(dec_err(off, &format!("{what} needs {N} integers")));
    }
    let mut out = [0i64; N];
    for v in &mut out {
        *v = super::int(rd)?;
    }
    Ok(out)
}

/// A list of values read by `one`.
fn list<T>(
    rd: &mut Reader<'_>,
    one: impl Fn(&mut Reader<'_>) -> Result<T, Error>,
) -> Result<Vec<T>, Error> {
    let n = list_len(rd)?;
    let mut out = Vec::with_capacity(n.min(64));
    for _ in 0..n {
        out.push(one(rd)?);
    }
    Ok(out)
}

fn string(rd: &mut Reader<'_>) -> Result<String, Error> {
    Ok(rd.str()?.to_string())
}

/// `GlobalSplitUCheckMinK`: an integer (Tensile) or `[depthU, GSU]` (TensileLite).
fn gsu_min_k(rd: &mut Reader<'_>) -> Result<ProblemLeaf, Error> {
    if rd.peek()? == Kind::Array {
        Ok(ProblemLeaf::GlobalSplitUCheckMinKGsu(ints::<2>(
            rd,
            "GlobalSplitUCheckMinK",
        )?))
    } else {
        Ok(ProblemLeaf::GlobalSplitUCheckMinK(u(rd)?))
    }
}

fn range(rd: &mut Reader<'_>) -> Result<(u64, u64), Error> {
    let f = Fields::read(rd)?;
    let min = match f.get("min") {
        Some(mut r) => u(&mut r)?,
        None => 0,
    };
    let max = match f.get("max") {
        Some(mut r) => u(&mut r)?,
        None => u64::MAX,
    };
    Ok((min, max))
}

pub(super) fn problem_leaf(f: &Fields<'_>) -> Result<ProblemLeaf, Error> {
    let name = f.type_name()?;
    if let Some(leaf) = size_leaf(f, name)? {
        return Ok(leaf);
    }
    if let Some(leaf) = lite_leaf(f, name)? {
        return Ok(leaf);
    }
    Ok(feature_leaf(f, name)?.unwrap_or_else(|| ProblemLeaf::Unknown(name.to_string())))
}

/// Leaves on sizes, strides, workgroups and buffer offsets.
fn size_leaf(f: &Fields<'_>, name: &str) -> Result<Option<ProblemLeaf>, Error> {
    use ProblemLeaf as P;
    let val = || f.req("value");
    let idx = || -> Result<u64, Error> { u(&mut f.req("index")?) };
    let iv = || -> Result<(u64, u64), Error> { Ok((idx()?, u(&mut val()?)?)) };
    Ok(Some(match name {
        "Free0SizeMultiple" => iv().map(|(index, value)| P::Free0SizeMultiple { index, value })?,
        "Free1SizeMultiple" => iv().map(|(index, value)| P::Free1SizeMultiple { index, value })?,
        "BatchSizeMultiple" => iv().map(|(index, value)| P::BatchSizeMultiple { index, value })?,
        "BatchSizeEqual" => iv().map(|(index, value)| P::BatchSizeEqual { index, value })?,
        "BoundSizeMultiple" => P::BoundSizeMultiple {
            index: super::int(&mut f.req("index")?)?,
            value: u(&mut val()?)?,
        },
        "ProblemSizeEqual" => iv().map(|(index, value)| P::ProblemSizeEqual { index, value })?,
        "MaxProblemSizeGreaterThan" => P::MaxProblemSizeGreaterThan(u(&mut val()?)?),
        "LeadingFree0SizesGreaterOrEqual" => P::LeadingFree0SizesGreaterOrEqual(u(&mut val()?)?),
        "LeadingFree1SizesGreaterOrEqual" => P::LeadingFree1SizesGreaterOrEqual(u(&mut val()?)?),
        "SizeEqual" => iv().map(|(index, value)| P::SizeEqual { index, value })?,
        "SizeGreaterThan" => iv().map(|(index, value)| P::SizeGreaterThan { index, value })?,
        "SizeLessThan" => iv().map(|(index, value)| P::SizeLessThan { index, value })?,
        "SizeMultiple" => iv().map(|(index, value)| P::SizeMultiple { index, value })?,
        "SizeInRange" => {
            let (min, max) = range(&mut val()?)?;
            P::SizeInRange {
                index: idx()?,
                min,
                max,
            }
        }
        "StrideAEqual" | "StrideBEqual" | "StrideCEqual" | "StrideDEqual" => {
            let (index, value) = iv()?;
            let tensor = name.as_bytes().get(6).map_or(0, |b| b - b'A');
            P::StrideEqual {
                tensor,
                index,
                value,
            }
        }
        "LDCEqualsLDD" => P::LdcEqualsLdd,
        "CEqualsD" => P::CEqualsD,
        "BufferLoadOffsetLimitCheck" => P::BufferLoadOffsetLimitCheck(buffer_load(&mut val()?)?),
        "BufferStoreOffsetLimitCheck" => P::BufferStoreOffsetLimitCheck(u(&mut val()?)?),
        "PersistentKernelCheck" => P::PersistentKernelCheck,
        "GlobalSplitUCheckMinK" => gsu_min_k(&mut val()?)?,
        "CDStridesEqual" => P::CdStridesEqual,
        "SynchronizerSizeCheck" => P::SynchronizerSizeCheck {
            index: idx()?,
            value: ints::<6>(&mut val()?, name)?,
        },
        "WorkgroupNumberCheck" => P::WorkgroupNumberCheck {
            index: idx()?,
            value: ints::<3>(&mut val()?, name)?,
        },
        "BufferLoadOffsetLimitCheck_Beta" => P::BufferLoadOffsetLimitCheckBeta(u(&mut val()?)?),
        "WorkgroupMappingXCCCheck" => P::WorkgroupMappingXccCheck(ints::<2>(&mut val()?, name)?),
        _ => return Ok(None),
    }))
}

/// Leaves only TensileLite (hipBLASLt) catalogs use: epilogues, scaling, gradients, sparsity.
fn lite_leaf(f: &Fields<'_>, name: &str) -> Result<Option<ProblemLeaf>, Error> {
    use ProblemLeaf as P;
    let val = || f.req("value");
    Ok(Some(match name {
        "AmaxDCheck" => P::AmaxDCheck(boolean(&mut val()?)?),
        "GroupedGemm" => P::GroupedGemm(boolean(&mut val()?)?),
        "SwizzleTensorA" => P::SwizzleTensorA(boolean(&mut val()?)?),
        "SwizzleTensorB" => P::SwizzleTensorB(boolean(&mut val()?)?),
        "DataTypeE" => P::DataTypeE(data_type(&mut val()?)?),
        "UseGradient" => P::UseGradient(boolean(&mut val()?)?),
        "Activation" => P::Activation(string(&mut val()?)?),
        "ActivationComputeType" => P::ActivationComputeType(data_type(&mut val()?)?),
        "ActivationNoGuard" => P::ActivationNoGuard(boolean(&mut val()?)?),
        "ActivationEnumWhiteList" => P::ActivationEnumWhiteList(list(&mut val()?, string)?),
        "UseBias" => P::UseBias(super::int(&mut val()?)?),
        "UseE" => P::UseE(boolean(&mut val()?)?),
        "UseScaleAB" => P::UseScaleAB(string(&mut val()?)?),
        "UseScaleCD" => P::UseScaleCD(boolean(&mut val()?)?),
        "UseScaleAlphaVec" => P::UseScaleAlphaVec(super::int(&mut val()?)?),
        "BiasDataTypeWhiteList" => P::BiasDataTypeWhiteList(list(&mut val()?, data_type)?),
        "BiasSrcWhiteList" => P::BiasSrcWhiteList(list(&mut val()?, super::int)?),
        "Sparse" => P::Sparse(super::int(&mut val()?)?),
        "SupportDeviceUserArguments" => P::SupportDeviceUserArguments(boolean(&mut val()?)?),
        _ => return Ok(None),
    }))
}

/// Leaves on types, scalars, precision, modes and the matching kinds.
fn feature_leaf(f: &Fields<'_>, name: &str) -> Result<Option<ProblemLeaf>, Error> {
    use ProblemLeaf as P;
    let val = || f.req("value");
    Ok(Some(match name {
        "AIGreaterThanEqual" => P::AiGreaterThanEqual(Float(val()?.float()?)),
        "AILessThanEqual" => P::AiLessThanEqual(Float(val()?.float()?)),
        "AlphaValue" => P::AlphaValue(scalar(&mut val()?)?),
        "BetaValue" => P::BetaValue(scalar(&mut val()?)?),
        "BetaZero" => P::BetaZero,
        "BetaOne" => P::BetaOne,
        "HighPrecisionAccumulate" => P::HighPrecisionAccumulate(boolean(&mut val()?)?),
        "KernelLanguageCompatible" => P::KernelLanguageCompatible(val()?.str()?.to_string()),
        "DeterministicMode" => P::DeterministicMode(boolean(&mut val()?)?),
        "ArithmeticUnitCompatible" => P::ArithmeticUnitCompatible(val()?.str()?.to_string()),
        "TypesEqual" => types_equal(&mut val()?)?,
        "OperationIdentifierEqual" => P::OperationIdentifierEqual(val()?.str()?.to_string()),
        "StridedBatched" => P::StridedBatched(boolean(&mut val()?)?),
        "CUEfficiency" => P::CuEfficiency,
        "ExperimentalGrid" => P::ExperimentalGrid,
        "ExperimentalDTree" => P::ExperimentalDTree,
        "Fp16AltImpl" => P::Fp16AltImpl,
        "Fp16AltImplRound" => P::Fp16AltImplRound,
        "F32XdlMathOp" => P::F32XdlMathOp(data_type(&mut val()?)?),
        "EqualityMatching" => P::EqualityMatching,
        "StochasticRounding" => P::StochasticRounding(boolean(&mut val()?)?),
        "ExperimentalStreamK" => P::ExperimentalStreamK,
        "ExperimentalMLP" => P::ExperimentalMlp,
        "RangeMatching" => P::RangeMatching,
        "FreeSizeMatching" => P::FreeSizeMatching,

        _ => return Ok(None),
    }))
}

impl ProblemLeaf {
    /// The name the catalogs give the leaf (`TypesEqual`, `StrideAEqual`, …).
    pub fn name(&self) -> &str {
        use ProblemLeaf as P;
        match self {
            P::Free0SizeMultiple { .. } => "Free0SizeMultiple",
            P::Free1SizeMultiple { .. } => "Free1SizeMultiple",
            P::BatchSizeMultiple { .. } => "BatchSizeMultiple",
            P::BatchSizeEqual { .. } => "BatchSizeEqual",
            P::BoundSizeMultiple { .. } => "BoundSizeMultiple",
            P::ProblemSizeEqual { .. } => "ProblemSizeEqual",
            P::MaxProblemSizeGreaterThan(_) => "MaxProblemSizeGreaterThan",
            P::LeadingFree0SizesGreaterOrEqual(_) => "LeadingFree0SizesGreaterOrEqual",
            P::LeadingFree1SizesGreaterOrEqual(_) => "LeadingFree1SizesGreaterOrEqual",
            P::SizeEqual { .. } => "SizeEqual",
            P::SizeGreaterThan { .. } => "SizeGreaterThan",
            P::SizeLessThan { .. } => "SizeLessThan",
            P::SizeMultiple { .. } => "SizeMultiple",
            P::SizeInRange { .. } => "SizeInRange",
            P::StrideEqual { tensor, .. } => match tensor {
                0 => "StrideAEqual",
                1 => "StrideBEqual",
                2 => "StrideCEqual",
                _ => "StrideDEqual",
            },
            P::LdcEqualsLdd => "LDCEqualsLDD",
            P::CEqualsD => "CEqualsD",
            P::AiGreaterThanEqual(_) => "AIGreaterThanEqual",
            P::AiLessThanEqual(_) => "AILessThanEqual",
            P::AlphaValue(_) => "AlphaValue",
            P::BetaValue(_) => "BetaValue",
            P::BetaZero => "BetaZero",
            P::BetaOne => "BetaOne",
            P::HighPrecisionAccumulate(_) => "HighPrecisionAccumulate",
            P::KernelLanguageCompatible(_) => "KernelLanguageCompatible",
            P::DeterministicMode(_) => "DeterministicMode",
            P::ArithmeticUnitCompatible(_) => "ArithmeticUnitCompatible",
            P::TypesEqual(_) | P::TypesEqualCompute(_) => "TypesEqual",
            P::OperationIdentifierEqual(_) => "OperationIdentifierEqual",
            P::BufferLoadOffsetLimitCheck(_) => "BufferLoadOffsetLimitCheck",
            P::BufferStoreOffsetLimitCheck(_) => "BufferStoreOffsetLimitCheck",
            P::PersistentKernelCheck => "PersistentKernelCheck",
            P::GlobalSplitUCheckMinK(_) | P::GlobalSplitUCheckMinKGsu(_) => "GlobalSplitUCheckMinK",
            P::CdStridesEqual => "CDStridesEqual",
            P::StridedBatched(_) => "StridedBatched",
            P::CuEfficiency => "CUEfficiency",
            P::ExperimentalGrid => "ExperimentalGrid",
            P::ExperimentalDTree => "ExperimentalDTree",
            P::Fp16AltImpl => "Fp16AltImpl",
            P::Fp16AltImplRound => "Fp16AltImplRound",
            P::F32XdlMathOp(_) => "F32XdlMathOp",
            P::EqualityMatching => "EqualityMatching",
            P::StochasticRounding(_) => "StochasticRounding",
            P::SynchronizerSizeCheck { .. } => "SynchronizerSizeCheck",
            P::WorkgroupNumberCheck { .. } => "WorkgroupNumberCheck",
            P::BufferLoadOffsetLimitCheckBeta(_) => "BufferLoadOffsetLimitCheck_Beta",
            P::AmaxDCheck(_) => "AmaxDCheck",
            P::GroupedGemm(_) => "GroupedGemm",
            P::SwizzleTensorA(_) => "SwizzleTensorA",
            P::SwizzleTensorB(_) => "SwizzleTensorB",
            P::DataTypeE(_) => "DataTypeE",
            P::UseGradient(_) => "UseGradient",
            P::Activation(_) => "Activation",
            P::ActivationComputeType(_) => "ActivationComputeType",
            P::ActivationNoGuard(_) => "ActivationNoGuard",
            P::ActivationEnumWhiteList(_) => "ActivationEnumWhiteList",
            P::UseBias(_) => "UseBias",
            P::UseE(_) => "UseE",
            P::UseScaleAB(_) => "UseScaleAB",
            P::UseScaleCD(_) => "UseScaleCD",
            P::UseScaleAlphaVec(_) => "UseScaleAlphaVec",
            P::BiasDataTypeWhiteList(_) => "BiasDataTypeWhiteList",
            P::BiasSrcWhiteList(_) => "BiasSrcWhiteList",
            P::Sparse(_) => "Sparse",
            P::SupportDeviceUserArguments(_) => "SupportDeviceUserArguments",
            P::WorkgroupMappingXccCheck(_) => "WorkgroupMappingXCCCheck",
            P::ExperimentalStreamK => "ExperimentalStreamK",
            P::ExperimentalMlp => "ExperimentalMLP",
            P::RangeMatching => "RangeMatching",
            P::FreeSizeMatching => "FreeSizeMatching",
            P::Unknown(n) => n,
        }
    }

    /// True for the leaves and value shapes only TensileLite (hipBLASLt) reads: Tensile's host
    /// library (rocBLAS) would refuse a file that holds one.
    pub fn is_tensile_lite(&self) -> bool {
        use ProblemLeaf as P;
        matches!(
            self,
            P::TypesEqualCompute(_)
                | P::GlobalSplitUCheckMinKGsu(_)
                | P::SynchronizerSizeCheck { .. }
                | P::WorkgroupNumberCheck { .. }
                | P::BufferLoadOffsetLimitCheckBeta(_)
                | P::AmaxDCheck(_)
                | P::GroupedGemm(_)
                | P::SwizzleTensorA(_)
                | P::SwizzleTensorB(_)
                | P::DataTypeE(_)
                | P::UseGradient(_)
                | P::Activation(_)
                | P::ActivationComputeType(_)
                | P::ActivationNoGuard(_)
                | P::ActivationEnumWhiteList(_)
                | P::UseBias(_)
                | P::UseE(_)
                | P::UseScaleAB(_)
                | P::UseScaleCD(_)
                | P::UseScaleAlphaVec(_)
                | P::BiasDataTypeWhiteList(_)
                | P::BiasSrcWhiteList(_)
                | P::Sparse(_)
                | P::SupportDeviceUserArguments(_)
                | P::WorkgroupMappingXccCheck(_)
                | P::ExperimentalStreamK
                | P::ExperimentalMlp
                | P::RangeMatching
                | P::FreeSizeMatching
        )
    }
}

/// True when the next value is a map (a predicate), for optional predicate fields.
pub(super) fn is_map(rd: &Reader<'_>) -> bool {
    matches!(rd.peek(), Ok(Kind::Map))
}

impl serde::Serialize for DataType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl serde::Serialize for ScalarValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}
