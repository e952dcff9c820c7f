//! Where output goes: data on stdout (table, TSV or one JSON document), everything else on
//! stderr; progress bars; exit codes. This is the only place that prints.

use crate::cli::Global;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rocpath_evidence::RunInfo;
use serde::Serialize;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// Outcome of a command, mapped to the 0/1/2 exit convention.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Done; the answer is positive.
    Ok,
    /// Done; the answer is negative.
    Negative,
    /// Something could not be read or done (the rest was reported).
    Error,
}

impl Status {
    pub fn code(self) -> ExitCode {
        match self {
            Status::Ok => ExitCode::SUCCESS,
            Status::Negative => ExitCode::from(1),
            Status::Error => ExitCode::from(2),
        }
    }
}

/// The printer: knows the global flags and the run's identity.
pub struct Printer {
    pub global: Global,
    pub run: RunInfo,
}

fn quote(a: &str) -> String {
    if a.is_empty()
        || a.chars()
            .any(|c| c.is_whitespace() || "'\"$`\\".contains(c))
    {
        format!("'{}'", a.replace('\'', r"'\''"))
    } else {
        a.to_string()
    }
}

impl Printer {
    pub fn new(global: Global) -> Self {
        let command = std::env::args()
            .map(|a| quote(&a))
            .collect::<Vec<_>>()
            .join(" ");
        let run = RunInfo {
            tool: "rocpath".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            command,
            time: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            host: gethostname::gethostname().to_string_lossy().into_owned(),
            schema: String::new(),
        };
        Printer { global, run }
    }

    /// Writes data to stdout. A closed pipe (`| head`) is not an error.
    pub fn data(&self, s: &str) -> anyhow::Result<()> {
        let mut out = std::io::stdout().lock();
        match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Writes one JSON document: `{"schema": …, "observed": {run info}, …payload}`. The
    /// document is serialized straight to stdout (no intermediate tree or string), so a
    /// large inventory costs its own size in memory, not several times it. `payload` must
    /// serialize as a struct or map without `schema`/`observed` keys of its own.
    pub fn json<T: Serialize>(
        &self,
        schema: &rocpath_docs::Schema,
        payload: &T,
    ) -> anyhow::Result<()> {
        let schema = schema.id;
        #[derive(Serialize)]
        struct Doc<'a, T: Serialize> {
            schema: &'a str,
            observed: &'a RunInfo,
            #[serde(flatten)]
            payload: &'a T,
        }
        let mut run = self.run.clone();
        run.schema = schema.to_string();
        let doc = Doc {
            schema,
            observed: &run,
            payload,
        };
        let stdout = std::io::stdout().lock();
        let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout);
        let res = serde_json::to_writer_pretty(&mut out, &doc)
            .map_err(std::io::Error::from)
            .and_then(|_| out.write_all(b"\n"))
            .and_then(|_| out.flush());
        match res {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// A line on stderr (suppressed by -q).
    pub fn note(&self, s: &str) {
        if !self.global.quiet {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("{s}");
            }
        }
    }

    /// Text on stderr that is always shown (errors).
    pub fn error_text(&self, s: &str) {
        if !s.is_empty() {
            #[allow(clippy::print_stderr)]
            {
                eprint!("{s}");
            }
        }
    }

    /// Where a child's output is echoed while rocpath records it (`case run`): stderr, so
    /// that stdout carries only rocpath's own data; nothing when quiet.
    pub fn passthrough(&self) -> Option<Box<dyn Write + Send>> {
        if self.global.quiet {
            None
        } else {
            Some(Box::new(std::io::stderr()))
        }
    }

    /// A byte progress bar on stderr, hidden when quiet, when asked, or when stderr is not a
    /// terminal.
    pub fn bar(&self, message: &str) -> ProgressBar {
        let hidden =
            self.global.quiet || self.global.no_progress || !std::io::stderr().is_terminal();
        let pb = if hidden {
            ProgressBar::hidden()
        } else {
            ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr())
        };
        if let Ok(style) = ProgressStyle::with_template(
            "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        ) {
            pb.set_style(style.progress_chars("=> "));
        }
        pb.set_message(message.to_string());
        pb
    }
}

impl Printer {
    /// A progress bar counting items (`len` of them), hidden like [`Printer::bar`].
    pub fn counter(&self, message: &str, len: u64) -> ProgressBar {
        let hidden =
            self.global.quiet || self.global.no_progress || !std::io::stderr().is_terminal();
        let pb = if hidden {
            ProgressBar::hidden()
        } else {
            ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr())
        };
        if let Ok(style) =
            ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {per_sec} eta {eta}")
        {
            pb.set_style(style.progress_chars("=> "));
        }
        pb.set_message(message.to_string());
        pb
    }
}

/// Adapts an indicatif bar to the inventory's progress trait.
pub struct BarProgress(pub ProgressBar);

impl rocpath_inventory::Progress for BarProgress {
    fn begin(&self, files: u64, bytes: u64) {
        self.0.set_length(bytes);
        self.0.set_message(format!("scanning {files} files"));
    }
    fn advance(&self, bytes: u64) {
        self.0.inc(bytes);
    }
}
