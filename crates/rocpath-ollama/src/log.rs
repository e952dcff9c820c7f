//! `ollama serve` output and its journal: logfmt lines (`time=… level=INFO source=… msg="…"
//! key=value …`), llama.cpp/ggml lines (`load_tensors: offloaded 23/23 layers to GPU`,
//! `  Device 0: Radeon Instinct MI25, gfx900:xnack- (0x900), VMM: no, Wave Size: 64`), rocBLAS
//! messages, crashes, and gin request lines. Journal lines carry a prefix
//! (`Mar 23 20:20:18 host ollama[985202]: `, or in a Japanese locale ` 3月 21 01:27:16 host
//! ollama[358115]: `) that is removed first.

pub use rocpath_docs::ollama::FailureKind;

/// Removes a journald/syslog prefix (`<date> <time> <host> <ident>[<pid>]: `), if any.
pub fn strip_prefix(line: &str) -> &str {
    journal_prefix(line).map_or(line, |(rest, _, _)| rest)
}

/// A journald/syslog prefix split: the rest of the line, the process id and the prefix's
/// date and clock time as printed (`3月 20 17:43:27`).
fn journal_prefix(line: &str) -> Option<(&str, u32, &str)> {
    let i = line.find("]: ")?;
    let head = &line[..i];
    // `<ident>[<pid>` right before, and a clock time earlier on the line.
    let open = head.rfind('[')?;
    let pid = &head[open + 1..];
    let clock = head.split_whitespace().find(|t| {
        let b = t.as_bytes();
        b.len() >= 8 && b[2] == b':' && b[5] == b':' && b[..2].iter().all(u8::is_ascii_digit)
    })?;
    if pid.is_empty() || !pid.bytes().all(|c| c.is_ascii_digit()) || i >= 160 {
        return None;
    }
    let end = clock.as_ptr() as usize - head.as_ptr() as usize + clock.len();
    Some((&line[i + 3..], pid.parse().ok()?, head[..end].trim()))
}

/// Which process printed a line, and when: the journal's `ollama[<pid>]` and the line's own
/// logfmt `time=` (else the journal's clock time). A server's stderr has no pid.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// The process id of a journal line.
    pub pid: Option<u32>,
    /// The time as printed (`2026-03-20T17:43:27.518+09:00`, or the journal's `3月 20 17:43:27`).
    pub time: Option<String>,
}

/// The [`Origin`] of a raw line.
pub fn origin(raw: &str) -> Origin {
    let (rest, pid, clock) = match journal_prefix(raw) {
        Some((rest, pid, clock)) => (rest, Some(pid), Some(clock)),
        None => (raw, None, None),
    };
    let time = logfmt(rest, "time")
        .filter(|t| t.len() >= 10 && t.as_bytes()[..4].iter().all(u8::is_ascii_digit))
        .or(clock)
        .map(str::to_string);
    Origin { pid, time }
}

/// A logfmt value: `key=value` or `key="quoted value"` anywhere on the line.
pub fn logfmt<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(p) = line[from..].find(key) {
        let at = from + p;
        from = at + key.len();
        let before_ok = at == 0 || line.as_bytes()[at - 1] == b' ';
        let rest = &line[at + key.len()..];
        if !before_ok || !rest.starts_with('=') {
            continue;
        }
        let v = &rest[1..];
        if let Some(q) = v.strip_prefix('"') {
            // A quoted value; `\"` escapes inside.
            let mut end = None;
            let b = q.as_bytes();
            let mut i = 0;
            while i < b.len() {
                match b[i] {
                    b'\\' => i += 2,
                    b'"' => {
                        end = Some(i);
                        break;
                    }
                    _ => i += 1,
                }
            }
            return Some(&q[..end.unwrap_or(q.len())]);
        }
        return Some(v.split(' ').next().unwrap_or(""));
    }
    None
}

pub use rocpath_docs::ollama::GgmlDevice;

/// A recognised line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// `msg="inference compute"`: a device Ollama will run on.
    InferenceCompute {
        /// `library` (`ROCm`, `rocm`, `CUDA`, `Vulkan`, `cpu`).
        library: String,
        /// `compute` (`gfx900`).
        compute: String,
        /// `description` (`Radeon Instinct MI25`).
        description: String,
        /// `total` (`16.0 GiB`).
        total: String,
    },
    /// `msg=load request="{… NumThreads:N GPULayers:…}"`.
    LoadRequest {
        /// GPU layers (0 for `GPULayers:[]`).
        gpu_layers: u64,
        /// `NumThreads`.
        num_threads: Option<u64>,
        /// `BatchSize`.
        batch_size: Option<u64>,
        /// `KvSize`.
        kv_size: Option<u64>,
        /// `FlashAttention`.
        flash_attention: Option<String>,
    },
    /// `offloaded N/M layers to GPU`.
    Offloaded {
        /// N.
        layers: u64,
        /// M.
        of: u64,
    },
    /// `msg="model weights" device=ROCm0 size=…` (also kv cache, compute graph).
    Placement {
        /// What (`model weights`, `kv cache`, `compute graph`).
        what: String,
        /// Device (`CPU`, `ROCm0`).
        device: String,
    },
    /// `load_tensors: CPU model buffer size = …` / `ROCm0 model buffer size`.
    ModelBuffer {
        /// `CPU`, `CPU_Mapped`, `ROCm0`, …
        device: String,
    },
    /// `msg="Listening on 127.0.0.1:11434 (version 0.0.0)"`: the server's version.
    Version(String),
    /// Variables that change the run: `msg="server config" env="map[…]"` (those set, of the
    /// ones that change devices, libraries or kernels) and `msg="user overrode visible
    /// devices" HSA_OVERRIDE_GFX_VERSION=9.0.0`.
    Env(Vec<(String, String)>),
    /// Another line naming a GPU library (`msg="gpu memory" … library=ROCm`).
    LibraryMention(String),
    /// `load_backend: loaded ROCm backend from <path>`.
    Backend {
        /// `ROCm`, `CPU`, `Vulkan`.
        kind: String,
        /// Library path.
        path: String,
    },
    /// ggml `Device N: …`.
    Device(GgmlDevice),
    /// `llama_model_load_from_file_impl: using device ROCm0 (…)`.
    UsingDevice(String),
    /// A failure: OOM, crash, GPU discovery failure, missing Tensile library, …
    Failure {
        /// What failed.
        kind: FailureKind,
        /// Detail (the missing file and arch for `tensile_library_missing`).
        detail: String,
    },
    /// gin: `[GIN] … | 200 | 626.59ms | 127.0.0.1 | POST "/api/generate"`.
    Request {
        /// HTTP status.
        status: u32,
        /// Path.
        path: String,
        /// Latency as printed.
        latency: String,
    },
}

fn num_after(s: &str, key: &str) -> Option<u64> {
    let i = s.find(key)? + key.len();
    let d: String = s[i..].chars().take_while(char::is_ascii_digit).collect();
    d.parse().ok()
}

fn word_after(s: &str, key: &str) -> Option<String> {
    let i = s.find(key)? + key.len();
    let w: String = s[i..]
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '}')
        .collect();
    (!w.is_empty()).then_some(w)
}

/// Recognises a line (prefix already stripped or not).
pub fn parse(raw: &str) -> Option<Event> {
    let line = strip_prefix(raw).trim_end();
    let t = line.trim_start();
    if t.is_empty() {
        return None;
    }
    match logfmt(line, "msg") {
        Some(msg) => parse_logfmt(line, msg),
        None => parse_plain(t),
    }
}

/// A logfmt line (`… msg="…" key=value …`).
fn parse_logfmt(line: &str, msg: &str) -> Option<Event> {
    if let Some(e) = logfmt_message(line, msg) {
        return Some(e);
    }
    if let Some(lib) = logfmt(line, "library") {
        // Device libraries only (a `library=` may also hold a folder).
        if ["rocm", "cuda", "vulkan", "metal", "hip"]
            .iter()
            .any(|g| lib.eq_ignore_ascii_case(g))
        {
            return Some(Event::LibraryMention(lib.to_string()));
        }
    }
    line.contains("out of memory").then(|| Event::Failure {
        kind: FailureKind::Oom,
        detail: msg.to_string(),
    })
}

/// The logfmt messages recognised by their `msg`.
fn logfmt_message(line: &str, msg: &str) -> Option<Event> {
    let g = |k: &str| logfmt(line, k).unwrap_or("").to_string();
    let failure = |kind, detail| Some(Event::Failure { kind, detail });
    match msg {
        "inference compute" => Some(Event::InferenceCompute {
            library: g("library"),
            compute: g("compute"),
            description: g("description"),
            total: g("total"),
        }),
        "load" if line.contains("request=") => Some(load_request(line)),
        "server config" => Some(Event::Env(server_env(&g("env")))),
        "user overrode visible devices" => {
            let known = ["time", "level", "source", "msg"];
            let pairs = line
                .split(' ')
                .filter_map(|w| w.split_once('='))
                .filter(|(k, v)| !known.contains(k) && !v.is_empty() && is_run_variable(k))
                .map(|(k, v)| (k.to_string(), v.trim_matches('"').to_string()))
                .collect();
            Some(Event::Env(pairs))
        }
        m if m.starts_with("Listening on ") => {
            let v = m.split_once("(version ")?.1.trim_end_matches(')');
            Some(Event::Version(v.to_string()))
        }
        "model weights" | "kv cache" | "compute graph" => {
            logfmt(line, "device").map(|d| Event::Placement {
                what: msg.to_string(),
                device: d.to_string(),
            })
        }
        "failure during GPU discovery" => failure(FailureKind::GpuDiscoveryFailed, g("error")),
        "filtering device which didn't fully initialize" => {
            failure(FailureKind::DeviceFiltered, g("library"))
        }
        "llama runner terminated" => failure(FailureKind::RunnerCrashed, g("error")),
        m if m.starts_with("dropping ROCm device") => {
            failure(FailureKind::NoRocblasSupport, g("gfx_target"))
        }
        _ => None,
    }
}

/// Variables that change which device, library or kernels a run uses.
pub fn is_run_variable(name: &str) -> bool {
    const PREFIXES: [&str; 7] = [
        "HSA_",
        "HIP_",
        "ROCR_",
        "ROCBLAS_",
        "HIPBLASLT_",
        "GGML_",
        "MIOPEN_",
    ];
    const OLLAMA: [&str; 6] = [
        "OLLAMA_LLM_LIBRARY",
        "OLLAMA_FLASH_ATTENTION",
        "OLLAMA_KV_CACHE_TYPE",
        "OLLAMA_NEW_ENGINE",
        "OLLAMA_VULKAN",
        "OLLAMA_NUM_PARALLEL",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
        || OLLAMA.contains(&name)
        || name == "CUDA_VISIBLE_DEVICES"
        || name == "GPU_DEVICE_ORDINAL"
}

/// `map[A:1 B: C:x]` → the variables set that change the run (empty values left out).
fn server_env(map: &str) -> Vec<(String, String)> {
    let inner = map
        .strip_prefix("map[")
        .and_then(|m| m.strip_suffix(']'))
        .unwrap_or(map);
    inner
        .split(' ')
        .filter_map(|w| w.split_once(':'))
        .filter(|(k, v)| !v.is_empty() && is_run_variable(k))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// `msg=load request="{… GPULayers:… NumThreads:N …}"`.
fn load_request(line: &str) -> Event {
    let gpu_layers = if line.contains("GPULayers:[]") {
        0
    } else {
        num_after(line, "GPULayers:").unwrap_or(0)
    };
    Event::LoadRequest {
        gpu_layers,
        num_threads: num_after(line, "NumThreads:"),
        batch_size: num_after(line, "BatchSize:"),
        kv_size: num_after(line, "KvSize:"),
        flash_attention: word_after(line, "FlashAttention:"),
    }
}

/// A line that is not logfmt: llama.cpp/ggml, rocBLAS, gin, or a failure anywhere. A `Device`
/// or gin line that does not parse is nothing else either.
fn parse_plain(t: &str) -> Option<Event> {
    if let Some(e) = offloaded(t).or_else(|| load_line(t)) {
        return Some(e);
    }
    if let Some(r) = t.strip_prefix("Device ") {
        return ggml_device(r);
    }
    if let Some(i) = t.find("using device ") {
        let d: String = t[i + "using device ".len()..]
            .chars()
            .take_while(|c| !c.is_whitespace())
            .collect();
        return Some(Event::UsingDevice(d));
    }
    if let Some(e) = tensile_missing(t) {
        return Some(e);
    }
    if let Some(r) = t.strip_prefix("[GIN] ") {
        let f: Vec<&str> = r.split('|').map(str::trim).collect();
        if f.len() >= 5 {
            return gin(&f);
        }
    }
    failure(t)
}

/// `offloaded N/M layers to GPU`.
fn offloaded(t: &str) -> Option<Event> {
    let i = t.find("offloaded ")?;
    if !t[i..].contains(" layers to GPU") {
        return None;
    }
    let (n, m) = t[i + "offloaded ".len()..].split_once('/')?;
    let m: String = m.chars().take_while(char::is_ascii_digit).collect();
    let (layers, of) = (n.trim().parse().ok()?, m.parse().ok()?);
    Some(Event::Offloaded { layers, of })
}

/// `load_tensors: <device> model buffer size = …` and `load_backend: loaded <kind> backend
/// from <path>`.
fn load_line(t: &str) -> Option<Event> {
    if let Some(r) = t.strip_prefix("load_tensors:") {
        if let Some(i) = r.find(" model buffer size") {
            return Some(Event::ModelBuffer {
                device: r[..i].trim().to_string(),
            });
        }
    }
    let r = t.strip_prefix("load_backend: loaded ")?;
    let (kind, path) = r.split_once(" backend from ")?;
    Some(Event::Backend {
        kind: kind.to_string(),
        path: path.trim().to_string(),
    })
}

/// `Device 0: Radeon Instinct MI25, gfx900:xnack- (0x900), VMM: no, Wave Size: 64, …`
/// (after `Device `).
fn ggml_device(r: &str) -> Option<Event> {
    let (idx, rest) = r.split_once(": ")?;
    let index = idx.parse().ok()?;
    let mut parts = rest.split(", ");
    let name = parts.next()?.to_string();
    let arch = parts.next()?;
    let (target, cc) = match arch.split_once(" (") {
        Some((a, c)) => (a.to_string(), c.trim_end_matches(')').to_string()),
        None => (arch.to_string(), String::new()),
    };
    if !target.starts_with("gfx") && !target.starts_with("sm_") {
        return None;
    }
    let wave_size = rest
        .split(", ")
        .find_map(|p| p.strip_prefix("Wave Size: "))
        .and_then(|w| w.trim().parse().ok());
    Some(Event::Device(GgmlDevice {
        index,
        name,
        target,
        cc,
        wave_size,
    }))
}

/// rocBLAS: `Cannot read …TensileLibrary.dat … for GPU arch …`.
fn tensile_missing(t: &str) -> Option<Event> {
    if !t.starts_with("rocBLAS ") {
        return None;
    }
    match rocpath_logs::rocblas::parse(t.as_bytes()) {
        Some(rocpath_logs::rocblas::Event::LibraryMissing { path, arch, .. }) => {
            Some(Event::Failure {
                kind: FailureKind::TensileLibraryMissing,
                detail: format!("{path} for {arch}"),
            })
        }
        _ => None,
    }
}

/// gin's fields: `… | 200 | 626.59ms | 127.0.0.1 | POST "/api/generate"`.
fn gin(f: &[&str]) -> Option<Event> {
    let status = f[1].parse().ok()?;
    let path = f[4]
        .rsplit(' ')
        .next()
        .unwrap_or("")
        .trim_matches('"')
        .to_string();
    Some(Event::Request {
        status,
        path,
        latency: f[2].to_string(),
    })
}

/// A failure named anywhere on a line: ROCm errors, aborts, OOM, crashes, kills.
fn failure(t: &str) -> Option<Event> {
    let failures: [(&str, FailureKind); 6] = [
        ("ROCm error:", FailureKind::RocmError),
        ("SIGABRT", FailureKind::Abort),
        ("out of memory", FailureKind::Oom),
        ("hipErrorOutOfMemory", FailureKind::Oom),
        ("runner crashed", FailureKind::RunnerCrashed),
        ("Killed", FailureKind::Killed),
    ];
    let (_, kind) = failures
        .into_iter()
        .find(|(needle, _)| t.contains(needle))?;
    Some(Event::Failure {
        kind,
        detail: t.chars().take(200).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_prefixes() {
        assert_eq!(
            strip_prefix(
                " 3月 21 01:27:16 hbmx-mi25 ollama[358115]: load_tensors: offloaded 49/49 layers to GPU"
            ),
            "load_tensors: offloaded 49/49 layers to GPU"
        );
        assert_eq!(
            strip_prefix("Mar 23 20:20:18 hbmx-mi25 ollama[985202]: x"),
            "x"
        );
        let o = origin(
            r#" 3月 20 17:43:27 hbmx-mi25 ollama[195351]: time=2026-03-20T17:43:27.518+09:00 level=INFO source=device.go:240 msg="model weights" device=ROCm0 size="571.4 MiB""#,
        );
        assert_eq!(o.pid, Some(195351));
        assert_eq!(o.time.as_deref(), Some("2026-03-20T17:43:27.518+09:00"));
        let o = origin(
            " 3月 20 17:43:27 hbmx-mi25 ollama[195351]: load_tensors: offloaded 23/23 layers to GPU",
        );
        assert_eq!(o.time.as_deref(), Some("3月 20 17:43:27"));
        assert_eq!(
            origin("load_tensors: offloaded 23/23 layers to GPU"),
            Origin::default()
        );
        assert_eq!(
            strip_prefix("arr[3]: not a journal"),
            "arr[3]: not a journal"
        );
    }

    #[test]
    fn real_line_shapes() {
        let ic = r#"time=2026-03-20T19:57:42.657+09:00 level=INFO source=types.go:42 msg="inference compute" id=GPU-021501917da22884 filter_id="" library=ROCm compute=gfx900 name=ROCm0 description="Radeon Instinct MI25" libdirs=ollama driver=70226.1 pci_id=0000:03:00.0 type=discrete total="16.0 GiB" available="16.0 GiB""#;
        assert_eq!(
            parse(ic),
            Some(Event::InferenceCompute {
                library: "ROCm".into(),
                compute: "gfx900".into(),
                description: "Radeon Instinct MI25".into(),
                total: "16.0 GiB".into()
            })
        );
        let cpu = r#"time=… level=INFO source=types.go:60 msg="inference compute" id=cpu library=cpu compute="" name=cpu description=cpu"#;
        assert!(
            matches!(parse(cpu), Some(Event::InferenceCompute { library, .. }) if library == "cpu")
        );
        let lr = r#"time=… level=INFO source=runner.go:895 msg=load request="{Operation:commit LoraPath:[] Parallel:1 BatchSize:512 FlashAttention:Auto KvSize:4096 KvCacheType: NumThreads:4 GPULayers:49[ID:GPU-021501917da22884 Layers:49(0..48)] MultiUserCache:false}""#;
        assert_eq!(
            parse(lr),
            Some(Event::LoadRequest {
                gpu_layers: 49,
                num_threads: Some(4),
                batch_size: Some(512),
                kv_size: Some(4096),
                flash_attention: Some("Auto".into())
            })
        );
        assert!(matches!(
            parse(&lr.replace(
                "GPULayers:49[ID:GPU-021501917da22884 Layers:49(0..48)]",
                "GPULayers:[]"
            )),
            Some(Event::LoadRequest { gpu_layers: 0, .. })
        ));
        assert_eq!(
            parse("load_tensors: offloaded 23/23 layers to GPU"),
            Some(Event::Offloaded { layers: 23, of: 23 })
        );
        assert_eq!(
            parse("load_tensors:          CPU model buffer size =   606.53 MiB"),
            Some(Event::ModelBuffer {
                device: "CPU".into()
            })
        );
        assert_eq!(
            parse("load_tensors:   CPU_Mapped model buffer size =    35.16 MiB"),
            Some(Event::ModelBuffer {
                device: "CPU_Mapped".into()
            })
        );
        let dev = parse(
            "  Device 0: Radeon Instinct MI25, gfx900:xnack- (0x900), VMM: no, Wave Size: 64, ID: GPU-021501917da22884",
        );
        assert_eq!(
            dev,
            Some(Event::Device(GgmlDevice {
                index: 0,
                name: "Radeon Instinct MI25".into(),
                target: "gfx900:xnack-".into(),
                cc: "0x900".into(),
                wave_size: Some(64)
            }))
        );
        assert!(matches!(
            parse("rocBLAS error: Cannot read /opt/rocm-7.2.0/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx900"),
            Some(Event::Failure { kind: FailureKind::TensileLibraryMissing, detail }) if detail.ends_with("for gfx900")
        ));
        assert_eq!(
            parse(
                r#"[GIN] 2026/03/20 - 19:57:59 | 200 |   626.59536ms |       127.0.0.1 | POST     "/api/generate""#
            ),
            Some(Event::Request {
                status: 200,
                path: "/api/generate".into(),
                latency: "626.59536ms".into()
            })
        );
        assert!(matches!(
            parse(r#"time=… level=INFO msg="model weights" device=CPU size="571.4 MiB""#),
            Some(Event::Placement { device, .. }) if device == "CPU"
        ));
        assert!(matches!(
            parse(r#"time=… msg="gpu memory" id=GPU-0215 library=ROCm available="15.5 GiB""#),
            Some(Event::LibraryMention(l)) if l == "ROCm"
        ));
        assert!(matches!(
            parse("ROCm error: unspecified launch failure"),
            Some(Event::Failure {
                kind: FailureKind::RocmError,
                ..
            })
        ));
        assert_eq!(
            parse("load_backend: loaded ROCm backend from /x/libggml-hip.so"),
            Some(Event::Backend {
                kind: "ROCm".into(),
                path: "/x/libggml-hip.so".into()
            })
        );
        // Real lines of the MI25 journal `deepseek14b_journal_20260320_200442.log`.
        let cfg = r#"time=2026-03-20T20:04:42.553+09:00 level=INFO source=routes.go:1727 msg="server config" env="map[CUDA_VISIBLE_DEVICES: GGML_VK_VISIBLE_DEVICES: HIP_VISIBLE_DEVICES:0 HSA_OVERRIDE_GFX_VERSION:9.0.0 OLLAMA_FLASH_ATTENTION:false OLLAMA_HOST:http://127.0.0.1:11434 OLLAMA_KV_CACHE_TYPE: ROCR_VISIBLE_DEVICES: http_proxy:]""#;
        assert_eq!(
            parse(cfg),
            Some(Event::Env(vec![
                ("HIP_VISIBLE_DEVICES".into(), "0".into()),
                ("HSA_OVERRIDE_GFX_VERSION".into(), "9.0.0".into()),
                ("OLLAMA_FLASH_ATTENTION".into(), "false".into()),
            ]))
        );
        assert_eq!(
            parse(
                r#"time=2026-03-20T17:37:34.473+09:00 level=WARN source=runner.go:485 msg="user overrode visible devices" HSA_OVERRIDE_GFX_VERSION=9.0.0"#
            ),
            Some(Event::Env(vec![(
                "HSA_OVERRIDE_GFX_VERSION".into(),
                "9.0.0".into()
            )]))
        );
        assert_eq!(
            parse(
                r#"time=2026-03-20T20:04:42.555+09:00 level=INFO source=routes.go:1782 msg="Listening on 127.0.0.1:11434 (version 0.0.0)""#
            ),
            Some(Event::Version("0.0.0".into()))
        );
        assert_eq!(
            parse(
                "llama_model_load_from_file_impl: using device ROCm0 (Radeon Instinct MI25) (0000:03:00.0) - 16360 MiB free"
            ),
            Some(Event::UsingDevice("ROCm0".into()))
        );
    }
}
