//! Programs that call MIOpen's C API directly (the research's `hipcc … -lMIOpen` probes):
//! their lines (`rocpath_logs::capi`) are kept per block (`[y=int8]`, `[y=int32]`, or one
//! implicit block), each call and check with its line, and decide the case only from what they
//! say: a solution compiled and run through `miopenConvolutionForwardImmediate` is a solver the
//! program chose (`forced`, `capi_immediate`) and ran; a probe that only queried solutions ran
//! nothing, so its outcome is `undetermined` with every block's result in the reason — a
//! failing block and a succeeding one are never folded into one failure.

use super::{Collector, Src};
use crate::model::{CapiBlock, CapiSolution, CapiStep, Forced, Outcome, OutcomeKind, Selected};
use rocpath_evidence::{Class, Proof};
use rocpath_logs::capi::Event;
use rocpath_miopen::registry as solvers;

/// Blocks kept per case, and solutions and steps per block.
const MAX_BLOCKS: usize = 64;
const MAX_ITEMS: usize = 256;

/// One block being read.
#[derive(Debug)]
pub(crate) struct BlockAcc {
    label: Option<String>,
    src: Src,
    solution_count: Option<u64>,
    returned: Option<u64>,
    solutions: Vec<SolAcc>,
    steps: Vec<StepAcc>,
}

/// A listed solution: rank, id, algorithm, workspace bytes, time, line.
#[derive(Debug)]
struct SolAcc {
    rank: u64,
    id: u64,
    algo: Option<u64>,
    workspace: Option<u64>,
    time_ms: Option<f64>,
    src: Src,
}

/// A call or check: what, for which solution, whether it succeeded, what was printed, line.
#[derive(Debug)]
struct StepAcc {
    call: String,
    id: Option<u64>,
    ok: bool,
    value: String,
    src: Src,
}

fn solver_name(id: u64) -> Option<String> {
    solvers::by_id(id).map(|s| solvers::display_name(s).to_string())
}

impl Collector {
    fn block(&mut self, src: Src) -> Option<&mut BlockAcc> {
        if self.capi.is_empty() {
            self.capi.push(BlockAcc {
                label: None,
                src,
                solution_count: None,
                returned: None,
                solutions: Vec::new(),
                steps: Vec::new(),
            });
        }
        self.capi.last_mut()
    }

    /// A probe line.
    pub(crate) fn capi(&mut self, e: Event<'_>, src: Src) {
        if let Event::Block(label) = e {
            if self.capi.len() < MAX_BLOCKS {
                self.capi.push(BlockAcc {
                    label: Some(label.into_owned()),
                    src,
                    solution_count: None,
                    returned: None,
                    solutions: Vec::new(),
                    steps: Vec::new(),
                });
            }
            return;
        }
        let Some(b) = self.block(src) else { return };
        match e {
            Event::Block(_) => {}
            Event::SolutionCount { status, count } => {
                b.solution_count = count.or(b.solution_count);
                if let Some(st) = status.filter(|s| !s.ok()) {
                    push_step(
                        b,
                        "get_solution_count",
                        None,
                        false,
                        st.name.to_string(),
                        src,
                    );
                }
            }
            Event::Returned { status, count } => {
                b.returned = count.or(b.returned);
                if let Some(st) = status.filter(|s| !s.ok()) {
                    push_step(b, "get_solution", None, false, st.name.to_string(), src);
                }
            }
            Event::Solution {
                index,
                id,
                algo,
                workspace,
                time_ms,
            } => {
                if b.solutions.len() < MAX_ITEMS {
                    b.solutions.push(SolAcc {
                        rank: index,
                        id,
                        algo,
                        workspace,
                        time_ms,
                        src,
                    });
                }
            }
            Event::Step {
                call,
                id,
                ok,
                value,
            } => push_step(b, call, Some(id), ok, value.into_owned(), src),
            Event::Check { name, ok } => {
                push_step(b, "check", None, ok, name.into_owned(), src);
            }
        }
    }

    /// A MIOpen error printed inside a probe's block belongs to that block.
    pub(crate) fn capi_error(&mut self, message: &str, src: Src) {
        if let Some(b) = self.capi.last_mut() {
            push_step(b, "miopen_error", None, false, message.to_string(), src);
        }
    }

    fn capi_steps(&self, call: &str) -> impl Iterator<Item = &StepAcc> {
        self.capi
            .iter()
            .flat_map(|b| b.steps.iter())
            .filter(move |s| s.call == call)
    }

    /// The blocks, for the report.
    pub(crate) fn capi_blocks(&self) -> Vec<CapiBlock> {
        self.capi.iter().map(|b| self.capi_block(b)).collect()
    }

    fn capi_block(&self, b: &BlockAcc) -> CapiBlock {
        let ev = |class, rule: &str, s: Src| self.ev(class, Proof::RuntimeVerified, rule, &[s]);
        CapiBlock {
            label: b.label.clone(),
            solution_count: b.solution_count,
            returned: b.returned,
            solutions: b
                .solutions
                .iter()
                .map(|x| CapiSolution {
                    rank: x.rank,
                    id: x.id,
                    solver: solver_name(x.id),
                    algorithm: x.algo,
                    workspace_bytes: x.workspace,
                    time_ms: x.time_ms,
                    evidence: ev(Class::Confirmed, "case.capi.solution", x.src),
                })
                .collect(),
            steps: b
                .steps
                .iter()
                .map(|x| CapiStep {
                    call: x.call.clone(),
                    solution_id: x.id,
                    solver: x.id.and_then(solver_name),
                    ok: x.ok,
                    value: x.value.clone(),
                    evidence: ev(Class::Confirmed, "case.capi.step", x.src),
                })
                .collect(),
            summary: self.block_summary(b),
            evidence: ev(Class::Confirmed, "case.capi.block", b.src),
        }
    }

    fn block_summary(&self, b: &BlockAcc) -> String {
        let label = b
            .label
            .as_deref()
            .map(|l| format!("[{l}] "))
            .unwrap_or_default();
        let ids: Vec<String> = b.solutions.iter().map(|s| s.id.to_string()).collect();
        let count = b.solution_count.or(b.returned).unwrap_or(ids.len() as u64);
        let mut out = format!("{label}{count} solution(s)");
        if !ids.is_empty() {
            out.push_str(&format!(" ({})", ids.join(", ")));
        }
        let failed: Vec<String> = b
            .steps
            .iter()
            .filter(|s| !s.ok)
            .map(|x| {
                let (call, value, line) = (&x.call, &x.value, x.src.line);
                match (call.as_str(), x.id) {
                    ("miopen_error", _) => format!("MIOpen error: {value} (line {line})"),
                    ("check", _) => format!("check {value} false (line {line})"),
                    (_, Some(i)) => format!("{call}(id={i}) failed: {value} (line {line})"),
                    (_, None) => format!("{call} failed: {value} (line {line})"),
                }
            })
            .collect();
        if failed.is_empty() {
            out.push_str(if b.steps.is_empty() {
                ""
            } else {
                "; every call succeeded"
            });
        } else {
            out.push_str(&format!("; {}", failed.join("; ")));
        }
        out
    }

    /// The solution the program compiled or ran through the immediate API: chosen by the
    /// program, so forced.
    pub(crate) fn capi_forced(&self) -> Option<Forced> {
        let step = self
            .capi_steps("compile")
            .chain(self.capi_steps("forward_immediate"))
            .next()?;
        let (id, src) = (step.id?, step.src);
        Some(Forced {
            solver: solver_name(id).unwrap_or_else(|| format!("#{id}")),
            id: Some(id),
            via: "capi_immediate".into(),
            evidence: self
                .ev(
                    Class::Confirmed,
                    Proof::RuntimeVerified,
                    "case.forced.capi_immediate",
                    &[src],
                )
                .because(format!(
                    "the program itself passed solution id {id} to MIOpen's immediate API"
                )),
        })
    }

    /// The solution whose immediate forward call succeeded.
    pub(crate) fn capi_selected(&self) -> Option<Selected> {
        let step = self
            .capi_steps("forward_immediate")
            .filter(|s| s.ok)
            .last()?;
        let (id, src) = (step.id?, step.src);
        Some(Selected {
            solver_id: Some(id),
            solver: solver_name(id).unwrap_or_else(|| format!("#{id}")),
            algorithm: None,
            kernels: Vec::new(),
            problem: None,
            evidence: self.ev(
                Class::Confirmed,
                Proof::RuntimeVerified,
                "case.selected.capi_immediate",
                &[src],
            ),
        })
    }

    /// The outcome a probe's own lines decide, if the case is a probe.
    pub(crate) fn capi_outcome(&self) -> Option<Outcome> {
        if self.capi.is_empty() {
            return None;
        }
        let forwards: Vec<_> = self.capi_steps("forward_immediate").collect();
        if let Some(f) = forwards.iter().find(|s| !s.ok) {
            let reason = format!(
                "the immediate forward call of solution {} failed: {}",
                f.id.map_or_else(|| "?".into(), |i| i.to_string()),
                f.value
            );
            return Some(self.outcome_of(
                OutcomeKind::LibraryError,
                Some("capi_forward_failed"),
                reason,
                Class::Confirmed,
                vec![f.src],
            ));
        }
        if let Some(f) = forwards.last() {
            let id = f.id.unwrap_or_default();
            let name = solver_name(id).unwrap_or_else(|| format!("#{id}"));
            let mut srcs = vec![f.src];
            let mut reason = format!(
                "the program ran solution {id}/{name} through the immediate API: {}",
                f.value
            );
            for c in self.capi_steps("check") {
                reason.push_str(&format!("; check {} = {}", c.value, c.ok));
                srcs.push(c.src);
            }
            return Some(self.outcome_of(
                OutcomeKind::Success,
                None,
                reason,
                Class::Confirmed,
                srcs,
            ));
        }
        let summaries: Vec<String> = self.capi.iter().map(|b| self.block_summary(b)).collect();
        let mut srcs: Vec<Src> = Vec::new();
        for b in &self.capi {
            srcs.push(b.src);
            srcs.extend(b.steps.iter().filter(|s| !s.ok).map(|s| s.src));
        }
        Some(self.outcome_of(
            OutcomeKind::Undetermined,
            Some("capi_query"),
            format!(
                "a MIOpen C-API probe that queried solutions and ran no convolution: {}",
                summaries.join("; ")
            ),
            Class::Unresolved,
            srcs,
        ))
    }
}

fn push_step(b: &mut BlockAcc, call: &str, id: Option<u64>, ok: bool, value: String, src: Src) {
    if b.steps.len() < MAX_ITEMS {
        b.steps.push(StepAcc {
            call: call.to_string(),
            id,
            ok,
            value,
            src,
        });
    }
}
