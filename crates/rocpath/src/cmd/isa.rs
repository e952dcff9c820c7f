//! `rocpath isa PATH...`

use crate::cli::IsaArgs;
use crate::output::{Printer, Status};
use rocpath_census::{KernelFilter, Options};
use rocpath_docs::schema;

struct Bar(indicatif::ProgressBar);
impl rocpath_census::Progress for Bar {
    fn begin(&self, files: u64, bytes: u64) {
        self.0.set_length(bytes);
        self.0.set_message(format!("decoding {files} files"));
    }
    fn advance(&self, bytes: u64) {
        self.0.inc(bytes);
    }
}

pub fn run(a: IsaArgs, p: &Printer) -> anyhow::Result<Status> {
    super::check_paths(&a.paths)?;
    if let Some(t) = &a.target {
        super::known_target(t)?;
    }
    let opts = Options {
        limits: super::limits(&a.scan, p),
        target: a.target.clone(),
        kernel: a.kernel.clone().map(|k| {
            if a.exact {
                KernelFilter::Exact(k)
            } else {
                KernelFilter::Substring(k)
            }
        }),
        find: a
            .find
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        disasm: a.disasm,
        // Per-kernel counts are printed in JSON, TSV and the per-kernel table only.
        per_kernel: p.global.json || a.tsv || a.kernels || a.kernel.is_some(),
    };
    let bar = p.bar("decoding");
    let started = std::time::Instant::now();
    let r = rocpath_census::run(&a.paths, &opts, &Bar(bar.clone()));
    bar.finish_and_clear();
    super::save_hashes(&opts.limits, p);
    p.error_text(&rocpath_render::isa::errors_text(&r));
    if p.global.json {
        p.json(&schema::ISA, &r)?;
    } else if a.tsv {
        p.data(&rocpath_render::isa::isa_tsv(&r))?;
    } else if a.disasm {
        p.data(&rocpath_render::isa::disasm_text(&r))?;
    } else if !opts.find.is_empty() {
        p.data(&rocpath_render::isa::find_table(&r))?;
    } else {
        p.data(&rocpath_render::isa::isa_table(
            &r,
            a.kernels || a.kernel.is_some(),
            a.mnemonics,
        ))?;
    }
    for sk in &r.skipped {
        p.note(&format!(
            "skipped: {} [{}]: {}",
            sk.path, sk.container, sk.reason
        ));
    }
    let code: u64 = r.code_objects.iter().map(|c| c.counts.code_bytes).sum();
    let secs = started.elapsed().as_secs_f64();
    if p.global.verbose > 0 {
        p.note(&format!(
            "decoded {} code objects, {:.1} MB of code in {secs:.2} s",
            r.code_objects.len(),
            code as f64 / 1e6
        ));
    }
    Ok(if !r.errors.is_empty() {
        Status::Error
    } else if r.code_objects.is_empty() || (!opts.find.is_empty() && r.find.is_empty()) {
        Status::Negative
    } else {
        Status::Ok
    })
}
