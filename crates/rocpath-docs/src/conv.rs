//! A convolution problem as MIOpen describes it (`conv::ProblemDescription`), and the three
//! keys MIOpen prints for it: the find-db / perf-db text key, the network config (the invoker
//! cache key) and the SQLite perf-db config columns. Each key parses back into the same
//! [`Problem`], so one problem seen in several forms is recognised as one.
//!
//! `in`/`out` are the problem's input and output tensors as MIOpen swaps them: x/y forward,
//! dy/dx backward data, dy/x backward weights.
//!
//! Source: ROCm/MIOpen@2d1fd997 `src/conv/problem_description.cpp:39-45` (type names in keys),
//! `:140-186` (`MakeNetworkConfig`), `:188-238` (`Serialize`),
//! `src/include/miopen/conv/problem_description.hpp:117-133` (the in/out swap), `:363-398`
//! (`Visit`: the perf-db column order).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt::{self, Write};

/// Why a key could not be read back into a problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a {form} ({why}): {text:?}")]
pub struct KeyError {
    /// Which form was expected (`find-db key`, `network config`, `perf-db key`).
    pub form: &'static str,
    /// The part that did not fit.
    pub why: &'static str,
    /// The text (cut to 200 bytes).
    pub text: String,
}

impl KeyError {
    fn new(form: &'static str, why: &'static str, text: &str) -> KeyError {
        let mut end = text.len().min(200);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        KeyError {
            form,
            why,
            text: text[..end].to_string(),
        }
    }
}

/// A tensor data type (`miopenDataType_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DataType {
    /// `miopenHalf`.
    Fp16,
    /// `miopenFloat`.
    Fp32,
    /// `miopenInt32`.
    Int32,
    /// `miopenInt8`.
    Int8,
    /// `miopenBFloat16`.
    Bf16,
    /// `miopenDouble`.
    Fp64,
    /// `miopenFloat8` (`miopenFloat8_fnuz` in newer releases).
    Fp8,
    /// `miopenBFloat8`.
    Bf8,
    /// `miopenInt64`.
    Int64,
}

impl DataType {
    /// Every type, longest key name first (for splitting concatenated key types).
    pub const ALL: [DataType; 9] = [
        DataType::Int64,
        DataType::Int32,
        DataType::Int8,
        DataType::Fp64,
        DataType::Fp32,
        DataType::Fp16,
        DataType::Bf16,
        DataType::Fp8,
        DataType::Bf8,
    ];

    /// The name in keys (`GetDataTypeName`): `FP32`, `INT8`, …
    pub fn key_name(self) -> &'static str {
        match self {
            DataType::Fp16 => "FP16",
            DataType::Fp32 => "FP32",
            DataType::Int32 => "INT32",
            DataType::Int8 => "INT8",
            DataType::Bf16 => "BF16",
            DataType::Fp64 => "FP64",
            DataType::Fp8 => "FP8",
            DataType::Bf8 => "BF8",
            DataType::Int64 => "INT64",
        }
    }

    /// The `miopenDataType_t` enumerator (`miopenFloat`, …).
    pub fn enum_name(self) -> &'static str {
        match self {
            DataType::Fp16 => "miopenHalf",
            DataType::Fp32 => "miopenFloat",
            DataType::Int32 => "miopenInt32",
            DataType::Int8 => "miopenInt8",
            DataType::Bf16 => "miopenBFloat16",
            DataType::Fp64 => "miopenDouble",
            DataType::Fp8 => "miopenFloat8",
            DataType::Bf8 => "miopenBFloat8",
            DataType::Int64 => "miopenInt64",
        }
    }

    /// The value of `miopenDataType_t` as the C API logs it (`dataType = 1`).
    pub fn api_value(self) -> u8 {
        match self {
            DataType::Fp16 => 0,
            DataType::Fp32 => 1,
            DataType::Int32 => 2,
            DataType::Int8 => 3,
            DataType::Bf16 => 5,
            DataType::Fp64 => 6,
            DataType::Fp8 => 7,
            DataType::Bf8 => 8,
            DataType::Int64 => 9,
        }
    }

    /// From a key name (`FP32`).
    pub fn from_key_name(s: &str) -> Option<DataType> {
        DataType::ALL.into_iter().find(|t| t.key_name() == s)
    }

    /// From an enumerator name, with or without the `_fnuz` suffix of newer releases.
    pub fn from_enum_name(s: &str) -> Option<DataType> {
        let s = s.strip_suffix("_fnuz").unwrap_or(s);
        DataType::ALL.into_iter().find(|t| t.enum_name() == s)
    }

    /// From a MIOpenDriver cast-type value (`fp32`, `bf16`, `bfp16`, …).
    pub fn from_driver_name(s: &str) -> Option<DataType> {
        Some(match s.to_ascii_lowercase().as_str() {
            "fp32" => DataType::Fp32,
            "fp16" => DataType::Fp16,
            "bf16" | "bfp16" => DataType::Bf16,
            "fp8" => DataType::Fp8,
            "bf8" | "bfp8" => DataType::Bf8,
            "int8" => DataType::Int8,
            "int32" => DataType::Int32,
            "fp64" => DataType::Fp64,
            _ => return None,
        })
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key_name())
    }
}

impl Serialize for DataType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.key_name())
    }
}

impl<'de> Deserialize<'de> for DataType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
        DataType::from_key_name(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("not a MIOpen data type: {s:?}")))
    }
}

/// The direction of a convolution problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// `F`: forward.
    Forward,
    /// `B`: backward data.
    BackwardData,
    /// `W`: backward weights.
    BackwardWeights,
}

impl Direction {
    /// The letter in keys.
    pub fn letter(self) -> char {
        match self {
            Direction::Forward => 'F',
            Direction::BackwardData => 'B',
            Direction::BackwardWeights => 'W',
        }
    }

    /// From the letter in keys.
    pub fn from_letter(s: &str) -> Option<Direction> {
        Some(match s {
            "F" => Direction::Forward,
            "B" => Direction::BackwardData,
            "W" => Direction::BackwardWeights,
            _ => return None,
        })
    }

    /// The `conv::Direction` enumerator name.
    pub fn enum_name(self) -> &'static str {
        match self {
            Direction::Forward => "Forward",
            Direction::BackwardData => "BackwardData",
            Direction::BackwardWeights => "BackwardWeights",
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

impl Serialize for Direction {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_char(self.letter())
    }
}

impl<'de> Deserialize<'de> for Direction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
        Direction::from_letter(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("not a direction (F, B or W): {s:?}")))
    }
}

/// One convolution problem in MIOpen's terms. Spatial triples are (depth, height, width); a
/// 2-D problem has depth 1 and pad/stride/dilation depth 0, as MIOpen stores them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Problem {
    /// 2 or 3.
    pub spatial_dims: u8,
    /// Channels of `in`.
    pub in_c: u64,
    /// Depth, height, width of `in`.
    pub in_dhw: [u64; 3],
    /// Filter depth, height, width.
    pub fil_dhw: [u64; 3],
    /// Channels of `out`.
    pub out_c: u64,
    /// Depth, height, width of `out`.
    pub out_dhw: [u64; 3],
    /// Batch size.
    pub batch: u64,
    /// Padding d, h, w.
    pub pad: [i64; 3],
    /// Strides d, h, w.
    pub stride: [i64; 3],
    /// Dilations d, h, w.
    pub dilation: [i64; 3],
    /// Bias flag (0/1).
    pub bias: i64,
    /// Layouts of in, weights, out (`NCHW`, `NHWC`, `NCDHW`, …).
    pub layouts: [String; 3],
    /// Data types of in, weights, out.
    pub types: [DataType; 3],
    /// Cast types of in, weights, out.
    pub casts: [Option<DataType>; 3],
    /// Group count.
    pub groups: u64,
    /// Direction.
    pub direction: Direction,
}

fn dhw(sep: char, dims: u8, v: [impl fmt::Display; 3]) -> String {
    let [d, h, w] = v;
    if dims > 2 {
        format!("{d}{sep}{h}{sep}{w}")
    } else {
        format!("{h}{sep}{w}")
    }
}

/// The default layout of a 2-D or 3-D problem (`NCHW` / `NCDHW`).
pub fn default_layout(dims: u8) -> &'static str {
    if dims > 2 { "NCDHW" } else { "NCHW" }
}

fn is_layout(s: &str) -> bool {
    (3..=6).contains(&s.len()) && s.bytes().all(|c| b"NCHWDKc".contains(&c))
}

/// Output size of one spatial dimension for `-m conv` (`GetForwardOutputTensor`), or `None`
/// when the filter does not fit or the stride/dilation is not positive.
pub fn output_size(input: u64, pad: i64, filter: u64, stride: i64, dilation: i64) -> Option<u64> {
    if stride <= 0 || dilation <= 0 {
        return None;
    }
    let span = i128::from(input) + 2 * i128::from(pad);
    let eff = i128::from(dilation) * (i128::from(filter) - 1) + 1;
    let o = (span - eff).checked_div(i128::from(stride))? + 1;
    u64::try_from(o).ok().filter(|o| *o > 0)
}

fn split_types(s: &str) -> Option<[DataType; 3]> {
    if let Some(t) = DataType::from_key_name(s) {
        return Some([t, t, t]);
    }
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() && out.len() < 3 {
        let t = DataType::ALL
            .into_iter()
            .find(|t| rest.starts_with(t.key_name()))?;
        out.push(t);
        rest = &rest[t.key_name().len()..];
    }
    if !rest.is_empty() {
        return None;
    }
    <[DataType; 3]>::try_from(out).ok()
}

/// Splits `_g2_coFP32` suffixes off a key: (main part, groups, casts).
fn suffixes<'a>(
    key: &'a str,
    form: &'static str,
) -> Result<(&'a str, u64, [Option<DataType>; 3]), KeyError> {
    let (main, opt) = key.split_once('_').map_or((key, ""), |(a, b)| (a, b));
    let mut groups = 1u64;
    let mut casts = [None; 3];
    for part in opt.split('_').filter(|p| !p.is_empty()) {
        let cast =
            |t: &str| DataType::from_key_name(t).ok_or(KeyError::new(form, "cast type", key));
        if let Some(g) = part.strip_prefix('g') {
            groups =
                g.parse()
                    .ok()
                    .filter(|g| *g > 0)
                    .ok_or(KeyError::new(form, "group count", key))?;
        } else if let Some(t) = part.strip_prefix("ci") {
            casts[0] = Some(cast(t)?);
        } else if let Some(t) = part.strip_prefix("cw") {
            casts[1] = Some(cast(t)?);
        } else if let Some(t) = part.strip_prefix("co") {
            casts[2] = Some(cast(t)?);
        } else {
            return Err(KeyError::new(form, "unknown suffix", key));
        }
    }
    Ok((main, groups, casts))
}

/// A 2-D problem with square images and a square filter, one data type and one layout
/// throughout: the shape generated problems (benchmarks, property tests) take.
#[derive(Debug, Clone, Copy)]
pub struct Square2d<'a> {
    /// Data type of input, weights and output.
    pub ty: DataType,
    /// Direction.
    pub direction: Direction,
    /// Layout of all three tensors (`NCHW`, `NHWC`).
    pub layout: &'a str,
    /// Input channels.
    pub c: u64,
    /// Output channels.
    pub k: u64,
    /// Image height and width.
    pub hw: u64,
    /// Filter height and width.
    pub filter: u64,
    /// Padding on each side.
    pub pad: i64,
    /// Stride.
    pub stride: i64,
    /// Groups.
    pub groups: u64,
    /// Batch.
    pub batch: u64,
}

impl Square2d<'_> {
    /// The problem, with its output size; `None` when the filter does not fit the image.
    pub fn problem(&self) -> Option<Problem> {
        let o = output_size(self.hw, self.pad, self.filter, self.stride, 1)?;
        let (t, l) = (self.ty, self.layout);
        Some(Problem {
            spatial_dims: 2,
            in_c: self.c,
            in_dhw: [1, self.hw, self.hw],
            fil_dhw: [1, self.filter, self.filter],
            out_c: self.k,
            out_dhw: [1, o, o],
            batch: self.batch,
            pad: [0, self.pad, self.pad],
            stride: [0, self.stride, self.stride],
            dilation: [0, 1, 1],
            bias: 0,
            layouts: [l.into(), l.into(), l.into()],
            types: [t, t, t],
            casts: [None; 3],
            groups: self.groups,
            direction: self.direction,
        })
    }
}

impl Problem {
    /// `EncodeDataTypesForKey` (problem_description.cpp:39-45): one name when all agree.
    pub fn types_key(&self) -> String {
        let [i, w, o] = self.types;
        if i == w && i == o {
            i.key_name().to_string()
        } else {
            format!("{i}{w}{o}")
        }
    }

    /// Whether all three layouts are the default `NCHW` / `NCDHW` (keys print it once).
    pub fn layout_is_default(&self) -> bool {
        self.layouts.iter().all(|x| x == "NCHW") || self.layouts.iter().all(|x| x == "NCDHW")
    }

    fn layout_part(&self, sep: char) -> String {
        if self.layout_is_default() {
            self.layouts[0].clone()
        } else {
            self.layouts.join(&sep.to_string())
        }
    }

    /// The find-db / perf-db text key (`Serialize`), e.g.
    /// `64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F`.
    pub fn fdb_key(&self) -> String {
        let d = self.spatial_dims;
        let mut s = format!(
            "{}-{}-{}-{}-{}-{}-{}-{}-{}-{}-{}-{}-{}",
            self.in_c,
            dhw('-', d, self.in_dhw),
            dhw('x', d, self.fil_dhw),
            self.out_c,
            dhw('-', d, self.out_dhw),
            self.batch,
            dhw('x', d, self.pad),
            dhw('x', d, self.stride),
            dhw('x', d, self.dilation),
            self.bias,
            self.layout_part('-'),
            self.types_key(),
            self.direction.letter(),
        );
        if self.groups != 1 {
            let _ = write!(s, "_g{}", self.groups);
        }
        s.push_str(&self.casts_key());
        s
    }

    /// The network config (`MakeNetworkConfig`) with the default alpha/beta:
    /// `64x56x56x3x3x64x56x56x32xNCHWxFP32x1x1x1x1x1x1x1xFxDefault`.
    pub fn network_config(&self) -> String {
        let d = self.spatial_dims;
        let mut s = format!(
            "{}x{}x{}x{}x{}x{}x{}x{}",
            self.in_c,
            dhw('x', d, self.in_dhw),
            dhw('x', d, self.fil_dhw),
            self.out_c,
            dhw('x', d, self.out_dhw),
            self.batch,
            self.layout_part('x'),
            self.types_key()
        );
        let mut optional = String::new();
        for (tag, c) in ["ci", "cw", "co"].iter().zip(&self.casts) {
            if let Some(c) = c {
                let _ = write!(optional, "{tag}{c}");
            }
        }
        if !optional.is_empty() {
            let _ = write!(s, "x{optional}");
        }
        let _ = write!(
            s,
            "x{}x{}x{}x{}x{}xDefault",
            dhw('x', d, self.pad),
            dhw('x', d, self.stride),
            dhw('x', d, self.dilation),
            self.groups,
            self.direction.letter()
        );
        s
    }

    /// The perf-db columns in `Visit` order; for a 2-D problem depth is 1 and pad/stride/
    /// dilation depth 0, as MIOpen stores them.
    pub fn perf_db_columns(&self) -> [(&'static str, i64); 21] {
        let three = self.spatial_dims > 2;
        let dz = |v: i64| if three { v } else { 0 };
        let d1 = |v: u64| if three { v as i64 } else { 1 };
        [
            ("spatial_dim", i64::from(self.spatial_dims)),
            ("in_channels", self.in_c as i64),
            ("in_h", self.in_dhw[1] as i64),
            ("in_w", self.in_dhw[2] as i64),
            ("in_d", d1(self.in_dhw[0])),
            ("fil_h", self.fil_dhw[1] as i64),
            ("fil_w", self.fil_dhw[2] as i64),
            ("fil_d", d1(self.fil_dhw[0])),
            ("out_channels", self.out_c as i64),
            ("batchsize", self.batch as i64),
            ("pad_h", self.pad[1]),
            ("pad_w", self.pad[2]),
            ("pad_d", dz(self.pad[0])),
            ("conv_stride_h", self.stride[1]),
            ("conv_stride_w", self.stride[2]),
            ("conv_stride_d", dz(self.stride[0])),
            ("dilation_h", self.dilation[1]),
            ("dilation_w", self.dilation[2]),
            ("dilation_d", dz(self.dilation[0])),
            ("bias", self.bias),
            ("group_count", self.groups as i64),
        ]
    }

    /// The perf-db key as the text perf-db and the log print it:
    /// `2x64x56x56x1x3x3x1x64x32x1x1x0x1x1x0x1x1x0x0x1xNCHWxFP32xF`.
    pub fn perf_db_key(&self) -> String {
        let mut s = String::new();
        for (_, v) in self.perf_db_columns() {
            let _ = write!(s, "{v}x");
        }
        let _ = write!(
            s,
            "{}x{}x{}",
            self.layouts[0],
            self.types_key(),
            self.direction.letter()
        );
        s
    }

    /// One line for people: `n32 c64 56x56 k64 3x3 p1x1 s1x1 d1x1 g1 NCHW FP32 F` (cast
    /// types are in [`Problem::casts_key`]).
    pub fn short(&self) -> String {
        let d = self.spatial_dims;
        format!(
            "n{} c{} {} k{} {} p{} s{} d{} g{} {} {} {}",
            self.batch,
            self.in_c,
            dhw('x', d, self.in_dhw),
            self.out_c,
            dhw('x', d, self.fil_dhw),
            dhw('x', d, self.pad),
            dhw('x', d, self.stride),
            dhw('x', d, self.dilation),
            self.groups,
            self.layout_part('-'),
            self.types_key(),
            self.direction.letter()
        )
    }

    /// The cast suffixes as keys print them (`_coFP32`), empty without casts.
    pub fn casts_key(&self) -> String {
        let mut s = String::new();
        for (tag, c) in ["_ci", "_cw", "_co"].iter().zip(&self.casts) {
            if let Some(c) = c {
                let _ = write!(s, "{tag}{c}");
            }
        }
        s
    }

    /// Whether any tensor has a cast type.
    pub fn has_casts(&self) -> bool {
        self.casts.iter().any(Option::is_some)
    }

    /// Parses a find-db / perf-db text key (the inverse of [`Problem::fdb_key`]).
    pub fn from_fdb_key(key: &str) -> Result<Problem, KeyError> {
        const FORM: &str = "find-db key";
        let key = key.trim();
        let bad = |why| KeyError::new(FORM, why, key);
        let (main, groups, casts) = suffixes(key, FORM)?;
        let f: Vec<&str> = main.split('-').collect();
        // 2-D: C H W YxX K oH oW N PxP SxS DxD bias layout(1|3) type dir (15 or 17 fields);
        // 3-D: C D H W ZxYxX K oD oH oW N … (17 or 19). The filter field tells them apart.
        let parts = |i: usize| f.get(i).map(|x| x.split('x').count());
        let dims: u8 = match f.len() {
            15 | 17 if parts(3) == Some(2) => 2,
            17 | 19 if parts(4) == Some(3) => 3,
            _ => return Err(bad("field count")),
        };
        let n = usize::from(dims);
        let mut it = f.iter().copied();
        let mut next = || it.next().ok_or(bad("field count"));
        let num = |s: &str| s.parse::<u64>().map_err(|_| bad("number"));
        let triple = |v: Vec<u64>| {
            if n == 3 {
                [v[0], v[1], v[2]]
            } else {
                [1, v[0], v[1]]
            }
        };
        let mut nums = |k: usize| -> Result<Vec<u64>, KeyError> {
            (0..k).map(|_| next().and_then(num)).collect()
        };
        let in_c = nums(1)?[0];
        let in_dhw = triple(nums(n)?);
        let xs = |s: &str, zero: i64| -> Result<[i64; 3], KeyError> {
            let v: Vec<i64> = s
                .split('x')
                .map(|v| v.parse::<i64>().map_err(|_| bad("AxB group")))
                .collect::<Result<_, _>>()?;
            match v.as_slice() {
                [h, w] if n == 2 => Ok([zero, *h, *w]),
                [d, h, w] if n == 3 => Ok([*d, *h, *w]),
                _ => Err(bad("dimension count")),
            }
        };
        let mut rest = f[1 + n..].iter().copied();
        let mut take = || rest.next().ok_or(bad("field count"));
        let fil = xs(take()?, 1)?;
        if fil.iter().any(|v| *v < 0) {
            return Err(bad("filter"));
        }
        let out_c = num(take()?)?;
        let mut out = Vec::new();
        for _ in 0..n {
            out.push(num(take()?)?);
        }
        let batch = num(take()?)?;
        let pad = xs(take()?, 0)?;
        let stride = xs(take()?, 0)?;
        let dilation = xs(take()?, 0)?;
        let bias: i64 = take()?.parse().map_err(|_| bad("bias"))?;
        let tail: Vec<&str> = rest.collect();
        let (layouts, ty, dir) = match tail.as_slice() {
            [l, t, d] if is_layout(l) => ([l.to_string(), l.to_string(), l.to_string()], *t, *d),
            [a, b, c, t, d] if [a, b, c].iter().all(|l| is_layout(l)) => {
                ([a.to_string(), b.to_string(), c.to_string()], *t, *d)
            }
            _ => return Err(bad("layout/type/direction")),
        };
        Ok(Problem {
            spatial_dims: dims,
            in_c,
            in_dhw,
            fil_dhw: [fil[0] as u64, fil[1] as u64, fil[2] as u64],
            out_c,
            out_dhw: triple(out),
            batch,
            pad,
            stride,
            dilation,
            bias,
            layouts,
            types: split_types(ty).ok_or(bad("data type"))?,
            casts,
            groups,
            direction: Direction::from_letter(dir).ok_or(bad("direction"))?,
        })
    }

    /// Parses a network config (`64x56x56x3x3x64x56x56x32xNCHWxFP32x1x1x1x1x1x1x1xFxDefault`,
    /// 2-D or 3-D, with the optional cast part `xciFP16…`).
    pub fn from_network_config(cfg: &str) -> Result<Problem, KeyError> {
        const FORM: &str = "network config";
        let cfg = cfg.trim();
        let bad = |why| KeyError::new(FORM, why, cfg);
        let f: Vec<&str> = cfg.split('x').collect();
        let first_layout = f.iter().position(|s| is_layout(s)).ok_or(bad("layout"))?;
        // 2-D heads have 9 numbers (C H W Y X K oH oW N), 3-D 12.
        let dims: u8 = match first_layout {
            9 => 2,
            12 => 3,
            _ => return Err(bad("field count")),
        };
        let n = usize::from(dims);
        let num = |s: &str| s.parse::<u64>().map_err(|_| bad("number"));
        let head: Vec<u64> = f[..first_layout]
            .iter()
            .map(|s| num(s))
            .collect::<Result<_, _>>()?;
        let triple = |v: &[u64]| {
            if n == 3 {
                [v[0], v[1], v[2]]
            } else {
                [1, v[0], v[1]]
            }
        };
        let mut i = first_layout;
        let mut layouts = Vec::new();
        while i < f.len() && is_layout(f[i]) && layouts.len() < 3 {
            layouts.push(f[i].to_string());
            i += 1;
        }
        let layouts: [String; 3] = match layouts.as_slice() {
            [l] => [l.clone(), l.clone(), l.clone()],
            [a, b, c] => [a.clone(), b.clone(), c.clone()],
            _ => return Err(bad("layout count")),
        };
        let types = split_types(f.get(i).ok_or(bad("data type"))?).ok_or(bad("data type"))?;
        i += 1;
        let mut casts = [None; 3];
        if let Some(opt) = f.get(i).filter(|s| s.starts_with('c')) {
            let mut rest = *opt;
            while !rest.is_empty() {
                let slot = ["ci", "cw", "co"]
                    .iter()
                    .position(|t| rest.starts_with(t))
                    .ok_or(bad("cast part"))?;
                rest = &rest[2..];
                let t = DataType::ALL
                    .into_iter()
                    .find(|t| rest.starts_with(t.key_name()))
                    .ok_or(bad("cast type"))?;
                casts[slot] = Some(t);
                rest = &rest[t.key_name().len()..];
            }
            i += 1;
        }
        let tail = f.get(i..).ok_or(bad("field count"))?;
        if tail.len() != 3 * n + 3 {
            return Err(bad("field count"));
        }
        let ints: Vec<i64> = tail[..3 * n + 1]
            .iter()
            .map(|s| s.parse::<i64>().map_err(|_| bad("number")))
            .collect::<Result<_, _>>()?;
        let t3 = |v: &[i64], zero: i64| {
            if n == 3 {
                [v[0], v[1], v[2]]
            } else {
                [zero, v[0], v[1]]
            }
        };
        Ok(Problem {
            spatial_dims: dims,
            in_c: head[0],
            in_dhw: triple(&head[1..1 + n]),
            fil_dhw: triple(&head[1 + n..1 + 2 * n]),
            out_c: head[1 + 2 * n],
            out_dhw: triple(&head[2 + 2 * n..2 + 3 * n]),
            batch: head[2 + 3 * n],
            pad: t3(&ints[..n], 0),
            stride: t3(&ints[n..2 * n], 0),
            dilation: t3(&ints[2 * n..3 * n], 0),
            bias: 0,
            layouts,
            types,
            casts,
            groups: u64::try_from(ints[3 * n])
                .ok()
                .filter(|g| *g > 0)
                .ok_or(bad("group count"))?,
            direction: Direction::from_letter(tail[3 * n + 1]).ok_or(bad("direction"))?,
        })
    }

    /// Parses a SQLite perf-db config key
    /// (`2x64x56x56x1x3x3x1x64x16x1x1x0x1x1x0x1x1x0x0x1xNCHWxFP16xF`). The output size is
    /// recomputed; cast types are not part of it.
    pub fn from_perf_db_key(cfg: &str) -> Result<Problem, KeyError> {
        const FORM: &str = "perf-db key";
        let cfg = cfg.trim();
        let bad = |why| KeyError::new(FORM, why, cfg);
        let f: Vec<&str> = cfg.split('x').collect();
        if f.len() != 24 {
            return Err(bad("field count"));
        }
        let v: Vec<i64> = f[..21]
            .iter()
            .map(|s| s.parse::<i64>().map_err(|_| bad("number")))
            .collect::<Result<_, _>>()?;
        let (layout, dt, dir) = (f[21], f[22], f[23]);
        if !is_layout(layout) {
            return Err(bad("layout"));
        }
        let dims: u8 = match v[0] {
            2 => 2,
            3 => 3,
            _ => return Err(bad("spatial dims")),
        };
        let u = |x: i64| u64::try_from(x).map_err(|_| bad("negative size"));
        let three = dims == 3;
        let in_dhw = [if three { u(v[4])? } else { 1 }, u(v[2])?, u(v[3])?];
        let fil_dhw = [if three { u(v[7])? } else { 1 }, u(v[5])?, u(v[6])?];
        let pad = [v[12], v[10], v[11]];
        let stride = [v[15], v[13], v[14]];
        let dilation = [v[18], v[16], v[17]];
        let mut out_dhw = [1u64; 3];
        for i in usize::from(!three)..3 {
            out_dhw[i] = output_size(in_dhw[i], pad[i], fil_dhw[i], stride[i], dilation[i])
                .ok_or(bad("output size"))?;
        }
        // The perf-db prints one layout; a non-default one stands for all three.
        let layouts = [layout.to_string(), layout.to_string(), layout.to_string()];
        Ok(Problem {
            spatial_dims: dims,
            in_c: u(v[1])?,
            in_dhw,
            fil_dhw,
            out_c: u(v[8])?,
            out_dhw,
            batch: u(v[9])?,
            pad,
            stride,
            dilation,
            bias: v[19],
            layouts,
            types: split_types(dt).ok_or(bad("data type"))?,
            casts: [None; 3],
            groups: u64::try_from(v[20])
                .ok()
                .filter(|g| *g > 0)
                .ok_or(bad("group count"))?,
            direction: Direction::from_letter(dir).ok_or(bad("direction"))?,
        })
    }

    /// Parses any of the three key forms, recognised by their shape.
    pub fn from_any_key(text: &str) -> Result<Problem, KeyError> {
        let t = text.trim();
        if t.contains('-') {
            Problem::from_fdb_key(t)
        } else if t.ends_with("Default") || t.split('x').count() > 24 {
            Problem::from_network_config(t)
        } else {
            Problem::from_perf_db_key(t).or_else(|_| Problem::from_network_config(t))
        }
    }
}

/// One solver entry of a find-db record (`rocpath-miopen`'s `findrec` reads records into
/// these).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindItem {
    /// Solver (`SolverDbId`).
    pub solver: String,
    /// Algorithm (`miopenConvolutionFwdAlgoWinograd`).
    pub algorithm: String,
    /// Measured time in milliseconds.
    pub time_ms: f64,
    /// Workspace in bytes.
    pub workspace: u64,
    /// The item was in the legacy 1.0 format.
    #[serde(default)]
    pub legacy: bool,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn keys_round_trip() {
        for k in [
            "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F_g2",
            "64-32-32-1x1-64-32-32-16-0x0-1x1-1x1-0-NHWC-NHWC-NHWC-INT8-F",
            "64-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-INT8-F_coFP32",
            "16-8-28-28-3x3x3-32-8-28-28-4-1x1x1-1x1x1-1x1x1-0-NCDHW-FP16INT8FP32-W",
            "16-8-32-32-3x3x3-16-8-32-32-2-1x1x1-1x1x1-1x1x1-0-NCDHW-FP32-F",
        ] {
            let p = Problem::from_fdb_key(k).unwrap();
            assert_eq!(p.fdb_key(), k);
            let n = Problem::from_network_config(&p.network_config()).unwrap();
            assert_eq!(n.fdb_key(), k, "network config of {k}");
        }
        for bad in [
            "",
            "1-2-3",
            "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP33-F",
            "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-Q",
            "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F_g0",
            "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F_zz",
        ] {
            assert!(Problem::from_fdb_key(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_three_forms_as_the_real_log_prints_them() {
        // vega64_fp32_nchw_group2_3x3: find-db key, perf-db key and network config as logged.
        let p =
            Problem::from_fdb_key("64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F_g2").unwrap();
        assert_eq!(
            p.perf_db_key(),
            "2x64x56x56x1x3x3x1x64x32x1x1x0x1x1x0x1x1x0x0x2xNCHWxFP32xF"
        );
        assert_eq!(
            p.network_config(),
            "64x56x56x3x3x64x56x56x32xNCHWxFP32x1x1x1x1x1x1x2xFxDefault"
        );
        let q = Problem::from_perf_db_key(&p.perf_db_key()).unwrap();
        assert_eq!(q, p);
        assert_eq!(Problem::from_any_key(&p.network_config()).unwrap(), p);
        assert_eq!(Problem::from_any_key(&p.perf_db_key()).unwrap(), p);
        assert_eq!(
            p.short(),
            "n32 c64 56x56 k64 3x3 p1x1 s1x1 d1x1 g2 NCHW FP32 F"
        );
    }

    #[test]
    fn key_errors_name_the_form_and_the_part() {
        let e = Problem::from_network_config("axb").unwrap_err();
        assert_eq!(e.form, "network config");
        let e = Problem::from_perf_db_key("2x1").unwrap_err();
        assert_eq!(e.why, "field count");
        assert!(e.to_string().contains("perf-db key"));
    }

    #[test]
    fn output_size_matches_miopen() {
        assert_eq!(output_size(56, 1, 3, 1, 1), Some(56));
        assert_eq!(output_size(56, 1, 3, 2, 1), Some(28));
        assert_eq!(output_size(2, 0, 5, 1, 1), None);
        assert_eq!(output_size(2, 0, 1, 0, 1), None);
    }

    proptest::proptest! {
        #[test]
        fn any_text_parses_or_errs(s in "\\PC{0,80}") {
            match Problem::from_any_key(&s) {
                // What parses has a find-db key that reads back to itself.
                Ok(p) => {
                    let key = p.fdb_key();
                    proptest::prop_assert_eq!(Problem::from_fdb_key(&key).map(|q| q.fdb_key()), Ok(key));
                }
                Err(e) => proptest::prop_assert!(!e.to_string().is_empty()),
            }
        }

        #[test]
        fn built_problems_round_trip(c in 1u64..512, h in 1u64..300, k in 1u64..512, y in 1u64..8,
                                     n in 1u64..64, p in 0i64..4, st in 1i64..4, g in 1u64..4,
                                     dir in 0usize..3, ty in 0usize..9, nhwc: bool) {
            let Some(p) = (Square2d {
                ty: DataType::ALL[ty], layout: if nhwc { "NHWC" } else { "NCHW" },
                direction: [Direction::Forward, Direction::BackwardData, Direction::BackwardWeights][dir],
                c, k, hw: h, filter: y, pad: p, stride: st, groups: g, batch: n,
            }).problem() else { return Ok(()); };
            proptest::prop_assert_eq!(&Problem::from_fdb_key(&p.fdb_key()).unwrap(), &p);
            proptest::prop_assert_eq!(&Problem::from_network_config(&p.network_config()).unwrap(), &p);
            proptest::prop_assert_eq!(&Problem::from_perf_db_key(&p.perf_db_key()).unwrap(), &p);
        }
    }
}
