//! An `MIOpenDriver conv…` command line: the problems it builds (one per direction `-F`
//! enables), the solution it forces (`-S`) and whether it searches (`-s 1`).
//!
//! Source: ROCm/MIOpen@2d1fd997 `driver/conv_driver.hpp:869-1003` (flags and defaults),
//! `:631-647` (`-F` bits, `-S` as a name or a number), `:1902-1905` (immediate vs Find).
//! MIOpen 3.5.1's `convint8` builds an all-int8 problem (its logs show `dataType = 3` for the
//! output and keys ending `-INT8-F`), which is what this parser builds; the driver of
//! 2d1fd997 gives the output (y) tensor `miopenInt32` instead
//! (`driver/conv_driver.hpp:816-818@2d1fd997`), which [`DriverCommand::for_release`] applies.

use crate::problem::{DataType, Direction, Problem, default_layout, output_size};
use serde::Serialize;
use std::collections::HashMap;

/// Why a command line does not describe a convolution.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DriverError {
    /// Not an MIOpenDriver convolution sub-command.
    #[error(
        "not an MIOpenDriver convolution command ({0:?}; expected conv, convfp16, convbfp16, convint8, …)"
    )]
    NotConv(String),
    /// A flag the driver does not have (strict parsing only), or a flag without a value.
    #[error("MIOpenDriver flag {0}")]
    Flag(String),
    /// A value that is not a number where one is needed, or out of range.
    #[error("bad value for --{flag}: {value:?}")]
    Value {
        /// The flag (long name).
        flag: String,
        /// The value given.
        value: String,
    },
    /// Something MIOpen's key cannot express or rocpath does not model.
    #[error("unsupported: {0}")]
    Unsupported(String),
}

/// How unknown flags are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    /// Every flag must be one MIOpenDriver's `conv` knows (command lines people type).
    Strict,
    /// Unknown flags are skipped (command lines read from logs of other driver versions).
    Tolerant,
}

/// The data type of a `conv*` sub-command.
pub fn command_type(cmd: &str) -> Option<DataType> {
    Some(match cmd {
        "conv" => DataType::Fp32,
        "convfp16" => DataType::Fp16,
        "convbfp16" => DataType::Bf16,
        "convint8" => DataType::Int8,
        "convfp64" => DataType::Fp64,
        "convfp8" => DataType::Fp8,
        "convbfp8" => DataType::Bf8,
        _ => return None,
    })
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

fn flag_name(arg: &str) -> Option<&'static str> {
    if let Some(long) = arg.strip_prefix("--") {
        return FLAGS.iter().find(|(n, _)| *n == long).map(|(n, _)| *n);
    }
    let short = arg.strip_prefix('-')?;
    let mut cs = short.chars();
    match (cs.next(), cs.next()) {
        (Some(c), None) => FLAGS.iter().find(|(_, s)| *s == c).map(|(n, _)| *n),
        _ => None,
    }
}

/// What a driver command line asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DriverCommand {
    /// The `conv*` sub-command.
    pub command: String,
    /// One problem per direction `-F` enables, in F, B, W order.
    pub problems: Vec<Problem>,
    /// The `-S` value as given (a solver name or a number), when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solution: Option<String>,
    /// `-s 1`: search (tuning) requested.
    pub search: bool,
    /// The `-F` value (0 = all three directions).
    pub forw: i64,
    /// Flags skipped because the driver of this parser does not know them (tolerant parsing).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown_flags: Vec<String>,
}

/// Which API path the driver takes for a direction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "path", content = "solver")]
pub enum DriverPath {
    /// `-S` absent or negative: the Find API (`RunForwardGpuFind`).
    Find,
    /// `-S 0`, or a name the registry does not know: immediate mode, the first (fastest)
    /// solution `GetSolution` returns.
    ImmediateFastest,
    /// `-S <id|name>`: immediate mode with that solver (`RunForwardGpuImmed`).
    ImmediateSolver(String),
}

impl DriverCommand {
    /// Parses `MIOpenDriver conv… -n 32 …` (the program name may be absent or a path;
    /// `--name value`, `--name=value` and `-x value` all work).
    pub fn parse<S: AsRef<str>>(
        args: &[S],
        mode: Strictness,
    ) -> Result<DriverCommand, DriverError> {
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
        let ty = command_type(first).ok_or_else(|| DriverError::NotConv(first.to_string()))?;
        let mut vals: HashMap<&'static str, String> = HashMap::new();
        let mut unknown_flags = Vec::new();
        while let Some(a) = it.next() {
            let (a, inline) = match a.split_once('=') {
                Some((k, v)) if a.starts_with("--") => (k, Some(v)),
                _ => (a, None),
            };
            match flag_name(a) {
                Some(name) => {
                    let v = match inline {
                        Some(v) => v,
                        None => it
                            .next()
                            .ok_or_else(|| DriverError::Flag(format!("{a} has no value")))?,
                    };
                    vals.insert(name, v.to_string());
                }
                None if mode == Strictness::Strict => {
                    return Err(DriverError::Flag(format!("{a:?} is not known")));
                }
                None => {
                    if a.starts_with('-') {
                        unknown_flags.push(a.to_string());
                        if inline.is_none() && it.peek().is_some_and(|n| !n.starts_with('-')) {
                            it.next();
                        }
                    }
                }
            }
        }
        build(first, ty, &vals, unknown_flags)
    }

    /// Parses the text after `MIOpenDriver` as logs print it (`conv -n 32 -c 64 …`), tolerantly.
    pub fn parse_line(text: &str) -> Result<DriverCommand, DriverError> {
        let args: Vec<&str> = text.split_ascii_whitespace().collect();
        DriverCommand::parse(&args, Strictness::Tolerant)
    }

    /// The solver named by `-S`, when it names one (`-S 0` and negative values do not).
    pub fn forced_solver(&self) -> Option<&str> {
        let s = self.solution.as_deref()?.trim();
        match s.parse::<i64>() {
            Ok(n) if n <= 0 => None,
            _ if s.is_empty() => None,
            _ => Some(s),
        }
    }

    /// The problems as the driver of `release` builds them: `None` is the pinned checkout
    /// 2d1fd997, whose `convint8` makes the output (y) tensor `miopenInt32`
    /// (`driver/conv_driver.hpp:816-818@2d1fd997`: `y_type = data_type == miopenInt8 ?
    /// miopenInt32 : data_type`; rocm-6.2.2's `:945-946` the same); 3.5 and later keep the
    /// all-int8 problem their logs show. y is `out` of a forward problem and `in` (dy) of a
    /// backward one.
    pub fn for_release(mut self, release: Option<&str>) -> DriverCommand {
        let int8_out = release.is_some_and(|r| crate::model::release::overlay_for(r).is_some());
        if int8_out || command_type(&self.command) != Some(DataType::Int8) {
            return self;
        }
        for p in &mut self.problems {
            let y = match p.direction {
                Direction::Forward => 2,
                _ => 0,
            };
            p.types[y] = DataType::Int32;
        }
        self
    }

    /// What MIOpenDriver itself rejects before calling MIOpen: a cast type outside fp32,
    /// fp16, bf16, fp8, bf8 (`Invalid value for out_cast_type argument:int32`,
    /// conv_driver.hpp:649-677).
    pub fn rejected_by_driver(&self) -> Option<String> {
        const VALID: [DataType; 5] = [
            DataType::Fp32,
            DataType::Fp16,
            DataType::Bf16,
            DataType::Fp8,
            DataType::Bf8,
        ];
        let p = self.problems.first()?;
        // Forward order of the casts: in (x), weights, out (y).
        let casts = match p.direction {
            Direction::Forward => p.casts,
            _ => [p.casts[2], p.casts[1], p.casts[0]],
        };
        let cast = ["in_cast_type", "wei_cast_type", "out_cast_type"]
            .iter()
            .zip(casts)
            .find_map(|(flag, c)| {
                let c = c?;
                (!VALID.contains(&c)).then(|| {
                    format!(
                        "Invalid value for {flag} argument:{}",
                        c.key_name().to_ascii_lowercase()
                    )
                })
            });
        cast.or_else(|| invalid_groups(p))
    }

    /// The API path (conv_driver.hpp:635-647, 1902-1905). A name is resolved by `known`
    /// (`solver::Id(name)`: 0 for names the registry lacks, which then means "fastest").
    pub fn path(&self, known: impl Fn(&str) -> bool) -> DriverPath {
        let Some(s) = self.solution.as_deref().map(str::trim) else {
            return DriverPath::Find;
        };
        match s.parse::<i64>() {
            Ok(n) if n < 0 => DriverPath::Find,
            Ok(0) => DriverPath::ImmediateFastest,
            Ok(_) => DriverPath::ImmediateSolver(s.to_string()),
            Err(_) if known(s) => DriverPath::ImmediateSolver(s.to_string()),
            Err(_) => DriverPath::ImmediateFastest,
        }
    }
}

struct Flags<'a> {
    vals: &'a HashMap<&'static str, String>,
}

impl Flags<'_> {
    fn int(&self, name: &str, default: i64) -> Result<i64, DriverError> {
        match self.vals.get(name).map(|v| v.trim()) {
            None | Some("") => Ok(default),
            Some(v) => v.parse::<i64>().map_err(|_| DriverError::Value {
                flag: name.to_string(),
                value: v.to_string(),
            }),
        }
    }

    fn pos(&self, name: &str, default: i64) -> Result<u64, DriverError> {
        let v = self.int(name, default)?;
        u64::try_from(v)
            .ok()
            .filter(|v| *v > 0)
            .ok_or(DriverError::Value {
                flag: name.to_string(),
                value: v.to_string(),
            })
    }

    fn str(&self, name: &str) -> Option<&str> {
        self.vals
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    fn cast(&self, name: &str) -> Result<Option<DataType>, DriverError> {
        match self.str(name) {
            None | Some("-1") => Ok(None),
            Some(v) => DataType::from_driver_name(v)
                .map(Some)
                .ok_or(DriverError::Value {
                    flag: name.to_string(),
                    value: v.to_string(),
                }),
        }
    }
}

/// The spatial geometry of a driver command: input, filter, padding, stride, dilation and
/// the output size they give (depth 1 in 2-D).
struct Geometry {
    dims: u8,
    in_dhw: [u64; 3],
    fil: [u64; 3],
    pad: [i64; 3],
    stride: [i64; 3],
    dil: [i64; 3],
    out_dhw: [u64; 3],
}

/// The directions `-F` (`forw`) asks for.
fn directions(forw: i64) -> Result<&'static [Direction], DriverError> {
    use Direction::{BackwardData as Bd, BackwardWeights as Bw, Forward as Fw};
    Ok(match forw {
        0 => &[Fw, Bd, Bw],
        1 => &[Fw],
        2 => &[Bd],
        3 => &[Fw, Bd],
        4 => &[Bw],
        5 => &[Fw, Bw],
        6 => &[Bd, Bw],
        _ => {
            return Err(DriverError::Value {
                flag: "forw".into(),
                value: forw.to_string(),
            });
        }
    })
}

/// `-m conv` and the default padding mode only.
fn check_mode(f: &Flags<'_>) -> Result<(), DriverError> {
    if let Some(m) = f.str("mode").filter(|m| *m != "conv") {
        return Err(DriverError::Unsupported(format!(
            "convolution mode {m:?} (only `-m conv`)"
        )));
    }
    if let Some(m) = f.str("pad_mode").filter(|m| *m != "default") {
        return Err(DriverError::Unsupported(format!("pad mode {m:?}")));
    }
    Ok(())
}

/// The geometry the flags give, with MIOpenDriver's defaults.
fn geometry(f: &Flags<'_>) -> Result<Geometry, DriverError> {
    let dims: u8 = match f.int("spatial_dim", 2)? {
        2 => 2,
        3 => 3,
        v => {
            return Err(DriverError::Value {
                flag: "spatial_dim".into(),
                value: v.to_string(),
            });
        }
    };
    let three = dims == 3;
    let d3 = |name: &str, default: i64, two: u64| -> Result<u64, DriverError> {
        if three { f.pos(name, default) } else { Ok(two) }
    };
    let i3 = |name: &str, default: i64, two: i64| -> Result<i64, DriverError> {
        if three { f.int(name, default) } else { Ok(two) }
    };
    let in_dhw = [d3("in_d", 32, 1)?, f.pos("in_h", 32)?, f.pos("in_w", 32)?];
    let fil = [d3("fil_d", 3, 1)?, f.pos("fil_h", 3)?, f.pos("fil_w", 3)?];
    let pad = [i3("pad_d", 0, 0)?, f.int("pad_h", 0)?, f.int("pad_w", 0)?];
    let stride = [
        i3("conv_stride_d", 1, 0)?,
        f.int("conv_stride_h", 1)?,
        f.int("conv_stride_w", 1)?,
    ];
    let dil = [
        i3("dilation_d", 1, 0)?,
        f.int("dilation_h", 1)?,
        f.int("dilation_w", 1)?,
    ];
    let mut out_dhw = [1u64; 3];
    for i in usize::from(!three)..3 {
        out_dhw[i] = output_size(in_dhw[i], pad[i], fil[i], stride[i], dil[i]).ok_or(
            DriverError::Value {
                flag: "output size".into(),
                value: format!("in {} pad {} filter {}", in_dhw[i], pad[i], fil[i]),
            },
        )?;
    }
    Ok(Geometry {
        dims,
        in_dhw,
        fil,
        pad,
        stride,
        dil,
        out_dhw,
    })
}

fn build(
    command: &str,
    ty: DataType,
    vals: &HashMap<&'static str, String>,
    unknown_flags: Vec<String>,
) -> Result<DriverCommand, DriverError> {
    let f = Flags { vals };
    check_mode(&f)?;
    let geo = geometry(&f)?;
    let (n, c, k, g) = (
        f.pos("batchsize", 100)?,
        f.pos("in_channels", 3)?,
        f.pos("out_channels", 32)?,
        f.pos("group_count", 1)?,
    );
    let layout = |name: &str| f.str(name).unwrap_or(default_layout(geo.dims)).to_string();
    let (x_l, w_l, y_l) = (
        layout("in_layout"),
        layout("fil_layout"),
        layout("out_layout"),
    );
    let (x_c, w_c, y_c) = (
        f.cast("in_cast_type")?,
        f.cast("wei_cast_type")?,
        f.cast("out_cast_type")?,
    );
    let forw = f.int("forw", 0)?;
    let dirs = directions(forw)?;
    let bias = f.int("bias", 0)?;
    let problems = dirs
        .iter()
        .map(|&direction| {
            // Forward: in = x, out = y. Backward data / weights: in = dy, out = dx / x.
            let fwd = direction == Direction::Forward;
            let (in_c, in_d, out_c, out_d) = if fwd {
                (c, geo.in_dhw, k, geo.out_dhw)
            } else {
                (k, geo.out_dhw, c, geo.in_dhw)
            };
            let (layouts, casts) = if fwd {
                ([x_l.clone(), w_l.clone(), y_l.clone()], [x_c, w_c, y_c])
            } else {
                ([y_l.clone(), w_l.clone(), x_l.clone()], [y_c, w_c, x_c])
            };
            Problem {
                spatial_dims: geo.dims,
                in_c,
                in_dhw: in_d,
                fil_dhw: geo.fil,
                out_c,
                out_dhw: out_d,
                batch: n,
                pad: geo.pad,
                stride: geo.stride,
                dilation: geo.dil,
                bias,
                layouts,
                types: [ty, ty, ty],
                casts,
                groups: g,
                direction,
            }
        })
        .collect();
    Ok(DriverCommand {
        command: command.to_string(),
        problems,
        solution: f.str("solution").map(str::to_string),
        search: f.int("search", 0)? == 1,
        forw,
        unknown_flags,
    })
}

/// `GetWeightTensorLengthsFromCmdLine` (driver/conv_driver.hpp:1068-1075@2d1fd997): with more
/// than one group, the input and output channels must both be multiples of the group count
/// (and not smaller), else the driver throws "Invalid group number" before MIOpen is called.
fn invalid_groups(p: &Problem) -> Option<String> {
    let (g, c, k) = (p.groups, p.in_c, p.out_c);
    (g > 1 && (c % g != 0 || k % g != 0 || g > c || g > k)).then(|| {
        format!(
            "Invalid group number (driver/conv_driver.hpp:1068-1075@2d1fd997): {g} groups for {} input and {} output channels",
            if p.direction == Direction::Forward { c } else { k },
            if p.direction == Direction::Forward { k } else { c },
        )
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn convint8_outputs_int32_at_the_pinned_checkout_and_int8_in_a_release() {
        let c = cmd("MIOpenDriver convint8 -n 32 -c 64 -H 56 -W 56 -k 64 -y 1 -x 1 -p 0 -q 0 -F 1");
        let pinned = c.clone().for_release(None);
        assert_eq!(
            pinned.problems[0].fdb_key(),
            "64-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-INT8INT8INT32-F"
        );
        let r = c.for_release(Some("3.5.1"));
        assert_eq!(
            r.problems[0].fdb_key(),
            "64-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-INT8-F"
        );
        let fp32 =
            cmd("MIOpenDriver conv -n 1 -c 8 -H 8 -W 8 -k 8 -y 1 -x 1 -F 1").for_release(None);
        assert_eq!(fp32.problems[0].types, [DataType::Fp32; 3]);
    }

    fn cmd(s: &str) -> DriverCommand {
        DriverCommand::parse(
            &s.split_whitespace().collect::<Vec<_>>(),
            Strictness::Strict,
        )
        .unwrap()
    }

    #[test]
    fn keys_as_the_real_logs_print_them() {
        let d = cmd(
            "MIOpenDriver conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -g 2 -F 1 -t 1",
        );
        assert_eq!(
            d.problems[0].fdb_key(),
            "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F_g2"
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
    fn errors_and_tolerance() {
        for bad in [
            "MIOpenDriver gemm -n 1",
            "MIOpenDriver conv -n",
            "MIOpenDriver conv --nope 1",
            "MIOpenDriver conv -n x",
            "MIOpenDriver conv -m trans",
            "MIOpenDriver conv -H 2 -y 5",
            "MIOpenDriver conv -F 9",
        ] {
            let a: Vec<&str> = bad.split_whitespace().collect();
            assert!(
                DriverCommand::parse(&a, Strictness::Strict).is_err(),
                "{bad}"
            );
        }
        let t = DriverCommand::parse_line("convint8 -n 1 --future_flag 3 -F 1 --in_cast_type=-1")
            .unwrap();
        assert_eq!(t.unknown_flags, vec!["--future_flag"]);
        assert_eq!(t.problems.len(), 1);
    }

    #[test]
    fn solution_flag_paths() {
        let known = |s: &str| s == "ConvCkIgemmFwdV6r1DlopsNchw";
        let c = cmd("MIOpenDriver convint8 -n 1 -S ConvCkIgemmFwdV6r1DlopsNchw -F 1");
        assert_eq!(c.forced_solver(), Some("ConvCkIgemmFwdV6r1DlopsNchw"));
        assert_eq!(
            c.path(known),
            DriverPath::ImmediateSolver("ConvCkIgemmFwdV6r1DlopsNchw".into())
        );
        let c = cmd("MIOpenDriver conv -n 1 -S 0");
        assert_eq!(c.forced_solver(), None);
        assert_eq!(c.path(known), DriverPath::ImmediateFastest);
        assert_eq!(
            cmd("MIOpenDriver conv -S -1 -F 1").path(known),
            DriverPath::Find
        );
        assert_eq!(cmd("MIOpenDriver conv -F 1").path(known), DriverPath::Find);
        assert_eq!(
            cmd("MIOpenDriver conv -S Nope -F 1").path(known),
            DriverPath::ImmediateFastest
        );
        assert_eq!(
            cmd("MIOpenDriver conv -S 85 -F 1").forced_solver(),
            Some("85")
        );
    }
}
