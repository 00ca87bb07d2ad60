//! Dispatch: lines sent to a whole connection through the in-process
//! `TestClient`, then a ping, then EOF. Checks with the model shared with
//! the property tests (`tests/oracle/mod.rs`) that every request got
//! exactly one response with its id, notifications none, that everything
//! written is JSON, and that the ping is answered.
//!
//! Input: byte 0 picks the session (not initialized, or initialized with
//! one of the four versions); the rest is split into lines at `\n`.

#![no_main]

#[path = "../../tests/oracle/mod.rs"]
mod oracle;

use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use mcp_runtime::__fuzz::{Prepared, connect, prepare};
use mcp_runtime::Server;
use serde_json::json;

const VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const FINAL_PING: &str = r#"{"jsonrpc":"2.0","id":"final-ping","method":"ping"}"#;

/// The server, built once: tools collected, schemas compiled.
fn prepared() -> &'static Prepared {
    static PREPARED: OnceLock<Prepared> = OnceLock::new();
    PREPARED.get_or_init(|| prepare(Server::new("fuzz", "0")).expect("the tools build"))
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
    })
}

fuzz_target!(|data: &[u8]| {
    let [session, rest @ ..] = data else {
        return;
    };
    // libFuzzer's hook aborts on every panic, even one caught later.
    oracle::tools::pass_on_all_but_deliberate_panics();
    let version = match session % 5 {
        0 => None,
        n => Some(VERSIONS[usize::from(n) - 1]),
    };
    let mut lines: Vec<Vec<u8>> = rest
        .split(|&b| b == b'\n')
        .take(64)
        .map(<[u8]>::to_vec)
        .collect();
    lines.push(FINAL_PING.into());
    let expectation = oracle::expect(&lines, version.map(|v| v == "2025-03-26"));
    let messages = runtime().block_on(async {
        let mut client = connect(prepared());
        if let Some(v) = version {
            client.initialize(v).await.expect("initialize");
        }
        for line in &lines {
            client.send_line(line.clone()).await;
        }
        let mut messages = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), async {
            while let Some(message) = client.recv().await {
                let pong = message["id"] == "final-ping";
                messages.push(message);
                if pong {
                    break;
                }
            }
        })
        .await
        .expect("the final ping is answered");
        let rest = tokio::time::timeout(Duration::from_secs(10), client.close())
            .await
            .expect("the server stops after EOF");
        messages.extend(rest);
        messages
    });
    let pongs: Vec<_> = messages
        .iter()
        .filter(|m| m["id"] == "final-ping")
        .collect();
    assert_eq!(pongs.len(), 1, "{messages:?}");
    assert_eq!(pongs[0]["result"], json!({}));
    if let Err(problem) = oracle::check(&expectation, &messages) {
        panic!("{problem}\nreplies: {messages:#?}");
    }
});
