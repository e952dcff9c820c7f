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

/// Runs a case. Errors are for what prevents the case from existing (folder not creatable,
/// empty command); a command that cannot be started still leaves a case with status
/// `spawn_failed`.
pub fn run(opts: RunOptions) -> Result<RunResult, String> {
    use std::os::unix::process::ExitStatusExt;
    let prog = opts.command.first().ok_or("no command given")?;
    if opts.name.is_empty() || opts.name.contains('/') || opts.name == "." || opts.name == ".." {
        return Err(format!("bad case name {:?}", opts.name));
    }
    let dir = opts.out.join(&opts.name);
    if dir.exists()
        && std::fs::read_dir(&dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        return Err(format!(
            "{}: case folder exists and is not empty",
            dir.display()
        ));
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let dir = dir.canonicalize().unwrap_or(dir);

    let mut env_set = BTreeMap::new();
    let mut knobs = opts.knobs.clone();
    knobs.sort();
    knobs.dedup();
    for k in &knobs {
        for (var, val) in k.env(&dir) {
            if std::env::var_os(&var).is_none() {
                env_set.insert(var, val);
            }
        }
    }
    for (var, val) in &opts.env {
        env_set.insert(var.clone(), val.clone());
    }
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
    let mut meta = CaseMeta {
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
        knobs: knobs.iter().map(|k| k.name().to_string()).collect(),
        env_set: env_set.clone(),
        env,
        gpu: opts.gpu.clone(),
        status: "running".into(),
        ..CaseMeta::default()
    };
    write_meta(&dir, &meta).map_err(|e| format!("{}: {e}", dir.display()))?;

    let stdout_file = std::fs::File::create(dir.join("stdout.log")).map_err(|e| e.to_string())?;
    let stderr_file = std::fs::File::create(dir.join("stderr.log")).map_err(|e| e.to_string())?;

    let flags: Vec<(nix::sys::signal::Signal, Arc<AtomicBool>)> = [
        nix::sys::signal::Signal::SIGINT,
        nix::sys::signal::Signal::SIGTERM,
        nix::sys::signal::Signal::SIGHUP,
    ]
    .into_iter()
    .map(|s| (s, Arc::new(AtomicBool::new(false))))
    .collect();
    let mut ids = Vec::new();
    for (s, f) in &flags {
        if let Ok(id) = signal_hook::flag::register(*s as i32, Arc::clone(f)) {
            ids.push(id);
        }
    }

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
            for id in ids {
                signal_hook::low_level::unregister(id);
            }
            meta.status = "spawn_failed".into();
            meta.finished = Some(now());
            meta.notes
                .push(format!("cannot start {}: {e}", prog.to_string_lossy()));
            let _ = write_meta(&dir, &meta);
            return Ok(RunResult { dir, meta });
        }
    };
    let echo: Echo = Arc::new(Mutex::new(opts.echo));
    let (done_tx, done_rx) = mpsc::channel();
    let mut pumps = 0;
    if let Some(out) = child.stdout.take() {
        let (e, d) = (Arc::clone(&echo), done_tx.clone());
        std::thread::spawn(move || pump(out, stdout_file, e, d));
        pumps += 1;
    }
    if let Some(err) = child.stderr.take() {
        let (e, d) = (Arc::clone(&echo), done_tx.clone());
        std::thread::spawn(move || pump(err, stderr_file, e, d));
        pumps += 1;
    }
    drop(done_tx);

    let pid = child.id();
    let mut interrupted_by: Option<String> = None;
    let mut int_at: Option<Instant> = None;
    let mut escalated = 0;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) => {}
            Err(_) => break None,
        }
        for (sig, f) in &flags {
            if f.swap(false, Ordering::SeqCst) {
                if interrupted_by.is_none() {
                    interrupted_by = Some(sig.as_str().to_string());
                }
                if *sig == nix::sys::signal::Signal::SIGINT {
                    int_at.get_or_insert_with(Instant::now);
                } else {
                    send(pid, *sig);
                    int_at.get_or_insert_with(Instant::now);
                }
            }
        }
        if let Some(t) = int_at {
            let e = t.elapsed();
            let steps = [
                (Duration::from_secs(1), nix::sys::signal::Signal::SIGINT),
                (Duration::from_secs(6), nix::sys::signal::Signal::SIGTERM),
                (Duration::from_secs(11), nix::sys::signal::Signal::SIGKILL),
            ];
            while escalated < steps.len() && e >= steps[escalated].0 {
                send(pid, steps[escalated].1);
                escalated += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let duration = started.elapsed();

    // Wait for the output to drain; a descendant may hold the pipes open.
    let deadline = Instant::now() + opts.drain_timeout;
    let mut drained = 0;
    while drained < pumps {
        let left = deadline.saturating_duration_since(Instant::now());
        match done_rx.recv_timeout(left) {
            Ok(()) => drained += 1,
            Err(_) => break,
        }
    }
    if drained < pumps {
        meta.notes.push(format!(
            "output was still open {} s after the command ended (a descendant holds it); \
             what it wrote until then is kept",
            opts.drain_timeout.as_secs()
        ));
    }
    // Ctrl-C at a terminal signals the whole process group: the child may die of it before
    // the loop above looked at the flags, so look again now that the output has drained.
    for (sig, f) in &flags {
        if f.swap(false, Ordering::SeqCst) && interrupted_by.is_none() {
            interrupted_by = Some(sig.as_str().to_string());
        }
    }
    for id in ids {
        signal_hook::low_level::unregister(id);
    }

    meta.finished = Some(now());
    meta.duration_s = Some(duration.as_secs_f64());
    match status {
        Some(s) => {
            meta.exit = Some(ExitInfo {
                code: s.code().map(i64::from),
                signal: s.signal().map(signal_of),
            });
            meta.status = if s.signal().is_some() {
                "signaled"
            } else {
                "exited"
            }
            .into();
        }
        None => {
            meta.status = "lost".into();
            meta.notes
                .push("the runner lost track of the command".into());
        }
    }
    // A command that died of an interrupt (SIGINT, SIGTERM, SIGHUP) was stopped, not finished,
    // whether or not the runner saw the signal itself (sent to the child alone, or the group's
    // signal not yet delivered to the runner).
    let stopped_by = status
        .and_then(|s| s.signal())
        .filter(|&n| interrupt_signal(n))
        .map(signal_of);
    if let Some(sig) = interrupted_by.or(stopped_by) {
        meta.status = "interrupted".into();
        meta.interrupted_by = Some(sig);
    }
    let mut files = Vec::new();
    if let Ok(rd) = std::fs::read_dir(&dir) {
        let mut names: Vec<String> = rd
            .flatten()
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != META_FILE && !n.starts_with('.'))
            .collect();
        names.sort();
        for n in names {
            if let Ok((bytes, sha256)) = sha256_file(&dir.join(&n)) {
                files.push(CapturedFile {
                    name: n,
                    bytes,
                    sha256,
                });
            }
        }
    }
    meta.files = files;
    write_meta(&dir, &meta).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(RunResult { dir, meta })
}
