//! A streaming client for Ollama's `/api/generate` (plain HTTP with `ureq`; the endpoint is a
//! local server or an SSH tunnel). Every line is written to a capture file as it arrives, as
//! `<ns since the request started>\t<json>`, the format the research workflow's stream probes
//! used, and read back with `rocpath-ollama`'s stream reader.

use rocpath_ollama::generate::{self, Document};
use serde_json::{Map, Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Why a request failed. The capture file keeps every line that arrived before.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The capture file could not be written.
    #[error("{}: {error}", path.display())]
    Capture {
        /// The capture file.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// The request could not be sent, or the server answered with an HTTP error.
    #[error("{url}: {error}")]
    Http {
        /// The endpoint.
        url: String,
        /// The error.
        error: Box<ureq::Error>,
    },
    /// The stream broke off.
    #[error("{url}: {error}")]
    Stream {
        /// The endpoint.
        url: String,
        /// The error.
        error: std::io::Error,
    },
    /// Nothing that parses as JSON arrived.
    #[error("{url}: no response line")]
    NoResponse {
        /// The endpoint.
        url: String,
    },
    /// The server answered `{"error": …}`.
    #[error("{url}: {message}")]
    Server {
        /// The endpoint.
        url: String,
        /// Its message.
        message: String,
    },
}

/// One request.
#[derive(Debug, Clone)]
pub struct Request {
    /// Endpoint base (`http://127.0.0.1:11434`).
    pub url: String,
    /// Model.
    pub model: String,
    /// Prompt.
    pub prompt: String,
    /// Options.
    pub options: Map<String, Value>,
    /// `keep_alive`.
    pub keep_alive: Option<String>,
    /// Timeout for the whole request.
    pub timeout: Duration,
}

/// Sends the request with `stream: true`, captures the stream to `capture`, and returns the
/// final response object with `ttft_ms`, `wall_s` and a `_meta` object (chunks, first-token
/// channel) added. An HTTP or transport error, or an `{"error": …}` line, is an `Err`.
pub fn generate(req: &Request, capture: &Path) -> Result<Value, ClientError> {
    let url = format!("{}/api/generate", req.url.trim_end_matches('/'));
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(req.timeout))
        .build()
        .into();
    let mut out = std::fs::File::create(capture).map_err(capture_error(capture))?;
    let start = Instant::now();
    let resp = agent
        .post(&url)
        .header("Content-Type", "application/json")
        .send(body(req).to_string().as_bytes())
        .map_err(|e| ClientError::Http {
            url: url.clone(),
            error: Box::new(e),
        })?;
    let text = stream(resp, &mut out, start, &url, capture)?;
    let wall = start.elapsed().as_secs_f64();
    out.flush().map_err(capture_error(capture))?;
    let final_obj = text
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str::<Value>(l.split_once('\t').map_or(l, |x| x.1)).ok());
    let Some(mut fin) = final_obj else {
        return Err(ClientError::NoResponse { url });
    };
    if let Some(e) = fin.get("error").and_then(Value::as_str) {
        return Err(ClientError::Server {
            message: e.to_string(),
            url,
        });
    }
    let (ttft, channel, chunks) = match generate::parse(&text, Some(0)) {
        Document::Stream(st, _) => (st.ttft_ms, st.first_token_channel, st.chunks),
        _ => (None, generate::Channel::None, 0),
    };
    if let Some(o) = fin.as_object_mut() {
        o.insert("ttft_ms".into(), json!(ttft));
        o.insert("wall_s".into(), json!(wall));
        o.insert(
            "_meta".into(),
            json!({"ttft_ms": ttft, "wall_s": wall, "first_token_channel": channel, "chunks": chunks, "url": url}),
        );
    }
    Ok(fin)
}

fn capture_error(capture: &Path) -> impl Fn(std::io::Error) -> ClientError + '_ {
    move |error| ClientError::Capture {
        path: capture.to_path_buf(),
        error,
    }
}

/// The request body.
fn body(req: &Request) -> Value {
    let mut body = json!({
        "model": req.model,
        "prompt": req.prompt,
        "stream": true,
        "options": Value::Object(req.options.clone()),
    });
    if let (Some(k), Some(o)) = (&req.keep_alive, body.as_object_mut()) {
        o.insert("keep_alive".into(), json!(k));
    }
    body
}

/// Copies the stream's lines to the capture as they arrive (`<ns>\t<json>`); returns what
/// was captured.
fn stream(
    resp: ureq::http::Response<ureq::Body>,
    out: &mut std::fs::File,
    start: Instant,
    url: &str,
    capture: &Path,
) -> Result<String, ClientError> {
    let reader = BufReader::new(resp.into_body().into_reader());
    let mut text = String::new();
    for line in reader.lines() {
        let line = line.map_err(|error| ClientError::Stream {
            url: url.to_string(),
            error,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let ns = start.elapsed().as_nanos();
        let row = format!("{ns}\t{line}\n");
        out.write_all(row.as_bytes())
            .map_err(capture_error(capture))?;
        text.push_str(&row);
    }
    Ok(text)
}
