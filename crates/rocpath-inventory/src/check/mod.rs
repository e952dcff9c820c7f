//! "Will this install run on that GPU?" For each library of an [`Inventory`], decide whether
//! a code object the device can load exists, by LLVM's target-id rules, and what
//! `HSA_OVERRIDE_GFX_VERSION` would change. Tensile libraries and MIOpen databases get their
//! own verdicts: rocBLAS needs a Tensile index for the device's processor, MIOpen looks up a
//! find-db by processor and CU count.
//!
//! Evidence: that a compatible code object is present is `confirmed`; that the runtime will
//! load it is `inferred` (from the target-id rules); when it depends on a device setting
//! rocpath does not know (xnack), it is `unresolved`.

pub mod catalog;
pub mod miopen_cache;

use crate::device::Device;
use crate::{CodeObjectRecord, ErrorItem, Inventory};
use rocpath_arch::{Compat, FeatureSetting, TargetId, code_object_compat};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use std::collections::{BTreeMap, BTreeSet};

/// Rule ids of check verdicts (besides the target-id rules of `rocpath_arch::rules`).
pub mod rules {
    /// At least one code object of the library loads on the device.
    pub const LOADS: &str = "check.compatible_code_object";
    /// Only objects whose loading depends on an unknown device setting.
    pub const DEPENDS: &str = "check.depends_on_device_setting";
    /// No code object of the library can load on the device.
    pub const NO_CODE: &str = "check.no_compatible_code_object";
    /// No readable code object loads on the device, but items of the library could not be
    /// read (truncated or damaged objects): the absence is not confirmed.
    pub const NO_CODE_UNREADABLE: &str = "check.no_code_with_unreadable_items";
    /// A Tensile lazy index for the processor is present.
    pub const TENSILE_INDEX: &str = "check.tensile_index_for_processor";
    /// No Tensile index or solution file for the processor.
    pub const TENSILE_MISSING: &str = "check.tensile_missing_for_processor";
    /// Tensile files for the processor are present but the loading library refuses them.
    pub const TENSILE_UNLOADABLE: &str = "check.tensile_catalog_unloadable";
    /// A MIOpen find-db for the processor is present.
    pub const MIOPEN_DB: &str = "check.miopen_find_db_for_processor";
    /// No MIOpen find-db for the processor.
    pub const MIOPEN_NO_DB: &str = "check.miopen_no_find_db";
    /// The library's code is in kpack archives and the one for the device is absent or empty.
    pub const KPACK_MISSING: &str = "check.kpack_archive_missing";
    /// The device's code is in a kpack archive whose `gfx_arches` does not list it.
    pub const KPACK_NOT_ADVERTISED: &str = "check.kpack_not_advertised";
    /// Code objects load, but fat-binary wrappers of the library lost their code in packing.
    pub const KPACK_CODE_LOST: &str = "check.kpack_code_lost";
}

/// An override evaluated from a version string (`9.0.6`), with the processor it names.
pub fn override_of(source: &str, value: &str) -> Override {
    let processor = rocpath_arch::parse_gfx_version(value).and_then(|v| {
        rocpath_arch::TARGETS
            .iter()
            .find(|t| t.version == v && t.covers.is_empty())
            .map(|t| t.name.to_string())
    });
    Override {
        source: source.to_string(),
        value: value.to_string(),
        processor,
    }
}

/// The override the HSA runtime applies to the device of index `index` from its
/// environment: `HSA_OVERRIDE_GFX_VERSION_<index>` before `HSA_OVERRIDE_GFX_VERSION`.
/// `var` reads a variable (`std::env::var(..).ok()` for this process).
pub fn override_from_env(index: usize, var: impl Fn(&str) -> Option<String>) -> Option<Override> {
    let per_device = format!("HSA_OVERRIDE_GFX_VERSION_{index}");
    [per_device.as_str(), "HSA_OVERRIDE_GFX_VERSION"]
        .into_iter()
        .find_map(|name| var(name).map(|v| override_of(name, &v)))
}

pub use rocpath_docs::check::{
    CheckDoc, Checked, Decider, DeviceCheck, DeviceVerdict, LibraryCheck, Override, OverrideEffect,
    Settle, Verdict,
};

/// Whether checks answer "no": a library without code that runs, or nothing to check.
pub fn is_negative(checks: &[DeviceCheck]) -> bool {
    checks.iter().any(|c| {
        c.libraries
            .iter()
            .any(|l| !matches!(l.verdict, Verdict::Runs | Verdict::Untuned))
    }) || checks.iter().all(|c| c.libraries.is_empty())
}

/// The settings of `dev` left open (`Any`) that a `depends` library's code objects state: what
/// to give to settle those verdicts.
pub fn to_settle(dev: &TargetId, libraries: &[LibraryCheck]) -> Vec<Settle> {
    type Get = fn(&TargetId) -> FeatureSetting;
    type Set = fn(&mut TargetId, FeatureSetting);
    let features: [(&str, Get, Set); 2] = [
        ("xnack", |t| t.xnack, |t, v| t.xnack = v),
        ("sramecc", |t| t.sramecc, |t, v| t.sramecc = v),
    ];
    let depends: Vec<&Decider> = libraries
        .iter()
        .filter(|l| l.verdict == Verdict::Depends)
        .flat_map(|l| &l.deciders)
        .collect();
    let mut out = Vec::new();
    for (name, get, set) in features {
        if get(dev) != FeatureSetting::Any
            || !depends.iter().any(|d| get(&d.target_id).is_specific())
        {
            continue;
        }
        let targets = [FeatureSetting::Off, FeatureSetting::On]
            .into_iter()
            .map(|v| {
                let mut t = dev.clone();
                set(&mut t, v);
                t.canonical()
            })
            .collect();
        out.push(Settle {
            feature: name.to_string(),
            targets,
        });
    }
    out
}

/// The verdict of a device over its libraries' verdicts. Tuning data with nothing for the
/// device does not make the code of the others fail: it counts only when it is all there is.
pub fn device_verdict(verdicts: &[Verdict]) -> DeviceVerdict {
    let code: Vec<Verdict> = verdicts
        .iter()
        .copied()
        .filter(|v| *v != Verdict::Untuned)
        .collect();
    if code.is_empty() && !verdicts.is_empty() {
        return DeviceVerdict::Untuned;
    }
    let verdicts = &code[..];
    let runs = verdicts.iter().filter(|v| **v == Verdict::Runs).count();
    let depends = verdicts.iter().filter(|v| **v == Verdict::Depends).count();
    match (verdicts.len(), runs, depends) {
        (0, _, _) => DeviceVerdict::NothingChecked,
        (n, r, _) if r == n => DeviceVerdict::Runs,
        (n, r, d) if r + d == n => DeviceVerdict::Depends,
        (_, 0, 0) => DeviceVerdict::NoCode,
        _ => DeviceVerdict::Partial,
    }
}

/// The grouping key of a code object: Tensile/hipBLASLt kernel files are grouped by folder,
/// everything else by library.
pub fn group_key(co: &CodeObjectRecord) -> String {
    group_of(&co.library)
}

/// The grouping key of a library path (see [`group_key`]).
pub fn group_of(library: &str) -> String {
    let file = library.rsplit('/').next().unwrap_or(library);
    let tensile_like = file.contains("TensileLibrary")
        || file.starts_with("Kernels.so-")
        || file.contains("_fallback")
        || file.starts_with("extop_")
        || file.starts_with("hipblasltTransform");
    if tensile_like {
        let dir = library.rsplit_once('/').map(|x| x.0).unwrap_or(".");
        format!("{dir}/ (Tensile kernels)")
    } else {
        library.to_string()
    }
}

fn device_for(dev: &TargetId, processor: &str) -> TargetId {
    TargetId {
        processor: processor.to_string(),
        sramecc: dev.sramecc,
        xnack: dev.xnack,
    }
}

fn evaluate(objs: &[&CodeObjectRecord], dev: &TargetId) -> (Verdict, Vec<Decider>, usize) {
    let mut runs = Vec::new();
    let mut depends = Vec::new();
    for co in objs {
        let c = code_object_compat(&co.target, co.code_object_version, dev);
        let d = Decider {
            path: co.path.clone(),
            container: co.container.clone(),
            target_id: co.target.clone(),
            rule: c.rule().to_string(),
            why: c.why().to_string(),
        };
        match c {
            Compat::Compatible { .. } => runs.push(d),
            Compat::Depends { .. } => depends.push(d),
            Compat::Incompatible { .. } => {}
        }
    }
    if !runs.is_empty() {
        let n = runs.len();
        // The loader takes an object for the device's own processor before a generic one.
        runs.sort_by_key(|d| d.rule == rocpath_arch::rules::GENERIC);
        runs.truncate(5);
        (Verdict::Runs, runs, n)
    } else if !depends.is_empty() {
        let n = depends.len();
        depends.truncate(5);
        (Verdict::Depends, depends, n)
    } else {
        (Verdict::NoCode, Vec::new(), 0)
    }
}

/// What `HSA_OVERRIDE_GFX_VERSION` naming processor `p` would make of a library's objects.
fn override_effect(objs: &[&CodeObjectRecord], dev: &TargetId, p: &str) -> OverrideEffect {
    let odev = device_for(dev, p);
    let (v, d, n) = evaluate(objs, &odev);
    let why = match v {
        Verdict::Runs => format!("as {p}: {} ({})", objects_load(n), d[0].rule),
        Verdict::Depends => format!("as {p}: {}", d[0].why),
        Verdict::NoCode | Verdict::Untuned => format!("as {p}: still no code object"),
    };
    OverrideEffect {
        verdict: v,
        compatible: n,
        why,
    }
}

/// Checks every library of `inv` against one device.
pub fn check(inv: &Inventory, device: &Device, ov: Option<&Override>) -> DeviceCheck {
    let dev = &device.target;
    let mut groups: BTreeMap<String, Vec<&CodeObjectRecord>> = BTreeMap::new();
    for co in &inv.code_objects {
        groups.entry(group_key(co)).or_default().push(co);
    }
    let mut unreadable: BTreeMap<String, Vec<&ErrorItem>> = BTreeMap::new();
    for e in inv.errors.iter().filter(|e| about_code(e)) {
        unreadable.entry(group_of(&e.library)).or_default().push(e);
    }
    let mut kpacked: BTreeMap<String, Vec<&crate::KpackRefRecord>> = BTreeMap::new();
    for r in inv.kpack_refs.iter().filter(|r| r.resolved) {
        kpacked.entry(group_of(&r.library)).or_default().push(r);
    }
    let mut libraries: Vec<LibraryCheck> = groups
        .iter()
        .map(|(lib, objs)| {
            let errs = unreadable.get(lib).map(Vec::as_slice);
            let refs = kpacked.get(lib).map(Vec::as_slice);
            library_check(lib, objs, dev, errs, refs, ov)
        })
        .collect();
    for (lib, errs) in unreadable.iter().filter(|(l, _)| !groups.contains_key(*l)) {
        libraries.push(unreadable_only(lib, errs));
    }
    for (lib, refs) in kpacked.iter().filter(|(l, _)| !groups.contains_key(*l)) {
        if !unreadable.contains_key(lib) {
            libraries.push(kpack_only(lib, refs, dev));
        }
    }
    libraries.extend(catalog::check_catalogs(inv, dev, ov));
    libraries.extend(check_miopen(inv, device, ov));
    libraries.extend(miopen_cache::check_kernel_cache(
        inv,
        device,
        ov.and_then(|o| o.processor.as_deref()),
    ));
    device_check(device, ov, libraries)
}

/// One library's code objects against the device: the verdict, why (an absence next to
/// unreadable items is limited; kpack archives say what they hold), the deciding objects and
/// what the override would change.
fn library_check(
    lib: &str,
    objs: &[&CodeObjectRecord],
    dev: &TargetId,
    unreadable: Option<&[&ErrorItem]>,
    kpacked: Option<&[&crate::KpackRefRecord]>,
    ov: Option<&Override>,
) -> LibraryCheck {
    let targets: BTreeSet<String> = objs.iter().map(|c| c.target.to_string()).collect();
    let targets: Vec<String> = targets.into_iter().collect();
    let (verdict, deciders, compatible) = evaluate(objs, dev);
    let (class, rule, why) = match verdict {
        Verdict::Runs => (
            Class::Inferred,
            rules::LOADS,
            format!(
                "{compatible} of {} on {} ({}){}",
                objects_load(objs.len()),
                dev.canonical(),
                deciders[0].rule,
                preference(&deciders)
            ),
        ),
        Verdict::Depends => (
            Class::Unresolved,
            rules::DEPENDS,
            format!("{}: {}", deciders[0].target_id, deciders[0].why),
        ),
        Verdict::NoCode | Verdict::Untuned => (
            Class::Confirmed,
            rules::NO_CODE,
            format!(
                "no code object for {}; the library ships {}",
                dev.canonical(),
                targets.join(" ")
            ),
        ),
    };
    let (class, rule, why) = match unreadable {
        Some(errs) if verdict == Verdict::NoCode => (
            Class::Limited,
            rules::NO_CODE_UNREADABLE,
            format!("{why}; {}", unread_note(errs)),
        ),
        _ => (class, rule, why),
    };
    let (class, rule, why) = match kpacked {
        Some(refs) => kpack_verdict(refs, dev, verdict, &deciders, (class, rule, why)),
        None => (class, rule, why),
    };
    let mut evidence =
        Evidence::new(class, Proof::ShippedArtifactVerified, rule).because(why.clone());
    for d in deciders.iter().take(3) {
        evidence = evidence.at(Locator::file(&d.path).with_member(d.container.clone()));
    }
    if verdict == Verdict::NoCode {
        if let Some(co) = objs.first() {
            evidence = evidence.at(Locator::file(&co.path).with_member(co.container.clone()));
        }
    }
    let with_override = ov
        .and_then(|o| o.processor.as_ref())
        .map(|p| override_effect(objs, dev, p));
    LibraryCheck {
        library: lib.to_string(),
        kind: Checked::CodeObjects,
        verdict,
        compatible,
        total: objs.len(),
        targets,
        deciders,
        why,
        with_override,
        evidence,
    }
}

/// The device's check over its libraries: counts by verdict, the device verdict (and under
/// the override), the target ids that would settle what depends on a setting.
fn device_check(
    device: &Device,
    ov: Option<&Override>,
    libraries: Vec<LibraryCheck>,
) -> DeviceCheck {
    let mut summary = BTreeMap::new();
    for l in &libraries {
        *summary.entry(l.verdict.as_str().to_string()).or_insert(0) += 1;
    }
    let own: Vec<Verdict> = libraries.iter().map(|l| l.verdict).collect();
    let verdict = device_verdict(&own);
    let verdict_with_override = ov.and_then(|o| o.processor.as_ref()).map(|_| {
        let with: Vec<Verdict> = libraries
            .iter()
            .map(|l| l.with_override.as_ref().map_or(l.verdict, |o| o.verdict))
            .collect();
        device_verdict(&with)
    });
    DeviceCheck {
        device: device.clone(),
        r#override: ov.cloned(),
        to_settle: to_settle(&device.target, &libraries),
        libraries,
        summary,
        verdict,
        verdict_with_override,
    }
}

/// `1 code object loads`, `2 code objects load`.
fn objects_load(n: usize) -> String {
    if n == 1 {
        "1 code object loads".into()
    } else {
        format!("{n} code objects load")
    }
}

/// When objects for the processor and for its generic target both load, which one the loader
/// takes.
fn preference(deciders: &[Decider]) -> String {
    let generic = deciders
        .iter()
        .find(|d| d.rule == rocpath_arch::rules::GENERIC);
    match (deciders.first(), generic) {
        (Some(first), Some(g)) if first.rule != rocpath_arch::rules::GENERIC => format!(
            "; the loader takes the {} object before the generic {} one",
            first.target_id, g.target_id
        ),
        _ => String::new(),
    }
}

/// The verdict of a library packed for kpack: a missing archive makes "no code" specific, an
/// archive that does not advertise the device makes "runs" unresolved.
fn kpack_verdict(
    refs: &[&crate::KpackRefRecord],
    dev: &TargetId,
    verdict: Verdict,
    deciders: &[Decider],
    current: (Class, &'static str, String),
) -> (Class, &'static str, String) {
    let views: Vec<_> = refs
        .iter()
        .map(|r| crate::kpack::for_device(r, dev))
        .collect();
    let missing: Vec<&String> = views.iter().flat_map(|v| &v.missing).collect();
    let unreadable = views.iter().any(|v| !v.unreadable.is_empty());
    let (class, rule, why) = current;
    match verdict {
        Verdict::NoCode if unreadable => (class, rule, why),
        Verdict::NoCode if !missing.is_empty() => (
            Class::Confirmed,
            rules::KPACK_MISSING,
            format!("{why}; {}", missing_note(&missing)),
        ),
        Verdict::Runs => {
            let hidden: Vec<&String> = views.iter().flat_map(|v| &v.not_advertised).collect();
            let all_hidden = !hidden.is_empty()
                && deciders
                    .iter()
                    .all(|d| hidden.iter().any(|h| d.container.contains(h.as_str())));
            let (mut stale, total) = refs
                .iter()
                .map(|r| (r.stale_wrappers, r.wrappers.total))
                .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
            // HIPK wrappers whose `#N` object is missing for the device's architecture.
            let names = crate::kpack::loader_arch_names(dev);
            stale += refs
                .iter()
                .flat_map(|r| &r.missing_indices)
                .filter(|m| names.first() == Some(&m.arch) || m.arch == dev.processor)
                .map(|m| m.indices.len() as u32)
                .max()
                .unwrap_or(0);
            let mut why = why;
            let mut rule = rule;
            if all_hidden {
                rule = rules::KPACK_NOT_ADVERTISED;
                why = format!(
                    "{why}; but {} does not list {} in gfx_arches, and loaders that choose archives by that list (rocm-kpack's) do not find it",
                    hidden[0], dev.processor
                );
            }
            if stale > 0 {
                if !all_hidden {
                    rule = rules::KPACK_CODE_LOST;
                }
                why = format!(
                    "{why}; {stale} of {total} fat-binary wrappers have no code for it (still HIPF over the emptied .hip_fatbin, or no #N object in the archives): the code of those translation units was not packed, and whether HIP fails when it registers them or when their kernels launch was not observed"
                );
            }
            if all_hidden || stale > 0 {
                (Class::Unresolved, rule, why)
            } else {
                (class, rule, why)
            }
        }
        _ => (class, rule, why),
    }
}

fn missing_note(missing: &[&String]) -> String {
    let list: Vec<&str> = missing.iter().take(3).map(|s| s.as_str()).collect();
    format!(
        "its GPU code is in kpack archives and the one the loader looks for is not there: {} — the load fails (ARCHIVE_NOT_FOUND; HIP reports an invalid device image)",
        list.join("; ")
    )
}

/// A kpack'd library of which no code object was found.
fn kpack_only(lib: &str, refs: &[&crate::KpackRefRecord], dev: &TargetId) -> LibraryCheck {
    let views: Vec<_> = refs
        .iter()
        .map(|r| crate::kpack::for_device(r, dev))
        .collect();
    let missing: Vec<&String> = views.iter().flat_map(|v| &v.missing).collect();
    let unreadable: Vec<&String> = views.iter().flat_map(|v| &v.unreadable).collect();
    let (class, rule, why) = if !unreadable.is_empty() {
        (
            Class::Limited,
            rules::NO_CODE_UNREADABLE,
            format!(
                "no readable code object; kpack archive {} could not be read",
                unreadable[0]
            ),
        )
    } else if !missing.is_empty() {
        (
            Class::Confirmed,
            rules::KPACK_MISSING,
            format!(
                "no code object for {}; {}",
                dev.canonical(),
                missing_note(&missing)
            ),
        )
    } else {
        (
            Class::Confirmed,
            rules::NO_CODE,
            format!(
                "no code object for {} in the library's kpack archives",
                dev.canonical()
            ),
        )
    };
    let mut evidence =
        Evidence::new(class, Proof::ShippedArtifactVerified, rule).because(why.clone());
    for r in refs.iter().take(3) {
        evidence = evidence.at(Locator::file(&r.path).with_member("kpack_ref".to_string()));
    }
    no_code(lib, why, evidence)
}

/// A code library with no code object that loads: the verdict `no_code`, explained.
fn no_code(lib: &str, why: String, evidence: Evidence) -> LibraryCheck {
    LibraryCheck {
        library: lib.to_string(),
        kind: Checked::CodeObjects,
        verdict: Verdict::NoCode,
        compatible: 0,
        total: 0,
        targets: Vec::new(),
        deciders: Vec::new(),
        why,
        with_override: None,
        evidence,
    }
}

/// True for an error about code (a code object or its container), not about a Tensile
/// library or MIOpen database file, which have verdicts of their own.
fn about_code(e: &ErrorItem) -> bool {
    let inner = e.container.rsplit(" > ").next().filter(|c| !c.is_empty());
    let name = inner.unwrap_or(&e.path);
    let name = name.rsplit(['/', ':']).next().unwrap_or(name);
    !e.library.is_empty() && rocpath_sources::names::classify(name).is_none()
}

/// What the unreadable items of a library are, for a verdict's note (the errors themselves
/// are reported with the inventory's errors).
fn unread_note(errs: &[&ErrorItem]) -> String {
    let n = errs.len();
    let items = if n == 1 { "item" } else { "items" };
    format!("{n} {items} of it could not be read (see the errors), so the absence is not confirmed")
}

/// A library of which nothing could be read: no verdict on its code, `limited`.
fn unreadable_only(lib: &str, errs: &[&ErrorItem]) -> LibraryCheck {
    let why = format!("no readable code object; {}", unread_note(errs));
    let mut evidence = Evidence::new(
        Class::Limited,
        Proof::ShippedArtifactVerified,
        rules::NO_CODE_UNREADABLE,
    )
    .because(why.clone());
    for e in errs.iter().take(3) {
        evidence = evidence.at(Locator::in_container(
            &e.path,
            e.container.clone(),
            e.offset,
        ));
    }
    no_code(lib, why, evidence)
}

fn check_miopen(inv: &Inventory, device: &Device, ov: Option<&Override>) -> Vec<LibraryCheck> {
    let find_dbs: Vec<_> = inv
        .miopen_dbs
        .iter()
        .filter(|d| d.kind == rocpath_miopen_names::DbKind::FindDb)
        .collect();
    if find_dbs.is_empty() {
        return Vec::new();
    }
    let eval = |p: &str| -> (Verdict, Vec<&crate::MiopenDbRecord>) {
        let mine: Vec<_> = find_dbs
            .iter()
            .copied()
            .filter(|d| d.processor == p)
            .collect();
        (
            if mine.is_empty() {
                Verdict::Untuned
            } else {
                Verdict::Runs
            },
            mine,
        )
    };
    let p = device.target.processor.as_str();
    let (verdict, mine) = eval(p);
    let mut procs: Vec<String> = find_dbs.iter().map(|d| d.name.clone()).collect();
    procs.sort();
    procs.dedup();
    let (class, rule, why) = if verdict == Verdict::Runs {
        let exact = device
            .cus
            .and_then(|c| mine.iter().find(|d| d.cus == Some(c)));
        let why = match (exact, device.cus) {
            (Some(d), _) => format!(
                "exact find-db {} for {p} with {} CUs",
                d.name,
                d.cus.unwrap_or(0)
            ),
            (None, Some(c)) => format!(
                "find-db for {p} but none for {c} CUs: MIOpen takes the nearest CU count ({})",
                mine.iter()
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            (None, None) => format!(
                "find-db for {p}: {}",
                mine.iter()
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        (Class::Confirmed, rules::MIOPEN_DB, why)
    } else {
        (
            Class::Inferred,
            rules::MIOPEN_NO_DB,
            format!(
                "no system find-db for {p}: MIOpen has no shipped tuning records and falls back to its heuristics"
            ),
        )
    };
    let mut evidence =
        Evidence::new(class, Proof::ShippedArtifactVerified, rule).because(why.clone());
    for d in mine.iter().take(3) {
        evidence = evidence.at(Locator::file(&d.path).with_member(d.container.clone()));
    }
    let with_override = ov.and_then(|o| o.processor.as_ref()).map(|q| {
        let (v, m) = eval(q);
        OverrideEffect {
            verdict: v,
            compatible: m.len(),
            why: format!("as {q}: {} find-dbs", m.len()),
        }
    });
    vec![LibraryCheck {
        library: "MIOpen system find-db".into(),
        kind: Checked::MiopenDb,
        verdict,
        compatible: mine.len(),
        total: find_dbs.len(),
        targets: procs,
        deciders: Vec::new(),
        why,
        with_override,
        evidence,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn the_per_device_override_comes_before_the_global_one() {
        let vars = env(&[
            ("HSA_OVERRIDE_GFX_VERSION", "10.3.0"),
            ("HSA_OVERRIDE_GFX_VERSION_1", "9.0.0"),
        ]);
        let first = override_from_env(0, &vars).map(|o| (o.source, o.processor));
        assert_eq!(
            first,
            Some(("HSA_OVERRIDE_GFX_VERSION".into(), Some("gfx1030".into())))
        );
        let second = override_from_env(1, &vars).map(|o| (o.source, o.processor));
        assert_eq!(
            second,
            Some(("HSA_OVERRIDE_GFX_VERSION_1".into(), Some("gfx900".into())))
        );
        assert!(override_from_env(0, env(&[])).is_none());
    }

    #[test]
    fn an_override_naming_no_target_has_no_processor() {
        let o = override_of("--override", "1.2.3");
        assert_eq!((o.value.as_str(), o.processor), ("1.2.3", None));
    }
}
