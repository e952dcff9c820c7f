//! MIOpen problem descriptors in their four printed forms, and find-db records.
//!
//! * find-db / perf-db key (`ProblemDescription::Serialize`):
//!   `C-H-W-YxX-K-oH-oW-N-PhxPw-ShxSw-DhxDw-Bias-Layout-DType-Dir[_g<G>][_ci<T>][_cw<T>][_co<T>]`,
//!   e.g. `64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F`; 3-D problems put the depth
//!   first in each group; a non-default layout prints three (`NHWC-NHWC-NHWC`).
//! * network config (invoker cache): `CxHxWxYxXxKxoHxoWxNxLayout[xWLayoutxOLayout]xDType
//!   xPhxPwxShxSwxDhxDwxGxDirxAlphaBeta`, e.g. `64x56x56x3x3x64x56x56x32xNCHWxFP32x1x1x1x1x1x1x1xFxDefault`.
//! * SQLite perf-db config key (`2x64x56x56x1x3x3x1x64x16x1x1x0x1x1x0x1x1x0x0x1xNCHWxFP16xF`):
//!   spatial dims, C, H, W, D, Y, X, Z, K, N, pads (h, w, d), strides, dilations, bias, groups,
//!   layout, type, direction — the column order of the `config` table.
//! * an MIOpenDriver command line (`conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 …`).
//!
//! All four decode to one [`ConvProblem`]; [`ConvProblem::key`] prints the find-db key, so the
//! same problem seen in different forms is recognised as one.

use serde::Serialize;

/// A convolution problem.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Default)]
pub struct ConvProblem {
    /// Direction: `F` (forward), `B` (backward data), `W` (backward weights), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<String>,
    /// Data type as MIOpen prints it (`FP32`, `FP16`, `BF16`, `INT8`, …; concatenated when
    /// input, weights and output differ).
    pub dtype: String,
    /// Layout (`NCHW`, or `NHWC-NHWC-NHWC` when not the default).
    pub layout: String,
    /// Batch.
    pub n: u64,
    /// Input channels.
    pub c: u64,
    /// Input depth (3-D only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub d: Option<u64>,
    /// Input height.
    pub h: u64,
    /// Input width.
    pub w: u64,
    /// Output channels.
    pub k: u64,
    /// Filter depth (3-D only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub z: Option<u64>,
    /// Filter height.
    pub y: u64,
    /// Filter width.
    pub x: u64,
    /// Output height.
    pub out_h: u64,
    /// Output width.
    pub out_w: u64,
    /// Output depth (3-D only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub out_d: Option<u64>,
    /// Padding (h, w[, d]).
    pub pad: Vec<u64>,
    /// Stride (h, w[, d]).
    pub stride: Vec<u64>,
    /// Dilation (h, w[, d]).
    pub dilation: Vec<u64>,
    /// Group count.
    pub groups: u64,
    /// Bias flag.
    pub bias: u64,
    /// Cast suffixes (`_coFP32`), as in the key.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub casts: String,
}

fn num(s: &str) -> Option<u64> {
    s.parse().ok()
}

fn pair(s: &str) -> Option<Vec<u64>> {
    s.split('x').map(num).collect()
}

fn out_dim(input: u64, pad: u64, filter: u64, stride: u64, dil: u64) -> u64 {
    let eff = dil
        .saturating_mul(filter.saturating_sub(1))
        .saturating_add(1);
    let span = input.saturating_add(pad.saturating_mul(2));
    if span < eff || stride == 0 {
        return 0;
    }
    (span - eff) / stride + 1
}

const DIRS: [&str; 3] = ["F", "B", "W"];

fn is_dtype(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 24
        && s.bytes()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && ["FP", "BF", "INT", "F8", "B8"]
            .iter()
            .any(|p| s.contains(p))
}

fn is_layout(s: &str) -> bool {
    (3..=6).contains(&s.len()) && s.bytes().all(|c| b"NCHWDK".contains(&c))
}

impl ConvProblem {
    /// The find-db key MIOpen would print for this problem.
    pub fn key(&self) -> String {
        let j = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join("x");
        // Keys order each group depth-first; our vectors are (h, w[, d]).
        let dfirst = |v: &[u64]| -> Vec<u64> {
            if v.len() == 3 {
                vec![v[2], v[0], v[1]]
            } else {
                v.to_vec()
            }
        };
        let mut s = String::new();
        let dir = self.direction.as_deref().unwrap_or("?");
        if let (Some(d), Some(z), Some(od)) = (self.d, self.z, self.out_d) {
            s += &format!(
                "{}-{}-{}-{}-{}x{}x{}-{}-{}-{}-{}-{}-{}-{}-{}-{}-{}-{}-{}",
                self.c,
                d,
                self.h,
                self.w,
                z,
                self.y,
                self.x,
                self.k,
                od,
                self.out_h,
                self.out_w,
                self.n,
                j(&dfirst(&self.pad)),
                j(&dfirst(&self.stride)),
                j(&dfirst(&self.dilation)),
                self.bias,
                self.layout,
                self.dtype,
                dir
            );
        } else {
            s += &format!(
                "{}-{}-{}-{}x{}-{}-{}-{}-{}-{}-{}-{}-{}-{}-{}-{}",
                self.c,
                self.h,
                self.w,
                self.y,
                self.x,
                self.k,
                self.out_h,
                self.out_w,
                self.n,
                j(&self.pad),
                j(&self.stride),
                j(&self.dilation),
                self.bias,
                self.layout,
                self.dtype,
                dir
            );
        }
        if self.groups > 1 {
            s += &format!("_g{}", self.groups);
        }
        s += &self.casts;
        s
    }

    /// A short human description: `n32 c64 56x56 → k64 3x3 p1x1 s1x1 d1x1 g1 NCHW FP32 F`.
    pub fn short(&self) -> String {
        format!(
            "n{} c{} {}x{} k{} {}x{} p{} s{} d{} g{} {} {}{}",
            self.n,
            self.c,
            self.h,
            self.w,
            self.k,
            self.y,
            self.x,
            self.pad
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join("x"),
            self.stride
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join("x"),
            self.dilation
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join("x"),
            self.groups,
            self.layout,
            self.dtype,
            self.direction
                .as_deref()
                .map(|d| format!(" {d}"))
                .unwrap_or_default()
        )
    }

    /// Parses a find-db / perf-db key (2-D or 3-D).
    pub fn from_db_key(key: &str) -> Option<ConvProblem> {
        let key = key.trim();
        // Suffixes: _g<G>, _ci<T>, _cw<T>, _co<T>.
        let (base, suffix) = match key.find('_') {
            Some(i) => (&key[..i], &key[i..]),
            None => (key, ""),
        };
        let mut groups = 1;
        let mut casts = String::new();
        for part in suffix.split('_').filter(|p| !p.is_empty()) {
            if let Some(g) = part.strip_prefix('g') {
                groups = num(g)?;
            } else if ["ci", "cw", "co"].iter().any(|p| part.starts_with(p)) {
                casts.push('_');
                casts.push_str(part);
            } else {
                return None;
            }
        }
        let f: Vec<&str> = base.split('-').collect();
        // 2-D: 15 fields with one layout, 17 with three. 3-D: 17 / 19. The filter field
        // (`3x3` or `3x3x3`) tells 2-D from 3-D.
        let parts = |i: usize| f.get(i).map(|x| x.split('x').count());
        let three_d = parts(3) != Some(2) && parts(4) == Some(3);
        let nlayout = match (three_d, f.len()) {
            (false, 15) | (true, 17) => 1,
            (false, 17) | (true, 19) => 3,
            _ => return None,
        };
        let mut p = ConvProblem {
            groups,
            casts,
            ..ConvProblem::default()
        };
        let mut i = 0;
        let mut next = || {
            let v = f.get(i).copied();
            i += 1;
            v
        };
        let hw = |v: Vec<u64>| -> Option<Vec<u64>> {
            // depth-first in keys → (h, w, d)
            match v.len() {
                3 => Some(vec![v[1], v[2], v[0]]),
                2 => Some(v),
                _ => None,
            }
        };
        p.c = num(next()?)?;
        if three_d {
            p.d = Some(num(next()?)?);
        }
        p.h = num(next()?)?;
        p.w = num(next()?)?;
        let filt = pair(next()?)?;
        match (three_d, filt.as_slice()) {
            (false, [y, x]) => {
                p.y = *y;
                p.x = *x;
            }
            (true, [z, y, x]) => {
                p.z = Some(*z);
                p.y = *y;
                p.x = *x;
            }
            _ => return None,
        }
        p.k = num(next()?)?;
        if three_d {
            p.out_d = Some(num(next()?)?);
        }
        p.out_h = num(next()?)?;
        p.out_w = num(next()?)?;
        p.n = num(next()?)?;
        p.pad = hw(pair(next()?)?)?;
        p.stride = hw(pair(next()?)?)?;
        p.dilation = hw(pair(next()?)?)?;
        let want = if three_d { 3 } else { 2 };
        if p.pad.len() != want || p.stride.len() != want || p.dilation.len() != want {
            return None;
        }
        p.bias = num(next()?)?;
        let mut layouts = Vec::new();
        for _ in 0..nlayout {
            let l = next()?;
            if !is_layout(l) {
                return None;
            }
            layouts.push(l);
        }
        p.layout = layouts.join("-");
        let dt = next()?;
        if !is_dtype(dt) {
            return None;
        }
        p.dtype = dt.to_string();
        let dir = next()?;
        if !DIRS.contains(&dir) {
            return None;
        }
        p.direction = Some(dir.to_string());
        Some(p)
    }

    /// Parses a network config (`64x56x56x3x3x64x56x56x32xNCHWxFP32x1x1x1x1x1x1x1xFxDefault`).
    /// 2-D only; cast suffixes are not part of it.
    pub fn from_netcfg(cfg: &str) -> Option<ConvProblem> {
        let f: Vec<&str> = cfg.trim().split('x').collect();
        let mut p = ConvProblem::default();
        let nums = |r: &[&str]| r.iter().map(|s| num(s)).collect::<Option<Vec<u64>>>();
        let head = nums(f.get(..9)?)?;
        p.c = head[0];
        p.h = head[1];
        p.w = head[2];
        p.y = head[3];
        p.x = head[4];
        p.k = head[5];
        p.out_h = head[6];
        p.out_w = head[7];
        p.n = head[8];
        let mut i = 9;
        let mut layouts = Vec::new();
        while i < f.len() && is_layout(f[i]) {
            layouts.push(f[i]);
            i += 1;
        }
        if layouts.is_empty() || layouts.len() > 3 {
            return None;
        }
        p.layout = layouts.join("-");
        let dt = *f.get(i)?;
        if !is_dtype(dt) {
            return None;
        }
        p.dtype = dt.to_string();
        i += 1;
        let tail = nums(f.get(i..i + 7)?)?;
        p.pad = vec![tail[0], tail[1]];
        p.stride = vec![tail[2], tail[3]];
        p.dilation = vec![tail[4], tail[5]];
        p.groups = tail[6];
        let dir = *f.get(i + 7)?;
        if !DIRS.contains(&dir) {
            return None;
        }
        p.direction = Some(dir.to_string());
        Some(p)
    }

    /// Parses a SQLite perf-db config key
    /// (`2x64x56x56x1x3x3x1x64x16x1x1x0x1x1x0x1x1x0x0x1xNCHWxFP16xF`).
    pub fn from_perfdb_key(cfg: &str) -> Option<ConvProblem> {
        let f: Vec<&str> = cfg.trim().split('x').collect();
        if f.len() != 24 {
            return None;
        }
        let v = f[..21]
            .iter()
            .map(|s| num(s))
            .collect::<Option<Vec<u64>>>()?;
        let (layout, dt, dir) = (f[21], f[22], f[23]);
        if !is_layout(layout) || !is_dtype(dt) || !DIRS.contains(&dir) {
            return None;
        }
        let three_d = v[0] == 3;
        if v[0] != 2 && !three_d {
            return None;
        }
        let mut p = ConvProblem {
            c: v[1],
            h: v[2],
            w: v[3],
            y: v[5],
            x: v[6],
            k: v[8],
            n: v[9],
            bias: v[19],
            groups: v[20],
            layout: layout.to_string(),
            dtype: dt.to_string(),
            direction: Some(dir.to_string()),
            ..ConvProblem::default()
        };
        let (pd, sd, dd) = if three_d { (3, 3, 3) } else { (2, 2, 2) };
        p.pad = v[10..10 + pd].to_vec();
        p.stride = v[13..13 + sd].to_vec();
        p.dilation = v[16..16 + dd].to_vec();
        p.out_h = out_dim(p.h, p.pad[0], p.y, p.stride[0], p.dilation[0]);
        p.out_w = out_dim(p.w, p.pad[1], p.x, p.stride[1], p.dilation[1]);
        if three_d {
            p.d = Some(v[4]);
            p.z = Some(v[7]);
            p.out_d = Some(out_dim(v[4], v[12], v[7], v[15], v[18]));
        }
        Some(p)
    }
}

/// An MIOpenDriver command line, as far as it decides the problem and the path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct DriverCommand {
    /// `conv`, `convfp16`, `convbfp16`, `convint8`, …
    pub mode: String,
    /// The problem, for convolution modes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<ConvProblem>,
    /// `-S`/`--solution` value (a solver name or id); `0` means immediate mode, not a solver.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solution: Option<String>,
    /// `-s`/`--search` value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search: Option<String>,
    /// `-F`/`--forw` value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forw: Option<u64>,
}

fn mode_dtype(mode: &str) -> Option<&'static str> {
    Some(match mode {
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

fn cast_name(t: &str) -> Option<&'static str> {
    Some(match t {
        "fp32" => "FP32",
        "fp16" => "FP16",
        "bf16" | "bfp16" => "BF16",
        "fp8" => "FP8",
        "bf8" | "bfp8" => "BF8",
        "int8" => "INT8",
        "int32" => "INT32",
        _ => return None,
    })
}

impl DriverCommand {
    /// Parses the arguments after `MIOpenDriver` (`conv -n 32 -c 64 …`). Unknown flags are
    /// ignored; a missing dimension takes MIOpenDriver's default.
    pub fn parse(args: &str) -> Option<DriverCommand> {
        let mut it = args.split_ascii_whitespace();
        let mode = it.next()?.to_string();
        if !mode.bytes().all(|c| c.is_ascii_alphanumeric()) {
            return None;
        }
        let mut flags: Vec<(&str, &str)> = Vec::new();
        let toks: Vec<&str> = it.collect();
        let mut i = 0;
        while i < toks.len() {
            let t = toks[i];
            if t.starts_with('-') && t.len() > 1 {
                let v = toks.get(i + 1).copied().unwrap_or("");
                if let Some((k, v)) = t.split_once('=') {
                    flags.push((k, v));
                    i += 1;
                    continue;
                }
                flags.push((t, v));
                i += 2;
            } else {
                i += 1;
            }
        }
        let get = |names: &[&str]| {
            flags
                .iter()
                .rev()
                .find(|(k, _)| names.contains(k))
                .map(|(_, v)| *v)
        };
        let n = |names: &[&str], default: u64| get(names).and_then(num).unwrap_or(default);
        let mut cmd = DriverCommand {
            mode: mode.clone(),
            solution: get(&["-S", "--solution"]).map(str::to_string),
            search: get(&["-s", "--search"]).map(str::to_string),
            forw: get(&["-F", "--forw"]).and_then(num),
            problem: None,
        };
        if let Some(dt) = mode_dtype(&mode) {
            let mut p = ConvProblem {
                dtype: dt.to_string(),
                n: n(&["-n", "--batchsize"], 100),
                c: n(&["-c", "--in_channels"], 3),
                h: n(&["-H", "--in_h"], 32),
                w: n(&["-W", "--in_w"], 32),
                k: n(&["-k", "--out_channels"], 32),
                y: n(&["-y", "--fil_h"], 3),
                x: n(&["-x", "--fil_w"], 3),
                groups: n(&["-g", "--group_count"], 1),
                bias: n(&["-b", "--bias"], 0),
                ..ConvProblem::default()
            };
            p.pad = vec![n(&["-p", "--pad_h"], 0), n(&["-q", "--pad_w"], 0)];
            p.stride = vec![
                n(&["-u", "--conv_stride_h"], 1),
                n(&["-v", "--conv_stride_w"], 1),
            ];
            p.dilation = vec![n(&["-l", "--dilation_h"], 1), n(&["-j", "--dilation_w"], 1)];
            let layouts = [
                get(&["-I", "--in_layout"]).unwrap_or("NCHW"),
                get(&["-f", "--fil_layout"]).unwrap_or("NCHW"),
                get(&["-O", "--out_layout"]).unwrap_or("NCHW"),
            ];
            p.layout = if layouts.iter().all(|l| *l == "NCHW") {
                "NCHW".into()
            } else {
                layouts.join("-")
            };
            if let Some(c) = get(&["--out_cast_type"]).and_then(cast_name) {
                p.casts = format!("_co{c}");
            }
            let spatial3 = get(&["--spatial_dim", "-_"]) == Some("3");
            p.out_h = out_dim(p.h, p.pad[0], p.y, p.stride[0], p.dilation[0]);
            p.out_w = out_dim(p.w, p.pad[1], p.x, p.stride[1], p.dilation[1]);
            if spatial3 {
                let d = n(&["--in_d", "-!"], 32);
                let z = n(&["--fil_d", "-@"], 3);
                let pd = n(&["--pad_d", "-$"], 0);
                let sd = n(&["--conv_stride_d", "-#"], 1);
                let dd = n(&["--dilation_d", "-^"], 1);
                p.d = Some(d);
                p.z = Some(z);
                p.out_d = Some(out_dim(d, pd, z, sd, dd));
                p.pad.push(pd);
                p.stride.push(sd);
                p.dilation.push(dd);
            }
            p.direction = match cmd.forw {
                Some(1) => Some("F".into()),
                Some(2) => Some("B".into()),
                Some(4) => Some("W".into()),
                _ => None,
            };
            cmd.problem = Some(p);
        }
        Some(cmd)
    }

    /// The solver forced with `-S`, if any (`-S 0` is the immediate-mode marker, not a solver).
    pub fn forced_solver(&self) -> Option<&str> {
        self.solution
            .as_deref()
            .filter(|s| !s.is_empty() && *s != "0")
    }
}

/// One item of a find-db record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FindDbItem {
    /// Solver name.
    pub solver: String,
    /// Measured time, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<f64>,
    /// Workspace, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<u64>,
    /// Algorithm (`miopenConvolutionFwdAlgoWinograd`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub algo: String,
}

/// Decodes a find-db record (`item;item;…`), legacy 1.0 items
/// (`<algo>:<Solver>,<time>,<ws>,<algo>,<unused>`) and 2.0 items (`<Solver>:<time>,<ws>,<algo>`).
/// Items that fit neither are skipped.
pub fn parse_find_db_record(rec: &str) -> Vec<FindDbItem> {
    rec.trim()
        .split(';')
        .filter_map(|item| {
            let (id, vals) = item.split_once(':')?;
            let v: Vec<&str> = vals.split(',').collect();
            if id.starts_with("miopen") && v.len() >= 4 {
                // legacy: id is the algorithm, v[0] the solver
                Some(FindDbItem {
                    solver: v[0].to_string(),
                    time_ms: v.get(1).and_then(|t| t.parse().ok()),
                    workspace: v.get(2).and_then(|t| t.parse().ok()),
                    algo: v.get(3).unwrap_or(&id).to_string(),
                })
            } else if v.len() >= 3 {
                Some(FindDbItem {
                    solver: id.to_string(),
                    time_ms: v[0].parse().ok(),
                    workspace: v[1].parse().ok(),
                    algo: v[2].to_string(),
                })
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_netcfg_driver_agree() {
        let k = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F";
        let a = ConvProblem::from_db_key(k).unwrap();
        assert_eq!(a.key(), k);
        let b =
            ConvProblem::from_netcfg("64x56x56x3x3x64x56x56x32xNCHWxFP32x1x1x1x1x1x1x1xFxDefault")
                .unwrap();
        assert_eq!(b.key(), k);
        let c = DriverCommand::parse(
            "conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -F 1 -t 1",
        )
        .unwrap();
        assert_eq!(c.forced_solver(), None);
        assert_eq!(c.problem.unwrap().key(), k);
        let d = ConvProblem::from_perfdb_key(
            "2x64x56x56x1x3x3x1x64x32x1x1x0x1x1x0x1x1x0x0x1xNCHWxFP32xF",
        )
        .unwrap();
        assert_eq!(d.key(), k);
    }

    #[test]
    fn layouts_groups_casts() {
        let k = "64-32-32-1x1-64-32-32-16-0x0-1x1-1x1-0-NHWC-NHWC-NHWC-INT8-F";
        assert_eq!(ConvProblem::from_db_key(k).unwrap().key(), k);
        let c = DriverCommand::parse(
            "convint8 -n 16 -c 64 -H 32 -W 32 -k 64 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -I NHWC -O NHWC -f NHWC -F 1 -t 1",
        )
        .unwrap();
        assert_eq!(c.problem.unwrap().key(), k);
        let g = "128-56-56-1x1-128-56-56-32-0x0-1x1-1x1-0-NCHW-INT8-F_g2";
        assert_eq!(ConvProblem::from_db_key(g).unwrap().groups, 2);
        assert_eq!(ConvProblem::from_db_key(g).unwrap().key(), g);
        let co = "64-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-INT8-F_coFP32";
        assert_eq!(ConvProblem::from_db_key(co).unwrap().key(), co);
        let c = DriverCommand::parse("convint8 -n 32 -c 64 -H 56 -W 56 -k 64 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -F 1 -t 1 -i 1 --out_cast_type fp32").unwrap();
        assert_eq!(c.problem.unwrap().key(), co);
        assert_eq!(
            ConvProblem::from_netcfg(
                "128x56x56x1x1x128x56x56x32xNCHWxINT8x0x0x1x1x1x1x2xFxDefault"
            )
            .unwrap()
            .key(),
            g
        );
    }

    #[test]
    fn three_d_key_round_trips() {
        let k = "16-8-32-32-3x3x3-16-8-32-32-2-1x1x1-1x1x1-1x1x1-0-NCDHW-FP32-F";
        let p = ConvProblem::from_db_key(k).unwrap();
        assert_eq!(p.d, Some(8));
        assert_eq!(p.key(), k);
    }

    #[test]
    fn forced_solution_and_rejects() {
        let c = DriverCommand::parse("convint8 -n 1 -S ConvCkIgemmFwdV6r1DlopsNchw -F 1").unwrap();
        assert_eq!(c.forced_solver(), Some("ConvCkIgemmFwdV6r1DlopsNchw"));
        let c = DriverCommand::parse("conv -n 1 -S 0").unwrap();
        assert_eq!(c.forced_solver(), None);
        assert_eq!(ConvProblem::from_db_key("1-2-3"), None);
        assert_eq!(
            ConvProblem::from_db_key("64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-Q"),
            None
        );
        assert_eq!(ConvProblem::from_netcfg("axb"), None);
    }

    #[test]
    fn find_db_records() {
        let r = parse_find_db_record(
            "miopenConvolutionFwdAlgoWinograd:ConvBinWinograd3x3U,0.676743,0,miopenConvolutionFwdAlgoWinograd,<unused>",
        );
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].solver, "ConvBinWinograd3x3U");
        assert_eq!(r[0].time_ms, Some(0.676743));
        let r = parse_find_db_record(
            "ConvDirectNaiveConvFwd:4.87333,0,miopenConvolutionFwdAlgoDirect;GemmFwdRest:6.7,1024,miopenConvolutionFwdAlgoGEMM",
        );
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].workspace, Some(1024));
        assert!(parse_find_db_record("garbage").is_empty());
    }
}
