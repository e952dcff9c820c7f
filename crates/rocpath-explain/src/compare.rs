//! Prediction next to observation. The observation is a `rocpath case read --json` document
//! read with its own type ([`rocpath_docs::case::CaseDoc`]): each case's device, problem,
//! MIOpenDriver command and environment, logged settings (MIOpen version, find mode,
//! `FIND_ENFORCE`, find-only solver), database lookups (the record the log shows), selected and
//! forced solver, outcome, the candidates' fates and the libraries' notes; the prediction is
//! the applicability model's path for the same problem, device, mode, environment and record
//! ([`crate::miopen::explain`]).
//!
//! Two levels: the case (the selected solver or the failure against the predicted end of the
//! path) and every statement the log makes about a solver (`Not applicable`, `Skipped
//! (non-dynamic)`, `Skipped (no workspace required)`, `Success.`, the WTI listing, TunaNet's
//! verdict) against the model. Agreement raises the inferred prediction to `confirmed`;
//! disagreement becomes an open question; what the model cannot decide is `unresolved`.

use crate::miopen::{self, Device, GivenRecord, MiopenExplanation, Reason};
use rocpath_arch::TargetId;
use rocpath_docs::case::{CaseDoc, CaseReport, DbLookup};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_miopen::model::context::Env;
use rocpath_miopen::model::ir::Model;
use rocpath_miopen::select::{Mode, Tri};
use rocpath_miopen::{DriverCommand, Problem};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The document's types (`rocpath.explain.compare/1`), defined in `rocpath-docs`.
pub use rocpath_docs::compare::{ComparisonsDoc, SolverCheck, Verdict};

/// One case compared, with the MIOpen model's explanation.
pub type Comparison = rocpath_docs::compare::Comparison<MiopenExplanation>;

/// How a comparison is set up.
#[derive(Debug, Clone)]
pub struct Options<'m> {
    /// The model.
    pub model: &'m Model,
    /// Choose the model by the MIOpen version the case logged (the shipped model of that
    /// release, or the nearest with the release's overlay) instead of `model`.
    pub by_release: bool,
    /// MIOpen's database folder, for cases whose log shows no lookup.
    pub db_dir: Option<PathBuf>,
    /// Compute units (default: from the logged find-db name).
    pub cu: Option<u32>,
    /// Device memory in bytes.
    pub vram: Option<u64>,
}

/// Compares every case of a `rocpath.case/1` document.
pub fn compare(doc: &CaseDoc, doc_path: &Path, opts: &Options) -> Vec<Comparison> {
    doc.cases
        .iter()
        .enumerate()
        .map(|(i, c)| one(c, i, doc_path, opts))
        .collect()
}

fn fact<'a>(c: &'a CaseReport, what: &str) -> Option<&'a str> {
    c.libraries
        .iter()
        .find(|f| f.what == what)
        .map(|f| f.value.as_str())
}

/// The release overlay for a logged MIOpen version (`3.5.1.5b515cf1bca-dirty`): MIOpen 3.5
/// and later take the 3.5.1 differences.
pub fn release_of(version: &str) -> Option<String> {
    rocpath_miopen::model::release::overlay_for(version).map(str::to_string)
}

/// The environment of the run: the runner's record plus what the log shows in force.
fn env_of(c: &CaseReport) -> Env {
    let mut env = Env::default();
    if let Some(m) = &c.meta {
        env.vars
            .extend(m.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    if fact(c, "miopen_find_enforce").is_some() {
        env.vars
            .entry("MIOPEN_FIND_ENFORCE".into())
            .or_insert_with(|| "SEARCH_DB_UPDATE".into());
    }
    if let Some(v) = fact(c, "miopen_find_only_solver") {
        env.vars
            .entry("MIOPEN_DEBUG_FIND_ONLY_SOLVER".into())
            .or_insert_with(|| v.to_string());
    }
    if let Some(m) = fact(c, "miopen_find_mode") {
        let n = m
            .split('(')
            .nth(1)
            .and_then(|x| x.strip_suffix(')'))
            .unwrap_or(m);
        env.vars
            .entry("MIOPEN_FIND_MODE".into())
            .or_insert_with(|| n.to_string());
    }
    env
}

/// The case's MIOpenDriver command.
fn driver_of(c: &CaseReport) -> Option<DriverCommand> {
    let line = c.meta.as_ref()?.command_line.as_str();
    let start = line.find("MIOpenDriver")?;
    let cmd = line[start..].split([';', '&', '|']).next()?;
    DriverCommand::parse_line(cmd.trim_start_matches("MIOpenDriver").trim()).ok()
}

/// The API path of the case's MIOpenDriver command.
fn mode_of(c: &CaseReport) -> Option<Mode> {
    let d = driver_of(c)?;
    Some(miopen::request::mode_of(
        d.path(miopen::request::known_name),
        Mode::Find,
    ))
}

/// The record the log shows (user find-db first), or `Some(None)` when it shows lookups that
/// found nothing, `None` when it shows no lookup.
fn logged_record(c: &CaseReport, doc_path: &Path, i: usize) -> Option<Option<GivenRecord>> {
    let mut fdb: Vec<&DbLookup> = c
        .db_lookups
        .iter()
        .filter(|l| matches!(l.db.as_str(), "find_db" | "user_find_db"))
        .collect();
    if fdb.is_empty() {
        return None;
    }
    fdb.sort_by_key(|l| if l.db == "user_find_db" { 0 } else { 1 });
    for l in fdb {
        if l.found == Some(true) && !l.record.is_empty() {
            return Some(Some(GivenRecord {
                items: l.record.clone(),
                source: l.db.clone(),
                at: Locator::file(format!("{}#/cases/{i}/db_lookups", doc_path.display())),
            }));
        }
    }
    Some(None)
}

fn not_compared(name: String, loc: Locator, verdict: Verdict, statement: String) -> Comparison {
    Comparison {
        case: name,
        arch: None,
        problem_key: None,
        mode: None,
        release: None,
        observed: None,
        observed_outcome: None,
        predicted: None,
        verdict,
        statement,
        question: None,
        evidence: Evidence::new(
            Class::Unresolved,
            Proof::Hypothesis,
            "explain.compare.no_prediction",
        )
        .at(loc),
        solvers: Vec::new(),
        solver_counts: HashMap::new(),
        explanation: None,
    }
}

/// The model for the MIOpen version the case logged (with `by_release`: that release's own or
/// the nearest, with its note), else the one given; and the release overlay.
fn model_of<'m>(c: &CaseReport, opts: &Options<'m>) -> (&'m Model, Option<String>, Option<String>) {
    let version = fact(c, "miopen_version");
    let chosen = version
        .filter(|_| opts.by_release)
        .and_then(|v| rocpath_miopen::model::release::for_release(v).ok());
    match chosen.as_ref().map(|ch| (ch, ch.shipped.model())) {
        Some((ch, Ok(m))) => (m, ch.overlay.map(str::to_string), ch.note.clone()),
        _ => (opts.model, version.and_then(release_of), None),
    }
}

fn one(c: &CaseReport, i: usize, doc_path: &Path, opts: &Options) -> Comparison {
    let name = if c.name.is_empty() {
        "case".to_string()
    } else {
        c.name.clone()
    };
    let loc = Locator::file(format!("{}#/cases/{i}", doc_path.display()));
    let arch = c.device.as_ref().map(|d| d.arch.clone());
    let key = c.problems.first().map(|p| p.key.clone());
    let (Some(arch), Some(key)) = (arch, key) else {
        return not_compared(
            name,
            loc,
            Verdict::NotMiopen,
            "the observation has no MIOpen device and problem to predict from".into(),
        );
    };
    if let Some(why) = driver_of(c).and_then(|d| d.rejected_by_driver()) {
        return driver_rejects(c, name, loc, &arch, &key, why, opts.model);
    }
    let Some(mode) = mode_of(c) else {
        return not_compared(
            name,
            loc,
            Verdict::NotMiopen,
            "no MIOpenDriver command: the API calls of the run are not modelled as a path".into(),
        );
    };
    let Ok(problem) = Problem::from_fdb_key(&key) else {
        return not_compared(
            name,
            loc,
            Verdict::NotMiopen,
            format!("problem key {key:?} does not parse"),
        );
    };
    let cus = opts.cu.or_else(|| {
        c.db_lookups
            .iter()
            .find_map(|l| rocpath_miopen::dbname::DbName::parse(l.file.rsplit('/').next()?)?.cus)
    });
    let (model, release, model_note) = model_of(c, opts);
    let mut device = Device::new(&arch, cus);
    device.vram = opts.vram;
    let logged = logged_record(c, doc_path, i);
    let q = miopen::Query {
        model,
        release: release.clone(),
        device,
        tunanet_dir: opts.db_dir.clone(),
        db_dir: if logged.is_some() {
            None
        } else {
            opts.db_dir.clone()
        },
        user_db: None,
        user_cache: None,
        record: logged.flatten(),
        problem,
        mode: mode.clone(),
        env: env_of(c),
        build: HashMap::new(),
        model_note,
    };
    let e = match miopen::explain(&q) {
        Ok(e) => e,
        Err(err) => {
            return not_compared(
                name,
                loc,
                Verdict::NoPrediction,
                format!("no prediction: {err}"),
            );
        }
    };
    let mut out = judge(c, &name, &arch, &key, &mode, &e, loc);
    out.release = release;
    out.solvers = solver_checks(c, &e, &mode);
    for sc in &out.solvers {
        *out.solver_counts
            .entry(sc.verdict.as_str().to_string())
            .or_default() += 1;
    }
    let mut e = e;
    e.solvers.clear();
    out.explanation = Some(e);
    out
}

/// MIOpenDriver refuses the command line before MIOpen runs.
#[allow(clippy::too_many_arguments)]
fn driver_rejects(
    c: &CaseReport,
    name: String,
    loc: Locator,
    arch: &TargetId,
    key: &str,
    why: String,
    model: &Model,
) -> Comparison {
    let kind = Some(c.outcome.kind.as_str().to_string());
    let mut out = not_compared(name, loc.clone(), Verdict::Agree, String::new());
    out.arch = Some(arch.clone());
    out.problem_key = Some(key.to_string());
    out.mode = mode_of(c).map(|m| mode_text(&m));
    out.observed_outcome = kind.clone();
    out.predicted = Some("failure: cli_error".into());
    let cite = model
        .rules
        .iter()
        .find(|r| r.id == "path.driver.cast_types")
        .map(|r| r.cite.clone())
        .unwrap_or_default();
    let mut ev = Evidence::new(
        Class::Inferred,
        Proof::CodeVerified,
        "explain.miopen.driver_rejects",
    )
    .at(Locator::file(format!(
        "{}:{}",
        model.source.short(),
        cite.split('@').next().unwrap_or("")
    )))
    .because(why.clone());
    if kind.as_deref() == Some("cli_error") {
        ev.class = Class::Confirmed;
        ev.kind = Proof::RuntimeVerified;
        ev.rule = "explain.compare.agree".into();
        out.evidence = ev.at(loc);
        out.statement = format!(
            "MIOpenDriver refuses the command ({why}) and the run ended with a command-line error"
        );
    } else {
        disagree(&mut out, "failure: cli_error", key, arch, loc);
    }
    out
}

fn mode_text(m: &Mode) -> String {
    match m {
        Mode::Find => "find".into(),
        Mode::Immediate => "immediate".into(),
        Mode::Forced(s) => format!("forced: {s}"),
    }
}

/// The failure kinds of the case report that a predicted failure stands for.
fn failure_matches(predicted: &str, kind: &str, sub: Option<&str>) -> bool {
    match predicted {
        "rejected_not_applicable" => kind == "applicability_reject" && sub != Some("find"),
        "no_solution" => {
            (kind == "applicability_reject" && sub == Some("find")) || kind == "library_error"
        }
        // GetSolutionCountFallback's "not supported" error, or the driver's own rc.
        "not_implemented" => {
            kind == "library_error" && matches!(sub, Some("not_supported" | "driver_rc"))
        }
        other => other == kind,
    }
}

fn judge(
    c: &CaseReport,
    name: &str,
    arch: &TargetId,
    key: &str,
    mode: &Mode,
    e: &MiopenExplanation,
    loc: Locator,
) -> Comparison {
    let observed = c.selected.as_ref().map(|s| s.solver.clone());
    let kind = Some(c.outcome.kind.as_str().to_string());
    let sub = c.outcome.sub_kind.as_deref();
    let mut out = not_compared(
        name.to_string(),
        loc.clone(),
        Verdict::Unresolved,
        String::new(),
    );
    out.arch = Some(arch.clone());
    out.problem_key = Some(key.to_string());
    out.mode = Some(mode_text(mode));
    out.observed = observed.clone();
    out.observed_outcome = kind.clone();
    let forced_ok = matches!(mode, Mode::Forced(_)) && kind.as_deref() == Some("success");
    let ran = matches!(kind.as_deref(), Some("natural" | "fallback_observed")) || forced_ok;
    let undecided = matches!(kind.as_deref(), None | Some("undetermined" | "incomplete"));
    let agree = |mut ev: Evidence, note: String| {
        ev.class = Class::Confirmed;
        ev.kind = Proof::RuntimeVerified;
        ev.rule = "explain.compare.agree".into();
        ev.note = format!("inferred prediction raised to confirmed by the observation; {note}");
        ev.at(loc.clone())
    };
    match (&e.predicted, &e.failure, &e.no_prediction) {
        (_, _, _) if undecided => {
            out.verdict = Verdict::NoObservation;
            out.statement = format!(
                "the case's outcome is {}: nothing to compare",
                kind.as_deref().unwrap_or("not recorded")
            );
        }
        (Some(p), _, _) => {
            out.predicted = Some(p.solver.clone());
            if ran && observed.as_deref() == Some(p.solver.as_str()) {
                out.verdict = Verdict::Agree;
                out.statement = format!(
                    "predicted {} ({}) and the run selected it",
                    p.solver,
                    mode_text(mode)
                );
                out.evidence = agree(p.evidence.clone(), p.evidence.note.clone());
            } else {
                disagree(&mut out, &p.solver, key, arch, loc.clone());
            }
        }
        (None, Some(f), _) => {
            out.predicted = Some(format!("failure: {}", f.failure));
            if kind
                .as_deref()
                .is_some_and(|k| failure_matches(&f.failure, k, sub))
            {
                out.verdict = Verdict::Agree;
                out.statement = format!(
                    "predicted {} and the run ended so ({})",
                    f.failure,
                    kind.as_deref().unwrap_or("")
                );
                out.evidence = agree(f.evidence.clone(), f.statement.clone());
            } else {
                disagree(
                    &mut out,
                    &format!("failure: {}", f.failure),
                    key,
                    arch,
                    loc.clone(),
                );
            }
        }
        (None, None, Some(r)) => left_open(&mut out, &e.candidates, r, ran, key, arch, loc),
        (None, None, None) => {
            out.verdict = Verdict::NoPrediction;
            out.statement = "no prediction".into();
        }
    }
    out
}

/// A prediction the model leaves open among `cands`: a run selecting outside them contradicts
/// it; otherwise the comparison stays unresolved, saying whether the run's choice is among them.
fn left_open(
    out: &mut Comparison,
    cands: &[String],
    r: &Reason,
    ran: bool,
    key: &str,
    arch: &TargetId,
    loc: Locator,
) {
    out.predicted = Some("unresolved".into());
    match out.observed.clone() {
        Some(o) if ran && !cands.is_empty() && !cands.contains(&o) => {
            disagree(out, &format!("one of {}", cands.join(", ")), key, arch, loc);
        }
        observed => {
            out.verdict = Verdict::Unresolved;
            let within = match observed {
                Some(o) if cands.contains(&o) => format!("; the run's {o} is one of them"),
                _ => String::new(),
            };
            out.statement = format!("{}{within}", r.statement);
            out.evidence = r.evidence.clone().at(loc);
        }
    }
}

fn disagree(out: &mut Comparison, predicted: &str, key: &str, arch: &TargetId, loc: Locator) {
    let seen = match (&out.observed, &out.observed_outcome) {
        (Some(s), Some(k)) => format!("{s} ({k})"),
        (None, Some(k)) => k.clone(),
        _ => "nothing".into(),
    };
    out.verdict = Verdict::Disagree;
    out.statement = format!("predicted {predicted} but the run shows {seen}");
    out.question = Some(format!(
        "Why does MIOpen end in {seen} instead of {predicted} for {key} on {arch}? A user find-db record, an environment switch, a build option or another MIOpen release than the model's would explain it."
    ));
    out.evidence = Evidence::new(
        Class::Unresolved,
        Proof::Hypothesis,
        "explain.compare.disagree",
    )
    .at(loc);
}

/// What a logged fate asserts, as (model field, expected value). In a forced run (`-S`) the
/// `SetAsFound1_0` line (`best_for_algorithm`) asserts nothing about applicability: it comes
/// from `CompileSolution`'s `PrepareInvoker` registering the invoker
/// (src/ocl/convolutionocl.cpp:82-122@2d1fd997, src/include/miopen/handle.hpp:250-258@2d1fd997),
/// which never asks `IsApplicable`.
fn expectation(fate: &str, phase: &str, forced: bool) -> Option<(&'static str, Tri)> {
    Some(match fate {
        "not_applicable" => ("applicable", Tri::No),
        "skipped_non_dynamic" => ("dynamic", Tri::No),
        "workspace_query_only" => ("may_need_workspace", Tri::No),
        "best_for_algorithm" if forced => return None,
        "succeeded" | "evaluated" | "best_for_algorithm" | "failed" => ("applicable", Tri::Yes),
        "immediate_candidate" if phase == "immediate_fallback" => ("applicable", Tri::Yes),
        _ => return None,
    })
}

fn solver_checks(c: &CaseReport, e: &MiopenExplanation, mode: &Mode) -> Vec<SolverCheck> {
    let forced = matches!(mode, Mode::Forced(_));
    let mut out = Vec::new();
    for cand in &c.candidates {
        let name = cand.solver.as_str();
        let model = e.solvers.iter().find(|r| r.solver == name);
        let mut done: Vec<&str> = Vec::new();
        for seen in &cand.seen {
            let (fate, phase) = (seen.fate.as_str(), seen.phase.as_str());
            let Some((field, want)) = expectation(fate, phase, forced) else {
                continue;
            };
            if done.contains(&fate) {
                continue;
            }
            done.push(fate);
            out.push(check(name, fate, seen.line, model, field, want));
        }
    }
    out.extend(tunanet_check(c, e));
    out
}

/// The library's reason for not asking TunaNet (`TunaNet Inapplicable: …`, a note of the
/// case), held against the model's TunaNet verdict, with the line that printed it.
fn tunanet_check(c: &CaseReport, e: &MiopenExplanation) -> Option<SolverCheck> {
    let note = c
        .notes
        .iter()
        .find(|n| n.message.contains("TunaNet Inapplicable"))?;
    let r = e.tunanet.as_ref()?;
    let model = match r.applicability.as_str() {
        "not_applicable" => Tri::No,
        "applicable" => Tri::Yes,
        _ => Tri::Unknown,
    };
    Some(SolverCheck {
        solver: "TunaNet".into(),
        logged: note.message.clone(),
        line: note
            .evidence
            .sources
            .first()
            .and_then(|l| l.line)
            .unwrap_or(0),
        model: format!("{model:?}").to_lowercase(),
        verdict: tri_verdict(model, Tri::No),
        decided_at: r.decided_at.as_ref().map(|d| d.at.clone()),
    })
}

fn tri_verdict(model: Tri, want: Tri) -> Verdict {
    match model {
        Tri::Unknown => Verdict::Unresolved,
        m if m == want => Verdict::Agree,
        _ => Verdict::Disagree,
    }
}

fn check(
    name: &str,
    fate: &str,
    line: u64,
    model: Option<&miopen::SolverReport>,
    field: &str,
    want: Tri,
) -> SolverCheck {
    let Some(r) = model else {
        return SolverCheck {
            solver: name.into(),
            logged: fate.into(),
            line,
            model: "not in the model".into(),
            verdict: Verdict::Unresolved,
            decided_at: None,
        };
    };
    let got = match field {
        "applicable" => match r.applicability.as_str() {
            "applicable" => Tri::Yes,
            "not_applicable" => Tri::No,
            _ => Tri::Unknown,
        },
        "dynamic" => r.dynamic,
        _ => r.may_need_workspace,
    };
    let model_text = match (field, got) {
        (_, Tri::Unknown) => format!("{field}: unresolved"),
        ("applicable", Tri::Yes) => "applicable".into(),
        ("applicable", Tri::No) => "not_applicable".into(),
        (f, Tri::Yes) => f.to_string(),
        (f, Tri::No) => format!("not {f}"),
    };
    SolverCheck {
        solver: name.into(),
        logged: fate.into(),
        line,
        model: model_text,
        verdict: tri_verdict(got, want),
        decided_at: (field == "applicable")
            .then(|| r.decided_at.as_ref().map(|d| d.at.clone()))
            .flatten(),
    }
}
