//! A recording reverse proxy for tests: what a server behind it was sent.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use super::step::STEP;

/// A recording reverse proxy on a port of 127.0.0.1: it forwards each HTTP
/// request to `upstream` (on a connection of its own, `Connection: close`,
/// so that every request is seen whole) and keeps the request's path and
/// `Authorization` header. The threads end with the test process.
pub struct Tap {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
}

/// A request the tap forwarded.
pub struct Seen {
    pub path: String,
    pub authorization: Option<String>,
}

impl Tap {
    pub fn start(upstream: SocketAddr) -> Tap {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&seen);
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { break };
                let record = Arc::clone(&record);
                std::thread::spawn(move || {
                    if let Err(error) = relay(client, upstream, &record) {
                        eprintln!("tap {addr} -> {upstream}: {error}");
                    }
                });
            }
        });
        Tap { addr, seen }
    }

    /// The URL the gateway is given, which the weather server behind takes
    /// as its own (its OAuth audience).
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// The bearer tokens the upstream was sent, in order (requests without
    /// one left out), and how many requests to its MCP endpoint came
    /// without one. Metadata requests must carry none.
    pub fn tokens(&self) -> (Vec<String>, usize) {
        let seen = self.seen.lock().unwrap();
        for request in seen.iter() {
            assert!(
                !request.path.starts_with("/.well-known/") || request.authorization.is_none(),
                "a token sent with a metadata request: {}",
                request.path
            );
        }
        let tokens: Vec<String> = seen
            .iter()
            .filter_map(|request| request.authorization.as_ref())
            .map(|header| {
                header
                    .strip_prefix("Bearer ")
                    .unwrap_or_else(|| panic!("not a bearer token: {header:?}"))
                    .to_owned()
            })
            .collect();
        let without = seen
            .iter()
            .filter(|request| request.path == "/mcp" && request.authorization.is_none())
            .count();
        (tokens, without)
    }
}

/// One request from `client`, forwarded to `upstream`; the answer copied
/// back until the upstream closes.
fn relay(mut client: TcpStream, upstream: SocketAddr, seen: &Mutex<Vec<Seen>>) -> io::Result<()> {
    client.set_read_timeout(Some(STEP))?;
    let mut reader = BufReader::new(client.try_clone()?);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line)? == 0 {
        return Ok(());
    }
    let mut headers = Vec::new();
    let (mut authorization, mut length) = (None, 0usize);
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end().to_owned();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap_or((&line, ""));
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim().to_owned());
        match name.as_str() {
            "authorization" => authorization = Some(value),
            "content-length" => length = value.parse().unwrap_or(0),
            "transfer-encoding" => {
                return Err(io::Error::other(
                    "a chunked request: the tap reads lengths only",
                ));
            }
            "connection" | "keep-alive" => continue,
            _ => {}
        }
        headers.push(line);
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let path = request_line.split(' ').nth(1).unwrap_or_default();
    let path = path.split('?').next().unwrap_or_default().to_owned();
    seen.lock().unwrap().push(Seen {
        path,
        authorization,
    });
    let mut to = TcpStream::connect(upstream)?;
    let mut head = request_line;
    for header in headers {
        head.push_str(&header);
        head.push_str("\r\n");
    }
    head.push_str("Connection: close\r\n\r\n");
    to.write_all(head.as_bytes())?;
    to.write_all(&body)?;
    io::copy(&mut to, &mut client)?;
    let _ = client.shutdown(Shutdown::Both);
    Ok(())
}
