//! Device × install: the `check` verdicts of the install's libraries for the device, as the
//! device appears in the install's scope (visible or not, overridden or not), summed up into
//! one outcome, and what will fall back.

use crate::devices::SurveyDevice;
use crate::env::Env;
use crate::installs::{Install, Kind};
use crate::rules;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_inventory::Inventory;
use rocpath_inventory::check::{self, DeviceCheck, LibraryCheck, Override, Verdict as LibVerdict};
use serde::Serialize;

/// The outcome for one device and one install.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every library has code the device loads.
    Runs,
    /// Every library has code the device loads, but only because of the override in scope.
    RunsWithOverride,
    /// Some libraries have code for the device, others none.
    Partial,
    /// It depends on a device setting not known here (xnack).
    Depends,
    /// No library has code for the device.
    NoCode,
    /// The install ships no AMD GPU code at all (a CPU or CUDA build).
    NoGpuCode,
    /// The device is hidden from the install's programs by a visible-devices variable.
    Hidden,
    /// Only tuning data (MIOpen databases), none for the device: MIOpen runs on heuristics.
    Untuned,
}

impl Outcome {
    /// Short label.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Runs => "runs",
            Outcome::RunsWithOverride => "runs_with_override",
            Outcome::Partial => "partial",
            Outcome::Depends => "depends",
            Outcome::NoCode => "no_code",
            Outcome::NoGpuCode => "no_gpu_code",
            Outcome::Hidden => "hidden",
            Outcome::Untuned => "untuned",
        }
    }

    /// Whether the device does GPU work with this install.
    pub fn positive(self) -> bool {
        matches!(
            self,
            Outcome::Runs | Outcome::RunsWithOverride | Outcome::Partial
        )
    }
}

/// Something that will fall back, and what happens then.
#[derive(Debug, Clone, Serialize)]
pub struct Fallback {
    /// The library or folder.
    pub library: String,
    /// What happens.
    pub then: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// Counts of the install's code libraries by verdict, as the device is seen in scope.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Counts {
    /// Libraries with code that loads.
    pub runs: usize,
    /// Libraries whose answer depends on a device setting.
    pub depends: usize,
    /// Libraries without code for the device.
    pub no_code: usize,
}

/// The verdict for one device and one install.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// Device ordinal.
    pub device: usize,
    /// The device's target id.
    pub target: String,
    /// The install's label.
    pub install: String,
    /// The outcome.
    pub outcome: Outcome,
    /// The override in the install's scope, if any.
    pub r#override: Option<Override>,
    /// Code libraries by verdict (under the override when there is one).
    pub libraries: Counts,
    /// One-line explanation.
    pub why: String,
    /// What will fall back.
    pub fallbacks: Vec<Fallback>,
    /// Evidence.
    pub evidence: Evidence,
    /// The `check` of the install for the device (library by library).
    pub check: DeviceCheck,
}

/// The visibility variable, and its value, that leaves a device out.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HiddenBy {
    variable: &'static str,
    value: String,
}

impl std::fmt::Display for HiddenBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.variable, self.value)
    }
}

/// Whether a device is visible to a scope's programs: `Err` names the variable that hides it;
/// `Ok(Some(note))` when a list names devices by UUID, which this survey cannot match.
fn visibility(env: &Env, scope: &str, index: usize) -> Result<Option<String>, HiddenBy> {
    let list = |name: &'static str| env.get(scope, name).map(|v| (name, v.value.clone()));
    let mut pos = index;
    if let Some((name, v)) = list("ROCR_VISIBLE_DEVICES") {
        let ids: Vec<&str> = v
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if ids.iter().any(|s| s.parse::<usize>().is_err()) {
            return Ok(Some(format!(
                "{name}={v} names devices by UUID: not matched here"
            )));
        }
        match ids
            .iter()
            .position(|s| s.parse::<usize>().ok() == Some(index))
        {
            Some(p) => pos = p,
            None => {
                return Err(HiddenBy {
                    variable: name,
                    value: v,
                });
            }
        }
    }
    let hip = list("HIP_VISIBLE_DEVICES").or_else(|| list("CUDA_VISIBLE_DEVICES"));
    if let Some((name, v)) = hip {
        let ids: Vec<&str> = v
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if ids.iter().any(|s| s.parse::<i64>().is_err()) {
            return Ok(Some(format!(
                "{name}={v} names devices by UUID: not matched here"
            )));
        }
        if !ids.iter().any(|s| s.parse::<usize>().ok() == Some(pos)) {
            return Err(HiddenBy {
                variable: name,
                value: v,
            });
        }
    }
    Ok(None)
}

/// What one decision rests on: the device as the install's scope sees it, and the install's
/// code libraries with their verdicts (under the override when there is one).
struct Seen<'a> {
    d: &'a SurveyDevice,
    install: &'a Install,
    check: &'a DeviceCheck,
    code: Vec<&'a LibraryCheck>,
    counts: Counts,
    overridden: bool,
    /// The processor the runtime reports (the override's, else the device's).
    proc_: String,
}

/// The verdict of a library, under the override when there is one.
fn effective(l: &LibraryCheck) -> LibVerdict {
    l.with_override.as_ref().map_or(l.verdict, |o| o.verdict)
}

/// The code libraries of a check and their counts by (effective) verdict.
fn code_of(check: &DeviceCheck) -> (Vec<&LibraryCheck>, Counts) {
    let code: Vec<&LibraryCheck> = check
        .libraries
        .iter()
        .filter(|l| l.kind == rocpath_inventory::check::Checked::CodeObjects)
        .collect();
    let mut n = Counts::default();
    for l in &code {
        match effective(l) {
            LibVerdict::Runs => n.runs += 1,
            LibVerdict::Depends => n.depends += 1,
            LibVerdict::NoCode | LibVerdict::Untuned => n.no_code += 1,
        }
    }
    (code, n)
}

type Decision = (Outcome, Class, &'static str, String);

/// The verdict of the install `inv` (scanned from `install`) for device `d`.
pub fn verdict(
    d: &SurveyDevice,
    install: &Install,
    inv: &Inventory,
    env: &Env,
    user_dbs: &[crate::UserDb],
) -> Verdict {
    let scope = install.scope.as_str();
    let ov = rocpath_inventory::check::override_from_env(d.index, |n| {
        env.get(scope, n).map(|v| v.value.clone())
    });
    let check = check::check(inv, &d.device, ov.as_ref());
    let (code, counts) = code_of(&check);
    let proc_ = ov
        .as_ref()
        .and_then(|o| o.processor.clone())
        .unwrap_or_else(|| d.device.target.processor.clone());
    let seen = Seen {
        d,
        install,
        check: &check,
        code,
        counts,
        overridden: ov.is_some(),
        proc_,
    };
    let vis = visibility(env, scope, d.index);
    let (outcome, class, rule, why) = match &vis {
        Err(var) => (
            Outcome::Hidden,
            Class::Inferred,
            rules::HIDDEN,
            format!("{var} in {scope} hides device {}", d.index),
        ),
        Ok(_) => decide(&seen),
    };
    let why = match vis {
        Ok(Some(note)) => format!("{why}; {note}"),
        _ => why,
    };
    let proc_ = seen.proc_.clone();
    let mut v = Verdict {
        device: d.index,
        target: d.device.target.canonical(),
        install: install.label.clone(),
        outcome,
        r#override: ov,
        libraries: counts,
        evidence: Evidence::new(class, Proof::ShippedArtifactVerified, rule)
            .at(Locator::file(&install.host))
            .because(why.clone()),
        why,
        fallbacks: Vec::new(),
        check,
    };
    if outcome != Outcome::Hidden {
        v.fallbacks = fallbacks(&v, install, &proc_, env, user_dbs);
    }
    v
}

/// The outcome of a visible device: by the install's code libraries, else its data folders.
fn decide(s: &Seen<'_>) -> Decision {
    let n = &s.counts;
    let code_len = s.code.len();
    if s.code.is_empty() && s.check.libraries.is_empty() {
        no_gpu_code(s.install)
    } else if n.runs > 0 && n.runs == code_len {
        runs(s)
    } else if n.runs > 0 {
        let depends = if n.depends == 1 {
            "1 depends".to_string()
        } else {
            format!("{} depend", n.depends)
        };
        let why = format!(
            "{} of {} load on {}; no code in {}, {depends} on a device setting",
            n.runs,
            libs(code_len),
            s.proc_,
            n.no_code
        );
        (Outcome::Partial, Class::Inferred, rules::PARTIAL, why)
    } else if n.depends > 0 {
        let why = format!(
            "{} with code that loads only with a device setting not known here (xnack)",
            libs(n.depends)
        );
        (Outcome::Depends, Class::Unresolved, rules::DEPENDS, why)
    } else if s.code.is_empty() {
        data_only(s)
    } else {
        let limited = s.code.iter().any(|l| l.evidence.class == Class::Limited);
        let class = if limited {
            Class::Limited
        } else {
            Class::Confirmed
        };
        let why = format!("no code for {} in {}", s.proc_, libs(code_len));
        (Outcome::NoCode, class, rules::NO_CODE, why)
    }
}

/// An install without AMD GPU code: a CUDA or CPU build, or nothing read.
fn no_gpu_code(install: &Install) -> Decision {
    let why = match install.build.as_deref() {
        Some("cuda") => {
            "a CUDA build: no AMD GPU code, it runs on the CPU here (no NVIDIA GPU code loads on AMD)"
                .to_string()
        }
        Some("cpu") => "a CPU build: no AMD GPU code, it runs on the CPU".to_string(),
        _ => "no AMD GPU code in the files read".into(),
    };
    (
        Outcome::NoGpuCode,
        Class::Confirmed,
        rules::NO_GPU_CODE,
        why,
    )
}

/// Every code library loads: natively, or only as the override's processor.
fn runs(s: &Seen<'_>) -> Decision {
    let n = s.counts.runs;
    let native_all = s.code.iter().all(|l| l.verdict == LibVerdict::Runs);
    if s.overridden && !native_all {
        let why = format!(
            "{} as {} (the override), not all as {}",
            loads(n),
            s.proc_,
            s.d.device.target.processor
        );
        return (
            Outcome::RunsWithOverride,
            Class::Inferred,
            rules::RUNS_WITH_OVERRIDE,
            why,
        );
    }
    let on = if s.overridden {
        s.proc_.clone()
    } else {
        s.d.device.target.canonical()
    };
    (
        Outcome::Runs,
        Class::Inferred,
        rules::RUNS,
        format!("{} on {on}", loads(n)),
    )
}

/// Only Tensile folders or MIOpen databases (a Tensile path variable's folder): runs when one
/// has files for the processor, untuned when MIOpen's databases alone lack it, else no code.
fn data_only(s: &Seen<'_>) -> Decision {
    let data = &s.check.libraries;
    let ok = data
        .iter()
        .filter(|l| effective(l) == LibVerdict::Runs)
        .count();
    let folders = if data.len() == 1 {
        "1 Tensile/MIOpen folder has files".to_string()
    } else {
        format!("{} Tensile/MIOpen folders have files", data.len())
    };
    let why = format!("{ok} of {folders} for {} (no host library here)", s.proc_);
    if ok > 0 {
        (Outcome::Runs, Class::Inferred, rules::RUNS, why)
    } else if data.iter().all(|l| effective(l) == LibVerdict::Untuned) {
        let why = format!(
            "no tuning data for {} in these MIOpen databases (no host library here): MIOpen runs on its heuristics, not without code",
            s.proc_
        );
        (Outcome::Untuned, Class::Inferred, rules::UNTUNED, why)
    } else {
        (Outcome::NoCode, Class::Inferred, rules::NO_CODE, why)
    }
}

/// `1 library loads`, `2 libraries load`.
fn loads(n: usize) -> String {
    if n == 1 {
        "1 library loads".into()
    } else {
        format!("{n} libraries load")
    }
}

/// `1 library`, `2 libraries`.
fn libs(n: usize) -> String {
    if n == 1 {
        "1 library".into()
    } else {
        format!("{n} libraries")
    }
}

fn fallback(library: &str, then: String, class: Class, rule: &str, at: &str) -> Fallback {
    Fallback {
        library: library.to_string(),
        evidence: Evidence::new(class, Proof::ShippedArtifactVerified, rule)
            .at(Locator::file(at))
            .because(then.clone()),
        then,
    }
}

/// What falls back for a device whose runtime target (after any override) is `proc`.
fn fallbacks(
    v: &Verdict,
    install: &Install,
    proc_: &str,
    env: &Env,
    user_dbs: &[crate::UserDb],
) -> Vec<Fallback> {
    use rocpath_inventory::check::Checked;
    let mut out = Vec::new();
    let mut has_miopen = false;
    let mut miopen_db = false;
    for l in &v.check.libraries {
        let eff = l.with_override.as_ref().map_or(l.verdict, |o| o.verdict);
        let class = if l.evidence.class == Class::Limited {
            Class::Limited
        } else {
            Class::Inferred
        };
        let file = l.library.rsplit('/').next().unwrap_or(&l.library);
        has_miopen |= file.starts_with("libMIOpen");
        match l.kind {
            Checked::CodeObjects if eff == LibVerdict::NoCode => {
                let then = no_code(v, l, install, file, proc_);
                let rule = if then.contains("CPU") {
                    rules::FALLBACK_CPU
                } else {
                    rules::FALLBACK_NO_KERNELS
                };
                out.push(fallback(&l.library, then, class, rule, &l.library));
            }
            Checked::Tensile if eff == LibVerdict::NoCode => {
                let dir = l.library.trim_end_matches(" (Tensile library)");
                let then = if dir.contains("hipblaslt") {
                    format!(
                        "no hipBLASLt kernels for {proc_}: hipBLASLt calls fail, and rocBLAS must take its Tensile path"
                    )
                } else {
                    format!(
                        "no Tensile catalog for {proc_}: rocBLAS fails with \"Cannot read …TensileLibrary.dat … for GPU arch : {proc_}\" and GEMMs through it do not run"
                    )
                };
                out.push(fallback(
                    &l.library,
                    then,
                    class,
                    rules::FALLBACK_TENSILE,
                    dir,
                ));
            }
            Checked::MiopenDb => {
                miopen_db = true;
                if eff != LibVerdict::Runs {
                    out.push(miopen_fallback(proc_, user_dbs, &l.library));
                }
            }
            _ => {}
        }
    }
    if has_miopen && !miopen_db {
        out.push(miopen_fallback(proc_, user_dbs, &install.host));
    }
    out.extend(libpath_fallbacks(v, install, env));
    out
}

/// What a library with no code for `proc_` does: a ggml-hip build runs on the CPU, anything
/// else fails to launch its kernels.
fn no_code(
    v: &Verdict,
    l: &rocpath_inventory::check::LibraryCheck,
    install: &Install,
    file: &str,
    proc_: &str,
) -> String {
    if file.starts_with("libggml-hip") && install.kind == Kind::Ollama {
        format!(
            "no ggml-hip kernels for {proc_}: Ollama does not offload to this GPU and runs the model on the CPU"
        )
    } else if file.starts_with("libggml-hip") {
        format!(
            "no ggml-hip kernels for {proc_}: llama.cpp cannot offload layers to this GPU (CPU only)"
        )
    } else if l.verdict == LibVerdict::Runs {
        format!(
            "has code for {} but not for {proc_}, the processor the override makes the runtime report: its kernels fail to launch (invalid device function)",
            v.check.device.target.processor
        )
    } else {
        format!(
            "no code for {proc_}: its precompiled kernels fail to launch on this GPU (invalid device function)"
        )
    }
}

/// `ROCBLAS_TENSILE_LIBPATH` / `HIPBLASLT_TENSILE_LIBPATH` set in the install's scope: its
/// Tensile libraries read their kernels from elsewhere.
fn libpath_fallbacks(v: &Verdict, install: &Install, env: &Env) -> Vec<Fallback> {
    let has_tensile = v
        .check
        .libraries
        .iter()
        .any(|l| l.kind == rocpath_inventory::check::Checked::Tensile);
    if install.kind == Kind::TensilePath || !has_tensile {
        return Vec::new();
    }
    ["ROCBLAS_TENSILE_LIBPATH", "HIPBLASLT_TENSILE_LIBPATH"]
        .into_iter()
        .filter_map(|name| {
            let var = env.get(&install.scope, name)?;
            let then = format!(
                "{name}={} in {}: the library reads its kernels from there, not from this install (see that folder's row)",
                var.value, var.scope
            );
            Some(fallback(
                name,
                then,
                Class::Inferred,
                rules::TENSILE_PATH,
                &var.source,
            ))
        })
        .collect()
}

fn miopen_fallback(proc_: &str, user_dbs: &[crate::UserDb], at: &str) -> Fallback {
    let mine: Vec<&crate::UserDb> = user_dbs
        .iter()
        .filter(|u| u.processor == proc_ && u.kind == rocpath_docs::inventory::DbKind::UserFindDb)
        .collect();
    let mut then = format!(
        "no MIOpen find-db for {proc_}: convolutions take MIOpen's heuristics (immediate mode) or run Find on first use (slow first run)"
    );
    if let Some(u) = mine.first() {
        then.push_str(&format!(
            "; the user find-db {} keeps earlier Find results",
            u.path
        ));
    }
    fallback("MIOpen", then, Class::Inferred, rules::FALLBACK_MIOPEN, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> Env {
        let v: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let d = tempfile::tempdir().unwrap();
        crate::env::read(&crate::root::Root::new(d.path()), Some(&v), &mut Vec::new())
    }

    #[test]
    fn visible_devices() {
        assert_eq!(visibility(&env(&[]), "shell", 1), Ok(None));
        let e = env(&[
            ("ROCR_VISIBLE_DEVICES", "1,2"),
            ("HIP_VISIBLE_DEVICES", "1"),
        ]);
        // ROCR keeps devices 1 and 2 as 0 and 1; HIP then keeps the second: device 2.
        assert!(visibility(&e, "shell", 1).is_err());
        assert_eq!(visibility(&e, "shell", 2), Ok(None));
        assert_eq!(
            visibility(&e, "shell", 0).unwrap_err().to_string(),
            "ROCR_VISIBLE_DEVICES=1,2"
        );
        let e = env(&[("CUDA_VISIBLE_DEVICES", "-1")]);
        assert!(visibility(&e, "shell", 0).is_err());
        let e = env(&[("ROCR_VISIBLE_DEVICES", "GPU-0213fa4ba46c2884")]);
        assert!(visibility(&e, "shell", 0).unwrap().is_some());
    }
}
