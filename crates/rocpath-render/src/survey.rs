//! `rocpath survey` for people: devices, variables, installs, the device × install verdicts
//! with what falls back, what was not looked into, and the answer. Paths under a saved
//! machine image are shown as the machine's own paths.

use crate::{bytes, right, table};
use comfy_table::Cell;
use rocpath_survey::python::PythonEnv;
use rocpath_survey::{SkipKind, Survey};
use std::fmt::Write;

/// A path or text as the machine sees it: the image folder removed.
fn shown(s: &Survey, text: &str) -> String {
    if s.root == "/" || s.root.is_empty() {
        return text.to_string();
    }
    text.replace(s.root.trim_end_matches('/'), "")
}

fn devices(out: &mut String, s: &Survey) {
    if s.devices.is_empty() {
        let ri = match &s.rocminfo {
            Some(src) => format!("no GPU agent in the rocminfo output ({})", shown(s, src)),
            None => "no rocminfo output".to_string(),
        };
        let _ = writeln!(
            out,
            "Devices: no AMD GPU (no GPU node in the KFD topology, {ri})"
        );
    } else {
        let _ = writeln!(out, "Devices");
        let mut t = table(&["#", "target", "name", "CUs", "source"]);
        for d in &s.devices {
            t.add_row(vec![
                right(d.index),
                Cell::new(d.device.target.canonical()),
                Cell::new(d.device.name.clone().unwrap_or_default()),
                right(d.device.cus.map(|c| c.to_string()).unwrap_or_default()),
                Cell::new(shown(s, &d.device.source)),
            ]);
        }
        let _ = writeln!(out, "{t}");
        for d in &s.devices {
            for n in &d.notes {
                let _ = writeln!(out, "  note: device {}: {n}", d.index);
            }
        }
        if s.rocminfo.is_none() {
            let _ = writeln!(
                out,
                "  note: no rocminfo output: the devices are the KFD topology's alone"
            );
        }
    }
    let other: Vec<String> = s
        .pci_gpus
        .iter()
        .filter(|g| !g.is_amd())
        .map(|g| g.describe())
        .collect();
    if !other.is_empty() {
        let _ = writeln!(
            out,
            "  not AMD (ROCm does not use {}): {}",
            if other.len() == 1 { "it" } else { "them" },
            other.join("; ")
        );
    }
    let _ = writeln!(out);
}

fn variables(out: &mut String, s: &Survey) {
    if s.variables.is_empty() {
        let _ = writeln!(out, "Variables: none of the watched variables is set\n");
        return;
    }
    let _ = writeln!(out, "Variables");
    let mut t = table(&["scope", "variable", "value", "set in"]);
    for v in &s.variables {
        let at = match v.line {
            Some(l) => format!("{}:{l}", shown(s, &v.source)),
            None => shown(s, &v.source),
        };
        t.add_row(vec![
            Cell::new(&v.scope),
            Cell::new(&v.name),
            Cell::new(&v.value),
            Cell::new(at),
        ]);
    }
    let _ = writeln!(out, "{t}\n");
}

/// Environments without GPU packages and not on `PATH` shown without `-v`.
const QUIET_ENVS: usize = 5;

/// The packages with GPU code of one environment, as the installs name them.
fn env_packages(s: &Survey, e: &PythonEnv) -> String {
    let mut v: Vec<String> = Vec::new();
    for i in s
        .installs
        .iter()
        .filter(|i| i.env.as_deref() == Some(e.path.as_str()))
    {
        let name = i.label.rsplit(' ').next().unwrap_or(&i.label);
        if name.starts_with("_rocm_sdk") && e.rocm_sdk.is_some() {
            continue; // the notes name the SDK wheels
        }
        let build = i.build.as_deref().unwrap_or("?");
        v.push(match &i.version {
            Some(ver) => format!("{name} {ver} ({build})"),
            None => format!("{name} ({build})"),
        });
    }
    v.join(", ")
}

/// What to know about an environment: its problems, its ROCm SDK wheels and who uses them.
fn env_notes(e: &PythonEnv) -> String {
    let mut v: Vec<String> = e.problems.clone();
    if let Some(sdk) = &e.rocm_sdk {
        let mut t = format!(
            "ROCm SDK wheels {}",
            sdk.version.as_deref().unwrap_or("(no version)")
        );
        if sdk.device_targets.is_empty() {
            t.push_str(", no device wheel");
        } else {
            t.push_str(&format!(
                ", device code for {}",
                sdk.device_targets.join(" ")
            ));
        }
        for u in &sdk.used_by {
            let check = match (&u.check_version, u.version_matches) {
                (Some(c), Some(true)) => format!(" (asks {c}: installed)"),
                (Some(c), Some(false)) => format!(" (asks {c}: NOT the installed one)"),
                (Some(c), None) => format!(" (asks {c})"),
                _ => String::new(),
            };
            t.push_str(&format!("; {} loads them{check}", u.package));
        }
        v.push(t);
    }
    if e.system_site_packages {
        v.push("also sees its base's packages".to_string());
    }
    v.join("; ")
}

fn python_envs(out: &mut String, s: &Survey, verbose: bool) {
    if s.python_envs.is_empty() {
        return;
    }
    let _ = writeln!(out, "Python environments");
    let mut t = table(&[
        "environment",
        "kind",
        "python",
        "on PATH",
        "GPU packages",
        "notes",
    ]);
    let mut quiet = 0;
    for e in &s.python_envs {
        let packages = env_packages(s, e);
        let notes = env_notes(e);
        if !verbose && packages.is_empty() && e.on_path.is_empty() && notes.is_empty() {
            quiet += 1;
            if quiet > QUIET_ENVS {
                continue;
            }
        }
        let on: Vec<String> = e
            .on_path
            .iter()
            .map(|o| format!("{}{}", o.command, if o.runs { "" } else { " (shadowed)" }))
            .collect();
        t.add_row(vec![
            Cell::new(shown(s, &e.path)),
            Cell::new(e.kind.as_str()),
            Cell::new(e.versions.join(" ")),
            Cell::new(on.join(", ")),
            Cell::new(packages),
            Cell::new(notes),
        ]);
    }
    let _ = writeln!(out, "{t}");
    if quiet > QUIET_ENVS {
        let _ = writeln!(
            out,
            "  {} more without GPU packages (all with -v or in --json)",
            rocpath_survey::count(quiet - QUIET_ENVS, "environment")
        );
    }
    for e in &s.python_envs {
        for o in e.on_path.iter().filter(|o| o.runs) {
            let _ = writeln!(
                out,
                "  {} → {} runs in {} ({})",
                o.command,
                shown(s, &o.path),
                shown(s, &e.path),
                shown(s, &o.via)
            );
        }
    }
    let _ = writeln!(out);
}

fn installs(out: &mut String, s: &Survey) {
    if s.installs.is_empty() {
        let _ = writeln!(out, "Installs: none found\n");
        return;
    }
    let _ = writeln!(out, "Installs");
    let mut t = table(&[
        "install", "kind", "version", "scope", "files", "size", "path",
    ]);
    for i in &s.installs {
        let version = match (&i.version, &i.build) {
            (Some(v), _) => v.clone(),
            (None, Some(b)) => format!("{b} build"),
            _ => String::new(),
        };
        let mut path = i.path.clone();
        if !i.aliases.is_empty() {
            path = format!("{path} (also {})", i.aliases.join(", "));
        }
        t.add_row(vec![
            Cell::new(&i.label),
            Cell::new(i.kind.as_str()),
            Cell::new(version),
            Cell::new(&i.scope),
            right(i.files),
            right(bytes(i.bytes)),
            Cell::new(path),
        ]);
    }
    let _ = writeln!(out, "{t}");
    if !s.user_dbs.is_empty() {
        let names: Vec<String> = s.user_dbs.iter().map(|u| shown(s, &u.path)).collect();
        let _ = writeln!(out, "MIOpen user databases: {}", names.join(", "));
    }
    let _ = writeln!(out);
}

/// What the programs' libraries take, install by install: the ROCm libraries and the install
/// holding each file.
fn uses(out: &mut String, s: &Survey) {
    let with: Vec<_> = s.installs.iter().filter(|i| !i.uses.is_empty()).collect();
    if with.is_empty() {
        return;
    }
    let _ = writeln!(out, "What the programs load");
    let mut t = table(&["install", "library", "file taken", "by", "from install"]);
    for i in with {
        for u in &i.uses {
            let from = match (&u.install, u.rule.as_str()) {
                (Some(l), _) if *l == i.label => "its own".to_string(),
                (Some(l), _) => l.clone(),
                (None, "preloaded") => "the ROCm SDK wheels".to_string(),
                (None, "not_found") => "NOT FOUND".to_string(),
                (None, _) => "none surveyed".to_string(),
            };
            t.add_row(vec![
                Cell::new(&i.label),
                Cell::new(&u.library),
                Cell::new(u.path.as_deref().map(|p| shown(s, p)).unwrap_or_default()),
                Cell::new(u.rule.replace('_', " ")),
                Cell::new(from),
            ]);
        }
    }
    let _ = writeln!(out, "{t}\n");
}

fn verdicts(out: &mut String, s: &Survey) {
    if s.verdicts.is_empty() {
        return;
    }
    let _ = writeln!(out, "Device × install");
    let mut t = table(&["device", "install", "outcome", "libraries", "why", "class"]);
    for v in &s.verdicts {
        let n = &v.libraries;
        t.add_row(vec![
            Cell::new(format!("{} {}", v.device, v.target)),
            Cell::new(&v.install),
            Cell::new(v.outcome.as_str().to_uppercase()),
            right(format!("{}/{}/{}", n.runs, n.depends, n.no_code)),
            Cell::new(shown(s, &v.why)),
            Cell::new(v.evidence.class.as_str()),
        ]);
    }
    let _ = writeln!(out, "{t}");
    let _ = writeln!(out, "(libraries: runs/depends/no code)\n");
    let any = s.verdicts.iter().any(|v| !v.fallbacks.is_empty());
    if any {
        let _ = writeln!(out, "What will fall back");
        for v in s.verdicts.iter().filter(|v| !v.fallbacks.is_empty()) {
            let _ = writeln!(out, "  device {} × {}:", v.device, v.install);
            for f in &v.fallbacks {
                let lib = shown(s, &f.library);
                let lib = crate::short_library(lib.trim_end_matches(" (Tensile library)"));
                let _ = writeln!(
                    out,
                    "    - {lib}: {} [{}]",
                    shown(s, &f.then),
                    f.evidence.class.as_str()
                );
            }
        }
        let _ = writeln!(out);
    }
}

/// The failure modes found, each with what to do.
fn findings(out: &mut String, s: &Survey) {
    if s.findings.is_empty() {
        return;
    }
    let _ = writeln!(out, "Findings");
    for f in &s.findings {
        let _ = writeln!(
            out,
            "  - {} [{}, {}]",
            shown(s, &f.text),
            f.kind.as_str(),
            f.evidence.class.as_str()
        );
        let _ = writeln!(out, "    what to do: {}", shown(s, &f.fix));
    }
    let _ = writeln!(out);
}

/// Depth-limit folders named without `-v`; the others are counted.
const NEAREST: usize = 3;

/// Network file systems and time limits one per line; the depth-limit folders (often many, and
/// seldom where GPU code is) in one line with their count and the nearest few, all with
/// `verbose`.
fn not_looked_into(out: &mut String, s: &Survey, verbose: bool) {
    if s.skipped.is_empty() {
        return;
    }
    let _ = writeln!(out, "Not looked into");
    let (depth, other): (Vec<_>, Vec<_>) =
        s.skipped.iter().partition(|k| k.kind == SkipKind::Depth);
    for k in &other {
        let _ = writeln!(out, "  {}: {}", shown(s, &k.path), k.why);
    }
    if verbose || depth.len() <= NEAREST {
        for k in &depth {
            let _ = writeln!(out, "  {}: {}", shown(s, &k.path), k.why);
        }
    } else {
        let nearest: Vec<String> = depth
            .iter()
            .take(NEAREST)
            .map(|k| shown(s, &k.path))
            .collect();
        let _ = writeln!(
            out,
            "  {} at the depth limit (--max-depth {}), not descended into; the nearest: {} (all with -v or in --json)",
            rocpath_survey::count(depth.len(), "folder"),
            s.stats.max_depth,
            nearest.join(", ")
        );
    }
    let _ = writeln!(out);
}

/// The survey for people (`verbose`: every folder not looked into, not only the nearest).
pub fn survey_table(s: &Survey, verbose: bool) -> String {
    let mut out = String::new();
    if s.root != "/" {
        let _ = writeln!(out, "Machine image: {}\n", s.root);
    }
    let m = &s.machine;
    if m.os.is_some() || m.kernel.is_some() || m.amdgpu.is_some() {
        let _ = writeln!(
            out,
            "Machine: {}, kernel {}, amdgpu driver {}\n",
            m.os.as_deref().unwrap_or("distribution unknown"),
            m.kernel.as_deref().unwrap_or("unknown"),
            m.amdgpu.as_deref().unwrap_or("not loaded")
        );
    }
    devices(&mut out, s);
    variables(&mut out, s);
    python_envs(&mut out, s, verbose);
    installs(&mut out, s);
    uses(&mut out, s);
    verdicts(&mut out, s);
    findings(&mut out, s);
    not_looked_into(&mut out, s, verbose);
    let _ = writeln!(
        out,
        "Answer: {} [{}]",
        shown(s, &s.answer.text),
        s.answer.evidence.class.as_str()
    );
    out
}

/// The survey's errors for stderr, one line each.
pub fn survey_errors(s: &Survey) -> String {
    let mut out = String::new();
    for e in &s.errors {
        match e.line {
            Some(l) => {
                let _ = writeln!(out, "error: {}:{l}: {}", e.path, e.message);
            }
            None => {
                let _ = writeln!(out, "error: {}: {}", e.path, e.message);
            }
        }
    }
    for e in &s.scan_errors {
        let container = if e.container.is_empty() {
            String::new()
        } else {
            format!(" [{}]", e.container)
        };
        let offset = e
            .offset
            .map(|o| format!(" at offset {o}"))
            .unwrap_or_default();
        let _ = writeln!(out, "error: {}{container}{offset}: {}", e.path, e.message);
    }
    out
}

/// The fleet for people: the nodes, what differs between them (each value with its nodes),
/// and how many aspects are the same everywhere (listed with `verbose`).
pub fn fleet_table(f: &rocpath_survey::fleet::Fleet, verbose: bool) -> String {
    let mut out = String::new();
    let names: Vec<&str> = f.nodes.iter().map(|n| n.name.as_str()).collect();
    let _ = writeln!(
        out,
        "Fleet: {} ({})\n",
        rocpath_survey::count(f.nodes.len(), "node"),
        names.join(", ")
    );
    let total = f.drift.len() + f.same.len();
    if f.drift.is_empty() {
        let _ = writeln!(
            out,
            "No drift: all {total} aspects are the same on every node"
        );
    } else {
        let _ = writeln!(out, "Drift: {} of {total} aspects differ", f.drift.len());
        let mut t = table(&["aspect", "value", "nodes"]);
        for d in &f.drift {
            for (k, v) in d.values.iter().enumerate() {
                let aspect = if k == 0 { d.aspect.as_str() } else { "" };
                t.add_row(vec![
                    Cell::new(aspect),
                    Cell::new(&v.value),
                    Cell::new(v.nodes.join(", ")),
                ]);
            }
        }
        let _ = writeln!(out, "{t}");
        let _ = writeln!(
            out,
            "Same on every node: {}{}",
            rocpath_survey::count(f.same.len(), "aspect"),
            if verbose { "" } else { " (listed with -v)" }
        );
    }
    if verbose && !f.same.is_empty() {
        let mut t = table(&["aspect", "value"]);
        for (k, v) in &f.same {
            t.add_row(vec![Cell::new(k), Cell::new(v)]);
        }
        let _ = writeln!(out, "{t}");
    }
    out
}
