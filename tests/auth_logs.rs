//! Tokens never reach the log: a server with auth, logging everything at
//! TRACE level, is sent good and bad tokens; the log says why each bad one
//! was refused and never holds a token. (Its own test binary: it installs
//! the process-wide subscriber.)

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use common::http::{Client, HttpServer};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::auth::Auth;
use mcp_runtime::{Server, tool};
use serde_json::json;
use tracing_subscriber::util::SubscriberInitExt;

const ISSUER: &str = "https://login.example.test";
const AUDIENCE: &str = "https://mcp.example.test/mcp";
const SECRET: &[u8] = b"a shared secret of at least thirty-two bytes";

/// Echo the text back.
#[tool]
async fn echo(text: String) -> String {
    text
}

#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn token(audience: &str, exp_from_now: i64) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &json!({"iss": ISSUER, "aud": audience, "sub": "alice", "exp": now + exp_from_now}),
        &EncodingKey::from_secret(SECRET),
    )
    .unwrap()
}

#[test]
fn no_token_is_ever_logged() {
    let log = Log::default();
    let writer = log.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing_subscriber::filter::LevelFilter::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish()
        .try_init()
        .unwrap();
    let server = HttpServer::start(
        Server::new("auth-logs", "1.0.0")
            .include_tools(["echo"])
            .auth(Auth::hmac(ISSUER, SECRET).audience(AUDIENCE)),
    );
    let good = token(AUDIENCE, 600);
    let expired = token(AUDIENCE, -600);
    let elsewhere = token("https://other.example.test/mcp", 600);
    let mut client = Client::new(server.addr);
    client.bearer = Some(good.clone());
    client.initialize("2025-11-25");
    let result = client.call(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    assert_eq!(result["result"]["content"][0]["text"], "hi");
    for bad in [&expired, &elsewhere] {
        client.bearer = Some(bad.clone());
        let reply = client.request("tools/list", json!({}));
        assert_eq!(reply.status, 401);
    }
    server.stop().unwrap();
    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    assert!(text.contains("the token has expired"), "{text}");
    assert!(text.contains("issued for another resource"), "{text}");
    for secret in [&good, &expired, &elsewhere] {
        // Any third of a token (its header, claims or signature) would do.
        for part in secret.split('.') {
            assert!(!text.contains(part), "a token part is in the log:\n{text}");
        }
    }
}
