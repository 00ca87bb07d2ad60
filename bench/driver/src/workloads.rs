//! The workloads: which server, which request, how many calls, and what a
//! correct answer looks like (checked on a warm-up response of every run,
//! so that every peer is measured doing the same work).

use serde_json::{Value, json};

/// Which of a peer's two servers a workload runs against.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Server {
    /// echo, order, payload.
    Basic,
    /// tool_000 .. tool_199.
    Many,
}

/// The protocol era a workload's requests belong to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Era {
    /// `initialize` first (protocol 2025-06-18), then plain requests.
    Legacy,
    /// 2026-07-28: no `initialize`; every request carries its protocol
    /// version and client capabilities in `_meta` (over HTTP also the
    /// `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers), and
    /// every result says `"resultType"`.
    Modern,
}

/// The protocol version of the modern workloads.
pub const MODERN_VERSION: &str = "2026-07-28";

pub struct Workload {
    pub name: &'static str,
    pub label: &'static str,
    pub server: Server,
    pub method: &'static str,
    pub params: String,
    /// Warm-up, sequential and pipelined call counts of a full run.
    pub counts: [u64; 3],
    pub check: fn(&Value) -> Result<(), String>,
    pub era: Era,
    /// The `Mcp-Name` header of a modern request over HTTP (the tool's
    /// name for `tools/call`).
    pub mcp_name: Option<String>,
}

impl Workload {
    pub fn modern(&self) -> bool {
        self.era == Era::Modern
    }
}

pub const PAYLOAD_BYTES: usize = 64 * 1024;
pub const ORDER_LINES: u64 = 8;

fn payload() -> String {
    // Printable, needing no JSON escapes; not one repeated byte.
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    (0..PAYLOAD_BYTES)
        .map(|i| ALPHABET[(i * 7 + i / 64) % ALPHABET.len()] as char)
        .collect()
}

fn first_text(result: &Value) -> Result<&str, String> {
    result
        .pointer("/content/0/text")
        .and_then(Value::as_str)
        .ok_or_else(|| "no text content".to_string())
}

fn check_echo(result: &Value) -> Result<(), String> {
    match first_text(result)? {
        "hello, world" => Ok(()),
        other => Err(format!("echo returned {other:?}")),
    }
}

fn check_order(result: &Value) -> Result<(), String> {
    let structured = result
        .get("structuredContent")
        .ok_or("no structuredContent (structured output not supported)")?;
    let lines = structured
        .get("lines")
        .and_then(Value::as_array)
        .map(Vec::len);
    if structured.get("id") != Some(&json!(42))
        || lines != Some(ORDER_LINES as usize)
        || structured.pointer("/status") != Some(&json!("delivered"))
        || structured.pointer("/customer/name") != Some(&json!("Customer 42"))
    {
        return Err(format!("unexpected structuredContent: {structured}"));
    }
    Ok(())
}

fn check_payload(result: &Value) -> Result<(), String> {
    let text = first_text(result)?;
    if text.len() != PAYLOAD_BYTES || text != payload() {
        return Err(format!(
            "payload came back as {} bytes, not the {} sent",
            text.len(),
            PAYLOAD_BYTES
        ));
    }
    Ok(())
}

fn check_list(result: &Value) -> Result<(), String> {
    let tools = result
        .get("tools")
        .and_then(Value::as_array)
        .ok_or("no tools array")?;
    if result.get("nextCursor").is_some_and(|c| !c.is_null()) {
        return Err("tools/list is paginated; the workload expects one page".into());
    }
    if tools.len() != bench_codegen::MANY {
        return Err(format!(
            "{} tools listed, expected {}",
            tools.len(),
            bench_codegen::MANY
        ));
    }
    let last = bench_codegen::tool_name(bench_codegen::MANY - 1);
    if !tools.iter().any(|t| t.get("name") == Some(&json!(last))) {
        return Err(format!("{last} is not listed"));
    }
    Ok(())
}

fn check_last(result: &Value) -> Result<(), String> {
    let expected = bench_codegen::answer(bench_codegen::MANY - 1, "k-17", Some(5));
    match first_text(result)? {
        text if text == expected => Ok(()),
        other => Err(format!("returned {other:?}, expected {expected:?}")),
    }
}

/// A modern result: `"resultType":"complete"`.
fn complete(result: &Value) -> Result<(), String> {
    match result.get("resultType").and_then(Value::as_str) {
        Some("complete") => Ok(()),
        other => Err(format!("resultType is {other:?}, not \"complete\"")),
    }
}

/// A modern result that may be cached: `ttlMs` and `cacheScope`.
fn cacheable(result: &Value) -> Result<(), String> {
    complete(result)?;
    match (result.get("ttlMs"), result.get("cacheScope")) {
        (Some(ttl), Some(_)) if ttl.is_u64() => Ok(()),
        _ => Err("no ttlMs and cacheScope on a cacheable result".into()),
    }
}

fn check_echo_modern(result: &Value) -> Result<(), String> {
    check_echo(result)?;
    complete(result)
}

fn check_list_modern(result: &Value) -> Result<(), String> {
    check_list(result)?;
    cacheable(result)
}

fn check_last_modern(result: &Value) -> Result<(), String> {
    check_last(result)?;
    complete(result)
}

fn check_discover(result: &Value) -> Result<(), String> {
    let versions = result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .ok_or("no supportedVersions")?;
    if !versions.iter().any(|v| v == MODERN_VERSION) {
        return Err(format!("{MODERN_VERSION} is not among {versions:?}"));
    }
    if result.get("capabilities").is_none() {
        return Err("no capabilities".into());
    }
    cacheable(result)
}

/// `params` with the `_meta` every 2026-07-28 request carries.
fn with_meta(mut params: Value) -> String {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    params.to_string()
}

/// The legacy workloads: what `bench/run` runs unless told otherwise.
pub fn legacy() -> Vec<Workload> {
    all().into_iter().filter(|w| !w.modern()).collect()
}

pub fn all() -> Vec<Workload> {
    let last = bench_codegen::tool_name(bench_codegen::MANY - 1);
    vec![
        Workload {
            name: "echo",
            label: "echo (trivial tool)",
            server: Server::Basic,
            method: "tools/call",
            params: json!({ "name": "echo", "arguments": { "text": "hello, world" } }).to_string(),
            counts: [500, 5_000, 60_000],
            check: check_echo,
            era: Era::Legacy,
            mcp_name: None,
        },
        Workload {
            name: "echo-2026",
            label: "echo, 2026-07-28",
            server: Server::Basic,
            method: "tools/call",
            params: with_meta(json!({ "name": "echo", "arguments": { "text": "hello, world" } })),
            counts: [500, 5_000, 60_000],
            check: check_echo_modern,
            era: Era::Modern,
            mcp_name: Some("echo".into()),
        },
        Workload {
            name: "order",
            label: "structured output",
            server: Server::Basic,
            method: "tools/call",
            params: json!({ "name": "order", "arguments": { "id": 42, "lines": ORDER_LINES } })
                .to_string(),
            counts: [500, 5_000, 40_000],
            check: check_order,
            era: Era::Legacy,
            mcp_name: None,
        },
        Workload {
            name: "payload",
            label: "64 KiB in, 64 KiB out",
            server: Server::Basic,
            method: "tools/call",
            params: json!({ "name": "payload", "arguments": { "data": payload() } }).to_string(),
            counts: [50, 1_000, 5_000],
            check: check_payload,
            era: Era::Legacy,
            mcp_name: None,
        },
        Workload {
            name: "list200",
            label: "tools/list, 200 tools",
            server: Server::Many,
            method: "tools/list",
            params: "{}".into(),
            counts: [20, 1_000, 3_000],
            check: check_list,
            era: Era::Legacy,
            mcp_name: None,
        },
        Workload {
            name: "list200-2026",
            label: "tools/list, 200 tools, 2026-07-28",
            server: Server::Many,
            method: "tools/list",
            params: with_meta(json!({})),
            counts: [20, 1_000, 3_000],
            check: check_list_modern,
            era: Era::Modern,
            mcp_name: None,
        },
        Workload {
            name: "discover-2026",
            label: "server/discover, 200 tools, 2026-07-28",
            server: Server::Many,
            method: "server/discover",
            params: with_meta(json!({})),
            counts: [500, 5_000, 60_000],
            check: check_discover,
            era: Era::Modern,
            mcp_name: None,
        },
        Workload {
            name: "call200",
            label: "call the last of 200 tools",
            server: Server::Many,
            method: "tools/call",
            params: json!({ "name": &last, "arguments": { "key": "k-17", "limit": 5 } })
                .to_string(),
            counts: [500, 5_000, 60_000],
            check: check_last,
            era: Era::Legacy,
            mcp_name: None,
        },
        Workload {
            name: "call200-2026",
            label: "call the last of 200 tools, 2026-07-28",
            server: Server::Many,
            method: "tools/call",
            params: with_meta(json!({ "name": &last, "arguments": { "key": "k-17", "limit": 5 } })),
            counts: [500, 5_000, 60_000],
            check: check_last_modern,
            era: Era::Modern,
            mcp_name: Some(last.clone()),
        },
    ]
}
