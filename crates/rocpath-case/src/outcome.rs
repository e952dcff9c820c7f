//! The case outcome: one function per rule, tried in the documented order of precedence
//! ([`OUTCOME_RULES`]); the first rule that decides gives the outcome, and a case no rule
//! decides is `undetermined`. Every outcome's evidence names the lines that decided it, under
//! the rule `case.outcome.<kind>`.

use crate::collect::{Collector, Src};
use crate::model::*;
use rocpath_evidence::{Class, Evidence, Locator, Proof};

/// Error kinds that make a `library_error` when nothing was selected or a driver step failed.
const LIBRARY_ERRORS: &[&str] = &[
    "no_suitable_algorithm",
    "not_applicable",
    "not_supported",
    "tensile_library_missing",
    "no_tensile_solution",
    "hipErrorNoBinaryForGpu",
    "hipErrorInvalidDeviceFunction",
    "no_code_object_for_isa",
    "hipErrorSharedObjectInitFailed",
    "hipErrorInvalidKernelFile",
    "hipErrorIllegalAddress",
    "hipErrorLaunchFailure",
    "hipErrorOutOfMemory",
    "miopen_error",
    "rocblas_error",
    "hipblaslt_error",
    "driver_rc",
];

/// What the rules decide from, besides the collector: whether the run finished, the forced
/// solver, the selection and the exit.
pub(crate) struct Decided<'a> {
    pub complete: bool,
    pub forced: Option<&'a Forced>,
    pub selected: Option<&'a Selected>,
    pub exit: &'a Exit,
}

/// An outcome rule: the outcome it decides, or `None` to leave the case to the next rule.
type Rule = fn(&Collector, &Decided<'_>) -> Option<Outcome>;

/// The rules in their order of precedence (ARCHITECTURE.md, "Case rules").
const OUTCOME_RULES: [Rule; 11] = [
    Collector::incomplete,
    Collector::cli_error,
    Collector::gpu_fault,
    Collector::build_failure,
    Collector::runtime_abort,
    Collector::capi_rule,
    Collector::applicability_reject,
    Collector::library_error,
    Collector::forced_result,
    Collector::fallback_observed,
    Collector::natural,
];

/// Fatal signals that mean the process aborted on its own (not stopped by the user).
fn abort_signal(sig: &str) -> bool {
    matches!(
        sig,
        "SIGABRT" | "SIGSEGV" | "SIGBUS" | "SIGFPE" | "SIGILL" | "SIGKILL" | "SIGTRAP" | "SIGQUIT"
    )
}

impl Collector {
    /// The outcome of the case: the first rule of [`OUTCOME_RULES`] that decides, else
    /// `undetermined`.
    pub(crate) fn outcome(&self, d: &Decided<'_>) -> Outcome {
        OUTCOME_RULES
            .iter()
            .find_map(|rule| rule(self, d))
            .unwrap_or_else(|| {
                self.outcome_of(
                    OutcomeKind::Undetermined,
                    None,
                    "no selection, GEMM call or failure was logged".into(),
                    Class::Unresolved,
                    vec![],
                )
            })
    }

    /// An outcome with its evidence (`case.outcome.<kind>`) at `srcs`.
    pub(crate) fn outcome_of(
        &self,
        kind: OutcomeKind,
        sub: Option<&str>,
        reason: String,
        class: Class,
        srcs: Vec<Src>,
    ) -> Outcome {
        let rule = format!("case.outcome.{}", kind.as_str());
        Outcome {
            kind,
            sub_kind: sub.map(str::to_string),
            reason,
            evidence: self.ev(class, Proof::RuntimeVerified, &rule, &srcs),
        }
    }

    /// `srcs`, the line of the first failed driver step and the exit marker.
    fn with_rc(&self, mut srcs: Vec<Src>) -> Vec<Src> {
        srcs.extend(self.first_rc().map(|x| x.1));
        if let Some((_, s)) = self.exit_marker {
            srcs.push(s);
        }
        srcs
    }

    /// The first lines of the errors of these kinds, in the order the errors were first seen.
    pub(crate) fn errors_of(&self, kinds: &[&str]) -> Vec<Src> {
        self.errors
            .iter()
            .filter(|(k, _)| kinds.contains(&k.kind.as_str()))
            .flat_map(|(_, a)| a.srcs.first.iter().copied())
            .collect()
    }

    pub(crate) fn has_error(&self, kinds: &[&str]) -> bool {
        self.errors.keys().any(|k| kinds.contains(&k.kind.as_str()))
    }

    /// The return code of the first failed driver step, and its line.
    fn first_rc(&self) -> Option<(i64, Src)> {
        self.errors
            .iter()
            .filter(|(k, _)| k.kind == "driver_rc" || k.kind == "cli")
            .find_map(|(_, a)| a.rc.zip(a.srcs.first.first().copied()))
    }

    /// The file of the runner's record, as a locator with its hash.
    pub(crate) fn meta_file(&self) -> Option<Locator> {
        let (_, file, _) = self.meta.as_ref()?;
        let f = self.files.get(*file as usize)?;
        Some(Locator::file(f.path.clone()).with_sha256(f.sha256.clone()))
    }

    /// `incomplete` (`limited`): the runner's record says the run did not finish.
    fn incomplete(&self, d: &Decided<'_>) -> Option<Outcome> {
        if d.complete {
            return None;
        }
        let meta = self.meta.as_ref().map(|m| &m.0);
        let status = meta.map(|m| m.status).unwrap_or_default();
        let by = meta
            .and_then(|m| m.interrupted_by.as_deref())
            .map(|s| format!(" by {s}"))
            .unwrap_or_default();
        let reason =
            format!("the run did not finish (status {status}{by}); what was captured is reported");
        let mut o = self.outcome_of(
            OutcomeKind::Incomplete,
            None,
            reason,
            Class::Limited,
            vec![],
        );
        if let Some(l) = self.meta_file() {
            o.evidence = o.evidence.at(l);
        }
        Some(o)
    }

    /// `cli_error`: the driver refused its command line.
    fn cli_error(&self, _: &Decided<'_>) -> Option<Outcome> {
        self.has_error(&["cli"]).then(|| {
            self.outcome_of(
                OutcomeKind::CliError,
                None,
                "the driver refused its command line".into(),
                Class::Confirmed,
                self.with_rc(self.errors_of(&["cli"])),
            )
        })
    }

    /// `gpu_fault`: `Memory access fault by GPU`.
    fn gpu_fault(&self, _: &Decided<'_>) -> Option<Outcome> {
        self.has_error(&["gpu_memory_fault"]).then(|| {
            self.outcome_of(
                OutcomeKind::GpuFault,
                None,
                "the GPU reported a memory access fault".into(),
                Class::Confirmed,
                self.errors_of(&["gpu_memory_fault"]),
            )
        })
    }

    /// `build_failure`: a MIIR error (`miir`), else a code object that did not compile
    /// (`code_object`, with the compiler's error count).
    fn build_failure(&self, _: &Decided<'_>) -> Option<Outcome> {
        if self.has_error(&["miir"]) {
            return Some(self.outcome_of(
                OutcomeKind::BuildFailure,
                Some("miir"),
                "the MLIR (rocMLIR/MIIR) kernel build failed".into(),
                Class::Confirmed,
                self.with_rc(self.errors_of(&["miir"])),
            ));
        }
        if !self.has_error(&["code_object_build_failed"]) {
            return None;
        }
        let mut s = self.errors_of(&["compile_errors"]);
        s.extend(self.errors_of(&["code_object_build_failed"]));
        Some(self.outcome_of(
            OutcomeKind::BuildFailure,
            Some("code_object"),
            "the solver's code object did not compile for this GPU".into(),
            Class::Confirmed,
            self.with_rc(s),
        ))
    }

    /// `runtime_abort`: an assertion, an uncaught exception, or a fatal signal.
    fn runtime_abort(&self, d: &Decided<'_>) -> Option<Outcome> {
        let abort_sig = d.exit.signal.as_deref().filter(|s| abort_signal(s));
        if !self.has_error(&["assertion", "terminate"]) && abort_sig.is_none() {
            return None;
        }
        let sub = if self.has_error(&["assertion"]) {
            "assertion".to_string()
        } else if self.has_error(&["terminate"]) {
            "uncaught_exception".to_string()
        } else {
            abort_sig.unwrap_or("signal").to_ascii_lowercase()
        };
        let mut s = self.errors_of(&["assertion", "terminate", "shell_crash_report"]);
        s.extend(self.exit_marker.map(|(_, m)| m));
        let reason = format!(
            "the process aborted{}",
            abort_sig.map(|s| format!(" ({s})")).unwrap_or_default()
        );
        let mut o = self.outcome_of(
            OutcomeKind::RuntimeAbort,
            Some(&sub),
            reason,
            Class::Confirmed,
            s,
        );
        if o.evidence.sources.is_empty() {
            if let Some(e) = &d.exit.evidence {
                o.evidence.sources = e.sources.clone();
            }
        }
        Some(o)
    }

    /// A MIOpen C-API probe decides by its own lines (`capi.rs`).
    fn capi_rule(&self, _: &Decided<'_>) -> Option<Outcome> {
        self.capi_outcome()
    }

    /// `applicability_reject`: the forced solver was rejected, by the immediate mode
    /// (`immediate`) or by Find with nothing selected (`find`).
    fn applicability_reject(&self, d: &Decided<'_>) -> Option<Outcome> {
        let f = d.forced?;
        let rejected_immediate = self
            .errors
            .keys()
            .any(|k| k.kind == "not_applicable" && k.message.contains(&format!(" {} ", f.solver)));
        let rejected_find = d.selected.is_none()
            && self.candidates.values().any(|c| {
                c.solver == f.solver && c.seen.iter().any(|(fa, _, _)| *fa == Fate::NotApplicable)
            });
        if !rejected_immediate && !rejected_find {
            return None;
        }
        let (sub, s) = if rejected_immediate {
            ("immediate", self.errors_of(&["not_applicable"]))
        } else {
            ("find", self.find_rejections(f))
        };
        let class = if f.via == "single_candidate" {
            Class::Inferred
        } else {
            Class::Confirmed
        };
        let reason = format!(
            "the forced solver {} is not applicable to the problem",
            f.solver
        );
        Some(self.outcome_of(
            OutcomeKind::ApplicabilityReject,
            Some(sub),
            reason,
            class,
            self.with_rc(s),
        ))
    }

    /// Where Find found the forced solver not applicable (two lines at most), and its
    /// `No suitable algorithm` errors.
    fn find_rejections(&self, f: &Forced) -> Vec<Src> {
        let mut s: Vec<Src> = self
            .candidates
            .values()
            .filter(|c| c.solver == f.solver)
            .flat_map(|c| {
                c.seen
                    .iter()
                    .filter(|x| x.0 == Fate::NotApplicable)
                    .map(|x| x.2)
            })
            .take(2)
            .collect();
        s.extend(self.errors_of(&["no_suitable_algorithm"]));
        s
    }

    /// `library_error`: the first library error, when nothing was selected or a driver step
    /// failed.
    fn library_error(&self, d: &Decided<'_>) -> Option<Outcome> {
        if d.selected.is_some() && self.first_rc().is_none() {
            return None;
        }
        let k = self
            .errors
            .keys()
            .find(|k| LIBRARY_ERRORS.contains(&k.kind.as_str()))?;
        let why = self
            .notes
            .keys()
            .next()
            .map(|n| format!(" (the library said: {n})"))
            .unwrap_or_default();
        Some(self.outcome_of(
            OutcomeKind::LibraryError,
            Some(&k.kind),
            format!("{}: {}{why}", k.library, k.message),
            Class::Confirmed,
            self.with_rc(self.errors_of(&[k.kind.as_str()])),
        ))
    }

    /// A forced solver: `success` when the driver's summary names it (or, inferred, exit 0
    /// and a verified result), `fallback_observed`/`forced_solver_replaced` when another ran,
    /// else `undetermined`. A forced run is never `natural`.
    fn forced_result(&self, d: &Decided<'_>) -> Option<Outcome> {
        let f = d.forced?;
        if let Some(sel) = d.selected {
            let s: Vec<Src> = self
                .driver_selections
                .first()
                .map(|d| d.4)
                .into_iter()
                .collect();
            if sel.solver == f.solver || sel.solver_id.is_some() && sel.solver_id == f.id {
                let reason = format!("the forced solver {} ran", f.solver);
                return Some(self.outcome_of(
                    OutcomeKind::Success,
                    None,
                    reason,
                    Class::Confirmed,
                    s,
                ));
            }
            return Some(self.outcome_of(
                OutcomeKind::FallbackObserved,
                Some("forced_solver_replaced"),
                format!("{} was forced but {} ran", f.solver, sel.solver),
                Class::Confirmed,
                s,
            ));
        }
        if d.exit.code == Some(0) && self.verification.as_ref().is_some_and(|v| v.0) {
            let s: Vec<Src> = self.verification.iter().map(|v| v.2).collect();
            let reason = format!("the forced solver {} ran and its result verified", f.solver);
            return Some(self.outcome_of(OutcomeKind::Success, None, reason, Class::Inferred, s));
        }
        Some(self.outcome_of(
            OutcomeKind::Undetermined,
            None,
            format!(
                "{} was forced; the logs do not say whether it ran",
                f.solver
            ),
            Class::Unresolved,
            vec![],
        ))
    }

    /// A path ran: a selection, GEMM calls, Tensile kernels or rocblas-bench results.
    fn ran_something(&self, selected: Option<&Selected>) -> bool {
        selected.is_some()
            || !self.gemms.is_empty()
            || !self.tensile.is_empty()
            || !self.bench.is_empty()
    }

    /// `fallback_observed`: nothing forced, a path ran, and a candidate or backend failed
    /// before it (the immediate mode's ranking is not a failure).
    fn fallback_observed(&self, d: &Decided<'_>) -> Option<Outcome> {
        if d.forced.is_some() || !self.ran_something(d.selected) {
            return None;
        }
        let failed: Vec<Src> = self
            .fallbacks
            .iter()
            .filter(|(k, _)| k.kind != "immediate_mode_heuristic")
            .flat_map(|(_, a)| a.srcs.first.iter().copied())
            .collect();
        (!failed.is_empty()).then(|| {
            self.outcome_of(
                OutcomeKind::FallbackObserved,
                None,
                "a candidate or backend failed and a later one ran".into(),
                Class::Confirmed,
                failed,
            )
        })
    }

    /// `natural`: nothing forced, a path ran, nothing failed.
    fn natural(&self, d: &Decided<'_>) -> Option<Outcome> {
        if d.forced.is_some() || !self.ran_something(d.selected) {
            return None;
        }
        let (reason, srcs) = match d.selected {
            Some(s) => (
                format!("the library chose {}", s.solver),
                self.srcs_at(&s.evidence),
            ),
            None if !self.bench.is_empty() => self.bench_reason(),
            None => (
                "GEMMs ran; no fallback was reported".to_string(),
                self.gemms
                    .values()
                    .flat_map(|g| g.first.iter().copied())
                    .take(2)
                    .collect(),
            ),
        };
        Some(self.outcome_of(OutcomeKind::Natural, None, reason, Class::Confirmed, srcs))
    }

    /// The lines an evidence names, as lines of the case's files.
    fn srcs_at(&self, e: &Evidence) -> Vec<Src> {
        e.sources
            .iter()
            .filter_map(|l| {
                let file = self.files.iter().position(|f| f.path == l.path)?;
                Some(Src {
                    file: u32::try_from(file).ok()?,
                    line: l.line?,
                })
            })
            .collect()
    }

    /// What rocblas-bench printed: calls, shape, rate, time, error against the CPU.
    fn bench_reason(&self) -> (String, Vec<Src>) {
        let Some((cols, _)) = self.bench.first() else {
            return (String::new(), Vec::new());
        };
        let get = |k: &str| cols.iter().find(|(c, _)| c == k).map(|(_, v)| v.as_str());
        let b = crate::bench::bench_figures(cols);
        let shape = match (get("M"), get("N"), get("K")) {
            (Some(m), Some(n), Some(k)) => format!(
                " {}{} {m}x{n}x{k}",
                get("transA").unwrap_or(""),
                get("transB").unwrap_or("")
            ),
            _ => String::new(),
        };
        let mut r = format!(
            "rocblas-bench completed {} call(s) and printed results:{shape}",
            self.bench.len()
        );
        if let (Some(x), Some(u)) = (b.rate, b.rate_unit) {
            r.push_str(&format!(" at {x} {u}"));
        }
        if let Some(us) = b.us {
            r.push_str(&format!(", {us} us"));
        }
        if let Some(e) = b.norm_error {
            r.push_str(&format!(", norm error {e} against the CPU reference"));
        }
        (r, self.bench.iter().map(|b| b.1).take(2).collect())
    }
}
