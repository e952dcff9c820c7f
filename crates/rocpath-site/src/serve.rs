//! A minimal static file server for previewing a built site on 127.0.0.1: GET and HEAD only,
//! one request per connection, paths confined to the site folder.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

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

/// Maps a request target to a file under `root`; `None` for anything that would leave it.
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

/// Answers one connection.
pub fn handle(root: &Path, mut s: TcpStream) -> std::io::Result<()> {
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut r = BufReader::new(s.try_clone()?);
    let mut line = String::new();
    r.read_line(&mut line)?;
    // Headers are read and ignored (bounded).
    let mut total = 0;
    loop {
        let mut h = String::new();
        let n = r.read_line(&mut h)?;
        total += n;
        if n == 0 || h == "\r\n" || h == "\n" || total > 64 * 1024 {
            break;
        }
    }
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
    let Some(p) = resolve(root, target) else {
        return respond(&mut s, "400 Bad Request", "text/plain", b"bad path\n", head);
    };
    match std::fs::read(&p) {
        Ok(body) => respond(&mut s, "200 OK", content_type(&p), &body, head),
        Err(_) => respond(
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
    for conn in listener.incoming() {
        let Ok(s) = conn else { continue };
        let root = root.to_path_buf();
        std::thread::spawn(move || {
            let _ = handle(&root, s);
        });
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
            write!(c, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
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
}
