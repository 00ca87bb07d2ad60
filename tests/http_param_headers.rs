//! `#[header("Name")]` over HTTP in the 2026-07-28 era: the parameter is
//! listed with `x-mcp-header`, and a `tools/call` must mirror its value in
//! `Mcp-Param-Name` (plain or `=?base64?…?=`); a missing or different one
//! is refused with 400 and -32020, keeping the request's id. A marked
//! integer is kept within ±(2^53 − 1).

mod common;

use common::http::{ACCEPT_BOTH, HttpServer, JSON_BODY, Reply, send};
use common::results::reply_text;
use mcp_runtime::{DynamicTool, Server, ToolTransform, tool};
use serde_json::{Value, json};

/// Execute SQL in a region.
#[tool]
async fn execute_sql(
    /// The region to run the query in.
    #[header("Region")]
    region: String,
    /// How many rows at most.
    #[header("Limit")]
    limit: Option<i64>,
    query: String,
) -> String {
    format!("{query} in {region} (limit {limit:?})")
}

const MODERN: &str = "2026-07-28";

/// Posts a stateless `tools/call` of `execute_sql` with the era's headers
/// and `extra`.
fn call(server: &HttpServer, id: u32, arguments: Value, extra: &[(&str, &str)]) -> Reply {
    call_tool(server, "execute_sql", id, arguments, extra)
}

/// Posts a stateless `tools/call` of the tool `name`.
fn call_tool(
    server: &HttpServer,
    name: &str,
    id: u32,
    arguments: Value,
    extra: &[(&str, &str)],
) -> Reply {
    let body = json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {}
            },
            "name": name,
            "arguments": arguments
        }
    });
    let mut headers = vec![
        JSON_BODY,
        ACCEPT_BOTH,
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", name),
    ];
    headers.extend_from_slice(extra);
    send(server.addr, "POST", &headers, body.to_string().as_bytes())
}

/// The text of a call answered 200 with a result.
fn ok_text(reply: &mut Reply) -> String {
    assert_eq!(reply.status, 200);
    reply_text(&reply.json())
}

fn assert_refused(mut reply: Reply, id: u32) {
    assert_eq!(reply.status, 400);
    let response = reply.json();
    assert_eq!(response["id"], id, "{response}");
    assert_eq!(response["error"]["code"], -32020, "{response}");
}

#[test]
fn the_schema_marks_the_mirrored_parameters() {
    let server = HttpServer::start(Server::new("headers", "1.0.0"));
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let headers = [
        JSON_BODY,
        ACCEPT_BOTH,
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/list"),
    ];
    let mut reply = send(server.addr, "POST", &headers, body.to_string().as_bytes());
    assert_eq!(reply.status, 200);
    let listing = reply.json();
    let schema = &listing["result"]["tools"][0]["inputSchema"];
    assert_eq!(
        schema["properties"],
        json!({
            "region": {
                "type": "string",
                "description": "The region to run the query in.",
                "x-mcp-header": "Region"
            },
            // A header carries an integer only within ±(2^53 − 1).
            "limit": {
                "type": "integer",
                "minimum": -9_007_199_254_740_991_i64,
                "maximum": 9_007_199_254_740_991_i64,
                "description": "How many rows at most.",
                "x-mcp-header": "Limit"
            },
            "query": {"type": "string"}
        }),
        "{schema}"
    );
    assert_eq!(schema["required"], json!(["region", "query"]));
}

#[test]
fn a_call_must_mirror_its_marked_arguments_in_headers() {
    let server = HttpServer::start(Server::new("headers", "1.0.0"));
    let arguments = json!({"region": "us-west1", "query": "SELECT 1"});
    let mut reply = call(
        &server,
        1,
        arguments.clone(),
        &[("Mcp-Param-Region", "us-west1")],
    );
    assert_eq!(ok_text(&mut reply), "SELECT 1 in us-west1 (limit None)");
    // Header names are case-insensitive; integers compare as numbers.
    let limited = json!({"region": "us-west1", "query": "SELECT 1", "limit": 5});
    let mut reply = call(
        &server,
        2,
        limited.clone(),
        &[("mcp-param-region", "us-west1"), ("MCP-PARAM-LIMIT", "5")],
    );
    assert_eq!(ok_text(&mut reply), "SELECT 1 in us-west1 (limit Some(5))");

    assert_refused(call(&server, 3, arguments.clone(), &[]), 3);
    assert_refused(
        call(
            &server,
            4,
            arguments.clone(),
            &[("Mcp-Param-Region", "eu-west1")],
        ),
        4,
    );
    // The optional one is required once the body has it.
    assert_refused(
        call(
            &server,
            5,
            limited.clone(),
            &[("Mcp-Param-Region", "us-west1")],
        ),
        5,
    );
    assert_refused(
        call(
            &server,
            6,
            limited,
            &[("Mcp-Param-Region", "us-west1"), ("Mcp-Param-Limit", "6")],
        ),
        6,
    );
}

/// A transform keeps the marks with renamed arguments: the header is
/// named by the mark, mirrored from the argument as the client names it;
/// a fixed argument is not listed, so no header is asked for it.
#[test]
fn a_renamed_marked_argument_is_mirrored_under_its_mark() {
    let transformed = Server::new("headers", "1.0.0").transform(
        ToolTransform::new("execute_sql")
            .rename("run_sql")
            .rename_arg("region", "zone")
            .fix_arg("limit", json!(10)),
    );
    let server = HttpServer::start(transformed);
    let arguments = json!({"zone": "eu-west1", "query": "SELECT 1"});
    let mut reply = call_tool(
        &server,
        "run_sql",
        1,
        arguments.clone(),
        &[("Mcp-Param-Region", "eu-west1")],
    );
    assert_eq!(ok_text(&mut reply), "SELECT 1 in eu-west1 (limit Some(10))");
    assert_refused(call_tool(&server, "run_sql", 2, arguments.clone(), &[]), 2);
    assert_refused(
        call_tool(
            &server,
            "run_sql",
            3,
            arguments,
            &[("Mcp-Param-Region", "us-east1")],
        ),
        3,
    );
}

#[test]
fn a_marked_integer_beyond_the_safe_range_is_an_invalid_argument() {
    let server = HttpServer::start(Server::new("headers", "1.0.0"));
    let safe =
        json!({"region": "us-west1", "query": "SELECT 1", "limit": 9_007_199_254_740_991_i64});
    let mut reply = call(
        &server,
        1,
        safe,
        &[
            ("Mcp-Param-Region", "us-west1"),
            ("Mcp-Param-Limit", "9007199254740991"),
        ],
    );
    assert_eq!(
        ok_text(&mut reply),
        "SELECT 1 in us-west1 (limit Some(9007199254740991))"
    );
    let beyond =
        json!({"region": "us-west1", "query": "SELECT 1", "limit": 9_007_199_254_740_992_i64});
    let mut reply = call(
        &server,
        2,
        beyond,
        &[
            ("Mcp-Param-Region", "us-west1"),
            ("Mcp-Param-Limit", "9007199254740992"),
        ],
    );
    assert_eq!(reply.status, 200);
    let response = reply.json();
    assert_eq!(response["result"]["isError"], true, "{response}");
    let text = response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("`/limit`: 9007199254740992 is greater than the maximum of 9007199254740991"),
        "{response}"
    );
}

#[test]
fn base64_header_values_are_decoded_before_the_comparison() {
    let server = HttpServer::start(Server::new("headers", "1.0.0"));
    let arguments = json!({"region": "Hello, 世界", "query": "SELECT 1"});
    let encoded = [("Mcp-Param-Region", "=?base64?SGVsbG8sIOS4lueVjA==?=")];
    let mut reply = call(&server, 7, arguments.clone(), &encoded);
    assert_eq!(ok_text(&mut reply), "SELECT 1 in Hello, 世界 (limit None)");
    // Invalid Base64 (no padding) is refused, not taken literally.
    let plain = json!({"region": "Hello", "query": "SELECT 1"});
    assert_refused(
        call(
            &server,
            8,
            plain.clone(),
            &[("Mcp-Param-Region", "=?base64?SGVsbG8?=")],
        ),
        8,
    );
    // Without both markers the value is literal.
    let literal = json!({"region": "=?base64?SGVsbG8=", "query": "SELECT 1"});
    let mut reply = call(
        &server,
        9,
        literal,
        &[("Mcp-Param-Region", "=?base64?SGVsbG8=")],
    );
    assert_eq!(
        ok_text(&mut reply),
        "SELECT 1 in =?base64?SGVsbG8= (limit None)"
    );
}

#[test]
fn a_dynamic_tool_with_an_invalid_mark_stops_the_server_at_start_up() {
    let tool = |property: Value| {
        DynamicTool::new(
            "run",
            "Run it.",
            json!({"type": "object", "properties": {"p": property}}),
            |_, _| async { String::from("done") },
        )
    };
    let start = |property: Value| {
        Server::new("headers", "1.0.0")
            .tool(tool(property))
            .registry()
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        start(json!({"type": "integer", "x-mcp-header": "P"})),
        Ok(())
    );
    let float = start(json!({"type": "number", "x-mcp-header": "P"})).unwrap_err();
    assert!(float.contains("x-mcp-header"), "{float}");
    let nested = start(json!({
        "type": "array",
        "items": {"type": "string", "x-mcp-header": "P"}
    }))
    .unwrap_err();
    assert!(nested.contains("/properties/p/items"), "{nested}");
}
