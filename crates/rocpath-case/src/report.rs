//! Turning a [`Collector`] into a [`CaseReport`]: evidence for every record, the selection,
//! the forced solver, the exit, and the outcome decision.

use crate::collect::{Collector, Src, Srcs};
use crate::model::*;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_logs::tensile::KernelName;
use rocpath_miopen::registry as solvers;

const RV: Proof = Proof::RuntimeVerified;

fn signal_name(n: i64) -> Option<&'static str> {
    Some(match n {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        10 => "SIGUSR1",
        11 => "SIGSEGV",
        12 => "SIGUSR2",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => return None,
    })
}

/// Fatal signals that mean the process aborted on its own (not stopped by the user).
fn abort_signal(sig: &str) -> bool {
    matches!(
        sig,
        "SIGABRT" | "SIGSEGV" | "SIGBUS" | "SIGFPE" | "SIGILL" | "SIGKILL" | "SIGTRAP" | "SIGQUIT"
    )
}

impl Collector {
    fn srcs_ev(&self, class: Class, rule: &str, s: &Srcs) -> Evidence {
        let mut e = self.ev(class, RV, rule, &s.first);
        if s.count > s.first.len() as u64 {
            e = e.because(format!("{} lines in all", s.count));
        }
        e
    }

    fn meta_src(&self, key: &str) -> Option<Src> {
        let (_, file, lines) = self.meta.as_ref()?;
        Some(Src {
            file: *file,
            line: lines.get(key).copied().unwrap_or(1),
        })
    }

    fn errors_of(&self, kinds: &[&str]) -> Vec<Src> {
        self.error_order
            .iter()
            .filter(|k| kinds.contains(&k.kind.as_str()))
            .filter_map(|k| self.errors.get(k))
            .flat_map(|a| a.srcs.first.iter().copied())
            .collect()
    }

    fn has_error(&self, kinds: &[&str]) -> bool {
        self.error_order
            .iter()
            .any(|k| kinds.contains(&k.kind.as_str()))
    }

    fn first_rc(&self) -> Option<(i64, Src)> {
        self.error_order
            .iter()
            .filter(|k| k.kind == "driver_rc" || k.kind == "cli")
            .filter_map(|k| self.errors.get(k))
            .find_map(|a| a.rc.zip(a.srcs.first.first().copied()))
    }

    /// The selected solver's own kernels: those it launched (else prepared) outside a Find;
    /// when the log has no such run, those it built or launched while Find evaluated it. Never
    /// kernels Find ran for other solvers.
    fn kernels_of(&self, solver: &str) -> Vec<String> {
        self.ran
            .get(solver)
            .filter(|v| !v.is_empty())
            .or_else(|| self.prepared.get(solver).filter(|v| !v.is_empty()))
            .or_else(|| self.eval_kernels.get(solver))
            .cloned()
            .unwrap_or_default()
    }

    fn selection_for(&self, problem: Option<usize>) -> Option<Selected> {
        let key = problem
            .and_then(|i| self.problems.get(i))
            .map(|p| p.problem.fdb_key());
        let mk = |solver: &str, id: Option<u64>, algo: Option<String>, ev: Evidence| Selected {
            solver_id: id.or_else(|| self.solver_id(solver).map(|x| x.0)),
            solver: solver.to_string(),
            algorithm: algo.or_else(|| self.best_algo.get(solver).cloned()),
            kernels: self.kernels_of(solver),
            problem: key.clone(),
            evidence: ev,
        };
        if let Some((_, id, solver, algo, src)) =
            self.driver_selections.iter().find(|d| d.0 == problem)
        {
            let ev = self.ev(
                Class::Confirmed,
                RV,
                "case.selected.driver_summary",
                &[*src],
            );
            return Some(mk(solver, *id, algo.map(|a| a.to_string()), ev));
        }
        if let Some((_, solver, src)) = self.chosen.iter().rev().find(|c| c.0 == problem) {
            let ev = self.ev(Class::Confirmed, RV, "case.selected.find_result", &[*src]);
            return Some(mk(solver, None, None, ev));
        }
        let best = self
            .evaluated_selected
            .iter()
            .filter(|e| e.0 == problem)
            .min_by(|a, b| {
                a.2.unwrap_or(f64::MAX)
                    .partial_cmp(&b.2.unwrap_or(f64::MAX))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
        if let Some((_, solver, _, src)) = best {
            let ev = self
                .ev(
                    Class::Inferred,
                    RV,
                    "case.selected.evaluate_invokers",
                    &[*src],
                )
                .because("fastest of the solutions Find selected per algorithm");
            return Some(mk(solver, None, None, ev));
        }
        None
    }

    fn forced(&self) -> Option<Forced> {
        let resolve = |v: &str| -> (String, Option<u64>) {
            if let Ok(id) = v.parse::<u64>() {
                let name = solvers::by_id(id).map_or_else(
                    || format!("#{id}"),
                    |s| solvers::display_name(s).to_string(),
                );
                return (name, Some(id));
            }
            let id = self
                .forced_unreported
                .map(|(id, _)| id)
                .or_else(|| self.solver_id(v).map(|x| x.0));
            (v.to_string(), id)
        };
        if let Some((cmd, src)) = &self.driver_cmd {
            if let Some(v) = cmd.forced_solver() {
                let (solver, id) = resolve(v);
                let mut srcs = vec![*src];
                if let Some((_, s)) = self.forced_unreported {
                    srcs.push(s);
                }
                return Some(Forced {
                    solver,
                    id,
                    via: "driver_flag".into(),
                    evidence: self.ev(Class::Confirmed, RV, "case.forced.driver_flag", &srcs),
                });
            }
        }
        if let Some((meta, _, _)) = &self.meta {
            for var in [
                "MIOPEN_DEBUG_FIND_ONLY_SOLVER",
                "MIOPEN_DEBUG_CONV_IMMED_FALLBACK",
            ] {
                if let Some(v) = meta.env.get(var).filter(|v| !v.is_empty()) {
                    if var == "MIOPEN_DEBUG_CONV_IMMED_FALLBACK" {
                        continue;
                    }
                    let (solver, id) = resolve(v);
                    let src = self.meta_src(var).into_iter().collect::<Vec<_>>();
                    return Some(Forced {
                        solver,
                        id,
                        via: format!("env:{var}"),
                        evidence: self.ev(Class::Confirmed, RV, "case.forced.env", &src),
                    });
                }
            }
        }
        if let Some(f) = self.capi_forced() {
            return Some(f);
        }
        // A Find that enumerated exactly one solver was restricted to it (the usual cause is
        // MIOPEN_DEBUG_FIND_ONLY_SOLVER, which wrapper scripts do not always record).
        let searched: Vec<&crate::collect::CandAcc> = self
            .candidates
            .iter()
            .filter(|c| c.seen.iter().any(|(_, p, _)| *p == "search"))
            .collect();
        if searched.len() == 1 {
            let c = searched[0];
            let srcs: Vec<Src> = c.seen.iter().map(|x| x.2).collect();
            return Some(Forced {
                solver: c.solver.clone(),
                id: self.solver_id(&c.solver).map(|x| x.0),
                via: "single_candidate".into(),
                evidence: self
                    .ev(
                        Class::Inferred,
                        Proof::Hypothesis,
                        "case.forced.single_candidate",
                        &srcs,
                    )
                    .because(
                        "Find enumerated only this solver; a restriction such as \
                         MIOPEN_DEBUG_FIND_ONLY_SOLVER was in force but is not recorded",
                    ),
            });
        }
        None
    }

    fn exit(&self) -> Exit {
        if let Some((meta, _, _)) = &self.meta {
            if let Some(x) = &meta.exit {
                let src: Vec<Src> = self.meta_src("command").into_iter().collect();
                let mut e = self.ev(Class::Confirmed, RV, "case.exit.runner", &[]);
                if let Some((_, file, _)) = &self.meta {
                    if let Some(f) = self.files.get(*file as usize) {
                        e = e.at(Locator::file(f.path.clone()).with_sha256(f.sha256.clone()));
                    }
                }
                let _ = src;
                return Exit {
                    code: x.code,
                    signal: x.signal.clone(),
                    evidence: Some(e),
                };
            }
        }
        if let Some((code, src)) = self.exit_marker {
            let mut exit = Exit {
                code: Some(code),
                signal: None,
                evidence: Some(self.ev(Class::Confirmed, RV, "case.exit.marker", &[src])),
            };
            if (129..160).contains(&code) {
                if let Some(sig) = signal_name(code - 128) {
                    exit.signal = Some(sig.into());
                    exit.evidence = Some(
                        self.ev(Class::Inferred, RV, "case.exit.signal_from_status", &[src])
                            .because(format!("exit status {code} = 128 + {}", code - 128)),
                    );
                }
            }
            return exit;
        }
        if let Some((sig, src)) = self.shell_signal {
            return Exit {
                code: None,
                signal: Some(sig.into()),
                evidence: Some(self.ev(Class::Confirmed, RV, "case.exit.shell_report", &[src])),
            };
        }
        Exit {
            code: None,
            signal: None,
            evidence: Some(
                Evidence::new(Class::Unresolved, RV, "case.exit.unknown")
                    .because("no exit status was recorded"),
            ),
        }
    }

    fn outcome(
        &self,
        complete: bool,
        forced: Option<&Forced>,
        selected: Option<&Selected>,
        exit: &Exit,
    ) -> Outcome {
        let mk =
            |kind: OutcomeKind, sub: Option<&str>, reason: String, class: Class, srcs: Vec<Src>| {
                Outcome {
                    kind,
                    sub_kind: sub.map(str::to_string),
                    reason,
                    evidence: self.ev(class, RV, &format!("case.outcome.{}", kind.as_str()), &srcs),
                }
            };
        let rc_src: Vec<Src> = self.first_rc().map(|x| x.1).into_iter().collect();
        let with_rc = |mut v: Vec<Src>| {
            v.extend(rc_src.iter().copied());
            if let Some((_, s)) = self.exit_marker {
                v.push(s);
            }
            v
        };
        if !complete {
            let status = self
                .meta
                .as_ref()
                .map(|m| m.0.status.clone())
                .unwrap_or_default();
            let by = self
                .meta
                .as_ref()
                .and_then(|m| m.0.interrupted_by.clone())
                .map(|s| format!(" by {s}"))
                .unwrap_or_default();
            let mut o = mk(
                OutcomeKind::Incomplete,
                None,
                format!(
                    "the run did not finish (status {status}{by}); what was captured is reported"
                ),
                Class::Limited,
                vec![],
            );
            if let Some((_, file, _)) = &self.meta {
                if let Some(f) = self.files.get(*file as usize) {
                    o.evidence = o
                        .evidence
                        .at(Locator::file(f.path.clone()).with_sha256(f.sha256.clone()));
                }
            }
            return o;
        }
        if self.has_error(&["cli"]) {
            return mk(
                OutcomeKind::CliError,
                None,
                "the driver refused its command line".into(),
                Class::Confirmed,
                with_rc(self.errors_of(&["cli"])),
            );
        }
        if self.has_error(&["gpu_memory_fault"]) {
            return mk(
                OutcomeKind::GpuFault,
                None,
                "the GPU reported a memory access fault".into(),
                Class::Confirmed,
                self.errors_of(&["gpu_memory_fault"]),
            );
        }
        if self.has_error(&["miir"]) {
            return mk(
                OutcomeKind::BuildFailure,
                Some("miir"),
                "the MLIR (rocMLIR/MIIR) kernel build failed".into(),
                Class::Confirmed,
                with_rc(self.errors_of(&["miir"])),
            );
        }
        if self.has_error(&["code_object_build_failed"]) {
            let mut s = self.errors_of(&["compile_errors"]);
            s.extend(self.errors_of(&["code_object_build_failed"]));
            return mk(
                OutcomeKind::BuildFailure,
                Some("code_object"),
                "the solver's code object did not compile for this GPU".into(),
                Class::Confirmed,
                with_rc(s),
            );
        }
        let abort_sig = exit.signal.as_deref().filter(|s| abort_signal(s));
        if self.has_error(&["assertion", "terminate"]) || abort_sig.is_some() {
            let sub = if self.has_error(&["assertion"]) {
                "assertion".to_string()
            } else if self.has_error(&["terminate"]) {
                "uncaught_exception".to_string()
            } else {
                abort_sig.unwrap_or("signal").to_ascii_lowercase()
            };
            let mut s = self.errors_of(&["assertion", "terminate", "shell_crash_report"]);
            if let Some((_, m)) = self.exit_marker {
                s.push(m);
            }
            let mut o = mk(
                OutcomeKind::RuntimeAbort,
                Some(&sub),
                format!(
                    "the process aborted{}",
                    abort_sig.map(|s| format!(" ({s})")).unwrap_or_default()
                ),
                Class::Confirmed,
                s,
            );
            if o.evidence.sources.is_empty() {
                if let Some(e) = &exit.evidence {
                    o.evidence.sources = e.sources.clone();
                }
            }
            return o;
        }
        if let Some(o) = self.capi_outcome() {
            return o;
        }
        if let Some(f) = forced {
            let rejected_immediate = self.error_order.iter().any(|k| {
                k.kind == "not_applicable" && k.message.contains(&format!(" {} ", f.solver))
            });
            let rejected_find = self.candidates.iter().any(|c| {
                c.solver == f.solver && c.seen.iter().any(|(fa, _, _)| *fa == Fate::NotApplicable)
            }) && selected.is_none();
            if rejected_immediate || rejected_find {
                let (sub, mut s) = if rejected_immediate {
                    ("immediate", self.errors_of(&["not_applicable"]))
                } else {
                    let mut s: Vec<Src> = self
                        .candidates
                        .iter()
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
                    ("find", s)
                };
                s = with_rc(s);
                let class = if f.via == "single_candidate" {
                    Class::Inferred
                } else {
                    Class::Confirmed
                };
                return mk(
                    OutcomeKind::ApplicabilityReject,
                    Some(sub),
                    format!(
                        "the forced solver {} is not applicable to the problem",
                        f.solver
                    ),
                    class,
                    s,
                );
            }
        }
        const LIB: &[&str] = &[
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
        if selected.is_none() || self.first_rc().is_some() {
            if let Some(k) = self
                .error_order
                .iter()
                .find(|k| LIB.contains(&k.kind.as_str()))
            {
                let kind = k.kind.clone();
                let why = self
                    .notes
                    .first()
                    .map(|n| format!(" (the library said: {})", n.0))
                    .unwrap_or_default();
                return mk(
                    OutcomeKind::LibraryError,
                    Some(&kind),
                    format!("{}: {}{why}", k.library, k.message),
                    Class::Confirmed,
                    with_rc(self.errors_of(&[kind.as_str()])),
                );
            }
        }
        let failed_fallbacks: Vec<Src> = self
            .fallback_order
            .iter()
            .filter(|k| k.kind != "immediate_mode_heuristic")
            .filter_map(|k| self.fallbacks.get(k))
            .flat_map(|a| a.srcs.first.iter().copied())
            .collect();
        let ran_something = selected.is_some()
            || !self.gemms.is_empty()
            || !self.tensile.is_empty()
            || !self.bench.is_empty();
        if let Some(f) = forced {
            if let Some(sel) = selected {
                let mut s: Vec<Src> = Vec::new();
                if let Some((_, x)) = self.driver_selections.first().map(|d| (d.0, d.4)) {
                    s.push(x);
                }
                if sel.solver == f.solver || sel.solver_id.is_some() && sel.solver_id == f.id {
                    return mk(
                        OutcomeKind::Success,
                        None,
                        format!("the forced solver {} ran", f.solver),
                        Class::Confirmed,
                        s,
                    );
                }
                return mk(
                    OutcomeKind::FallbackObserved,
                    Some("forced_solver_replaced"),
                    format!("{} was forced but {} ran", f.solver, sel.solver),
                    Class::Confirmed,
                    s,
                );
            }
            if exit.code == Some(0) && self.verification.as_ref().is_some_and(|v| v.0) {
                let s: Vec<Src> = self.verification.iter().map(|v| v.2).collect();
                return mk(
                    OutcomeKind::Success,
                    None,
                    format!("the forced solver {} ran and its result verified", f.solver),
                    Class::Inferred,
                    s,
                );
            }
            return mk(
                OutcomeKind::Undetermined,
                None,
                format!(
                    "{} was forced; the logs do not say whether it ran",
                    f.solver
                ),
                Class::Unresolved,
                vec![],
            );
        }
        if ran_something {
            if !failed_fallbacks.is_empty() {
                return mk(
                    OutcomeKind::FallbackObserved,
                    None,
                    "a candidate or backend failed and a later one ran".into(),
                    Class::Confirmed,
                    failed_fallbacks,
                );
            }
            let (reason, srcs) = match selected {
                Some(s) => (
                    format!("the library chose {}", s.solver),
                    s.evidence
                        .sources
                        .iter()
                        .filter_map(|l| {
                            let file = self.files.iter().position(|f| f.path == l.path)?;
                            Some(Src {
                                file: u32::try_from(file).ok()?,
                                line: l.line?,
                            })
                        })
                        .collect(),
                ),
                None if !self.bench.is_empty() => {
                    let (cols, _) = &self.bench[0];
                    let get = |k: &str| cols.iter().find(|(c, _)| c == k).map(|(_, v)| v.as_str());
                    let b = bench_figures(cols);
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
                None => (
                    "GEMMs ran; no fallback was reported".to_string(),
                    self.gemms
                        .iter()
                        .flat_map(|g| g.1.first.iter().copied())
                        .take(2)
                        .collect(),
                ),
            };
            return mk(OutcomeKind::Natural, None, reason, Class::Confirmed, srcs);
        }
        mk(
            OutcomeKind::Undetermined,
            None,
            "no selection, GEMM call or failure was logged".into(),
            Class::Unresolved,
            vec![],
        )
    }

    /// Builds the report. `name` and `path` name the case.
    pub fn finish(mut self, name: &str, path: &str) -> CaseReport {
        // Settle what is still pending (the last file may not have been ended).
        self.end_pending();
        let complete = self.meta.as_ref().is_none_or(|m| m.0.complete());
        let files = self
            .files
            .iter()
            .map(|f| FileRecord {
                path: f.path.clone(),
                bytes: f.bytes,
                lines: f.lines,
                truncated_lines: f.truncated,
                sha256: f.sha256.clone(),
            })
            .collect();
        let device = self.device.as_ref().map(|(arch, name, src, rule)| Device {
            arch: arch.clone(),
            name: name.clone(),
            evidence: self.ev(Class::Confirmed, RV, rule, &[*src]),
        });
        let libraries = self
            .facts
            .iter()
            .map(|(w, v, s)| Fact {
                what: w.clone(),
                value: v.clone(),
                evidence: self.ev(Class::Confirmed, RV, &format!("case.fact.{w}"), &[*s]),
            })
            .collect();
        let problems: Vec<Problem> = (0..self.problems.len())
            .map(|i| {
                let p = &self.problems[i];
                Problem {
                    key: p.problem.fdb_key(),
                    problem: p.problem.clone(),
                    seen_as: p.seen_as.iter().map(|s| s.to_string()).collect(),
                    selected: self.selection_for(Some(i)),
                    evidence: self.srcs_ev(Class::Confirmed, "case.problem", &p.srcs),
                }
            })
            .collect();
        let forced = self.forced();
        let selected = problems
            .iter()
            .find_map(|p| p.selected.clone())
            .or_else(|| self.selection_for(None))
            .or_else(|| self.capi_selected());
        let mut candidates: Vec<Candidate> = self
            .candidates
            .iter()
            .map(|c| {
                let mut seen: Vec<FateSeen> = c
                    .seen
                    .iter()
                    .map(|(f, p, s)| FateSeen {
                        fate: *f,
                        phase: p.to_string(),
                        line: s.line,
                        file: self
                            .files
                            .get(s.file as usize)
                            .map(|f| f.path.clone())
                            .unwrap_or_default(),
                    })
                    .collect();
                let is_selected = selected.as_ref().is_some_and(|s| {
                    s.solver == c.solver
                        && (s.problem.is_none()
                            || c.problem.is_none()
                            || s.problem.as_deref()
                                == c.problem
                                    .map(|i| self.problems[i].problem.fdb_key())
                                    .as_deref())
                });
                let is_forced = forced.as_ref().is_some_and(|f| f.solver == c.solver);
                if is_forced {
                    seen.push(FateSeen {
                        fate: Fate::Forced,
                        phase: "forced".into(),
                        line: 0,
                        file: String::new(),
                    });
                }
                if is_selected {
                    seen.push(FateSeen {
                        fate: Fate::Selected,
                        phase: "selected".into(),
                        line: 0,
                        file: String::new(),
                    });
                }
                let fate = seen
                    .iter()
                    .map(|s| s.fate)
                    .min()
                    .unwrap_or(Fate::ImmediateCandidate);
                let id = c.id.or_else(|| self.solver_id(&c.solver));
                Candidate {
                    solver: c.solver.clone(),
                    id: id.map(|x| x.0),
                    id_source: id.map(|x| if x.1 { "log" } else { "registry" }.to_string()),
                    problem: c.problem.map(|i| self.problems[i].problem.fdb_key()),
                    fate,
                    seen,
                    searchable: c.searchable,
                    time_ms: c.time_ms,
                    wti: c.wti,
                    kernels: self
                        .eval_kernels
                        .get(&c.solver)
                        .cloned()
                        .unwrap_or_default(),
                    evidence: self.srcs_ev(
                        Class::Confirmed,
                        &format!("case.candidate.{}", serde_plain(fate)),
                        &c.srcs,
                    ),
                }
            })
            .collect();
        // The forced solver is a candidate even when the library never enumerated it.
        if let Some(f) = &forced {
            if !candidates.iter().any(|c| c.solver == f.solver) {
                candidates.push(Candidate {
                    solver: f.solver.clone(),
                    id: f.id,
                    id_source: f.id.map(|_| "log".to_string()),
                    problem: problems.first().map(|p| p.key.clone()),
                    fate: Fate::Forced,
                    seen: vec![FateSeen {
                        fate: Fate::Forced,
                        phase: "forced".into(),
                        line: f.evidence.sources.first().and_then(|l| l.line).unwrap_or(0),
                        file: f
                            .evidence
                            .sources
                            .first()
                            .map(|l| l.path.clone())
                            .unwrap_or_default(),
                    }],
                    searchable: None,
                    time_ms: None,
                    wti: None,
                    kernels: Vec::new(),
                    evidence: f.evidence.clone(),
                });
            }
        }
        let db_lookups = self
            .lookups
            .iter()
            .map(|l| {
                let (class, rule) = match (l.found, l.found_explicit) {
                    (Some(true), _) => (Class::Confirmed, "case.db.hit"),
                    (Some(false), true) => (Class::Confirmed, "case.db.miss_reported"),
                    (Some(false), false) => (Class::Inferred, "case.db.miss_inferred"),
                    (None, _) => (Class::Unresolved, "case.db.lookup"),
                };
                let mut ev = self.srcs_ev(class, rule, &l.srcs);
                if rule == "case.db.miss_inferred" {
                    ev = ev.because("no `Key match` line followed the lookup");
                }
                DbLookup {
                    db: l.db.to_string(),
                    file: l.file.clone(),
                    key: l.key.clone(),
                    found: l.found,
                    record: l.record.clone(),
                    count: l.srcs.count,
                    evidence: ev,
                }
            })
            .collect();
        let code_objects = self
            .code_objects
            .iter()
            .map(|(f, a, loaded, s)| CodeObjectLoad {
                file: f.clone(),
                args: a.clone(),
                loaded: *loaded,
                evidence: self.srcs_ev(Class::Confirmed, "case.code_object", s),
            })
            .collect();
        let timings = self
            .timings
            .iter()
            .map(|(w, ms, s)| Timing {
                what: w.clone(),
                ms: *ms,
                evidence: self.ev(Class::Confirmed, RV, "case.timing", &[*s]),
            })
            .collect();
        let verification = self.verification.as_ref().map(|(ok, d, s)| Verification {
            ok: *ok,
            detail: d.clone(),
            evidence: self.ev(Class::Confirmed, RV, "case.verification", &[*s]),
        });
        let exit = self.exit();
        let outcome = self.outcome(complete, forced.as_ref(), selected.as_ref(), &exit);
        let bench_results: Vec<BenchResult> = self
            .bench
            .iter()
            .map(|(cols, src)| {
                let b = bench_figures(cols);
                BenchResult {
                    columns: cols.clone(),
                    rate: b.rate,
                    rate_unit: b.rate_unit.map(str::to_string),
                    us: b.us,
                    norm_error: b.norm_error,
                    evidence: self.ev(Class::Confirmed, RV, "case.bench_result", &[*src]),
                }
            })
            .collect();
        let gemm_calls = self
            .gemms
            .iter()
            .map(|(k, s)| {
                let rule = gemm_rule(k.source, k.backend.is_some());
                GemmCallRecord {
                    api: k.api.clone(),
                    backend: k.backend.clone(),
                    trans_a: k.trans_a.clone(),
                    trans_b: k.trans_b.clone(),
                    m: k.m,
                    n: k.n,
                    k: k.k,
                    batch_count: k.batch_count,
                    types: k.types.clone(),
                    count: s.count,
                    source: k.source.to_string(),
                    evidence: self.srcs_ev(Class::Confirmed, rule, s),
                }
            })
            .collect();
        let api_calls = self
            .apis
            .iter()
            .map(|((lib, api), s)| ApiCount {
                library: lib.to_string(),
                api: api.clone(),
                count: s.count,
                evidence: self.srcs_ev(Class::Confirmed, "case.api_call", s),
            })
            .collect();
        let arch_info = self
            .device
            .as_ref()
            .and_then(|d| rocpath_arch::target(d.0.split(':').next().unwrap_or("")));
        let tensile_kernels = self
            .tensile
            .iter()
            .map(|(n, s)| {
                let decoded = KernelName::decode(n);
                let kind = match (&decoded, arch_info) {
                    (Some(d), _) if d.matrix_instruction.is_none() => "valu",
                    (Some(_), Some(t)) if t.mfma.is_some() => "mfma",
                    (Some(_), Some(t)) if t.wmma.is_some() => "wmma",
                    (Some(_), _) => "matrix_instruction",
                    (None, _) => "unknown",
                };
                let ev = self
                    .srcs_ev(Class::Confirmed, "case.tensile.kernel", s)
                    .because(if decoded.is_some() {
                        "name decoded with the Tensile kernel-name grammar"
                    } else {
                        "name does not follow the Tensile grammar"
                    });
                TensileKernel {
                    name: n.clone(),
                    decoded,
                    instruction_kind: kind.into(),
                    count: s.count,
                    evidence: ev,
                }
            })
            .collect();
        let fallbacks = self
            .fallback_order
            .iter()
            .filter_map(|k| {
                let a = self.fallbacks.get(k)?;
                Some(Fallback {
                    library: k.library.into(),
                    kind: k.kind.clone(),
                    message: k.message.clone(),
                    count: a.srcs.count,
                    evidence: self.srcs_ev(
                        Class::Confirmed,
                        &format!("case.fallback.{}", k.kind),
                        &a.srcs,
                    ),
                })
            })
            .collect();
        let errors = self
            .error_order
            .iter()
            .filter_map(|k| {
                let a = self.errors.get(k)?;
                let mut message = k.message.clone();
                if k.kind == "tensile_library_missing" && !self.available_libraries.is_empty() {
                    message.push_str(&format!(
                        "; available: {}",
                        self.available_libraries.join(", ")
                    ));
                }
                Some(ErrorRecord {
                    library: k.library.into(),
                    kind: k.kind.clone(),
                    message,
                    at: a.at.clone(),
                    rc: a.rc,
                    count: a.srcs.count,
                    evidence: self.srcs_ev(
                        Class::Confirmed,
                        &format!("case.error.{}", k.kind),
                        &a.srcs,
                    ),
                })
            })
            .collect();
        let mut notes: Vec<Note> = self
            .notes
            .iter()
            .map(|(m, s)| Note {
                library: "miopen".into(),
                message: m.clone(),
                count: s.count,
                evidence: self.srcs_ev(Class::Confirmed, "case.note", s),
            })
            .collect();
        for (k, src) in &self.find_unclaimed {
            notes.push(Note {
                library: "miopen".into(),
                message: format!("kernel {k} ran during Find; no evaluation line names its solver"),
                count: 1,
                evidence: self.ev(
                    Class::Unresolved,
                    RV,
                    "case.note.find_kernel_unclaimed",
                    &[*src],
                ),
            });
        }
        CaseReport {
            notes,
            name: name.to_string(),
            path: path.to_string(),
            complete,
            files,
            meta: self.meta.as_ref().map(|m| m.0.clone()),
            device,
            libraries,
            problems,
            candidates,
            forced,
            selected,
            db_lookups,
            code_objects,
            timings,
            verification,
            outcome,
            exit,
            gemm_calls,
            bench_results,
            api_calls,
            tensile_kernels,
            fallbacks,
            errors,
            capi_blocks: self.capi_blocks(),
            dropped: self.dropped.clone(),
        }
    }
}

/// The rule of a GEMM call, by the kind of line it came from.
fn gemm_rule(source: &str, with_backend: bool) -> &'static str {
    match source {
        "trace" if with_backend => "case.gemm.trace_with_backend",
        "trace" => "case.gemm.trace",
        "bench" => "case.gemm.bench",
        "profile" => "case.gemm.profile",
        "internal" => "case.gemm.internal",
        "hipblaslt_bench" => "case.gemm.hipblaslt_bench",
        "bench_result" => "case.gemm.rocblas_bench_result",
        _ => "case.gemm.call",
    }
}

struct BenchFigures {
    rate: Option<f64>,
    rate_unit: Option<&'static str>,
    us: Option<f64>,
    norm_error: Option<f64>,
}

/// The figures of a rocblas-bench row: rate (`rocblas-Gflops` or `rocblas-GB/s`), `us`,
/// and the first `norm_error*` column.
fn bench_figures(cols: &[(String, String)]) -> BenchFigures {
    let f = |k: &str| {
        cols.iter()
            .find(|(c, _)| c == k)
            .and_then(|(_, v)| v.parse::<f64>().ok())
    };
    let (rate, rate_unit) = match (f("rocblas-Gflops"), f("rocblas-GB/s")) {
        (Some(g), _) => (Some(g), Some("rocblas-Gflops")),
        (None, Some(b)) => (Some(b), Some("rocblas-GB/s")),
        _ => (None, None),
    };
    BenchFigures {
        rate,
        rate_unit,
        us: f("us"),
        norm_error: cols
            .iter()
            .find(|(c, _)| c.starts_with("norm_error"))
            .and_then(|(_, v)| v.parse::<f64>().ok()),
    }
}

fn serde_plain(f: Fate) -> String {
    serde_json::to_value(f)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
