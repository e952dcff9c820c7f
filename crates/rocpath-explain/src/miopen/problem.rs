//! A convolution problem as MIOpen describes it (`conv::ProblemDescription`), built from an
//! `MIOpenDriver conv…` command line or parsed back from a find-db key, and serialized into the
//! three keys MIOpen prints: the find-db key, the network config (invoker-cache key) and the
//! perf-db key.
//!
//! Source: ROCm/MIOpen@2d1fd997 `src/conv/problem_description.cpp:140-238` (MakeNetworkConfig,
//! Serialize), `src/include/miopen/conv/problem_description.hpp:117-133, 363-398` (in/out are
//! x/y for Forward and y/x for Backward*; Visit order of the perf-db columns),
//! `driver/conv_driver.hpp:869-1003` (command-line flags and defaults).

use serde::Serialize;
use std::fmt::Write;

/// Why a problem could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProblemError {
    /// The command line is not an MIOpenDriver convolution.
    #[error("not an MIOpenDriver convolution command: {0}")]
    NotConv(String),
    /// A flag the driver does not have, or a flag without value.
    #[error("MIOpenDriver flag {0}")]
    Flag(String),
    /// A value that is not a number where one is needed, or out of range.
    #[error("bad value for {flag}: {value:?}")]
    Value {
        /// The flag.
        flag: String,
        /// The value given.
        value: String,
    },
    /// A find-db key that does not have the serialized shape.
    #[error("not a find-db key ({0}): {1:?}")]
    Key(&'static str, String),
    /// Something rocpath does not model (transposed convolution, pad modes).
    #[error("unsupported: {0}")]
    Unsupported(String),
}

/// One convolution problem in MIOpen's terms: `in`/`out` are the problem's input and output
/// tensors (x/y forward, dy/dx or dy/x backward).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// 2 or 3.
    pub spatial_dims: u8,
    /// Input channels (of `in`).
    pub in_c: u64,
    /// Input depth, height, width.
    pub in_dhw: [u64; 3],
    /// Filter depth, height, width.
    pub fil_dhw: [u64; 3],
    /// Output channels (of `out`).
    pub out_c: u64,
    /// Output depth, height, width.
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
    /// Layouts of in, weights, out.
    pub layouts: [String; 3],
    /// Data types of in, weights, out (`FP32`, `FP16`, `BF16`, `INT8`, …).
    pub types: [String; 3],
    /// Cast types of in, weights, out.
    pub casts: [Option<String>; 3],
    /// Group count.
    pub groups: u64,
    /// `F`, `B` or `W`.
    pub direction: char,
}

fn dhw(sep: char, dims: u8, v: [impl std::fmt::Display; 3]) -> String {
    let [d, h, w] = v;
    if dims > 2 {
        format!("{d}{sep}{h}{sep}{w}")
    } else {
        format!("{h}{sep}{w}")
    }
}

fn default_layout(dims: u8) -> &'static str {
    if dims > 2 { "NCDHW" } else { "NCHW" }
}

impl Problem {
    /// `EncodeDataTypesForKey` (problem_description.cpp:39-45).
    pub fn types_key(&self) -> String {
        let [i, w, o] = &self.types;
        if i == w && i == o {
            i.clone()
        } else {
            format!("{i}{w}{o}")
        }
    }

    fn layout_part(&self, sep: char) -> String {
        // problem_description.cpp:206-214: the default 2-D/3-D layout prints once
        // (only NCHW/NCDHW count as "default" here), anything else prints all three.
        if self.layouts.iter().all(|x| x == "NCHW") || self.layouts.iter().all(|x| x == "NCDHW") {
            self.layouts[0].clone()
        } else {
            self.layouts.join(&sep.to_string())
        }
    }

    /// The find-db / perf-db text key (`ProblemDescription::Serialize`,
    /// problem_description.cpp:188-238), e.g. `64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F`.
    pub fn fdb_key(&self) -> String {
        let d = self.spatial_dims;
        let mut s = String::new();
        let _ = write!(
            s,
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
            self.direction,
        );
        if self.groups != 1 {
            let _ = write!(s, "_g{}", self.groups);
        }
        for (tag, c) in ["_ci", "_cw", "_co"].iter().zip(&self.casts) {
            if let Some(c) = c {
                let _ = write!(s, "{tag}{c}");
            }
        }
        s
    }

    /// The network config, MIOpen's invoker-cache key (`MakeNetworkConfig`,
    /// problem_description.cpp:140-186), with the default alpha/beta:
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
            self.direction
        );
        s
    }

    /// The perf-db columns in `ProblemDescription::Visit` order (problem_description.hpp:363-398);
    /// for a 2-D problem the depth is 1 and pad/stride/dilation depth are 0, as MIOpen stores them.
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
            self.direction
        );
        s
    }

    /// Parses a find-db key back (the inverse of [`Problem::fdb_key`]).
    pub fn from_fdb_key(key: &str) -> Result<Problem, ProblemError> {
        let bad = |why: &'static str| ProblemError::Key(why, key.to_string());
        let key = key.trim();
        // Optional suffixes: _g<G>, _ci<T>, _cw<T>, _co<T>.
        let (main, opt) = match key.find('_') {
            Some(i) => (&key[..i], &key[i..]),
            None => (key, ""),
        };
        let mut groups = 1u64;
        let mut casts: [Option<String>; 3] = [None, None, None];
        for part in opt.split('_').filter(|p| !p.is_empty()) {
            if let Some(g) = part.strip_prefix('g') {
                groups = g.parse().map_err(|_| bad("group count"))?;
            } else if let Some(t) = part.strip_prefix("ci") {
                casts[0] = Some(t.to_string());
            } else if let Some(t) = part.strip_prefix("cw") {
                casts[1] = Some(t.to_string());
            } else if let Some(t) = part.strip_prefix("co") {
                casts[2] = Some(t.to_string());
            } else {
                return Err(bad("unknown suffix"));
            }
        }
        let f: Vec<&str> = main.split('-').collect();
        let num = |s: &str| s.parse::<u64>().map_err(|_| bad("number"));
        let xs = |s: &str| -> Result<Vec<i64>, ProblemError> {
            s.split('x')
                .map(|v| v.parse::<i64>().map_err(|_| bad("AxB group")))
                .collect()
        };
        // 2-D: C H W YxX K oH oW N PxP SxS DxD bias layout(1|3) type dir  (15 or 17 fields)
        // 3-D: C D H W ZxYxX K oD oH oW N … (17 or 19 fields)
        let dims: u8 = match f.len() {
            15 | 17 if f.get(3).is_some_and(|s| s.contains('x')) => 2,
            17 | 19 if f.get(4).is_some_and(|s| s.contains('x')) => 3,
            _ => return Err(bad("field count")),
        };
        let mut it = f.iter().copied();
        macro_rules! next {
            () => {
                it.next().unwrap_or("")
            };
        }
        let in_c = num(next!())?;
        let in_dhw = if dims == 3 {
            [num(next!())?, num(next!())?, num(next!())?]
        } else {
            [1, num(next!())?, num(next!())?]
        };
        let fil = xs(next!())?;
        let out_c = num(next!())?;
        let out_dhw = if dims == 3 {
            [num(next!())?, num(next!())?, num(next!())?]
        } else {
            [1, num(next!())?, num(next!())?]
        };
        let batch = num(next!())?;
        let pad = xs(next!())?;
        let stride = xs(next!())?;
        let dil = xs(next!())?;
        let bias: i64 = next!().parse().map_err(|_| bad("bias"))?;
        let rest: Vec<&str> = it.collect();
        let (layouts, ty, dir) = match rest.as_slice() {
            [l, t, d] => ([l.to_string(), l.to_string(), l.to_string()], *t, *d),
            [a, b, c, t, d] => ([a.to_string(), b.to_string(), c.to_string()], *t, *d),
            _ => return Err(bad("layout/type/direction")),
        };
        let direction = match dir {
            "F" => 'F',
            "B" => 'B',
            "W" => 'W',
            _ => return Err(bad("direction")),
        };
        let n = usize::from(dims);
        let arr = |v: Vec<i64>, pad2: i64| -> Result<[i64; 3], ProblemError> {
            if v.len() != n {
                return Err(bad("dimension count"));
            }
            Ok(if n == 3 {
                [v[0], v[1], v[2]]
            } else {
                [pad2, v[0], v[1]]
            })
        };
        let fil = arr(fil, 1)?;
        if fil.iter().any(|v| *v < 0) {
            return Err(bad("filter"));
        }
        Ok(Problem {
            spatial_dims: dims,
            in_c,
            in_dhw,
            fil_dhw: [fil[0] as u64, fil[1] as u64, fil[2] as u64],
            out_c,
            out_dhw,
            batch,
            pad: arr(pad, 0)?,
            stride: arr(stride, 0)?,
            dilation: arr(dil, 0)?,
            bias,
            layouts,
            types: split_types(ty).ok_or_else(|| bad("data type"))?,
            casts,
            groups,
            direction,
        })
    }

    /// One line for people: `n32 c64 56x56 k64 3x3 p1x1 s1x1 d1x1 g1 NCHW FP32 F`.
    pub fn summary(&self) -> String {
        format!(
            "in {}x{} {} fil {} out {}x{} {} batch {} pad {} stride {} dil {} g{} {} {} {}",
            self.in_c,
            dhw('x', self.spatial_dims, self.in_dhw),
            "",
            dhw('x', self.spatial_dims, self.fil_dhw),
            self.out_c,
            dhw('x', self.spatial_dims, self.out_dhw),
            "",
            self.batch,
            dhw('x', self.spatial_dims, self.pad),
            dhw('x', self.spatial_dims, self.stride),
            dhw('x', self.spatial_dims, self.dilation),
            self.groups,
            self.layout_part('-'),
            self.types_key(),
            self.direction
        )
        .replace("  ", " ")
    }
}

/// MIOpen's data-type names (`GetDataTypeName`), longest first for splitting a concatenation.
const TYPES: [&str; 9] = [
    "INT64", "INT32", "INT8", "FP64", "FP32", "FP16", "BF16", "FP8", "BF8",
];

fn split_types(s: &str) -> Option<[String; 3]> {
    if TYPES.contains(&s) {
        return Some([s.to_string(), s.to_string(), s.to_string()]);
    }
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let t = TYPES.iter().find(|t| rest.starts_with(**t))?;
        out.push(t.to_string());
        rest = &rest[t.len()..];
    }
    <[String; 3]>::try_from(out).ok()
}

/// Driver data type of a `conv*` command.
fn driver_type(cmd: &str) -> Option<&'static str> {
    Some(match cmd {
        "conv" => "FP32",
        "convfp16" => "FP16",
        "convbfp16" => "BF16",
        "convint8" => "INT8",
        "convfp64" => "FP64",
        "convfp8" => "FP8",
        "convbfp8" => "BF8",
        _ => return None,
    })
}

fn cast_name(v: &str) -> Option<String> {
    Some(
        match v.to_ascii_lowercase().as_str() {
            "fp32" => "FP32",
            "fp16" => "FP16",
            "bf16" | "bfp16" => "BF16",
            "fp8" => "FP8",
            "bf8" | "bfp8" => "BF8",
            "int8" => "INT8",
            "int32" => "INT32",
            "fp64" => "FP64",
            _ => return None,
        }
        .to_string(),
    )
}

/// `(long name, short letter)` of every MIOpenDriver conv flag (conv_driver.hpp:869-1003).
const FLAGS: &[(&str, char)] = &[
    ("in_layout", 'I'),
    ("out_layout", 'O'),
    ("fil_layout", 'f'),
    ("spatial_dim", '_'),
    ("forw", 'F'),
    ("batchsize", 'n'),
    ("in_channels", 'c'),
    ("in_d", '!'),
    ("in_h", 'H'),
    ("in_w", 'W'),
    ("out_channels", 'k'),
    ("fil_d", '@'),
    ("fil_h", 'y'),
    ("fil_w", 'x'),
    ("conv_stride_d", '#'),
    ("conv_stride_h", 'u'),
    ("conv_stride_w", 'v'),
    ("pad_d", '$'),
    ("pad_h", 'p'),
    ("pad_w", 'q'),
    ("pad_val", 'r'),
    ("trans_output_pad_d", '%'),
    ("trans_output_pad_h", 'Y'),
    ("trans_output_pad_w", 'X'),
    ("iter", 'i'),
    ("verify", 'V'),
    ("verification_cache", 'C'),
    ("time", 't'),
    ("wall", 'w'),
    ("search", 's'),
    ("printconv", 'P'),
    ("dump_output", 'o'),
    ("in_data", 'd'),
    ("weights", 'e'),
    ("bias", 'b'),
    ("mode", 'm'),
    ("pad_mode", 'z'),
    ("tensor_vect", 'Z'),
    ("vector_length", 'L'),
    ("dilation_d", '^'),
    ("dilation_h", 'l'),
    ("dilation_w", 'j'),
    ("in_bias", 'a'),
    ("group_count", 'g'),
    ("dout_data", 'D'),
    ("solution", 'S'),
    ("gpualloc", 'G'),
    ("in_cast_type", 'U'),
    ("out_cast_type", 'T'),
    ("wei_cast_type", 'R'),
];

/// What a driver command line asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DriverCommand {
    /// The `conv*` sub-command.
    pub command: String,
    /// One problem per direction the `-F` flag enables, in F, B, W order.
    pub problems: Vec<Problem>,
    /// `-S` value when it forces a solution (anything but a negative number).
    pub forced: Option<String>,
    /// `-s 1`: search (tuning) requested.
    pub search: bool,
}

/// Parses `MIOpenDriver conv… -n 32 …` (the program name may be absent or a path; `--name value`
/// and `-x value` both work).
pub fn parse_driver<S: AsRef<str>>(args: &[S]) -> Result<DriverCommand, ProblemError> {
    let mut it = args.iter().map(|s| s.as_ref()).peekable();
    let mut first = it.next().unwrap_or_default();
    if first
        .rsplit('/')
        .next()
        .unwrap_or(first)
        .starts_with("MIOpenDriver")
    {
        first = it.next().unwrap_or_default();
    }
    let base_type = driver_type(first).ok_or_else(|| ProblemError::NotConv(first.to_string()))?;
    let mut vals: std::collections::HashMap<&'static str, String> = Default::default();
    while let Some(a) = it.next() {
        let name = if let Some(long) = a.strip_prefix("--") {
            FLAGS.iter().find(|(n, _)| *n == long).map(|(n, _)| *n)
        } else if let Some(short) = a.strip_prefix('-') {
            let mut cs = short.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) => FLAGS.iter().find(|(_, s)| *s == c).map(|(n, _)| *n),
                _ => None,
            }
        } else {
            None
        };
        let name = name.ok_or_else(|| ProblemError::Flag(format!("{a:?} is not known")))?;
        let v = it
            .next()
            .ok_or_else(|| ProblemError::Flag(format!("{a} has no value")))?;
        vals.insert(name, v.to_string());
    }
    let int = |name: &str, default: i64| -> Result<i64, ProblemError> {
        match vals.get(name) {
            None => Ok(default),
            Some(v) if v.is_empty() => Ok(default),
            Some(v) => v.parse::<i64>().map_err(|_| ProblemError::Value {
                flag: name.to_string(),
                value: v.clone(),
            }),
        }
    };
    let pos = |name: &str, default: i64| -> Result<u64, ProblemError> {
        let v = int(name, default)?;
        u64::try_from(v)
            .ok()
            .filter(|v| *v > 0)
            .ok_or(ProblemError::Value {
                flag: name.to_string(),
                value: v.to_string(),
            })
    };
    if let Some(m) = vals.get("mode") {
        if m != "conv" {
            return Err(ProblemError::Unsupported(format!(
                "convolution mode {m:?} (only `-m conv`)"
            )));
        }
    }
    if let Some(m) = vals.get("pad_mode") {
        if m != "default" {
            return Err(ProblemError::Unsupported(format!("pad mode {m:?}")));
        }
    }
    let dims = int("spatial_dim", 2)?;
    let dims: u8 = match dims {
        2 => 2,
        3 => 3,
        _ => {
            return Err(ProblemError::Value {
                flag: "spatial_dim".into(),
                value: dims.to_string(),
            });
        }
    };
    let three = dims == 3;
    let n = pos("batchsize", 100)?;
    let c = pos("in_channels", 3)?;
    let k = pos("out_channels", 32)?;
    let g = pos("group_count", 1)?;
    let in_dhw = [
        if three { pos("in_d", 32)? } else { 1 },
        pos("in_h", 32)?,
        pos("in_w", 32)?,
    ];
    let fil = [
        if three { pos("fil_d", 3)? } else { 1 },
        pos("fil_h", 3)?,
        pos("fil_w", 3)?,
    ];
    let pad = [
        if three { int("pad_d", 0)? } else { 0 },
        int("pad_h", 0)?,
        int("pad_w", 0)?,
    ];
    let stride = [
        if three { int("conv_stride_d", 1)? } else { 0 },
        int("conv_stride_h", 1)?,
        int("conv_stride_w", 1)?,
    ];
    let dil = [
        if three { int("dilation_d", 1)? } else { 0 },
        int("dilation_h", 1)?,
        int("dilation_w", 1)?,
    ];
    let mut out_dhw = [1u64; 3];
    for i in 0..3 {
        if !three && i == 0 {
            continue;
        }
        let (s, d) = (stride[i], dil[i]);
        if s <= 0 || d <= 0 {
            return Err(ProblemError::Value {
                flag: "stride/dilation".into(),
                value: format!("{s}/{d}"),
            });
        }
        // Output size for `-m conv` (ConvolutionDescriptor::GetForwardOutputTensor).
        let o = (in_dhw[i] as i64 + 2 * pad[i] - d * (fil[i] as i64 - 1) - 1) / s + 1;
        out_dhw[i] = u64::try_from(o)
            .ok()
            .filter(|o| *o > 0)
            .ok_or(ProblemError::Value {
                flag: "output size".into(),
                value: o.to_string(),
            })?;
    }
    let layout = |name: &str| -> String {
        vals.get(name)
            .filter(|v| !v.is_empty())
            .cloned()
            .unwrap_or_else(|| default_layout(dims).to_string())
    };
    let cast = |name: &str| -> Result<Option<String>, ProblemError> {
        match vals.get(name).map(String::as_str) {
            None | Some("-1") | Some("") => Ok(None),
            Some(v) => cast_name(v).map(Some).ok_or(ProblemError::Value {
                flag: name.to_string(),
                value: v.to_string(),
            }),
        }
    };
    let (x_l, w_l, y_l) = (
        layout("in_layout"),
        layout("fil_layout"),
        layout("out_layout"),
    );
    let (x_c, w_c, y_c) = (
        cast("in_cast_type")?,
        cast("wei_cast_type")?,
        cast("out_cast_type")?,
    );
    let bias = int("bias", 0)?;
    let forw = int("forw", 0)?;
    let dirs: &[char] = match forw {
        0 => &['F', 'B', 'W'],
        1 => &['F'],
        2 => &['B'],
        3 => &['F', 'B'],
        4 => &['W'],
        5 => &['F', 'W'],
        6 => &['B', 'W'],
        _ => {
            return Err(ProblemError::Value {
                flag: "forw".into(),
                value: forw.to_string(),
            });
        }
    };
    let ty = base_type.to_string();
    let problems = dirs
        .iter()
        .map(|&dir| {
            let fwd = dir == 'F';
            // Forward: in = x, out = y. Backward data/weights: in = dy, out = dx / x.
            let (in_c, in_d, out_c, out_d) = if fwd {
                (c, in_dhw, k, out_dhw)
            } else {
                (k, out_dhw, c, in_dhw)
            };
            let layouts = if fwd {
                [x_l.clone(), w_l.clone(), y_l.clone()]
            } else {
                [y_l.clone(), w_l.clone(), x_l.clone()]
            };
            let casts = if fwd {
                [x_c.clone(), w_c.clone(), y_c.clone()]
            } else {
                [y_c.clone(), w_c.clone(), x_c.clone()]
            };
            Problem {
                spatial_dims: dims,
                in_c,
                in_dhw: in_d,
                fil_dhw: fil,
                out_c,
                out_dhw: out_d,
                batch: n,
                pad,
                stride,
                dilation: dil,
                bias,
                layouts,
                types: [ty.clone(), ty.clone(), ty.clone()],
                casts,
                groups: g,
                direction: dir,
            }
        })
        .collect();
    let forced = vals
        .get("solution")
        .filter(|s| !s.is_empty() && !s.starts_with('-'))
        .cloned();
    Ok(DriverCommand {
        command: first.to_string(),
        problems,
        forced,
        search: int("search", 0)? != 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(s: &str) -> DriverCommand {
        parse_driver(&s.split_whitespace().collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn keys_as_the_real_log_prints_them() {
        // vega64_fp32_nchw_group2_3x3: find-db key, perf-db key and network config as logged.
        let d = cmd(
            "MIOpenDriver conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -g 2 -F 1 -t 1",
        );
        let p = &d.problems[0];
        assert_eq!(
            p.fdb_key(),
            "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F_g2"
        );
        assert_eq!(
            p.perf_db_key(),
            "2x64x56x56x1x3x3x1x64x32x1x1x0x1x1x0x1x1x0x0x2xNCHWxFP32xF"
        );
        let d = cmd(
            "./bin/MIOpenDriver convbfp16 -n 16 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -s 1 -F 1 -t 1",
        );
        assert_eq!(
            d.problems[0].network_config(),
            "64x56x56x3x3x64x56x56x16xNCHWxBF16x1x1x1x1x1x1x1xFxDefault"
        );
        assert!(d.search);
        let d = cmd(
            "MIOpenDriver convint8 -n 16 -c 64 -H 32 -W 32 -k 64 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 --in_layout NHWC --fil_layout NHWC --out_layout NHWC -m conv -g 1 -F 1 -t 1",
        );
        assert_eq!(
            d.problems[0].fdb_key(),
            "64-32-32-1x1-64-32-32-16-0x0-1x1-1x1-0-NHWC-NHWC-NHWC-INT8-F"
        );
        let d = cmd(
            "MIOpenDriver convint8 -n 32 -c 64 -H 56 -W 56 -k 64 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 --out_cast_type fp32 -F 1 -t 1",
        );
        assert_eq!(
            d.problems[0].fdb_key(),
            "64-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-INT8-F_coFP32"
        );
    }

    #[test]
    fn backward_swaps_in_and_out() {
        let d = cmd("MIOpenDriver conv -n 128 -c 512 -H 4 -W 4 -k 1 -y 4 -x 4 -F 2");
        assert_eq!(
            d.problems[0].fdb_key(),
            "1-1-1-4x4-512-4-4-128-0x0-1x1-1x1-0-NCHW-FP32-B"
        );
        assert_eq!(cmd("MIOpenDriver conv -F 0").problems.len(), 3);
    }

    #[test]
    fn key_round_trip() {
        for k in [
            "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F_g2",
            "64-32-32-1x1-64-32-32-16-0x0-1x1-1x1-0-NHWC-NHWC-NHWC-INT8-F",
            "64-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-INT8-F_coFP32",
            "16-8-28-28-3x3x3-32-8-28-28-4-1x1x1-1x1x1-1x1x1-0-NCDHW-FP16INT8FP32-W",
        ] {
            assert_eq!(Problem::from_fdb_key(k).unwrap().fdb_key(), k);
        }
        for bad in [
            "",
            "1-2-3",
            "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP33-F",
        ] {
            assert!(Problem::from_fdb_key(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn driver_errors() {
        for bad in [
            "MIOpenDriver gemm -n 1",
            "MIOpenDriver conv -n",
            "MIOpenDriver conv --nope 1",
            "MIOpenDriver conv -n x",
            "MIOpenDriver conv -m trans",
            "MIOpenDriver conv -H 2 -y 5",
        ] {
            let a: Vec<&str> = bad.split_whitespace().collect();
            assert!(parse_driver(&a).is_err(), "{bad}");
        }
        assert_eq!(
            cmd("MIOpenDriver conv -S ConvCkIgemmFwdV6r1DlopsNchw -F 1")
                .forced
                .as_deref(),
            Some("ConvCkIgemmFwdV6r1DlopsNchw")
        );
        assert_eq!(cmd("MIOpenDriver conv -S -1 -F 1").forced, None);
    }
}
