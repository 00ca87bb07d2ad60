//! The floor: what serving the benchmark costs with nothing but serde_json.
//! One thread reads a line, dispatches it, writes the answer, and flushes
//! only when no further input is already buffered. No runtime, no schema
//! validation, no cancellation, no concurrency: a bound no framework can
//! beat by much, to show how much of a framework's cost is its own.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::os::fd::AsFd;

use serde::{Deserialize, Serialize};
use serde_json::json;
use serde_json::value::RawValue;

/// Which tools to serve.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Catalog {
    /// echo, order and payload.
    Basic,
    /// tool_000 .. tool_199.
    Many,
}

#[derive(Deserialize)]
struct Request<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct InitializeParams<'a> {
    #[serde(borrow, rename = "protocolVersion")]
    protocol_version: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EchoArgs {
    text: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OrderArgs {
    id: u64,
    lines: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PayloadArgs {
    data: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LookupArgs {
    key: String,
    limit: Option<u32>,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum Status {
    Pending,
    Shipped,
    Delivered,
    Cancelled,
}

#[derive(Serialize)]
struct Customer {
    name: String,
    email: String,
}

#[derive(Serialize)]
struct Line {
    sku: String,
    quantity: u32,
    unit_price_cents: u64,
}

#[derive(Serialize)]
struct Order {
    id: u64,
    status: Status,
    customer: Customer,
    lines: Vec<Line>,
    total_cents: u64,
}

fn order(id: u64, lines: u32) -> Order {
    let status = match id % 4 {
        0 => Status::Pending,
        1 => Status::Shipped,
        2 => Status::Delivered,
        _ => Status::Cancelled,
    };
    let lines: Vec<Line> = (0..lines)
        .map(|i| Line {
            sku: format!("SKU-{id}-{i:04}"),
            quantity: i % 5 + 1,
            unit_price_cents: 199 + u64::from(i) * 100,
        })
        .collect();
    let total_cents = lines
        .iter()
        .map(|l| u64::from(l.quantity) * l.unit_price_cents)
        .sum();
    Order {
        id,
        status,
        customer: Customer {
            name: format!("Customer {id}"),
            email: format!("customer{id}@example.com"),
        },
        lines,
        total_cents,
    }
}

#[derive(Serialize)]
struct Text<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
struct TextResult<'a> {
    content: [Text<'a>; 1],
}

#[derive(Serialize)]
struct StructuredResult<'a, T> {
    content: [Text<'a>; 1],
    #[serde(rename = "structuredContent")]
    structured_content: &'a T,
}

fn text_result(text: &str) -> TextResult<'_> {
    TextResult {
        content: [Text { kind: "text", text }],
    }
}

fn lookup_schema() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {
            "key": { "type": "string", "description": bench_codegen::KEY_DOC },
            "limit": { "type": "integer", "format": "uint32", "minimum": 0, "description": bench_codegen::LIMIT_DOC }
        },
        "required": ["key"],
        "additionalProperties": false
    })
}

fn tools_list(catalog: Catalog) -> String {
    let tools: Vec<serde_json::Value> = match catalog {
        Catalog::Basic => vec![
            json!({
                "name": "echo",
                "description": "Returns the text it is given.",
                "inputSchema": {
                    "type": "object",
                    "properties": { "text": { "type": "string", "description": "The text to return." } },
                    "required": ["text"],
                    "additionalProperties": false
                },
                "annotations": { "readOnlyHint": true, "idempotentHint": true }
            }),
            json!({
                "name": "order",
                "description": "Looks up an order and returns it with its lines.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "id": { "type": "integer", "format": "uint64", "minimum": 0, "description": "The order's number." },
                        "lines": { "type": "integer", "format": "uint32", "minimum": 0, "description": "How many lines the order has." }
                    },
                    "required": ["id", "lines"],
                    "additionalProperties": false
                },
                "outputSchema": {
                    "type": "object",
                    "properties": {
                        "id": { "type": "integer", "minimum": 0 },
                        "status": { "type": "string", "enum": ["pending", "shipped", "delivered", "cancelled"] },
                        "customer": {
                            "type": "object",
                            "properties": { "name": { "type": "string" }, "email": { "type": "string" } },
                            "required": ["name", "email"]
                        },
                        "lines": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "sku": { "type": "string" },
                                    "quantity": { "type": "integer", "minimum": 0 },
                                    "unit_price_cents": { "type": "integer", "minimum": 0 }
                                },
                                "required": ["sku", "quantity", "unit_price_cents"]
                            }
                        },
                        "total_cents": { "type": "integer", "minimum": 0 }
                    },
                    "required": ["id", "status", "customer", "lines", "total_cents"]
                },
                "annotations": { "readOnlyHint": true, "idempotentHint": true }
            }),
            json!({
                "name": "payload",
                "description": "Returns the data it is given (the 64 KiB workload).",
                "inputSchema": {
                    "type": "object",
                    "properties": { "data": { "type": "string", "description": "Any text." } },
                    "required": ["data"],
                    "additionalProperties": false
                },
                "annotations": { "readOnlyHint": true, "idempotentHint": true }
            }),
        ],
        Catalog::Many => (0..bench_codegen::MANY)
            .map(|i| {
                json!({
                    "name": bench_codegen::tool_name(i),
                    "description": bench_codegen::description(i),
                    "inputSchema": lookup_schema(),
                    "annotations": { "readOnlyHint": true }
                })
            })
            .collect(),
    };
    json!({ "tools": tools }).to_string()
}

/// The dispatcher: one JSON-RPC message in, its answer appended to a buffer.
/// Shared with the HTTP floor (servers/floor-http).
pub struct Floor {
    catalog: Catalog,
    list: String,
}

/// What a message was, for a transport that treats them differently (the
/// HTTP floor issues a session on `initialize` and answers a notification
/// with 202).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// An `initialize` request (answered).
    Initialize,
    /// Any other request (answered).
    Request,
    /// A notification: nothing written.
    Notification,
    /// Not JSON-RPC: a parse error written.
    Invalid,
}

enum Answer {
    Result,
    Error(i32, &'static str),
}

impl Floor {
    /// The dispatcher for `catalog`, with its `tools/list` answer written once.
    pub fn new(catalog: Catalog) -> Floor {
        Floor {
            catalog,
            list: tools_list(catalog),
        }
    }

    /// Appends the answer to the message in `line` (a line ending in `\n`)
    /// to `out`, and says what the message was.
    pub fn handle(&self, line: &[u8], out: &mut Vec<u8>) -> Kind {
        let Ok(request) = serde_json::from_slice::<Request<'_>>(line) else {
            out.extend_from_slice(
                b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}\n",
            );
            return Kind::Invalid;
        };
        let Some(id) = request.id else {
            return Kind::Notification;
        };
        let kind = if request.method == "initialize" {
            Kind::Initialize
        } else {
            Kind::Request
        };
        let start = out.len();
        out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        out.extend_from_slice(id.get().as_bytes());
        out.extend_from_slice(b",\"result\":");
        match self.dispatch(&request.method, request.params, out) {
            Answer::Result => out.extend_from_slice(b"}\n"),
            Answer::Error(code, message) => {
                out.truncate(start);
                out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
                out.extend_from_slice(id.get().as_bytes());
                let error = json!({ "code": code, "message": message });
                out.extend_from_slice(format!(",\"error\":{error}}}\n").as_bytes());
            }
        }
        kind
    }

    fn dispatch(&self, method: &str, params: Option<&RawValue>, out: &mut Vec<u8>) -> Answer {
        let params = params.map_or("{}", RawValue::get);
        match method {
            "initialize" => {
                let requested = serde_json::from_str::<InitializeParams<'_>>(params)
                    .ok()
                    .and_then(|p| p.protocol_version);
                const SUPPORTED: [&str; 4] =
                    ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
                let version = requested
                    .as_deref()
                    .filter(|v| SUPPORTED.contains(v))
                    .unwrap_or("2025-11-25");
                let result = json!({
                    "protocolVersion": version,
                    "capabilities": { "tools": { "listChanged": false } },
                    "serverInfo": { "name": "bench-floor", "version": "0.0.0" }
                });
                let _ = serde_json::to_writer(&mut *out, &result);
                Answer::Result
            }
            "ping" => {
                out.extend_from_slice(b"{}");
                Answer::Result
            }
            "tools/list" => {
                out.extend_from_slice(self.list.as_bytes());
                Answer::Result
            }
            "tools/call" => match serde_json::from_str::<CallParams<'_>>(params) {
                Ok(call) => self.call(&call.name, call.arguments.map_or("{}", RawValue::get), out),
                Err(_) => Answer::Error(-32602, "Invalid params"),
            },
            _ => Answer::Error(-32601, "Method not found"),
        }
    }

    fn call(&self, name: &str, arguments: &str, out: &mut Vec<u8>) -> Answer {
        let written = match (self.catalog, name) {
            (Catalog::Basic, "echo") => serde_json::from_str::<EchoArgs>(arguments)
                .map(|args| serde_json::to_writer(&mut *out, &text_result(&args.text))),
            (Catalog::Basic, "payload") => serde_json::from_str::<PayloadArgs>(arguments)
                .map(|args| serde_json::to_writer(&mut *out, &text_result(&args.data))),
            (Catalog::Basic, "order") => serde_json::from_str::<OrderArgs>(arguments).map(|args| {
                let order = order(args.id, args.lines);
                let text = serde_json::to_string(&order).unwrap_or_default();
                serde_json::to_writer(
                    &mut *out,
                    &StructuredResult {
                        content: [Text {
                            kind: "text",
                            text: &text,
                        }],
                        structured_content: &order,
                    },
                )
            }),
            (Catalog::Many, name) => match name
                .strip_prefix("tool_")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&i| i < bench_codegen::MANY && bench_codegen::tool_name(i) == name)
            {
                Some(i) => serde_json::from_str::<LookupArgs>(arguments).map(|args| {
                    let text = bench_codegen::answer(i, &args.key, args.limit);
                    serde_json::to_writer(&mut *out, &text_result(&text))
                }),
                None => return Answer::Error(-32602, "Unknown tool"),
            },
            _ => return Answer::Error(-32602, "Unknown tool"),
        };
        match written {
            Ok(Ok(())) => Answer::Result,
            Ok(Err(_)) => Answer::Error(-32603, "Internal error"),
            Err(_) => {
                out.extend_from_slice(
                    br#"{"content":[{"type":"text","text":"invalid arguments"}],"isError":true}"#,
                );
                Answer::Result
            }
        }
    }
}

/// Serves `catalog` on stdin and stdout until stdin ends.
pub fn serve(catalog: Catalog) -> io::Result<()> {
    let floor = Floor::new(catalog);
    // Plain files on fds 0 and 1: no LineWriter, no locking per call.
    let stdin = File::from(io::stdin().as_fd().try_clone_to_owned()?);
    let stdout = File::from(io::stdout().as_fd().try_clone_to_owned()?);
    let mut reader = BufReader::with_capacity(256 * 1024, stdin);
    let mut writer = BufWriter::with_capacity(256 * 1024, stdout);
    let mut line = Vec::new();
    let mut reply = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        reply.clear();
        floor.handle(&line, &mut reply);
        writer.write_all(&reply)?;
        if reader.buffer().is_empty() {
            writer.flush()?;
        }
    }
    writer.flush()
}
