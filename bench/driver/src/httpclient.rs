//! A lean HTTP/1.1 client for the Streamable HTTP workloads: one keep-alive
//! connection per simulated client, each request written with one write,
//! each response parsed in place (a `Content-Length` or chunked body;
//! `application/json` or `text/event-stream`), and every JSON-RPC message in
//! it checked as the stdio driver checks lines.
//!
//! No HTTP library on purpose: the client shares the machine's cores with
//! the server, so it does as little as it can (the report gives its CPU per
//! call next to the servers').

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::load::{Error, Line, PROTOCOL_VERSION, Template, classify, preview};

/// The largest response head the client accepts.
const MAX_HEAD: usize = 64 * 1024;

/// What a response body holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BodyKind {
    /// `application/json`: one JSON-RPC message.
    Json,
    /// `text/event-stream`: JSON-RPC messages in the `data` of SSE events.
    EventStream,
    /// Anything else (or no body).
    Other,
}

/// A response's status line and the headers the driver uses; its body is in
/// [`HttpConn::body`].
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub kind: BodyKind,
    pub session: Option<String>,
    /// The server will close the connection after this response.
    pub close: bool,
}

/// One client: a keep-alive connection and its MCP session.
pub struct HttpConn {
    addr: SocketAddr,
    host: String,
    stream: Option<TcpStream>,
    rbuf: Vec<u8>,
    rpos: usize,
    wbuf: Vec<u8>,
    jbuf: Vec<u8>,
    data: Vec<u8>,
    /// The body of the last response (chunked encoding removed).
    pub body: Vec<u8>,
    /// The `Mcp-Session-Id` sent with every request (stateful servers).
    pub session: Option<String>,
    /// The `MCP-Protocol-Version` sent once initialized (with every
    /// request, in the 2026-07-28 era).
    pub protocol: Option<String>,
    /// More header lines sent with every request (each ending in CRLF):
    /// `Mcp-Method` and `Mcp-Name` in the 2026-07-28 era.
    extra_headers: Vec<u8>,
    next_id: u64,
    /// Connections opened again after the server closed one.
    pub reconnects: u64,
}

async fn open(addr: SocketAddr) -> std::io::Result<TcpStream> {
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn io_error(what: &str, e: std::io::Error) -> Error {
    format!("{what}: {e}")
}

/// Calls `each` with every JSON-RPC message of a body.
pub fn messages(
    kind: BodyKind,
    body: &[u8],
    data: &mut Vec<u8>,
    mut each: impl FnMut(&[u8]) -> Result<(), Error>,
) -> Result<(), Error> {
    match kind {
        BodyKind::Json => {
            if body.iter().all(u8::is_ascii_whitespace) {
                return Ok(());
            }
            each(body)
        }
        BodyKind::EventStream => {
            // Events end at an empty line; `data:` lines of one event join
            // with "\n"; other fields (id, event, retry) are ignored.
            data.clear();
            let mut has_data = false;
            for line in body.split(|&b| b == b'\n') {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if line.is_empty() {
                    if has_data && !data.iter().all(u8::is_ascii_whitespace) {
                        each(data)?;
                    }
                    data.clear();
                    has_data = false;
                } else if let Some(value) = line.strip_prefix(b"data:") {
                    let value = value.strip_prefix(b" ").unwrap_or(value);
                    if has_data {
                        data.push(b'\n');
                    }
                    data.extend_from_slice(value);
                    has_data = true;
                }
            }
            if has_data && !data.iter().all(u8::is_ascii_whitespace) {
                each(data)?;
            }
            Ok(())
        }
        BodyKind::Other => Err(format!(
            "a body that is neither application/json nor text/event-stream: {}",
            preview(body, 200)
        )),
    }
}

impl HttpConn {
    /// Opens a connection to `addr` (TCP_NODELAY on).
    pub async fn connect(addr: SocketAddr) -> Result<HttpConn, Error> {
        let stream = open(addr)
            .await
            .map_err(|e| io_error("connecting to the server", e))?;
        Ok(HttpConn {
            addr,
            host: addr.to_string(),
            stream: Some(stream),
            rbuf: Vec::with_capacity(64 * 1024),
            rpos: 0,
            wbuf: Vec::with_capacity(4096),
            jbuf: Vec::with_capacity(1024),
            data: Vec::with_capacity(1024),
            body: Vec::with_capacity(4096),
            session: None,
            protocol: None,
            extra_headers: Vec::new(),
            next_id: 1,
            reconnects: 0,
        })
    }

    /// Writes `POST /mcp` with `jbuf` as its body and reads the response.
    /// `session` overrides the connection's session id.
    async fn post(&mut self, session: Option<&str>) -> Result<Response, Error> {
        if self.stream.is_none() {
            self.stream = Some(
                open(self.addr)
                    .await
                    .map_err(|e| io_error("reconnecting to the server", e))?,
            );
            self.reconnects += 1;
            self.rbuf.clear();
            self.rpos = 0;
        }
        let w = &mut self.wbuf;
        w.clear();
        w.extend_from_slice(b"POST /mcp HTTP/1.1\r\nHost: ");
        w.extend_from_slice(self.host.as_bytes());
        w.extend_from_slice(
            b"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n",
        );
        if let Some(id) = session.or(self.session.as_deref()) {
            w.extend_from_slice(b"Mcp-Session-Id: ");
            w.extend_from_slice(id.as_bytes());
            w.extend_from_slice(b"\r\n");
        }
        if let Some(version) = &self.protocol {
            w.extend_from_slice(b"MCP-Protocol-Version: ");
            w.extend_from_slice(version.as_bytes());
            w.extend_from_slice(b"\r\n");
        }
        w.extend_from_slice(&self.extra_headers);
        w.extend_from_slice(b"Content-Length: ");
        w.extend_from_slice(self.jbuf.len().to_string().as_bytes());
        w.extend_from_slice(b"\r\n\r\n");
        w.extend_from_slice(&self.jbuf);
        let stream = self.stream.as_mut().ok_or("no connection")?;
        if let Err(e) = stream.write_all(&self.wbuf).await {
            self.stream = None;
            return Err(io_error("writing the request", e));
        }
        match self.read_response().await {
            Ok(response) => {
                if response.close {
                    self.stream = None;
                }
                Ok(response)
            }
            Err(e) => {
                self.stream = None;
                Err(e)
            }
        }
    }

    /// Reads more of the response; EOF is an error.
    async fn fill(&mut self) -> Result<(), Error> {
        if self.rpos > 0 && self.rpos == self.rbuf.len() {
            self.rbuf.clear();
            self.rpos = 0;
        } else if self.rpos > 0 && self.rpos >= self.rbuf.capacity() / 2 {
            self.rbuf.drain(..self.rpos);
            self.rpos = 0;
        }
        self.rbuf.reserve(64 * 1024);
        let stream = self.stream.as_mut().ok_or("no connection")?;
        match stream.read_buf(&mut self.rbuf).await {
            Ok(0) => Err("the server closed the connection mid-response".into()),
            Ok(_) => Ok(()),
            Err(e) => Err(io_error("reading the response", e)),
        }
    }

    async fn need(&mut self, n: usize) -> Result<(), Error> {
        while self.rbuf.len() - self.rpos < n {
            self.fill().await?;
        }
        Ok(())
    }

    async fn read_response(&mut self) -> Result<Response, Error> {
        loop {
            let end = loop {
                if let Some(i) = find(&self.rbuf[self.rpos..], b"\r\n\r\n") {
                    break self.rpos + i + 4;
                }
                if self.rbuf.len() - self.rpos > MAX_HEAD {
                    return Err("a response head over 64 KiB".into());
                }
                self.fill().await?;
            };
            let head = std::str::from_utf8(&self.rbuf[self.rpos..end])
                .map_err(|_| "a response head that is not UTF-8".to_string())?;
            let mut lines = head.split("\r\n");
            let status_line = lines.next().unwrap_or("");
            let status: u16 = status_line
                .split(' ')
                .nth(1)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| format!("not an HTTP status line: {status_line:?}"))?;
            let mut length = None;
            let mut chunked = false;
            let mut kind = BodyKind::Other;
            let mut session = None;
            let mut close = status_line.starts_with("HTTP/1.0");
            for line in lines {
                let Some((name, value)) = line.split_once(':') else {
                    continue;
                };
                let value = value.trim();
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.parse::<usize>().ok();
                } else if name.eq_ignore_ascii_case("transfer-encoding") {
                    chunked = value.to_ascii_lowercase().contains("chunked");
                } else if name.eq_ignore_ascii_case("content-type") {
                    let essence = value.split(';').next().unwrap_or("").trim();
                    if essence.eq_ignore_ascii_case("application/json") {
                        kind = BodyKind::Json;
                    } else if essence.eq_ignore_ascii_case("text/event-stream") {
                        kind = BodyKind::EventStream;
                    }
                } else if name.eq_ignore_ascii_case("mcp-session-id") {
                    session = Some(value.to_string());
                } else if name.eq_ignore_ascii_case("connection") {
                    close = value.eq_ignore_ascii_case("close");
                }
            }
            self.rpos = end;
            self.body.clear();
            if (100..200).contains(&status) {
                continue; // an interim response: the real one follows
            }
            if status == 204 || status == 304 {
                // no body
            } else if chunked {
                loop {
                    let line_end = loop {
                        if let Some(i) = self.rbuf[self.rpos..].iter().position(|&b| b == b'\n') {
                            break self.rpos + i + 1;
                        }
                        self.fill().await?;
                    };
                    let line = std::str::from_utf8(&self.rbuf[self.rpos..line_end])
                        .map_err(|_| "a chunk size that is not UTF-8".to_string())?;
                    let size_text = line.split(';').next().unwrap_or("").trim();
                    let size = usize::from_str_radix(size_text, 16)
                        .map_err(|_| format!("a bad chunk size line: {line:?}"))?;
                    self.rpos = line_end;
                    if size == 0 {
                        // Trailers, if any, end with an empty line.
                        loop {
                            let line_end = loop {
                                if let Some(i) =
                                    self.rbuf[self.rpos..].iter().position(|&b| b == b'\n')
                                {
                                    break self.rpos + i + 1;
                                }
                                self.fill().await?;
                            };
                            let empty = line_end - self.rpos <= 2;
                            self.rpos = line_end;
                            if empty {
                                break;
                            }
                        }
                        break;
                    }
                    self.need(size + 2).await?;
                    self.body
                        .extend_from_slice(&self.rbuf[self.rpos..self.rpos + size]);
                    self.rpos += size + 2;
                }
            } else if let Some(n) = length {
                self.need(n).await?;
                self.body
                    .extend_from_slice(&self.rbuf[self.rpos..self.rpos + n]);
                self.rpos += n;
            } else {
                // Delimited by the end of the connection.
                let stream = self.stream.as_mut().ok_or("no connection")?;
                let mut rest = self.rbuf.split_off(self.rpos);
                stream
                    .read_to_end(&mut rest)
                    .await
                    .map_err(|e| io_error("reading the response", e))?;
                self.body = rest;
                self.rbuf.clear();
                self.rpos = 0;
                close = true;
            }
            if self.rpos == self.rbuf.len() {
                self.rbuf.clear();
                self.rpos = 0;
            }
            return Ok(Response {
                status,
                kind,
                session,
                close,
            });
        }
    }

    fn error_of(&self, response: &Response, what: &str) -> Error {
        format!(
            "{what}: HTTP {} {}",
            response.status,
            preview(&self.body, 300)
        )
    }

    /// Sends `template` as request `id` (the connection's session unless
    /// `session` overrides it) and checks the answer is HTTP 200 with a
    /// successful result for `id`, not `isError`; notifications in an SSE
    /// body are skipped.
    pub async fn call_as(
        &mut self,
        template: &Template,
        session: Option<&str>,
    ) -> Result<(), Error> {
        let id = self.next_id;
        self.next_id += 1;
        self.jbuf.clear();
        let _ = template.write(&mut self.jbuf, id);
        let response = self.post(session).await?;
        if response.status != 200 {
            return Err(self.error_of(&response, &format!("request {id}")));
        }
        let mut answered = false;
        messages(response.kind, &self.body, &mut self.data, |message| {
            match classify(message)? {
                Line::Ok(got) if got == id && !answered => answered = true,
                Line::Ok(got) => return Err(format!("a response to {got} while waiting for {id}")),
                Line::Notification => {}
            }
            Ok(())
        })?;
        if !answered {
            return Err(format!(
                "request {id}: HTTP 200 without its response: {}",
                preview(&self.body, 300)
            ));
        }
        Ok(())
    }

    /// [`HttpConn::call_as`] with the connection's own session.
    pub async fn call(&mut self, template: &Template) -> Result<(), Error> {
        self.call_as(template, None).await
    }

    /// Sends `template` and returns the response's `result` whole (for the
    /// handshake and for checking what a workload returns).
    pub async fn call_value(&mut self, template: &Template) -> Result<(Response, Value), Error> {
        let id = self.next_id;
        self.next_id += 1;
        self.jbuf.clear();
        let _ = template.write(&mut self.jbuf, id);
        let response = self.post(None).await?;
        if response.status != 200 {
            return Err(self.error_of(&response, &format!("request {id}")));
        }
        let mut result = None;
        messages(response.kind, &self.body, &mut self.data, |message| {
            let value: Value = serde_json::from_slice(message)
                .map_err(|e| format!("unreadable message ({e}): {}", preview(message, 300)))?;
            match value.get("id") {
                None => Ok(()),
                Some(got) if got.as_u64() == Some(id) => {
                    if let Some(error) = value.get("error") {
                        return Err(format!("request {id} failed: {error}"));
                    }
                    result = value.get("result").cloned();
                    Ok(())
                }
                Some(got) => Err(format!("a response to {got} while waiting for {id}")),
            }
        })?;
        let result = result.ok_or_else(|| {
            format!(
                "request {id}: no result in the answer: {}",
                preview(&self.body, 300)
            )
        })?;
        Ok((response, result))
    }

    /// Sends a notification; the answer must be 2xx (202 by the spec).
    pub async fn notify(&mut self, method: &str) -> Result<(), Error> {
        self.jbuf.clear();
        self.jbuf
            .extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"");
        self.jbuf.extend_from_slice(method.as_bytes());
        self.jbuf.extend_from_slice(b"\"}");
        let response = self.post(None).await?;
        if !(200..300).contains(&response.status) {
            return Err(self.error_of(&response, method));
        }
        Ok(())
    }

    /// `initialize` (a new session when the server is stateful: the
    /// connection's session is replaced), then `notifications/initialized`.
    /// `stateful`: the answer must carry a session id (and must not, when
    /// false).
    pub async fn initialize(&mut self, initialize: &Template, stateful: bool) -> Result<(), Error> {
        self.session = None;
        self.protocol = None;
        let (response, result) = self.call_value(initialize).await?;
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if version != PROTOCOL_VERSION {
            return Err(format!("initialize negotiated something else: {result}"));
        }
        match (&response.session, stateful) {
            (None, true) => return Err("initialize answered without an Mcp-Session-Id".into()),
            (Some(id), false) => {
                return Err(format!("a stateless server issued a session id ({id})"));
            }
            _ => {}
        }
        self.session = response.session;
        self.protocol = Some(version.to_string());
        self.notify("notifications/initialized").await
    }

    /// Speaks the 2026-07-28 era from now on: no session, and every request
    /// with `MCP-Protocol-Version: version`, `Mcp-Method: method` and, when
    /// given, `Mcp-Name: name` (the requests' `_meta` is in their template).
    pub fn modern(&mut self, version: &str, method: &str, name: Option<&str>) {
        self.session = None;
        self.protocol = Some(version.to_string());
        self.extra_headers.clear();
        for (header, value) in [("Mcp-Method", Some(method)), ("Mcp-Name", name)] {
            if let Some(value) = value {
                self.extra_headers
                    .extend_from_slice(format!("{header}: {value}\r\n").as_bytes());
            }
        }
    }

    /// Closes the connection (the session stays, on a stateful server).
    pub fn close(&mut self) {
        self.stream = None;
    }
}

/// Connects to `addr` until something accepts and answers `initialize`, or
/// `limit` passes, or `alive` says the server is gone; returns the
/// connection, initialized.
pub async fn first_initialize(
    addr: SocketAddr,
    initialize: &Template,
    stateful: bool,
    limit: Duration,
    alive: impl Fn() -> bool,
) -> Result<HttpConn, Error> {
    let mut conn = first_connect(addr, limit, alive).await?;
    match tokio::time::timeout(limit, conn.initialize(initialize, stateful)).await {
        Ok(Ok(())) => Ok(conn),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(format!("initialize unanswered after {limit:?}")),
    }
}

/// Connects to `addr` until something accepts, or `limit` passes, or
/// `alive` says the server is gone.
pub async fn first_connect(
    addr: SocketAddr,
    limit: Duration,
    alive: impl Fn() -> bool,
) -> Result<HttpConn, Error> {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if !alive() {
            return Err("the server exited before answering".into());
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(format!("no answer on {addr} within {limit:?}"));
        }
        if let Ok(Ok(conn)) =
            tokio::time::timeout(Duration::from_secs(1), HttpConn::connect(addr)).await
        {
            return Ok(conn);
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}
