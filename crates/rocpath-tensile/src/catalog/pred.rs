//! Predicates of a catalog: the boolean combinators (`Predicates.hpp`: `TruePred`,
//! `FalsePred`, `And`, `Or`, `Not`) over leaves of three kinds — hardware
//! (`AMDGPUPredicates.hpp`), problem (`ContractionProblemPredicates.hpp`) and task
//! (`TaskPredicates.hpp`) — with the field names of `Serialization/ContractionPredicates.hpp`
//! and `Serialization/Predicates.hpp` (ROCm/Tensile@be49885f).

use super::fields::{Fields, dec_err};
use super::{Error, list_len};
use rocpath_mpack::{Kind, Reader};

/// A predicate over leaves `L`.
#[derive(Debug, Clone, PartialEq)]
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
#[derive(Debug, Clone, PartialEq)]
pub enum HwLeaf {
    /// `AMDGPU`: the device is an AMD GPU and the inner predicate holds for it.
    Amdgpu(Box<Pred<GpuLeaf>>),
    /// A leaf this reader does not know.
    Unknown(String),
}

/// A leaf of the predicate inside `AMDGPU`.
#[derive(Debug, Clone, PartialEq)]
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
#[derive(Debug, Clone, PartialEq)]
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

/// A restriction on alpha or beta (`ScalarValueTypes.hpp`: `Any`, `1`, `-1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq)]
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
    AiGreaterThanEqual(f64),
    AiLessThanEqual(f64),
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

fn types4(rd: &mut Reader<'_>) -> Result<[DataType; 4], Error> {
    let off = rd.offset();
    if list_len(rd)? != 4 {
        return Err(dec_err(off, "TypesEqual needs four types"));
    }
    Ok([
        data_type(rd)?,
        data_type(rd)?,
        data_type(rd)?,
        data_type(rd)?,
    ])
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
    use ProblemLeaf as P;
    let val = || f.req("value");
    let idx = || -> Result<u64, Error> { u(&mut f.req("index")?) };
    let iv = || -> Result<(u64, u64), Error> { Ok((idx()?, u(&mut val()?)?)) };
    let name = f.type_name()?;
    Ok(match name {
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
        "AIGreaterThanEqual" => P::AiGreaterThanEqual(val()?.float()?),
        "AILessThanEqual" => P::AiLessThanEqual(val()?.float()?),
        "AlphaValue" => P::AlphaValue(scalar(&mut val()?)?),
        "BetaValue" => P::BetaValue(scalar(&mut val()?)?),
        "BetaZero" => P::BetaZero,
        "BetaOne" => P::BetaOne,
        "HighPrecisionAccumulate" => P::HighPrecisionAccumulate(boolean(&mut val()?)?),
        "KernelLanguageCompatible" => P::KernelLanguageCompatible(val()?.str()?.to_string()),
        "DeterministicMode" => P::DeterministicMode(boolean(&mut val()?)?),
        "ArithmeticUnitCompatible" => P::ArithmeticUnitCompatible(val()?.str()?.to_string()),
        "TypesEqual" => P::TypesEqual(types4(&mut val()?)?),
        "OperationIdentifierEqual" => P::OperationIdentifierEqual(val()?.str()?.to_string()),
        "BufferLoadOffsetLimitCheck" => P::BufferLoadOffsetLimitCheck(buffer_load(&mut val()?)?),
        "BufferStoreOffsetLimitCheck" => P::BufferStoreOffsetLimitCheck(u(&mut val()?)?),
        "PersistentKernelCheck" => P::PersistentKernelCheck,
        "GlobalSplitUCheckMinK" => P::GlobalSplitUCheckMinK(u(&mut val()?)?),
        "CDStridesEqual" => P::CdStridesEqual,
        "StridedBatched" => P::StridedBatched(boolean(&mut val()?)?),
        "CUEfficiency" => P::CuEfficiency,
        "ExperimentalGrid" => P::ExperimentalGrid,
        "ExperimentalDTree" => P::ExperimentalDTree,
        "Fp16AltImpl" => P::Fp16AltImpl,
        "Fp16AltImplRound" => P::Fp16AltImplRound,
        "F32XdlMathOp" => P::F32XdlMathOp(data_type(&mut val()?)?),
        "EqualityMatching" => P::EqualityMatching,
        "StochasticRounding" => P::StochasticRounding(boolean(&mut val()?)?),
        other => P::Unknown(other.to_string()),
    })
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
