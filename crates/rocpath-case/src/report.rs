//! Turning a [`Collector`] into a [`CaseReport`]: evidence for every record, the selection,
//! the forced solver and the exit; the outcome is decided in `outcome.rs`.

use crate::collect::{CandAcc, Collector, Src, Srcs};
use crate::model::*;
use crate::outcome::Decided;
use rocpath_evidence::{Class, Evidence, Proof};
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
            .and_then(|i| self.problems.at(i))
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

    /// The forced solver: by the driver's flag, by an environment variable, by a C-API probe's
    /// own call, or inferred from a Find that enumerated only one solver.
    fn forced(&self) -> Option<Forced> {
        self.forced_by_flag()
            .or_else(|| self.forced_by_env())
            .or_else(|| self.capi_forced())
            .or_else(|| self.single_candidate())
    }

    /// A forced solver's name and id, from a value that is an id or a name.
    fn resolve_solver(&self, v: &str) -> (String, Option<u64>) {
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
    }

    /// `case.forced.driver_flag`: MIOpenDriver's `-S`.
    fn forced_by_flag(&self) -> Option<Forced> {
        let (cmd, src) = self.driver_cmd.as_ref()?;
        let (solver, id) = self.resolve_solver(cmd.forced_solver()?);
        let mut srcs = vec![*src];
        srcs.extend(self.forced_unreported.map(|(_, s)| s));
        Some(Forced {
            solver,
            id,
            via: "driver_flag".into(),
            evidence: self.ev(Class::Confirmed, RV, "case.forced.driver_flag", &srcs),
        })
    }

    /// `case.forced.env`: `MIOPEN_DEBUG_FIND_ONLY_SOLVER` in the runner's record.
    fn forced_by_env(&self) -> Option<Forced> {
        let (meta, _, _) = self.meta.as_ref()?;
        let var = "MIOPEN_DEBUG_FIND_ONLY_SOLVER";
        let v = meta.env.get(var).filter(|v| !v.is_empty())?;
        let (solver, id) = self.resolve_solver(v);
        let src = self.meta_src(var).into_iter().collect::<Vec<_>>();
        Some(Forced {
            solver,
            id,
            via: format!("env:{var}"),
            evidence: self.ev(Class::Confirmed, RV, "case.forced.env", &src),
        })
    }

    /// `case.forced.single_candidate` (inferred): a Find that enumerated exactly one solver was
    /// restricted to it (the usual cause is MIOPEN_DEBUG_FIND_ONLY_SOLVER, which wrapper
    /// scripts do not always record).
    fn single_candidate(&self) -> Option<Forced> {
        let searched: Vec<&CandAcc> = self
            .candidates
            .values()
            .filter(|c| c.seen.iter().any(|(_, p, _)| *p == SeenIn::Search))
            .collect();
        let [c] = searched[..] else {
            return None;
        };
        let srcs: Vec<Src> = c.seen.iter().map(|x| x.2).collect();
        let evidence = self
            .ev(
                Class::Inferred,
                Proof::Hypothesis,
                "case.forced.single_candidate",
                &srcs,
            )
            .because(
                "Find enumerated only this solver; a restriction such as \
                 MIOPEN_DEBUG_FIND_ONLY_SOLVER was in force but is not recorded",
            );
        Some(Forced {
            solver: c.solver.clone(),
            id: self.solver_id(&c.solver).map(|x| x.0),
            via: "single_candidate".into(),
            evidence,
        })
    }

    /// How the program ended: the runner's record, an exit marker (a status above 128 is a
    /// signal), a shell's crash report, or unknown.
    fn exit(&self) -> Exit {
        if let Some(x) = self.meta.as_ref().and_then(|m| m.0.exit.as_ref()) {
            let mut e = self.ev(Class::Confirmed, RV, "case.exit.runner", &[]);
            if let Some(l) = self.meta_file() {
                e = e.at(l);
            }
            return Exit {
                code: x.code,
                signal: x.signal.clone(),
                evidence: Some(e),
            };
        }
        if let Some((code, src)) = self.exit_marker {
            return self.exit_by_marker(code, src);
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

    fn exit_by_marker(&self, code: i64, src: Src) -> Exit {
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
        exit
    }

    /// Builds the report. `name` and `path` name the case.
    pub fn finish(mut self, name: &str, path: &str) -> CaseReport {
        // Settle what is still pending (the last file may not have been ended).
        self.end_pending();
        let complete = self.meta.as_ref().is_none_or(|m| m.0.complete());
        let problems = self.problem_records();
        let forced = self.forced();
        let selected = problems
            .iter()
            .find_map(|p| p.selected.clone())
            .or_else(|| self.selection_for(None))
            .or_else(|| self.capi_selected());
        let candidates = self.candidate_records(&problems, forced.as_ref(), selected.as_ref());
        let exit = self.exit();
        let outcome = self.outcome(&Decided {
            complete,
            forced: forced.as_ref(),
            selected: selected.as_ref(),
            exit: &exit,
        });
        CaseReport {
            notes: self.note_records(),
            name: name.to_string(),
            path: path.to_string(),
            complete,
            files: self.file_records(),
            meta: self.meta.as_ref().map(|m| m.0.clone()),
            device: self.device_record(),
            libraries: self.fact_records(),
            problems,
            candidates,
            forced,
            selected,
            db_lookups: self.lookup_records(),
            code_objects: self.code_object_records(),
            timings: self.timing_records(),
            verification: self.verification_record(),
            outcome,
            exit,
            gemm_calls: self.gemm_records(),
            bench_results: self.bench_records(),
            api_calls: self.api_records(),
            tensile_kernels: self.tensile_records(),
            fallbacks: self.fallback_records(),
            errors: self.error_records(),
            capi_blocks: self.capi_blocks(),
            dropped: self.dropped_counts(),
        }
    }

    fn file_records(&self) -> Vec<FileRecord> {
        self.files
            .iter()
            .map(|f| FileRecord {
                path: f.path.clone(),
                bytes: f.bytes,
                lines: f.lines,
                truncated_lines: f.truncated,
                sha256: f.sha256.clone(),
            })
            .collect()
    }

    fn device_record(&self) -> Option<Device> {
        self.device.as_ref().map(|(arch, name, src, rule)| Device {
            arch: arch.clone(),
            name: name.clone(),
            evidence: self.ev(Class::Confirmed, RV, rule, &[*src]),
        })
    }

    fn fact_records(&self) -> Vec<Fact> {
        self.facts
            .iter()
            .map(|((w, v), s)| Fact {
                what: w.clone(),
                value: v.clone(),
                evidence: self.ev(Class::Confirmed, RV, &format!("case.fact.{w}"), &[*s]),
            })
            .collect()
    }

    fn problem_records(&self) -> Vec<Problem> {
        self.problems
            .values()
            .enumerate()
            .map(|(i, p)| Problem {
                key: p.problem.fdb_key(),
                problem: p.problem.clone(),
                seen_as: p.seen_as.iter().map(|s| s.to_string()).collect(),
                selected: self.selection_for(Some(i)),
                evidence: self.srcs_ev(Class::Confirmed, "case.problem", &p.srcs),
            })
            .collect()
    }

    /// The candidates, each with its fates (forced and selected among them); the forced solver
    /// is a candidate even when the library never enumerated it.
    fn candidate_records(
        &self,
        problems: &[Problem],
        forced: Option<&Forced>,
        selected: Option<&Selected>,
    ) -> Vec<Candidate> {
        let mut candidates: Vec<Candidate> = self
            .candidates
            .values()
            .map(|c| self.candidate_record(c, forced, selected))
            .collect();
        if let Some(f) = forced {
            if !candidates.iter().any(|c| c.solver == f.solver) {
                candidates.push(forced_candidate(f, problems));
            }
        }
        candidates
    }

    fn problem_key(&self, i: usize) -> Option<String> {
        self.problems.at(i).map(|p| p.problem.fdb_key())
    }

    fn candidate_record(
        &self,
        c: &CandAcc,
        forced: Option<&Forced>,
        selected: Option<&Selected>,
    ) -> Candidate {
        let mut seen: Vec<FateSeen> = c
            .seen
            .iter()
            .map(|(f, p, s)| FateSeen {
                fate: *f,
                phase: *p,
                line: s.line,
                file: self
                    .files
                    .get(s.file as usize)
                    .map(|f| f.path.clone())
                    .unwrap_or_default(),
            })
            .collect();
        let is_selected = selected.is_some_and(|s| {
            s.solver == c.solver
                && (s.problem.is_none()
                    || c.problem.is_none()
                    || s.problem == c.problem.and_then(|i| self.problem_key(i)))
        });
        if forced.is_some_and(|f| f.solver == c.solver) {
            seen.push(marker(Fate::Forced, SeenIn::Forced));
        }
        if is_selected {
            seen.push(marker(Fate::Selected, SeenIn::Selected));
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
            problem: c.problem.and_then(|i| self.problem_key(i)),
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
    }

    fn lookup_records(&self) -> Vec<DbLookup> {
        self.lookups
            .values()
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
            .collect()
    }

    fn code_object_records(&self) -> Vec<CodeObjectLoad> {
        self.code_objects
            .iter()
            .map(|((f, a), (loaded, s))| CodeObjectLoad {
                file: f.clone(),
                args: a.clone(),
                loaded: *loaded,
                evidence: self.srcs_ev(Class::Confirmed, "case.code_object", s),
            })
            .collect()
    }

    fn timing_records(&self) -> Vec<Timing> {
        self.timings
            .iter()
            .map(|(w, ms, s)| Timing {
                what: w.clone(),
                ms: *ms,
                evidence: self.ev(Class::Confirmed, RV, "case.timing", &[*s]),
            })
            .collect()
    }

    fn verification_record(&self) -> Option<Verification> {
        self.verification.as_ref().map(|(ok, d, s)| Verification {
            ok: *ok,
            detail: d.clone(),
            evidence: self.ev(Class::Confirmed, RV, "case.verification", &[*s]),
        })
    }

    fn bench_records(&self) -> Vec<BenchResult> {
        self.bench
            .iter()
            .map(|(cols, src)| {
                let b = crate::bench::bench_figures(cols);
                BenchResult {
                    columns: cols.clone(),
                    rate: b.rate,
                    rate_unit: b.rate_unit.map(str::to_string),
                    us: b.us,
                    norm_error: b.norm_error,
                    evidence: self.ev(Class::Confirmed, RV, "case.bench_result", &[*src]),
                }
            })
            .collect()
    }

    fn gemm_records(&self) -> Vec<GemmCallRecord> {
        self.gemms
            .iter()
            .map(|(k, s)| GemmCallRecord {
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
                evidence: self.srcs_ev(
                    Class::Confirmed,
                    gemm_rule(k.source, k.backend.is_some()),
                    s,
                ),
            })
            .collect()
    }

    /// API calls by library and name, in that order.
    fn api_records(&self) -> Vec<ApiCount> {
        let mut apis: Vec<_> = self.apis.iter().collect();
        apis.sort_by(|a, b| a.0.cmp(b.0));
        apis.into_iter()
            .map(|((lib, api), s)| ApiCount {
                library: lib.to_string(),
                api: api.clone(),
                count: s.count,
                evidence: self.srcs_ev(Class::Confirmed, "case.api_call", s),
            })
            .collect()
    }

    /// Tensile kernels, their names decoded, and the kind of instruction they compute with on
    /// the case's GPU.
    fn tensile_records(&self) -> Vec<TensileKernel> {
        let arch_info = self
            .device
            .as_ref()
            .and_then(|d| rocpath_arch::target(&d.0.processor));
        self.tensile
            .iter()
            .map(|(n, s)| {
                let decoded = rocpath_logs::tensile::decode(n);
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
            .collect()
    }

    fn fallback_records(&self) -> Vec<Fallback> {
        self.fallbacks
            .iter()
            .map(|(k, a)| Fallback {
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
            .collect()
    }

    fn error_records(&self) -> Vec<ErrorRecord> {
        self.errors
            .iter()
            .map(|(k, a)| {
                let mut message = k.message.clone();
                if k.kind == "tensile_library_missing" && !self.available_libraries.is_empty() {
                    message.push_str(&format!(
                        "; available: {}",
                        self.available_libraries.join(", ")
                    ));
                }
                ErrorRecord {
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
                }
            })
            .collect()
    }

    /// The library's notes, and the kernels a Find ran that no evaluation line claimed.
    fn note_records(&self) -> Vec<Note> {
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
        notes
    }
}

/// A fate given by the report (forced, selected), not seen on a line.
fn marker(fate: Fate, phase: SeenIn) -> FateSeen {
    FateSeen {
        fate,
        phase,
        line: 0,
        file: String::new(),
    }
}

/// The forced solver as a candidate, when the library never enumerated it.
fn forced_candidate(f: &Forced, problems: &[Problem]) -> Candidate {
    let first = f.evidence.sources.first();
    Candidate {
        solver: f.solver.clone(),
        id: f.id,
        id_source: f.id.map(|_| "log".to_string()),
        problem: problems.first().map(|p| p.key.clone()),
        fate: Fate::Forced,
        seen: vec![FateSeen {
            fate: Fate::Forced,
            phase: SeenIn::Forced,
            line: first.and_then(|l| l.line).unwrap_or(0),
            file: first.map(|l| l.path.clone()).unwrap_or_default(),
        }],
        searchable: None,
        time_ms: None,
        wti: None,
        kernels: Vec::new(),
        evidence: f.evidence.clone(),
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

fn serde_plain(f: Fate) -> String {
    serde_json::to_value(f)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
