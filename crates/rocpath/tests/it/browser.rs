#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The example evidence site in a real browser: Debian's headless Chromium, driven over the
//! DevTools protocol, opens the site that `bash examples/run.sh` builds, served by
//! `rocpath site serve` from a sub-path. Every page loads with no console error and no request
//! outside the site, every internal link (and anchor) resolves, the language switch changes
//! the text and is remembered across pages, search works, and a hostile log line stays text.
//! Screenshots of the index and of a case page are kept under `target/tmp/browser/`.
//!
//! Needs `chromium` (`.ci/run` installs it); without it the test skips, except under CI
//! (`CI` set), where it fails.

use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tungstenite::{Message, WebSocket, stream::MaybeTlsStream};

const BIN: &str = env!("CARGO_BIN_EXE_rocpath");

fn chromium() -> Option<PathBuf> {
    for c in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] {
        if Path::new(c).exists() {
            return Some(PathBuf::from(c));
        }
    }
    rocpath_testdata::missing(
        "chromium not installed (apt-get install chromium; .ci/run installs it for this test)",
    );
    None
}

/// Names that stay as they are in Japanese text (tools, libraries, runtimes).
const NAMES: &[&str] = &[
    "rocpath",
    "rocm",
    "rocblas",
    "hipblaslt",
    "miopen",
    "tensile",
    "ollama",
    "llama",
    "ggml",
    "hipcc",
    "clang",
    "rocprof",
    "rocprofv",
];

/// The layout of a page as text: each visible heading of `main` (level, text, the left edge
/// of its box rounded to 10 px), then how many tables and figures it holds.
const LAYOUT_JS: &str = r#"(() => {
  const r = x => Math.round(x / 10) * 10;
  const out = [];
  for (const h of document.querySelectorAll('main h1, main h2, main h3')) {
    if (h.offsetParent === null) continue;
    const b = h.getBoundingClientRect();
    out.push(h.tagName.toLowerCase() + ' x=' + r(b.left) + ' ' + h.innerText.trim().replace(/\s+/g, ' '));
  }
  const visible = sel => Array.from(document.querySelectorAll(sel)).filter(e => e.offsetParent !== null).length;
  out.push('tables=' + visible('main table') + ' figures=' + visible('main svg, main figure'));
  return out.join('\n');
})()"#;

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A minimal DevTools-protocol client over one browser websocket (flattened sessions).
struct Cdp {
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    next: u64,
    events: Vec<Value>,
}

impl Cdp {
    fn send(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        self.ws.send(Message::text(msg.to_string())).unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            assert!(Instant::now() < deadline, "no answer to {method}");
            let m = match self.ws.read() {
                Ok(m) => m,
                // A signal interrupts a read; it is read again.
                Err(tungstenite::Error::Io(e)) if e.kind() == std::io::ErrorKind::Interrupted => {
                    continue;
                }
                Err(e) => panic!("websocket: {e}"),
            };
            let Message::Text(t) = m else { continue };
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v.get("id").and_then(Value::as_u64) == Some(id) {
                if let Some(e) = v.get("error") {
                    panic!("{method}: {e}");
                }
                return v["result"].clone();
            }
            self.events.push(v);
        }
    }

    /// Reads events until `method` arrives (or the timeout).
    fn wait_for(&mut self, method: &str, timeout: Duration) -> bool {
        if self.events.iter().any(|e| e["method"] == method) {
            return true;
        }
        let deadline = Instant::now() + timeout;
        let stream = self.ws.get_ref();
        if let MaybeTlsStream::Plain(s) = stream {
            s.set_read_timeout(Some(Duration::from_millis(200)))
                .unwrap();
        }
        let mut found = false;
        while Instant::now() < deadline {
            match self.ws.read() {
                Ok(Message::Text(t)) => {
                    let v: Value = serde_json::from_str(t.as_str()).unwrap();
                    found = v["method"] == method;
                    self.events.push(v);
                    if found {
                        break;
                    }
                }
                Ok(_) => {}
                // A read timeout ends a wait; a signal (a child browser process changing state)
                // interrupts a read, which is read again.
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock
                            | std::io::ErrorKind::TimedOut
                            | std::io::ErrorKind::Interrupted
                    ) => {}
                Err(e) => panic!("websocket: {e}"),
            }
        }
        if let MaybeTlsStream::Plain(s) = self.ws.get_ref() {
            s.set_read_timeout(None).unwrap();
        }
        found
    }

    fn eval(&mut self, session: &str, expr: &str) -> Value {
        let r = self.send(
            Some(session),
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
        );
        if let Some(ex) = r.get("exceptionDetails") {
            panic!("{expr}: {ex}");
        }
        r["result"]["value"].clone()
    }

    /// Loads a URL and returns the problems seen while loading it.
    fn load(&mut self, session: &str, url: &str, origin: &str) -> Vec<String> {
        self.events.clear();
        self.send(Some(session), "Page.navigate", json!({"url": url}));
        assert!(
            self.wait_for("Page.loadEventFired", Duration::from_secs(30)),
            "{url} did not load"
        );
        // Let DOMContentLoaded handlers and late console messages arrive.
        self.wait_for("never.arrives", Duration::from_millis(150));
        let mut problems = Vec::new();
        for e in &self.events {
            let p = &e["params"];
            match e["method"].as_str().unwrap_or("") {
                "Runtime.exceptionThrown" => {
                    problems.push(format!("exception: {}", p["exceptionDetails"]))
                }
                "Runtime.consoleAPICalled"
                    if matches!(p["type"].as_str(), Some("error" | "assert" | "warning")) =>
                {
                    problems.push(format!("console.{}: {}", p["type"], p["args"]))
                }
                "Log.entryAdded"
                    if matches!(p["entry"]["level"].as_str(), Some("error" | "warning")) =>
                {
                    problems.push(format!("log: {}", p["entry"]["text"]))
                }
                "Network.requestWillBeSent" => {
                    let u = p["request"]["url"].as_str().unwrap_or("");
                    if !u.starts_with(origin) && !u.starts_with("data:") {
                        problems.push(format!("request outside the site: {u}"));
                    }
                }
                "Network.responseReceived" => {
                    let s = p["response"]["status"].as_u64().unwrap_or(0);
                    if s >= 400 {
                        problems.push(format!("HTTP {s}: {}", p["response"]["url"]));
                    }
                }
                "Network.loadingFailed" => {
                    problems.push(format!("load failed: {}", p["errorText"]))
                }
                "Page.javascriptDialogOpening" => {
                    problems.push(format!("dialog opened: {}", p["message"]))
                }
                _ => {}
            }
        }
        problems
    }

    fn screenshot(&mut self, session: &str, to: &Path) {
        let r = self.send(
            Some(session),
            "Page.captureScreenshot",
            json!({"format": "png"}),
        );
        let png = base64_decode(r["data"].as_str().unwrap());
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::write(to, png).unwrap();
    }
}

fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("bad base64 {c}"),
    };
    let bytes: Vec<u8> = s
        .bytes()
        .filter(|&c| c != b'=' && !c.is_ascii_whitespace())
        .collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let v: Vec<u32> = chunk.iter().map(|&c| u32::from(val(c))).collect();
        let n = v.iter().fold(0u32, |a, x| (a << 6) | x) << (6 * (4 - v.len()));
        let b = n.to_be_bytes();
        out.extend_from_slice(&b[1..v.len()]);
    }
    out
}

fn start_browser(exe: &Path, profile: &Path) -> (Killed, Cdp) {
    let mut child = Command::new(exe)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--remote-debugging-port=0",
            "--window-size=1280,1600",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(i) = line.find("ws://") {
                let _ = tx.send(line[i..].trim().to_string());
            }
        }
    });
    let ws_url = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("chromium did not print its DevTools address");
    let (ws, _) = tungstenite::connect(ws_url.as_str()).unwrap();
    (
        Killed(child),
        Cdp {
            ws,
            next: 0,
            events: Vec::new(),
        },
    )
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

fn serve(dir: &Path) -> (Killed, String) {
    let mut child = Command::new(BIN)
        .args(["site", "serve", "--port", "0"])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .expect(&line)
        .to_string();
    (Killed(child), url)
}

/// A ledger whose case rests on a hostile log line.
fn hostile_site(dir: &Path) -> PathBuf {
    let ledger = dir.join("hostile-ledger");
    assert!(
        Command::new(BIN)
            .args(["ledger", "init"])
            .arg(&ledger)
            .status()
            .unwrap()
            .success()
    );
    std::fs::write(
        dir.join("x.log"),
        "ok\nMIOpen Error: <script>alert(1)</script><img src=x onerror=alert(2)>\n",
    )
    .unwrap();
    let doc = json!({
        "schema": "rocpath.case/1",
        "observed": {"tool": "rocpath", "version": "0", "command": "rocpath --json case read x.log", "time": "t", "host": "h", "schema": "rocpath.case/1"},
        "case": "hostile", "forced": null, "outcome": "runtime_abort",
        "errors": [{"message": "<script>alert(3)</script>", "evidence": {"class": "confirmed", "kind": "runtime_verified", "rule": "case.error",
                    "sources": [{"path": "x.log", "line": 2}]}}]
    });
    std::fs::write(dir.join("x.json"), doc.to_string()).unwrap();
    assert!(
        Command::new(BIN)
            .current_dir(dir)
            .args(["ledger", "import"])
            .arg(&ledger)
            .arg("x.json")
            .args(["--as", "hostile"])
            .status()
            .unwrap()
            .success()
    );
    let site = dir.join("hostile-site");
    assert!(
        Command::new(BIN)
            .args(["site", "build"])
            .arg(&ledger)
            .arg("-o")
            .arg(&site)
            .status()
            .unwrap()
            .success()
    );
    site
}

#[test]
fn example_site_in_headless_chromium() {
    let Some(exe) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let repo = rocpath_testdata::repo_root();
    let out = tmp.path().join("example-out");
    let st = Command::new("bash")
        .arg(repo.join("examples/run.sh"))
        .arg(&out)
        .env("ROCPATH", BIN)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "examples/run.sh failed");

    // Served from a sub-path, as on a project page.
    let www = tmp.path().join("www");
    copy_dir(&out.join("site"), &www.join("pages/rocpath/site"));
    copy_dir(&hostile_site(tmp.path()), &www.join("hostile"));
    std::fs::write(www.join("index.html"), "<!doctype html><title>root</title>").unwrap();
    let (_server, base) = serve(&www);
    let origin = base.trim_end_matches('/').to_string();
    let site = format!("{origin}/pages/rocpath/site/");

    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser");
    std::fs::create_dir_all(&shots).unwrap();
    let (_browser, mut cdp) = start_browser(&exe, &tmp.path().join("profile"));
    let target = cdp.send(None, "Target.createTarget", json!({"url": "about:blank"}));
    let attached = cdp.send(
        None,
        "Target.attachToTarget",
        json!({"targetId": target["targetId"], "flatten": true}),
    );
    let s = attached["sessionId"].as_str().unwrap().to_string();
    for m in [
        "Runtime.enable",
        "Log.enable",
        "Page.enable",
        "Network.enable",
    ] {
        cdp.send(Some(&s), m, json!({}));
    }
    cdp.send(
        Some(&s),
        "Emulation.setDeviceMetricsOverride",
        json!({"width": 1280, "height": 1600, "deviceScaleFactor": 1, "mobile": false}),
    );

    // Crawl every page reachable from the index; record anchors to check afterwards.
    let mut queue = VecDeque::from([format!("{site}index.html")]);
    let mut seen = BTreeSet::new();
    let mut ids: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut fragments: Vec<(String, String, String)> = Vec::new();
    let mut failures = Vec::new();
    while let Some(url) = queue.pop_front() {
        if !seen.insert(url.clone()) {
            continue;
        }
        for p in cdp.load(&s, &url, &origin) {
            // For a raw JSON file the browser asks the server root for a favicon itself; pages
            // declare theirs inline and never do.
            if !url.ends_with(".html") && (p.contains("favicon.ico") || p.contains("status of 404"))
            {
                continue;
            }
            failures.push(format!("{url}: {p}"));
        }
        if !url.ends_with(".html") {
            continue;
        }
        let page_ids: Vec<String> = serde_json::from_value(cdp.eval(
            &s,
            "Array.from(document.querySelectorAll('[id]')).map(e => e.id)",
        ))
        .unwrap();
        ids.insert(url.clone(), page_ids.into_iter().collect());
        let links: Vec<String> = serde_json::from_value(cdp.eval(
            &s,
            "Array.from(document.querySelectorAll('a[href]')).map(a => a.href)",
        ))
        .unwrap();
        for l in links {
            assert!(l.starts_with(&site), "{url}: link leaves the site: {l}");
            let (page, frag) = l.split_once('#').unwrap_or((&l, ""));
            let page = page.split('?').next().unwrap().to_string();
            if !frag.is_empty() {
                fragments.push((url.clone(), page.clone(), frag.to_string()));
            }
            queue.push_back(page);
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(seen.len() > 30, "only {} pages reached", seen.len());
    for (from, page, frag) in &fragments {
        assert!(
            ids.get(page).is_some_and(|i| i.contains(frag)),
            "{from}: #{frag} not found in {page}"
        );
    }

    // The language switch changes the text and is remembered on other pages.
    assert!(
        cdp.load(&s, &format!("{site}index.html"), &origin)
            .is_empty()
    );
    let text = |cdp: &mut Cdp| {
        cdp.eval(&s, "document.querySelector('main h2').innerText")
            .as_str()
            .unwrap()
            .to_string()
    };
    cdp.eval(&s, "document.querySelector('[data-set-lang=ja]').click()");
    let japanese = |t: &str| {
        t.chars().any(|c| {
            ('\u{3040}'..='\u{30ff}').contains(&c) || ('\u{4e00}'..='\u{9fff}').contains(&c)
        })
    };
    let ja = text(&mut cdp);
    assert!(japanese(&ja), "{ja}");
    cdp.screenshot(&s, &shots.join("index-ja.png"));
    cdp.eval(&s, "document.querySelector('[data-set-lang=en]').click()");
    let en = text(&mut cdp);
    assert_ne!(ja, en);
    assert!(!japanese(&en) && en.contains("evidence classes"), "{en}");
    assert_eq!(cdp.eval(&s, "document.documentElement.lang"), "en");
    cdp.screenshot(&s, &shots.join("index-en.png"));
    assert!(
        cdp.load(&s, &format!("{site}stack.html"), &origin)
            .is_empty()
    );
    assert_eq!(cdp.eval(&s, "document.documentElement.dataset.lang"), "en");
    assert!(
        cdp.eval(&s, "document.title")
            .as_str()
            .unwrap()
            .contains("Stack map")
    );

    // A case page, in both languages.
    let case = format!("{site}cases/example-install-gfx900.html");
    assert!(cdp.load(&s, &case, &origin).is_empty());
    assert!(
        cdp.eval(&s, "document.body.innerText")
            .as_str()
            .unwrap()
            .contains("Interpretation")
    );
    cdp.screenshot(&s, &shots.join("case-en.png"));
    cdp.eval(&s, "document.querySelector('[data-set-lang=ja]').click()");
    assert!(
        cdp.eval(&s, "document.body.innerText")
            .as_str()
            .unwrap()
            .contains("現時点での知見")
    );
    cdp.screenshot(&s, &shots.join("case-ja.png"));

    // Offline search.
    assert!(
        cdp.load(&s, &format!("{site}search.html?q=gfx900"), &origin)
            .is_empty()
    );
    let n = cdp
        .eval(
            &s,
            "document.querySelectorAll('[data-search-results] li').length",
        )
        .as_u64()
        .unwrap();
    assert!(n >= 4, "{n} results");

    // The hostile log line is shown as text and runs nothing.
    let hostile = format!("{origin}/hostile/cases/hostile.html");
    let problems = cdp.load(&s, &hostile, &origin);
    assert!(problems.is_empty(), "{problems:#?}");
    let raw = cdp
        .eval(&s, "document.querySelector('.raw').innerText")
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        raw.contains("<script>alert(1)</script><img src=x onerror=alert(2)>"),
        "{raw}"
    );
    assert_eq!(
        cdp.eval(
            &s,
            "document.querySelectorAll('main script, main img').length"
        ),
        0
    );
    cdp.screenshot(&s, &shots.join("case-hostile.png"));

    // The four page kinds in both languages: each fits 1280 px without scrolling sideways,
    // a Japanese view's headings are Japanese, and its layout — the headings, their level,
    // their text and where their column starts — matches the snapshot (a screenshot of each
    // is kept beside the others). Positions are rounded to 10 px and no width is compared, so
    // another font's metrics do not change the snapshot; a layout change does.
    let pages = [
        "index.html",
        "worlds/gfx900.html",
        "cases/example-install-gfx900.html",
        "claims/gfx900-dot-i8-fma-fallback.html",
    ];
    for lang in ["en", "ja"] {
        assert!(
            cdp.load(&s, &format!("{site}index.html"), &origin)
                .is_empty()
        );
        cdp.eval(
            &s,
            &format!("document.querySelector('[data-set-lang={lang}]').click()"),
        );
        for page in pages {
            let problems = cdp.load(&s, &format!("{site}{page}"), &origin);
            assert!(problems.is_empty(), "{page}: {problems:#?}");
            let name = format!(
                "{}-{lang}",
                page.trim_end_matches(".html").replace('/', "-")
            );
            cdp.screenshot(&s, &shots.join(format!("{name}.png")));
            let wide = cdp.eval(
                &s,
                "document.documentElement.scrollWidth - document.documentElement.clientWidth",
            );
            assert_eq!(wide.as_i64(), Some(0), "{page} ({lang}) scrolls sideways");
            let layout = cdp.eval(&s, LAYOUT_JS).as_str().unwrap_or("").to_string();
            if lang == "ja" {
                // A heading of the Japanese view has no English word (names of GPUs, products
                // and files — `gfx900`, `Vega`, `MI25` — are not words).
                for line in layout.lines().filter(|l| l.starts_with('h')) {
                    let text = line.splitn(3, ' ').nth(2).unwrap_or("");
                    let english: Vec<&str> = text
                        .split(|c: char| !c.is_ascii_alphabetic())
                        .filter(|w| w.len() >= 4 && w.bytes().all(|b| b.is_ascii_lowercase()))
                        .filter(|w| !NAMES.contains(w))
                        .collect();
                    assert!(
                        english.is_empty(),
                        "{page}: English in a heading of the Japanese view: {line}"
                    );
                }
            }
            insta::assert_snapshot!(format!("browser_layout_{}", name.replace('-', "_")), layout);
        }
    }
    #[allow(clippy::print_stderr)]
    {
        eprintln!(
            "browser: {} pages, {} anchors checked; screenshots in {}",
            seen.len(),
            fragments.len(),
            shots.display()
        );
    }
}
