//! A minimal static file server for previewing a built site on 127.0.0.1: GET and HEAD only,
//! one request per connection. It serves only regular files whose real path (symbolic links
//! resolved) lies inside the site folder, and answers only requests whose `Host` is the
//! loopback it listens on (`localhost`, `127.0.0.1`, `[::1]`, with or without its port), so a
//! web page elsewhere cannot read the preview through a rebound DNS name.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A site being served: its real root and the port it listens on.
#[derive(Debug, Clone)]
pub struct Site {
    root: PathBuf,
    port: u16,
}

impl Site {
    /// The site at `root` (resolved to its real path) served on `port`.
    pub fn new(root: &Path, port: u16) -> std::io::Result<Site> {
        Ok(Site {
            root: root.canonicalize()?,
            port,
        })
    }
}

/// The content type of a file, by extension.
pub fn content_type(p: &Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "txt" | "md" | "toml" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let h = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(h, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Maps a request target to a path under `root`; `None` for anything that would leave it by
/// name (`..`, absolute parts, encoded separators). Symbolic links are checked by [`file_for`].
pub fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode(path)?;
    if !decoded.starts_with('/') || decoded.contains('\0') || decoded.contains('\\') {
        return None;
    }
    let rel = Path::new(decoded.trim_start_matches('/'));
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return None;
    }
    let mut p = root.join(rel);
    if p.is_dir() {
        p = p.join("index.html");
    }
    Some(p)
}

/// The file to serve for `target`: a regular file whose real path (every symbolic link
/// resolved) is inside the site's real root; `None` otherwise (missing, a folder without
/// `index.html`, a device, or a link that leads out).
pub fn file_for(site: &Site, target: &str) -> Option<PathBuf> {
    let p = resolve(&site.root, target)?;
    let real = p.canonicalize().ok()?;
    if !real.starts_with(&site.root) {
        return None;
    }
    std::fs::metadata(&real)
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|_| real)
}

/// Whether a `Host` header names the loopback address the server listens on: `localhost`,
/// `127.0.0.1` or `[::1]`, without a port or with the server's own.
pub fn host_ok(host: Option<&str>, port: u16) -> bool {
    let Some(h) = host.map(str::trim) else {
        return false;
    };
    let (name, p) = match h.rsplit_once(':') {
        Some((n, p)) if !n.is_empty() && (n.ends_with(']') || !n.contains(':')) => (n, Some(p)),
        _ => (h, None),
    };
    let name_ok = ["localhost", "127.0.0.1", "[::1]"]
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n));
    name_ok && p.is_none_or(|p| p.parse::<u16>() == Ok(port))
}

fn respond(
    s: &mut TcpStream,
    status: &str,
    ctype: &str,
    body: &[u8],
    head: bool,
) -> std::io::Result<()> {
    let hdr = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(hdr.as_bytes())?;
    if !head {
        s.write_all(body)?;
    }
    s.flush()
}

/// Reads the request line and the `Host` header (headers bounded to 64 KiB).
fn read_request(s: &TcpStream) -> std::io::Result<(String, Option<String>)> {
    let mut r = BufReader::new(s.try_clone()?.take(64 * 1024));
    let mut line = String::new();
    r.read_line(&mut line)?;
    let mut host = None;
    loop {
        let mut h = String::new();
        let n = r.read_line(&mut h)?;
        if n == 0 || h == "\r\n" || h == "\n" {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.trim().eq_ignore_ascii_case("host") && host.is_none() {
                host = Some(v.trim().to_string());
            }
        }
    }
    Ok((line, host))
}

/// Answers one connection.
pub fn handle(site: &Site, mut s: TcpStream) -> std::io::Result<()> {
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    let (line, host) = read_request(&s)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let head = method == "HEAD";
    if method != "GET" && !head {
        return respond(
            &mut s,
            "405 Method Not Allowed",
            "text/plain",
            b"GET or HEAD only\n",
            false,
        );
    }
    if !host_ok(host.as_deref(), site.port) {
        return respond(
            &mut s,
            "421 Misdirected Request",
            "text/plain",
            b"this preview answers only to localhost, 127.0.0.1 or [::1]\n",
            head,
        );
    }
    if resolve(&site.root, target).is_none() {
        return respond(&mut s, "400 Bad Request", "text/plain", b"bad path\n", head);
    }
    match file_for(site, target).and_then(|p| std::fs::read(&p).ok().map(|b| (p, b))) {
        Some((p, body)) => respond(&mut s, "200 OK", content_type(&p), &body, head),
        None => respond(
            &mut s,
            "404 Not Found",
            "text/plain; charset=utf-8",
            b"not found\n",
            head,
        ),
    }
}

/// Serves `root` on `listener` until the process ends; each connection on its own thread.
pub fn serve(root: &Path, listener: TcpListener) -> std::io::Result<()> {
    serve_until(root, listener, &Arc::new(AtomicBool::new(false)))
}

/// Serves `root` on `listener` until `stop` is set (checked every 50 ms), so that the caller
/// can clean up (a temporary site folder) after Ctrl-C.
pub fn serve_until(
    root: &Path,
    listener: TcpListener,
    stop: &Arc<AtomicBool>,
) -> std::io::Result<()> {
    let site = Site::new(root, listener.local_addr()?.port())?;
    listener.set_nonblocking(true)?;
    while !stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((s, _)) => {
                s.set_nonblocking(false)?;
                let site = site.clone();
                std::thread::spawn(move || {
                    let _ = handle(&site, s);
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside() {
        let root = Path::new("/srv/site");
        assert_eq!(
            resolve(root, "/a/b.html?x=1"),
            Some(PathBuf::from("/srv/site/a/b.html"))
        );
        assert_eq!(
            resolve(root, "/%E6%A4%9C.html"),
            Some(PathBuf::from("/srv/site/検.html"))
        );
        for bad in [
            "/../etc/passwd",
            "/a/../../x",
            "/%2e%2e/x",
            "x",
            "/a%00b",
            "/a\\..\\b",
            "/%zz",
        ] {
            assert_eq!(resolve(root, bad), None, "{bad}");
        }
    }

    #[test]
    fn serves_files_over_loopback() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("index.html"), "<p>hi</p>").unwrap();
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let root = dir.path().to_path_buf();
        std::thread::spawn(move || serve(&root, l));
        let get = |path: &str| {
            let mut c = TcpStream::connect(addr).unwrap();
            write!(
                c,
                "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
                addr.port()
            )
            .unwrap();
            let mut s = String::new();
            std::io::Read::read_to_string(&mut c, &mut s).unwrap();
            s
        };
        let ok = get("/");
        assert!(
            ok.starts_with("HTTP/1.1 200") && ok.ends_with("<p>hi</p>"),
            "{ok}"
        );
        assert!(ok.contains("text/html"));
        assert!(get("/nope.html").starts_with("HTTP/1.1 404"));
        assert!(get("/../x").starts_with("HTTP/1.1 400"));
    }

    fn get(addr: std::net::SocketAddr, path: &str, host: Option<&str>) -> String {
        let mut c = TcpStream::connect(addr).unwrap();
        let host = host.map(|h| format!("Host: {h}\r\n")).unwrap_or_default();
        write!(c, "GET {path} HTTP/1.1\r\n{host}\r\n").unwrap();
        let mut s = String::new();
        std::io::Read::read_to_string(&mut c, &mut s).unwrap();
        s
    }

    /// A symbolic link inside the site that leads out of it, and a request from a page whose
    /// name was rebound to 127.0.0.1 (`Host: evil.example`): both were served before.
    #[test]
    fn links_out_and_foreign_hosts_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("index.html"), "<p>hi</p>").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("s.txt"))
            .unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("index.html"), dir.path().join("in.html"))
            .unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero")).unwrap();
        let fifo = dir.path().join("fifo.html");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let here = format!("127.0.0.1:{}", addr.port());
        let root = dir.path().to_path_buf();
        std::thread::spawn(move || serve(&root, l));
        assert!(get(addr, "/s.txt", Some(&here)).starts_with("HTTP/1.1 404"));
        assert!(get(addr, "/out/secret.txt", Some(&here)).starts_with("HTTP/1.1 404"));
        // Not regular files: never opened (a FIFO would hold the connection forever).
        assert!(get(addr, "/zero", Some(&here)).starts_with("HTTP/1.1 404"));
        assert!(get(addr, "/fifo.html", Some(&here)).starts_with("HTTP/1.1 404"));
        // A link that stays inside is a file of the site.
        assert!(get(addr, "/in.html", Some(&here)).ends_with("<p>hi</p>"));
        for bad in [
            Some("evil.example"),
            Some("evil.example:80"),
            Some("127.0.0.1:1"),
            None,
        ] {
            let r = get(addr, "/", bad);
            assert!(r.starts_with("HTTP/1.1 421"), "{bad:?}: {r}");
            assert!(!r.contains("<p>hi</p>"));
        }
        for good in ["localhost", "LOCALHOST", "[::1]"] {
            let h = format!("{good}:{}", addr.port());
            assert!(get(addr, "/", Some(&h)).starts_with("HTTP/1.1 200"), "{h}");
        }
        assert!(get(addr, "/", Some("127.0.0.1")).starts_with("HTTP/1.1 200"));
    }

    #[test]
    fn hosts() {
        assert!(host_ok(Some("127.0.0.1:8000"), 8000));
        assert!(host_ok(Some("[::1]:8000"), 8000));
        assert!(host_ok(Some("[::1]"), 8000));
        assert!(!host_ok(Some("::1"), 8000));
        assert!(!host_ok(Some("127.0.0.1:8001"), 8000));
        assert!(!host_ok(Some("127.0.0.1.nip.io:8000"), 8000));
        assert!(!host_ok(Some("localhost.evil:8000"), 8000));
        assert!(!host_ok(None, 8000));
    }
}
