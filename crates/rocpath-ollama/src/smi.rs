//! `rocm-smi` sample logs (`rocm-smi --showuse --showmemuse --showpower --showtemp [--showclocks]`
//! run once a second, appended to one file). Samples are separated by a timestamp line in one
//! of the layouts the recordings use (`===== 2026-03-21T01:27:15+09:00 =====`,
//! `=== 2026-03-23_20:34:03`, a bare `2026-03-20 19:28:58`), or — with no separators — by the
//! tool's own `ROCm System Management Interface` banner. Values are `GPU[i]\t\t: <key>: <value>`
//! for any number of GPUs. Warnings (`WARNING: …`, `energy_count_secondary_die_check,
//! Unexpected data received`, `rocm-smi: command not found`) are kept with their lines.

use std::collections::BTreeMap;

pub use rocpath_docs::ollama::{GpuPeaks, SmiLog, Warning};

fn is_separator(l: &str) -> bool {
    let t = l.trim().trim_matches('=').trim();
    let b = t.as_bytes();
    // 2026-03-21T01:27:15+09:00 / 2026-03-23_20:34:03 / 2026-03-20 19:28:58
    b.len() >= 16
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[7] == b'-'
        && matches!(b[10], b'T' | b'_' | b' ')
        && b[13] == b':'
        && !l.contains("GPU[")
}

fn number(v: &str) -> Option<f64> {
    let t = v.trim();
    // `0: (852Mhz)` for clocks: the value in parentheses.
    let t = match (t.find('('), t.find("Mhz")) {
        (Some(a), Some(b)) if b > a => &t[a + 1..b],
        _ => t,
    };
    t.trim().trim_end_matches('%').parse().ok()
}

fn max(a: &mut Option<f64>, v: f64) -> bool {
    if a.is_none_or(|x| v > x) {
        *a = Some(v);
        true
    } else {
        false
    }
}

/// Parses a sample log.
pub fn parse(text: &str) -> SmiLog {
    let mut r = SmiReader::default();
    for (i, raw) in text.lines().enumerate() {
        r.line((i + 1) as u64, raw);
    }
    r.finish()
}

/// GPUs kept per log (indices beyond are counted in no sample): hostile input cannot grow the
/// map.
pub const MAX_GPUS: usize = 64;

/// Distinct warning texts kept per log.
pub const MAX_WARNINGS: usize = 32;

/// A sample log read line by line; memory is bounded by [`MAX_GPUS`] and [`MAX_WARNINGS`].
#[derive(Debug, Clone, Default)]
pub struct SmiReader {
    out: SmiLog,
    gpus: BTreeMap<u32, GpuPeaks>,
    separators: u64,
    banners: u64,
    seen_warn: BTreeMap<String, u64>,
}

impl SmiReader {
    /// Whether the lines read so far make a rocm-smi log: a value, or `command not found`.
    pub fn looks_like_smi(&self) -> bool {
        self.out.command_not_found > 0
            || self
                .gpus
                .values()
                .any(|g| g.samples > 0 || g.max_power_w.is_some() || g.max_temp_c.is_some())
    }

    /// Feeds one line (1-based number).
    pub fn line(&mut self, line: u64, raw: &str) {
        let l = raw.trim_end();
        if is_separator(l) {
            self.separators += 1;
            return;
        }
        if l.contains("ROCm System Management Interface") {
            self.banners += 1;
            return;
        }
        if let Some(r) = l.strip_prefix("GPU[") {
            self.value(line, r);
            return;
        }
        let t = l.trim();
        if t.is_empty() || t.starts_with('=') {
            return;
        }
        if t.contains("rocm-smi: command not found")
            || t.contains("rocm-smi: コマンドが見つかりません")
        {
            self.out.command_not_found += 1;
            return;
        }
        if (t.starts_with("WARNING")
            || t.contains("Unexpected data")
            || t.contains("Not supported")
            || t.starts_with("ERROR"))
            && (self.seen_warn.len() < MAX_WARNINGS || self.seen_warn.contains_key(t))
        {
            self.seen_warn.entry(t.to_string()).or_insert(line);
        }
    }

    /// `GPU[` already stripped.
    fn value(&mut self, line: u64, r: &str) {
        let Some((idx, rest)) = r.split_once(']') else {
            return;
        };
        let Ok(gpu) = idx.parse::<u32>() else {
            return;
        };
        let body = rest.trim_start().trim_start_matches(':').trim();
        let Some((key, val)) = body.rsplit_once(": ").or_else(|| body.split_once(':')) else {
            return;
        };
        if self.gpus.len() >= MAX_GPUS && !self.gpus.contains_key(&gpu) {
            return;
        }
        let g = self.gpus.entry(gpu).or_insert_with(|| GpuPeaks {
            gpu,
            ..GpuPeaks::default()
        });
        let Some(v) = number(val) else { return };
        let key = key.trim();
        if key.starts_with("GPU use (%)") {
            g.samples += 1;
            if v > 0.0 {
                g.busy_samples += 1;
            }
            if max(&mut g.max_use_pct, v) {
                g.max_use_line = Some(line);
            }
        } else if key.starts_with("GPU Memory Allocated (VRAM%)")
            || key.starts_with("GPU memory use (%)")
        {
            max(&mut g.max_vram_pct, v);
        } else if key.contains("Graphics Package Power (W)") {
            max(&mut g.max_power_w, v);
        } else if key.starts_with("Temperature (Sensor edge)") {
            max(&mut g.max_temp_c, v);
        } else if key.starts_with("sclk clock level") {
            max(&mut g.max_sclk_mhz, v);
        }
    }

    /// The log.
    pub fn finish(self) -> SmiLog {
        let mut out = self.out;
        out.samples = if self.separators > 0 {
            self.separators
        } else if self.banners > 0 {
            self.banners
        } else {
            u64::from(!self.gpus.is_empty())
        };
        out.gpus = self.gpus.into_values().collect();
        let mut w: Vec<Warning> = self
            .seen_warn
            .into_iter()
            .map(|(text, line)| Warning { line, text })
            .collect();
        w.sort_by_key(|w| w.line);
        out.warnings = w;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_gpus_and_layouts() {
        let t = "===== 2026-03-21T01:27:15+09:00 =====\n\
GPU[0]\t\t: Temperature (Sensor edge) (C): 23.0\n\
GPU[1]\t\t: Temperature (Sensor edge) (C): 30.0\n\
GPU[0]\t\t: sclk clock level: 0: (852Mhz)\n\
GPU[0]\t\t: Current Socket Graphics Package Power (W): 8.0\n\
energy_count_secondary_die_check, Unexpected data received\n\
GPU[0]\t\t: GPU use (%): 0\n\
GPU[1]\t\t: GPU use (%): 0\n\
GPU[0]\t\t: GPU Memory Allocated (VRAM%): 0\n\
=== 2026-03-23_20:34:03\n\
GPU[0]\t\t: GPU use (%): 87\n\
GPU[0]\t\t: Current Socket Graphics Package Power (W): 209.0\n\
GPU[0]\t\t: GPU Memory Allocated (VRAM%): 58\n\
GPU[0]\t\t: sclk clock level: 7: (1500Mhz)\n\
GPU[0]\t\t: Memory Activity: N/A\n\
bash: line 1: rocm-smi: command not found\n";
        let s = parse(t);
        assert_eq!(s.samples, 2);
        assert_eq!(s.gpus.len(), 2);
        let g = &s.gpus[0];
        assert_eq!((g.samples, g.busy_samples), (2, 1));
        assert_eq!(g.max_use_pct, Some(87.0));
        assert_eq!(g.max_use_line, Some(11));
        assert_eq!(g.max_power_w, Some(209.0));
        assert_eq!(g.max_vram_pct, Some(58.0));
        assert_eq!(g.max_sclk_mhz, Some(1500.0));
        assert_eq!(s.gpus[1].max_use_pct, Some(0.0));
        assert_eq!(s.command_not_found, 1);
        assert_eq!(s.warnings.len(), 1);
        assert_eq!(s.warnings[0].line, 6);
    }

    #[test]
    fn empty_and_garbage() {
        assert_eq!(parse("").samples, 0);
        let s = parse("GPU[x] : nonsense\nGPU[0]\t: GPU use (%): N/A\n");
        assert!(!s.has_values() || s.gpus[0].max_use_pct.is_none());
    }
}
