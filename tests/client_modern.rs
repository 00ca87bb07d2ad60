//! The client (`mcp_runtime::client`) in the 2026-07-28 era: negotiated
//! with `server/discover` against our own server over HTTP and stdio (and
//! back to `initialize` for a legacy one, or forward when `initialize` is
//! refused), the era's `_meta` and headers on every request as a scripted
//! server records them, `input_required` rounds answered by the
//! elicitation handler, notifications on `subscriptions/listen`, lists kept
//! for their `ttlMs`, and a mount of an upstream that speaks only
//! 2026-07-28.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use common::http::HttpServer;
use common::list_changed::add_tools_until_announced;
use common::step::within;
use mcp_runtime::client::{Client, ClientError, Elicitation, ProtocolVersion};
use mcp_runtime::serde_json::{self, Map, Value, json};
use mcp_runtime::{
    CacheHint, CacheHints, CacheScope, Context, Elicit, Elicited, Server, Upstream, tool,
};
use tokio::process::Command;

const MODERN: &str = "2026-07-28";

#[derive(Debug, Elicit)]
struct Trip {
    /// Where to.
    city: String,
}

/// Asks where to go (`ctx.elicit`), then says it.
#[tool]
async fn plan(ctx: Context) -> Result<String, String> {
    match ctx.elicit::<Trip>("Where to?").await {
        Ok(Elicited::Accepted(trip)) => Ok(format!("off to {}", trip.city)),
        Ok(other) => Ok(format!("{other:?}")),
        Err(error) => Err(error.to_string()),
    }
}

/// Runs a query in a region (mirrored in `Mcp-Param-Region`).
#[tool]
async fn query(
    /// The region.
    #[header("Region")]
    region: String,
    sql: String,
) -> String {
    format!("{sql} @ {region}")
}

/// Our server, with `plan` and `query` (every `#[tool]` of this file).
fn server() -> Server {
    Server::new("modern-test", "1.0.0").shutdown_grace(Duration::from_millis(200))
}

fn url(server: &HttpServer) -> String {
    format!("http://{}/mcp", server.addr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_server_over_http_speaks_2026_07_28_and_legacy_on_request() {
    let server = HttpServer::start(server());
    let client = within(Client::http(url(&server))).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::MODERN);
    assert_eq!(client.server_info().name(), "modern-test");
    assert!(client.capabilities().tools());
    within(client.ping()).await.unwrap();
    // The server checks the headers against the body (-32020 otherwise):
    // `Mcp-Name` and `Mcp-Param-Region` were right.
    let tools = within(client.list_tools()).await.unwrap();
    assert!(tools.iter().any(|t| t.name() == "query"));
    let result =
        within(client.call_tool("query", json!({"region": "eu-west 3", "sql": "SELECT 1"})))
            .await
            .unwrap();
    assert_eq!(result.text(), "SELECT 1 @ eu-west 3");
    let result = within(client.call_tool("query", json!({"region": " Zürich", "sql": "x"})))
        .await
        .unwrap();
    assert_eq!(result.text(), "x @  Zürich");

    // Asked for a legacy version first, the same server opens a session.
    let legacy = Client::builder()
        .protocol_version(ProtocolVersion::V2025_06_18)
        .http(url(&server));
    let legacy = within(legacy).await.unwrap();
    assert_eq!(legacy.protocol_version(), ProtocolVersion::V2025_06_18);
    within(legacy.ping()).await.unwrap();
    client.close().await;
    legacy.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_server_over_stdio_speaks_2026_07_28() {
    let client = within(Client::spawn(Command::new(common::weather_binary())))
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::MODERN);
    let tools = within(client.list_tools()).await.unwrap();
    assert!(tools.iter().any(|t| t.name() == "get_forecast"));
    let forecast = within(client.call_tool("get_forecast", json!({"city": "Paris", "days": 1})))
        .await
        .unwrap();
    assert!(!forecast.is_error, "{forecast:?}");
    within(client.ping()).await.unwrap();
    client.close().await;
}

/// A client that accepts every question with `city` = Oslo, and the
/// questions it was asked.
fn answering() -> (mcp_runtime::client::ClientBuilder, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&asked);
    let builder = Client::builder().on_elicitation(move |request| {
        record.lock().unwrap().push(request.message.clone());
        async move {
            let mut answer = Map::new();
            answer.insert("city".into(), json!("Oslo"));
            Elicitation::Accept(answer)
        }
    });
    (builder, asked)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_required_rounds_are_answered_by_the_elicitation_handler() {
    let server = HttpServer::start(server());
    let (builder, asked) = answering();
    let client = within(builder.http(url(&server))).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::MODERN);
    let result = within(client.call_tool("plan", json!({}))).await.unwrap();
    assert_eq!(result.text(), "off to Oslo");
    assert_eq!(*asked.lock().unwrap(), ["Where to?"]);
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changes_come_on_the_listen_request() {
    let mut server = server().cache_hints(CacheHints::default().lists(CacheHint::new(
        Duration::from_secs(3600),
        CacheScope::Public,
    )));
    let handle = server.handle();
    let server = HttpServer::start(server);
    let client = within(Client::http(url(&server))).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::MODERN);
    // Listed once: kept for an hour.
    let before = within(client.list_tools()).await.unwrap();
    let mut notifications = client.notifications();
    // The subscription opens in the background: add tools until one
    // change is announced.
    add_tools_until_announced(&handle, &mut notifications, "added").await;
    // The change made the kept list stale.
    let after = within(client.list_tools()).await.unwrap();
    assert!(
        after.len() > before.len(),
        "{} tools, then {}",
        before.len(),
        after.len()
    );
    assert!(after.iter().any(|t| t.name() == "added_1"));
    client.close().await;
}

// --- A scripted server, which records what it is sent ----------------------

/// One POST as the scripted server saw it.
#[derive(Clone, Debug)]
struct Seen {
    headers: HeaderMap,
    body: Value,
}

type Log = Arc<Mutex<Vec<Seen>>>;

/// What the scripted server answers a request: `None` for a 400 that is
/// not JSON-RPC (a legacy endpoint's).
type Script = Arc<dyn Fn(&str, &Value) -> Option<Value> + Send + Sync>;

/// A scripted Streamable HTTP server on a loopback port: every POST is
/// recorded; a request is answered `script(method, params)` as JSON (its
/// id filled in), a notification 202.
fn scripted(script: Script) -> (HttpServer, Log) {
    let log: Log = Arc::default();
    let record = Arc::clone(&log);
    let handler = move |headers: HeaderMap, body: Bytes| {
        let record = Arc::clone(&record);
        let script = Arc::clone(&script);
        async move {
            let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            record.lock().unwrap().push(Seen {
                headers,
                body: body.clone(),
            });
            let Some(id) = body.get("id").cloned() else {
                return StatusCode::ACCEPTED.into_response();
            };
            let method = body["method"].as_str().unwrap_or_default();
            match script(method, &body["params"]) {
                Some(mut answer) => {
                    answer["jsonrpc"] = json!("2.0");
                    answer["id"] = id;
                    let status = if answer.get("error").is_some() {
                        StatusCode::BAD_REQUEST
                    } else {
                        StatusCode::OK
                    };
                    json_response(status, &answer)
                }
                None => (StatusCode::BAD_REQUEST, "Bad Request: no session").into_response(),
            }
        }
    };
    let router = axum::Router::new().route("/mcp", axum::routing::post(handler));
    (HttpServer::start_router(router), log)
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn discover_result(ttl_ms: u64) -> Value {
    json!({"result": {
        "resultType": "complete",
        "supportedVersions": [MODERN],
        "capabilities": {"tools": {"listChanged": true}},
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "scripted-modern", "version": "1"}},
        "ttlMs": ttl_ms,
        "cacheScope": "public"
    }})
}

/// A server of the 2026-07-28 era only: `initialize` is refused; `tools/list`
/// lists `lookup` (its `key` argument marked `x-mcp-header: Key`) and a
/// tool whose mark is invalid, kept for `ttl_ms`; `tools/call` answers
/// with the arguments it got.
fn modern_only(ttl_ms: u64) -> Script {
    Arc::new(move |method, params| match method {
        "server/discover" => Some(discover_result(3_600_000)),
        "initialize" => Some(
            json!({"error": {"code": -32601, "message": "initialize: this server speaks 2026-07-28 only"}}),
        ),
        "tools/list" => Some(json!({"result": {
            "resultType": "complete",
            "tools": [
                {"name": "lookup", "inputSchema": {"type": "object", "properties": {
                    "key": {"type": "string", "x-mcp-header": "Key"},
                    "n": {"type": "integer"}
                }}},
                {"name": "broken", "inputSchema": {"type": "object", "properties": {
                    "deep": {"type": "object", "x-mcp-header": "Deep"}
                }}}
            ],
            "ttlMs": ttl_ms,
            "cacheScope": "private"
        }})),
        "tools/call" => Some(json!({"result": {
            "content": [{"type": "text", "text": params["arguments"].to_string()}]
        }})),
        _ => Some(json!({"error": {"code": -32601, "message": "Method not found"}})),
    })
}

/// The method of every message the scripted server was sent, in order
/// (`-` for one without a method).
fn methods_of(seen: &[Seen]) -> Vec<&str> {
    seen.iter()
        .map(|s| s.body["method"].as_str().unwrap_or("-"))
        .collect()
}

fn header<'a>(seen: &'a Seen, name: &str) -> Option<&'a str> {
    seen.headers.get(name).and_then(|v| v.to_str().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_carries_the_era_meta_and_headers() {
    let (server, log) = scripted(modern_only(0));
    let client = Client::builder()
        .client_info("recorder", "9.9")
        .http(url(&server));
    let client = within(client).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::MODERN);
    assert_eq!(client.server_info().name(), "scripted-modern");
    // The tool with an invalid mark is left out.
    let tools = within(client.list_tools()).await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["lookup"]);
    let result = within(client.call_tool("lookup", json!({"key": "naïve", "n": 3})))
        .await
        .unwrap();
    assert_eq!(result.text(), r#"{"key":"naïve","n":3}"#);
    within(client.call_tool("lookup", json!({"key": null})))
        .await
        .unwrap();
    client.close().await;

    let seen = log.lock().unwrap().clone();
    let methods = methods_of(&seen);
    assert_eq!(
        methods,
        ["server/discover", "tools/list", "tools/call", "tools/call"]
    );
    let mut ids = Vec::new();
    for request in &seen {
        let meta = &request.body["params"]["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"], MODERN,
            "{meta}"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientCapabilities"],
            json!({})
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientInfo"],
            json!({"name": "recorder", "version": "9.9"})
        );
        assert_eq!(header(request, "mcp-protocol-version"), Some(MODERN));
        assert_eq!(
            header(request, "mcp-method"),
            request.body["method"].as_str()
        );
        assert_eq!(header(request, "mcp-session-id"), None);
        ids.push(request.body["id"].clone());
    }
    ids.dedup();
    assert_eq!(ids.len(), seen.len(), "a new id per request: {ids:?}");
    assert_eq!(header(&seen[1], "mcp-name"), None);
    assert_eq!(header(&seen[2], "mcp-name"), Some("lookup"));
    assert_eq!(
        header(&seen[2], "mcp-param-key"),
        Some("=?base64?bmHDr3Zl?=")
    );
    assert_eq!(header(&seen[3], "mcp-param-key"), None, "null: no header");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_are_kept_for_their_ttl() {
    let count = |log: &Log| {
        let seen = log.lock().unwrap();
        seen.iter()
            .filter(|s| s.body["method"] == "tools/list")
            .count()
    };
    let (kept, log) = scripted(modern_only(3_600_000));
    let client = within(Client::http(url(&kept))).await.unwrap();
    for _ in 0..3 {
        assert_eq!(within(client.list_tools()).await.unwrap().len(), 1);
    }
    assert_eq!(count(&log), 1, "asked once, then kept");
    // `server/discover` too, as the connection found it.
    let discover = within(client.discover()).await.unwrap();
    assert_eq!(discover["ttlMs"], 3_600_000);
    let discovers = log
        .lock()
        .unwrap()
        .iter()
        .filter(|s| s.body["method"] == "server/discover")
        .count();
    assert_eq!(discovers, 1);

    let (stale, log) = scripted(modern_only(0));
    let client = within(Client::http(url(&stale))).await.unwrap();
    for _ in 0..3 {
        within(client.list_tools()).await.unwrap();
    }
    assert_eq!(count(&log), 3, "ttlMs 0: asked each time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_server_gets_initialize_and_a_retry_gets_the_version_it_names() {
    // A legacy endpoint refuses the probe with a plain 400, then serves a
    // session.
    let legacy: Script = Arc::new(|method, _params| match method {
        "initialize" => Some(json!({"result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "legacy", "version": "1"}
        }})),
        "tools/list" => Some(json!({"result": {"tools": []}})),
        _ => None,
    });
    let (server, log) = scripted(legacy);
    let client = within(Client::http(url(&server))).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_06_18);
    within(client.list_tools()).await.unwrap();
    let seen = log.lock().unwrap().clone();
    let methods = methods_of(&seen);
    assert_eq!(
        methods[..3],
        ["server/discover", "initialize", "notifications/initialized"]
    );
    let list = seen
        .iter()
        .find(|s| s.body["method"] == "tools/list")
        .unwrap();
    assert!(list.body["params"].get("_meta").is_none(), "{}", list.body);
    assert_eq!(header(list, "mcp-protocol-version"), Some("2025-06-18"));
    assert_eq!(header(list, "mcp-method"), None);

    // A modern server that refuses the first request as of an unsupported
    // version, naming 2026-07-28: asked again, and the connection is
    // modern.
    let refused_once = Arc::new(Mutex::new(false));
    let picky: Script = Arc::new(move |method, params| {
        let mut refused = refused_once.lock().unwrap();
        if !*refused {
            *refused = true;
            let requested = &params["_meta"]["io.modelcontextprotocol/protocolVersion"];
            return Some(
                json!({"error": {"code": -32022, "message": "Unsupported protocol version",
                "data": {"supported": [MODERN], "requested": requested}}}),
            );
        }
        modern_only(0)(method, params)
    });
    let (server, log) = scripted(picky);
    let client = within(Client::http(url(&server))).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::MODERN);
    let seen = log.lock().unwrap().clone();
    let methods = methods_of(&seen);
    assert_eq!(methods, ["server/discover", "server/discover"]);

    // A modern server refusing with a version we do not speak.
    let other: Script = Arc::new(|_method, _params| {
        Some(
            json!({"error": {"code": -32022, "message": "Unsupported protocol version",
            "data": {"supported": ["2099-01-01"], "requested": MODERN}}}),
        )
    });
    let (server, _log) = scripted(other);
    match within(Client::http(url(&server))).await {
        Err(ClientError::UnsupportedVersion(listed)) => assert_eq!(listed, "2099-01-01"),
        other => panic!("{:?}", other.map(|c| c.protocol_version())),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_asked_for_a_legacy_version_goes_modern_when_initialize_is_refused() {
    let (server, log) = scripted(modern_only(0));
    let client = Client::builder()
        .protocol_version(ProtocolVersion::V2025_11_25)
        .http(url(&server));
    let client = within(client).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::MODERN);
    let seen = log.lock().unwrap().clone();
    let methods = methods_of(&seen);
    assert_eq!(methods, ["initialize", "server/discover"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mount_speaks_2026_07_28_to_an_upstream_that_speaks_nothing_else() {
    let (upstream, log) = scripted(modern_only(0));
    let front = Server::new("front", "1.0.0").mount("m", Upstream::http(url(&upstream)));
    let front = within(front).await.unwrap();
    let front = HttpServer::start(front);
    let client = Client::builder()
        .protocol_version(ProtocolVersion::V2025_11_25)
        .http(url(&front));
    let client = within(client).await.unwrap();
    let tools = within(client.list_tools()).await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    // (`plan` and `query` are the front's own, as every `#[tool]` here.)
    assert!(names.contains(&"m_lookup"), "{names:?}");
    assert!(
        !names.iter().any(|name| name.contains("broken")),
        "{names:?}"
    );
    let result = within(client.call_tool("m_lookup", json!({"key": "k1"})))
        .await
        .unwrap();
    assert_eq!(result.text(), r#"{"key":"k1"}"#);
    // Offered the legacy era first (a mount's default), the upstream
    // refused `initialize`, and was spoken to in its own.
    let seen = log.lock().unwrap().clone();
    let methods = methods_of(&seen);
    assert_eq!(methods[..2], ["initialize", "server/discover"]);
    assert!(!methods[2..].contains(&"initialize"), "{methods:?}");
    let call = seen
        .iter()
        .find(|s| s.body["method"] == "tools/call")
        .unwrap();
    assert_eq!(header(call, "mcp-param-key"), Some("k1"));
    assert_eq!(
        call.body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        MODERN
    );
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_mismatch_lists_the_tools_again_and_calls_once_more() {
    let mismatched = Arc::new(Mutex::new(false));
    let once: Script = Arc::new(move |method, params| {
        let mut mismatched = mismatched.lock().unwrap();
        if method == "tools/call" && !*mismatched {
            *mismatched = true;
            return Some(json!({"error": {"code": -32020,
                "message": "Header mismatch: the Mcp-Param-Key header is required"}}));
        }
        modern_only(0)(method, params)
    });
    let (server, log) = scripted(once);
    let client = within(Client::http(url(&server))).await.unwrap();
    let result = within(client.call_tool("lookup", json!({"key": "k"})))
        .await
        .unwrap();
    assert_eq!(result.text(), r#"{"key":"k"}"#);
    let seen = log.lock().unwrap().clone();
    let methods = methods_of(&seen);
    assert_eq!(
        methods,
        ["server/discover", "tools/call", "tools/list", "tools/call"]
    );
    assert_eq!(
        header(&seen[1], "mcp-param-key"),
        None,
        "the marks were not known yet"
    );
    assert_eq!(header(&seen[3], "mcp-param-key"), Some("k"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_subscription_is_opened_again_when_the_server_restarts() {
    let first = HttpServer::start(server());
    let addr = first.addr;
    let client = within(Client::http(url(&first))).await.unwrap();
    let mut notifications = client.notifications();
    // Stopped gracefully, the server ends the subscription; started again
    // where it was, it is asked for one anew.
    tokio::task::spawn_blocking(move || first.stop())
        .await
        .unwrap()
        .unwrap();
    let mut restarted = server();
    let handle = restarted.handle();
    let _server = HttpServer::start_at(addr, restarted);
    add_tools_until_announced(&handle, &mut notifications, "after_restart").await;
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mount_asked_for_2026_07_28_speaks_it_to_a_dual_era_upstream() {
    let upstream = HttpServer::start(server());
    let mounted = Upstream::http(url(&upstream)).protocol_version(ProtocolVersion::MODERN);
    let front = within(Server::new("front", "1.0.0").mount("u", mounted))
        .await
        .unwrap();
    let front = HttpServer::start(front);
    let client = within(Client::http(url(&front))).await.unwrap();
    // `Mcp-Param-Region` went to the upstream (which checks it), in the
    // 2026-07-28 era.
    let result = within(client.call_tool("u_query", json!({"region": "r1", "sql": "S"})))
        .await
        .unwrap();
    assert_eq!(result.text(), "S @ r1");
    client.close().await;
}
