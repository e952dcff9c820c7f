//! `rocpath`: the command-line tool. Flags and glue only; the work is done by the library
//! crates (`rocpath-sources`, `rocpath-codeobj`, `rocpath-inventory`, ...) and the output by
//! `rocpath-render`.

mod cli;
mod cmd;
mod output;

use clap::Parser;
use output::{Printer, Status};
use std::process::ExitCode;

/// The evaluator and the decoders allocate many small values; mimalloc serves them faster
/// than the system allocator, with either libc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            // clap's help and version are successes; usage errors exit 2.
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    if let Some(n) = cli.global.threads {
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global()
        {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("error: cannot set up {n} threads: {e}");
            }
            return ExitCode::from(2);
        }
    }
    if let Some(limit) = cli.global.max_time {
        rocpath_budget::deadline::set(limit);
        rocpath_budget::deadline::watch(|limit| {
            #[allow(clippy::print_stderr)]
            {
                eprintln!(
                    "error: --max-time {} s passed and the command had not ended {} s later; stopped (records already written are whole; raise --max-time to let it finish)",
                    limit.as_secs(),
                    rocpath_budget::deadline::grace(limit).as_secs()
                );
            }
            std::process::exit(2);
        });
    }
    let printer = Printer::new(cli.global.clone());
    match cmd::run(cli.command, &printer) {
        Ok(status) => status.code(),
        Err(e) => {
            // A closed stdout is not a failure of the command.
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return Status::Ok.code();
            }
            #[allow(clippy::print_stderr)]
            {
                eprintln!("error: {e:#}");
            }
            Status::Error.code()
        }
    }
}
