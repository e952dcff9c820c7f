//! The runner: `rocpath case run NAME -- CMD…`. Sets the logging knobs of the chosen
//! libraries (never overriding a variable the user set), runs the command, streams its stdout
//! and stderr to files as they come (and to an echo sink), and records a `case.json`: time,
//! host, working directory, full command, every path-relevant environment variable, the GPU,
//! exit code or signal, duration, and the sha256 of each captured file.
//!
//! `case.json` is written before the command starts, with status `running`, and rewritten
//! when it ends; a case whose runner was stopped (Ctrl-C, SIGTERM, SIGHUP, or killed) stays
//! marked incomplete, never silently dropped. So does a command that died of SIGINT, SIGTERM
//! or SIGHUP: Ctrl-C at a terminal reaches the whole process group, and the child may end
//! before the runner notices its own copy of the signal. On SIGINT the child, which shares the terminal's
//! process group, receives the signal itself; the runner waits, then escalates (SIGINT after
//! 1 s, SIGTERM after 6 s, SIGKILL after 11 s) if the child does not end. SIGTERM and SIGHUP
//! are forwarded at once.

use crate::meta::RunStatus;
use crate::meta::{
    CapturedFile, CaseMeta, ExitInfo, GpuInfo, META_FILE, META_SCHEMA, path_relevant,
};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// A library whose logging the runner can switch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Knob {
    /// `MIOPEN_ENABLE_LOGGING=1`, `MIOPEN_ENABLE_LOGGING_CMD=1`, `MIOPEN_LOG_LEVEL=6`.
    Miopen,
    /// `ROCBLAS_LAYER=15` (trace, bench, profile, internal) with the three log paths in the
    /// case folder, and `ROCBLAS_VERBOSE_TENSILE_ERROR=1` / `ROCBLAS_VERBOSE_HIPBLASLT_ERROR=1`
    /// so that current rocBLAS prints its fallback messages.
    Rocblas,
    /// `HIPBLASLT_LOG_MASK=63` (error, trace, hints, info, api, bench) to
    /// `hipblaslt_%i.log` in the case folder.
    Hipblaslt,
    /// `TENSILE_DB=0x8000`: Tensile prints `Running kernel: <name>`.
    Tensile,
    /// `AMD_LOG_LEVEL=3` (HIP runtime).
    Hip,
}

impl Knob {
    /// All knobs.
    pub const ALL: [Knob; 5] = [
        Knob::Miopen,
        Knob::Rocblas,
        Knob::Hipblaslt,
        Knob::Tensile,
        Knob::Hip,
    ];
    /// The knobs switched on when none are named.
    pub const DEFAULT: [Knob; 4] = [Knob::Miopen, Knob::Rocblas, Knob::Hipblaslt, Knob::Tensile];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Knob::Miopen => "miopen",
            Knob::Rocblas => "rocblas",
            Knob::Hipblaslt => "hipblaslt",
            Knob::Tensile => "tensile",
            Knob::Hip => "hip",
        }
    }

    /// Parses a name.
    pub fn parse(s: &str) -> Option<Knob> {
        Knob::ALL.into_iter().find(|k| k.name() == s.trim())
    }

    /// The variables it sets, for a case folder `dir`.
    pub fn env(self, dir: &Path) -> Vec<(String, String)> {
        let p = |f: &str| dir.join(f).display().to_string();
        let v = |a: &str, b: &str| (a.to_string(), b.to_string());
        match self {
            Knob::Miopen => vec![
                v("MIOPEN_ENABLE_LOGGING", "1"),
                v("MIOPEN_ENABLE_LOGGING_CMD", "1"),
                v("MIOPEN_LOG_LEVEL", "6"),
            ],
            Knob::Rocblas => vec![
                v("ROCBLAS_LAYER", "15"),
                ("ROCBLAS_LOG_TRACE_PATH".into(), p("rocblas_trace.log")),
                ("ROCBLAS_LOG_BENCH_PATH".into(), p("rocblas_bench.log")),
                ("ROCBLAS_LOG_PROFILE_PATH".into(), p("rocblas_profile.log")),
                v("ROCBLAS_VERBOSE_TENSILE_ERROR", "1"),
                v("ROCBLAS_VERBOSE_HIPBLASLT_ERROR", "1"),
            ],
            Knob::Hipblaslt => vec![
                v("HIPBLASLT_LOG_MASK", "63"),
                ("HIPBLASLT_LOG_FILE".into(), p("hipblaslt_%i.log")),
            ],
            Knob::Tensile => vec![v("TENSILE_DB", "0x8000")],
            Knob::Hip => vec![v("AMD_LOG_LEVEL", "3")],
        }
    }
}

/// What to run.
pub struct RunOptions {
    /// Case name (the folder's name).
    pub name: String,
    /// Folder the case folder is made in.
    pub out: PathBuf,
    /// Knobs.
    pub knobs: Vec<Knob>,
    /// The command and its arguments.
    pub command: Vec<OsString>,
    /// GPUs of the machine, as the caller found them.
    pub gpu: Vec<GpuInfo>,
    /// Where the child's output is echoed as it comes (a terminal), if anywhere.
    pub echo: Option<Box<dyn Write + Send>>,
    /// rocpath's version, recorded.
    pub tool_version: String,
    /// Seconds to wait for the output pipes to close after the child ends (a descendant may
    /// keep them open).
    pub drain_timeout: Duration,
    /// Variables set for the command whatever the environment says (a lane's `VAR=value`
    /// assignments); recorded in `env_set`.
    pub env: Vec<(String, String)>,
}

/// A finished (or stopped) run.
#[derive(Debug)]
pub struct RunResult {
    /// The case folder.
    pub dir: PathBuf,
    /// Its final metadata.
    pub meta: CaseMeta,
}

fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

fn shell_quote(a: &str) -> String {
    if !a.is_empty()
        && a.bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"-_./:=,+@%".contains(&c))
    {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', r"'\''"))
    }
}

/// Writes `case.json` atomically (temporary file, then rename).
pub fn write_meta(dir: &Path, meta: &CaseMeta) -> std::io::Result<()> {
    let tmp = dir.join(format!(".{META_FILE}.tmp"));
    let mut text = serde_json::to_string_pretty(meta).map_err(std::io::Error::other)?;
    text.push('\n');
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, dir.join(META_FILE))
}

fn sha256_file(p: &Path) -> std::io::Result<(u64, String)> {
    let mut f = std::fs::File::open(p)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut n = 0u64;
    loop {
        let k = f.read(&mut buf)?;
        if k == 0 {
            break;
        }
        h.update(&buf[..k]);
        n += k as u64;
    }
    Ok((n, h.finalize().iter().map(|b| format!("{b:02x}")).collect()))
}

type Echo = Arc<Mutex<Option<Box<dyn Write + Send>>>>;

/// Copies a pipe to a file chunk by chunk (written at once, not buffered: a crash of rocpath
/// loses nothing the child wrote) and to the echo sink.
fn pump(mut from: impl Read, mut to: std::fs::File, echo: Echo, done: mpsc::Sender<()>) {
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
                if let Ok(mut g) = echo.lock() {
                    if let Some(w) = g.as_mut() {
                        if w.write_all(&buf[..n]).and_then(|_| w.flush()).is_err() {
                            *g = None;
                        }
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let _ = done.send(());
}

fn signal_of(n: i32) -> String {
    nix::sys::signal::Signal::try_from(n)
        .map(|s| s.as_str().to_string())
        .unwrap_or_else(|_| format!("signal {n}"))
}

/// Signals that stop a command on request (a terminal's Ctrl-C, a hang-up, a polite kill), as
/// opposed to a crash (SIGSEGV, SIGABRT) or a forced kill.
fn interrupt_signal(n: i32) -> bool {
    use nix::sys::signal::Signal;
    matches!(
        Signal::try_from(n),
        Ok(Signal::SIGINT | Signal::SIGTERM | Signal::SIGHUP)
    )
}

fn send(pid: u32, sig: nix::sys::signal::Signal) {
    if let Ok(p) = i32::try_from(pid) {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(p), sig);
    }
}

/// Why a case could not be made. A command that cannot be started is not an error: its case
/// is recorded with status `spawn_failed`.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Nothing to run.
    #[error("no command given; put the command to run after `--`")]
    NoCommand,
    /// The case name is not one folder name.
    #[error(
        "bad case name {name:?}: a case name is one folder name (not empty, no `/`, not `.` or `..`)"
    )]
    BadName {
        /// The name given.
        name: String,
    },
    /// The case folder already holds files.
    #[error("{}: case folder exists and is not empty; choose another case name or another --out", path.display())]
    NotEmpty {
        /// The case folder.
        path: PathBuf,
    },
    /// The case folder or one of its files could not be made or written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The folder or file.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
}

impl RunError {
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
        move |error| RunError::Io {
            path: path.to_path_buf(),
            error,
        }
    }

    /// The folder or file the error is about, when it is about one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            RunError::NoCommand | RunError::BadName { .. } => None,
            RunError::NotEmpty { path } | RunError::Io { path, .. } => Some(path),
        }
    }
}

/// Runs a case. Errors are for what prevents the case from existing (folder not creatable,
/// empty command); a command that cannot be started still leaves a case with status
/// `spawn_failed`.
pub fn run(opts: RunOptions) -> Result<RunResult, RunError> {
    let prog = opts.command.first().ok_or(RunError::NoCommand)?;
    let dir = case_dir(&opts)?;
    let env_set = env_set(&opts, &dir);
    let mut meta = initial_meta(&opts, &dir, &env_set);
    write_meta(&dir, &meta).map_err(RunError::io(&dir))?;
    let stdout_path = dir.join("stdout.log");
    let stdout_file = std::fs::File::create(&stdout_path).map_err(RunError::io(&stdout_path))?;
    let stderr_path = dir.join("stderr.log");
    let stderr_file = std::fs::File::create(&stderr_path).map_err(RunError::io(&stderr_path))?;
    let signals = Signals::register();

    let started = Instant::now();
    let child = Command::new(prog)
        .args(&opts.command[1..])
        .envs(&env_set)
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            signals.unregister();
            meta.status = RunStatus::SpawnFailed;
            meta.finished = Some(now());
            meta.notes
                .push(format!("cannot start {}: {e}", prog.to_string_lossy()));
            let _ = write_meta(&dir, &meta);
            return Ok(RunResult { dir, meta });
        }
    };
    let pumps = Pumps::start(&mut child, stdout_file, stderr_file, opts.echo);
    let (status, interrupted_by) = signals.supervise(&mut child);
    let duration = started.elapsed();
    if !pumps.drain(opts.drain_timeout) {
        meta.notes.push(format!(
            "output was still open {} s after the command ended (a descendant holds it); \
             what it wrote until then is kept",
            opts.drain_timeout.as_secs()
        ));
    }
    // Ctrl-C at a terminal signals the whole process group: the child may die of it before
    // the supervision looked at the flags, so look again now that the output has drained.
    let interrupted_by = interrupted_by.or_else(|| signals.take());
    signals.unregister();
    finish_meta(&mut meta, status, duration, interrupted_by);
    meta.files = captured_files(&dir);
    write_meta(&dir, &meta).map_err(RunError::io(&dir))?;
    Ok(RunResult { dir, meta })
}

/// Makes the case folder `out/name` (a new or empty folder), canonical when it can be.
fn case_dir(opts: &RunOptions) -> Result<PathBuf, RunError> {
    if opts.name.is_empty() || opts.name.contains('/') || opts.name == "." || opts.name == ".." {
        return Err(RunError::BadName {
            name: opts.name.clone(),
        });
    }
    let dir = opts.out.join(&opts.name);
    if dir.exists()
        && std::fs::read_dir(&dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        return Err(RunError::NotEmpty { path: dir });
    }
    std::fs::create_dir_all(&dir).map_err(RunError::io(&dir))?;
    Ok(dir.canonicalize().unwrap_or(dir))
}

/// The variables set for the command: the knobs' (never overriding a variable already set)
/// and the caller's.
fn env_set(opts: &RunOptions, dir: &Path) -> BTreeMap<String, String> {
    let mut env_set = BTreeMap::new();
    for k in sorted_knobs(&opts.knobs) {
        for (var, val) in k.env(dir) {
            if std::env::var_os(&var).is_none() {
                env_set.insert(var, val);
            }
        }
    }
    for (var, val) in &opts.env {
        env_set.insert(var.clone(), val.clone());
    }
    env_set
}

fn sorted_knobs(knobs: &[Knob]) -> Vec<Knob> {
    let mut knobs = knobs.to_vec();
    knobs.sort();
    knobs.dedup();
    knobs
}

/// The record written before the command starts (status `running`).
fn initial_meta(opts: &RunOptions, dir: &Path, env_set: &BTreeMap<String, String>) -> CaseMeta {
    let mut env: BTreeMap<String, String> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.to_string_lossy().into_owned())))
        .filter(|(k, _)| path_relevant(k))
        .collect();
    env.extend(env_set.iter().map(|(k, v)| (k.clone(), v.clone())));
    let argv: Vec<String> = opts
        .command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    CaseMeta {
        schema: META_SCHEMA.into(),
        source: dir.join(META_FILE).display().to_string(),
        name: Some(opts.name.clone()),
        tool_version: Some(opts.tool_version.clone()),
        started: Some(now()),
        host: Some(gethostname::gethostname().to_string_lossy().into_owned()),
        cwd: std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string()),
        command_line: argv
            .iter()
            .map(|a| shell_quote(a))
            .collect::<Vec<_>>()
            .join(" "),
        command: argv,
        knobs: sorted_knobs(&opts.knobs)
            .iter()
            .map(|k| k.name().to_string())
            .collect(),
        env_set: env_set.clone(),
        env,
        gpu: opts.gpu.clone(),
        status: RunStatus::Running,
        ..CaseMeta::default()
    }
}

/// The threads copying the child's stdout and stderr, and how they say they are done.
struct Pumps {
    count: usize,
    done: mpsc::Receiver<()>,
}

impl Pumps {
    fn start(
        child: &mut std::process::Child,
        stdout_file: std::fs::File,
        stderr_file: std::fs::File,
        echo: Option<Box<dyn Write + Send>>,
    ) -> Pumps {
        let echo: Echo = Arc::new(Mutex::new(echo));
        let (done_tx, done) = mpsc::channel();
        let mut count = 0;
        if let Some(out) = child.stdout.take() {
            let (e, d) = (Arc::clone(&echo), done_tx.clone());
            std::thread::spawn(move || pump(out, stdout_file, e, d));
            count += 1;
        }
        if let Some(err) = child.stderr.take() {
            let (e, d) = (Arc::clone(&echo), done_tx.clone());
            std::thread::spawn(move || pump(err, stderr_file, e, d));
            count += 1;
        }
        Pumps { count, done }
    }

    /// Waits up to `timeout` for the output to drain (a descendant may hold the pipes open);
    /// whether it did.
    fn drain(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut drained = 0;
        while drained < self.count {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.done.recv_timeout(left) {
                Ok(()) => drained += 1,
                Err(_) => break,
            }
        }
        drained == self.count
    }
}

type Signal = nix::sys::signal::Signal;

/// SIGINT, SIGTERM and SIGHUP caught while the command runs.
struct Signals {
    flags: Vec<(Signal, Arc<AtomicBool>)>,
    ids: Vec<signal_hook::SigId>,
}

impl Signals {
    fn register() -> Signals {
        let flags: Vec<(Signal, Arc<AtomicBool>)> =
            [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP]
                .into_iter()
                .map(|s| (s, Arc::new(AtomicBool::new(false))))
                .collect();
        let ids = flags
            .iter()
            .filter_map(|(s, f)| signal_hook::flag::register(*s as i32, Arc::clone(f)).ok())
            .collect();
        Signals { flags, ids }
    }

    fn unregister(self) {
        for id in self.ids {
            signal_hook::low_level::unregister(id);
        }
    }

    /// The signals caught since the last look, in the order SIGINT, SIGTERM, SIGHUP.
    fn caught(&self) -> Vec<Signal> {
        self.flags
            .iter()
            .filter(|(_, f)| f.swap(false, Ordering::SeqCst))
            .map(|(s, _)| *s)
            .collect()
    }

    /// The first signal caught since the last look.
    fn take(&self) -> Option<String> {
        self.caught().first().map(|s| s.as_str().to_string())
    }

    /// Waits for the child. SIGTERM and SIGHUP are forwarded at once; on SIGINT (which the
    /// child, in the terminal's process group, receives itself) the runner waits, then
    /// escalates: SIGINT after 1 s, SIGTERM after 6 s, SIGKILL after 11 s. Returns the exit
    /// status (`None` when the child was lost) and the first signal caught.
    fn supervise(
        &self,
        child: &mut std::process::Child,
    ) -> (Option<std::process::ExitStatus>, Option<String>) {
        let pid = child.id();
        let mut interrupted_by: Option<String> = None;
        let mut int_at: Option<Instant> = None;
        let mut escalated = 0;
        let steps = [
            (Duration::from_secs(1), Signal::SIGINT),
            (Duration::from_secs(6), Signal::SIGTERM),
            (Duration::from_secs(11), Signal::SIGKILL),
        ];
        loop {
            match child.try_wait() {
                Ok(Some(s)) => return (Some(s), interrupted_by),
                Ok(None) => {}
                Err(_) => return (None, interrupted_by),
            }
            for sig in self.caught() {
                interrupted_by.get_or_insert_with(|| sig.as_str().to_string());
                if sig != Signal::SIGINT {
                    send(pid, sig);
                }
                int_at.get_or_insert_with(Instant::now);
            }
            if let Some(t) = int_at {
                let e = t.elapsed();
                while escalated < steps.len() && e >= steps[escalated].0 {
                    send(pid, steps[escalated].1);
                    escalated += 1;
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The record after the command ended: times, exit, status. A command that died of an
/// interrupt (SIGINT, SIGTERM, SIGHUP) was stopped, not finished, whether or not the runner
/// saw the signal itself (sent to the child alone, or the group's signal not yet delivered to
/// the runner).
fn finish_meta(
    meta: &mut CaseMeta,
    status: Option<std::process::ExitStatus>,
    duration: Duration,
    interrupted_by: Option<String>,
) {
    use std::os::unix::process::ExitStatusExt;
    meta.finished = Some(now());
    meta.duration_s = Some(duration.as_secs_f64());
    match status {
        Some(s) => {
            meta.exit = Some(ExitInfo {
                code: s.code().map(i64::from),
                signal: s.signal().map(signal_of),
            });
            meta.status = if s.signal().is_some() {
                RunStatus::Signaled
            } else {
                RunStatus::Exited
            };
        }
        None => {
            meta.status = RunStatus::Lost;
            meta.notes
                .push("the runner lost track of the command".into());
        }
    }
    let stopped_by = status
        .and_then(|s| s.signal())
        .filter(|&n| interrupt_signal(n))
        .map(signal_of);
    if let Some(sig) = interrupted_by.or(stopped_by) {
        meta.status = RunStatus::Interrupted;
        meta.interrupted_by = Some(sig);
    }
}

/// The files of the case folder (not `case.json`, not hidden), with size and sha256.
fn captured_files(dir: &Path) -> Vec<CapturedFile> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = rd
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != META_FILE && !n.starts_with('.'))
        .collect();
    names.sort();
    names
        .into_iter()
        .filter_map(|name| {
            let (bytes, sha256) = sha256_file(&dir.join(&name)).ok()?;
            Some(CapturedFile {
                name,
                bytes,
                sha256,
            })
        })
        .collect()
}
