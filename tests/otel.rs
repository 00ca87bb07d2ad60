//! Telemetry over the wire: a server binary (`Server::run`, built with the
//! `otel` feature) started with `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at an
//! OTLP/HTTP receiver built on the official `opentelemetry-proto`
//! definitions; a session; then what the receiver got, by the names of the
//! OpenTelemetry semantic conventions for MCP.

mod common;
#[path = "common/otlp.rs"]
mod otlp;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::http::{Client, send};
use common::{Process, hostile_target_binary, weather_binary};
use otlp::{Receiver, SpanSeen};
use serde_json::json;

const TIMEOUT: Duration = Duration::from_secs(20);
const OPERATION: &str = "mcp.server.operation.duration";
const SESSION: &str = "mcp.server.session.duration";
/// `SpanKind` and `StatusCode` as the protocol numbers them.
const SERVER: i32 = 2;
const ERROR: i32 = 2;

/// The trace context a client puts in `params._meta`.
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

fn by_id<'a>(spans: &'a [SpanSeen], id: &str) -> &'a SpanSeen {
    let found: Vec<&SpanSeen> = spans
        .iter()
        .filter(|s| s.attributes.get("jsonrpc.request.id").map(String::as_str) == Some(id))
        .collect();
    assert_eq!(found.len(), 1, "one span for request {id}: {spans:#?}");
    found[0]
}

fn attribute<'a>(span: &'a SpanSeen, key: &str) -> Option<&'a str> {
    span.attributes.get(key).map(String::as_str)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_stdio_session_reaches_the_receiver_as_spans_and_metrics() {
    let receiver = Receiver::start();
    let endpoint = receiver.endpoint();
    let mut server = Process::spawn_with_env(
        &hostile_target_binary(),
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint),
            ("OTEL_SERVICE_NAME", "otel-e2e"),
            ("RUST_LOG", "info"),
        ],
    );
    let init = server.initialize("2025-06-18");
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    let list = server.request(1, "tools/list", json!({}));
    assert!(list["result"]["tools"].is_array());
    let echo = server.request(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    assert_eq!(echo["result"]["isError"], false, "{echo}");
    let fail = server.request(
        3,
        "tools/call",
        json!({"name": "fail", "arguments": {"message": "no"}}),
    );
    assert_eq!(fail["result"]["isError"], true, "{fail}");
    let unknown = server.request(4, "tools/call", json!({"name": "nope", "arguments": {}}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    // A call that has to wait answers from a task of its own.
    let slow = server.request(
        5,
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 50}}),
    );
    assert_eq!(slow["result"]["isError"], false, "{slow}");
    // A client that sends its trace context in `_meta`.
    let traced = server.request(
        6,
        "tools/call",
        json!({
            "name": "echo",
            "arguments": {"text": "traced"},
            "_meta": {"traceparent": format!("00-{TRACE_ID}-{PARENT_ID}-01")}
        }),
    );
    assert_eq!(traced["result"]["isError"], false, "{traced}");
    server.send(json!({"jsonrpc": "2.0", "id": "ping-1", "method": "ping"}));
    assert_eq!(server.recv()["id"], "ping-1");
    // EOF: the server stops, and flushes the export before it exits.
    let (code, rest, stderr) = server.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(rest.is_empty(), "{rest:?}");
    assert!(
        stderr.contains("exporting traces and metrics over OTLP"),
        "{stderr}"
    );

    receiver.wait_for(TIMEOUT, "the session's spans and metrics", |r| {
        r.spans().len() >= 9 && r.point(SESSION, &[], &[]).is_some()
    });
    assert!(receiver.rejected().is_empty(), "{:?}", receiver.rejected());
    let spans = receiver.spans();
    assert_eq!(spans.len(), 9, "one span per message: {spans:#?}");
    for span in &spans {
        assert_eq!(span.kind, SERVER, "{span:?}");
        assert_eq!(span.scope, "mcp-runtime", "{span:?}");
        assert_eq!(
            span.resource.get("service.name").map(String::as_str),
            Some("otel-e2e")
        );
        assert_eq!(
            attribute(span, "network.transport"),
            Some("pipe"),
            "{span:?}"
        );
        assert_eq!(
            attribute(span, "mcp.protocol.version"),
            Some("2025-06-18"),
            "{span:?}"
        );
        assert_eq!(
            attribute(span, "mcp.session.id"),
            None,
            "stdio has no session id"
        );
        assert_eq!(attribute(span, "network.protocol.name"), None);
    }

    let initialize = by_id(&spans, "0");
    assert_eq!(initialize.name, "initialize");
    assert_eq!(attribute(initialize, "mcp.method.name"), Some("initialize"));
    assert_eq!(initialize.status.0, 0, "{initialize:?}");
    // A request's span ends when it is answered, not with the session.
    assert!(
        initialize.end_ns <= by_id(&spans, "1").start_ns,
        "initialize lasts until answered: {spans:#?}"
    );

    let notification: Vec<_> = spans
        .iter()
        .filter(|s| s.name == "notifications/initialized")
        .collect();
    assert_eq!(notification.len(), 1, "{spans:#?}");
    assert_eq!(attribute(notification[0], "jsonrpc.request.id"), None);

    let list = by_id(&spans, "1");
    assert_eq!(list.name, "tools/list");
    assert_eq!(attribute(list, "gen_ai.operation.name"), None);

    let echo = by_id(&spans, "2");
    assert_eq!(echo.name, "tools/call echo");
    assert_eq!(attribute(echo, "mcp.method.name"), Some("tools/call"));
    assert_eq!(attribute(echo, "gen_ai.tool.name"), Some("echo"));
    assert_eq!(
        attribute(echo, "gen_ai.operation.name"),
        Some("execute_tool")
    );
    assert_eq!(attribute(echo, "error.type"), None);
    assert_eq!(echo.status.0, 0, "{echo:?}");
    assert!(echo.parent_span_id.is_empty(), "a root span: {echo:?}");

    let fail = by_id(&spans, "3");
    assert_eq!(fail.name, "tools/call fail");
    assert_eq!(attribute(fail, "error.type"), Some("tool_error"));
    assert_eq!(attribute(fail, "rpc.response.status_code"), None);
    assert_eq!(fail.status.0, ERROR, "{fail:?}");

    // An unknown tool is not named: a client cannot make up span names.
    let unknown = by_id(&spans, "4");
    assert_eq!(unknown.name, "tools/call");
    assert_eq!(attribute(unknown, "gen_ai.tool.name"), None);
    assert_eq!(attribute(unknown, "error.type"), Some("-32602"));
    assert_eq!(
        attribute(unknown, "rpc.response.status_code"),
        Some("-32602")
    );
    assert_eq!(unknown.status, (ERROR, "Unknown tool: nope".to_owned()));

    // The span of a call that waited ends when it answers.
    let slow = by_id(&spans, "5");
    assert_eq!(slow.name, "tools/call slow");
    assert!(
        slow.end_ns - slow.start_ns >= 50_000_000,
        "the span lasts the call: {slow:?}"
    );
    assert_eq!(slow.status.0, 0, "{slow:?}");

    let traced = by_id(&spans, "6");
    assert_eq!(traced.name, "tools/call echo");
    assert_eq!(hex(&traced.trace_id), TRACE_ID, "the client's trace");
    assert_eq!(hex(&traced.parent_span_id), PARENT_ID, "the client's span");

    let ping = by_id(&spans, "ping-1");
    assert_eq!(ping.name, "ping");
    assert_eq!(attribute(ping, "mcp.method.name"), Some("ping"));

    // Metrics: one duration histogram, its points by method, tool and error.
    let common = [
        ("network.transport", "pipe"),
        ("mcp.protocol.version", "2025-06-18"),
    ];
    let point = |wanted: &[(&str, &str)], absent: &[&str]| {
        let wanted: Vec<(&str, &str)> = wanted.iter().chain(&common).copied().collect();
        receiver
            .point(OPERATION, &wanted, absent)
            .unwrap_or_else(|| {
                panic!(
                    "no {OPERATION} point with {wanted:?}: {:#?}",
                    receiver.histogram_points()
                )
            })
    };
    let echo = point(
        &[
            ("mcp.method.name", "tools/call"),
            ("gen_ai.tool.name", "echo"),
            ("gen_ai.operation.name", "execute_tool"),
        ],
        &["error.type"],
    );
    assert_eq!(echo.count, 2, "{echo:?}");
    assert_eq!(echo.unit, "s");
    assert_eq!(
        echo.bounds,
        [
            0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0
        ]
    );
    let fail = point(
        &[("gen_ai.tool.name", "fail"), ("error.type", "tool_error")],
        &[],
    );
    assert_eq!(fail.count, 1, "{fail:?}");
    let unknown = point(
        &[
            ("mcp.method.name", "tools/call"),
            ("error.type", "-32602"),
            ("rpc.response.status_code", "-32602"),
        ],
        &["gen_ai.tool.name"],
    );
    assert_eq!(unknown.count, 1, "{unknown:?}");
    let slow = point(&[("gen_ai.tool.name", "slow")], &["error.type"]);
    assert_eq!(slow.count, 1, "{slow:?}");
    assert!(slow.sum >= 0.05, "{slow:?}");
    for method in [
        "initialize",
        "notifications/initialized",
        "tools/list",
        "ping",
    ] {
        let point = point(&[("mcp.method.name", method)], &["error.type"]);
        assert_eq!(point.count, 1, "{point:?}");
    }
    let attributes: Vec<_> = receiver
        .histogram_points()
        .into_iter()
        .flat_map(|p| p.attributes.into_keys())
        .collect();
    assert!(
        !attributes
            .iter()
            .any(|k| k == "jsonrpc.request.id" || k == "mcp.session.id"),
        "no per-request attribute on a metric: {attributes:?}"
    );

    let session = receiver
        .point(SESSION, &common, &["error.type"])
        .expect("the session's duration");
    assert_eq!(session.count, 1, "{session:?}");
    assert_eq!(session.unit, "s");
    // `initialize` is timed until it is answered, not for the session it
    // starts.
    let initialize = point(&[("mcp.method.name", "initialize")], &[]);
    assert!(
        initialize.sum < session.sum,
        "{initialize:?} lasts less than {session:?}"
    );
}

#[test]
fn prompts_and_resources_are_named_as_the_conventions_say() {
    let receiver = Receiver::start();
    let endpoint = receiver.endpoint();
    let mut server = Process::spawn_with_env(
        &weather_binary(),
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)],
    );
    server.initialize("2025-11-25");
    let prompt = server.request(
        1,
        "prompts/get",
        json!({"name": "plan_trip", "arguments": {"city": "Lisbon"}}),
    );
    assert!(prompt["result"]["messages"].is_array(), "{prompt}");
    let unknown = server.request(2, "prompts/get", json!({"name": "made-up"}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let read = server.request(
        3,
        "resources/read",
        json!({"uri": "weather://cities/Lisbon"}),
    );
    assert!(read["result"]["contents"].is_array(), "{read}");
    let complete = server.request(
        4,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "plan_trip"},
               "argument": {"name": "city", "value": "Be"}}),
    );
    assert!(
        complete["result"]["completion"]["values"].is_array(),
        "{complete}"
    );
    let (code, _, stderr) = server.finish();
    assert_eq!(code, Some(0), "{stderr}");

    receiver.wait_for(TIMEOUT, "the session's spans and metrics", |r| {
        r.spans().len() >= 6 && r.point(SESSION, &[], &[]).is_some()
    });
    let spans = receiver.spans();
    let prompt = by_id(&spans, "1");
    assert_eq!(prompt.name, "prompts/get plan_trip");
    assert_eq!(attribute(prompt, "gen_ai.prompt.name"), Some("plan_trip"));
    assert_eq!(attribute(prompt, "gen_ai.operation.name"), None);
    assert_eq!(
        prompt.resource.get("service.name").map(String::as_str),
        Some("weather"),
        "named after the server"
    );
    let unknown = by_id(&spans, "2");
    assert_eq!(unknown.name, "prompts/get");
    assert_eq!(attribute(unknown, "gen_ai.prompt.name"), None);
    assert_eq!(attribute(unknown, "error.type"), Some("-32602"));
    let read = by_id(&spans, "3");
    assert_eq!(read.name, "resources/read");
    assert_eq!(
        attribute(read, "mcp.resource.uri"),
        Some("weather://cities/Lisbon")
    );
    let complete = by_id(&spans, "4");
    assert_eq!(complete.name, "completion/complete plan_trip");
    assert_eq!(attribute(complete, "gen_ai.prompt.name"), Some("plan_trip"));

    let point = receiver
        .point(
            OPERATION,
            &[
                ("mcp.method.name", "prompts/get"),
                ("gen_ai.prompt.name", "plan_trip"),
            ],
            &["error.type"],
        )
        .expect("the prompt's duration");
    assert_eq!(point.count, 1);
    let read = receiver
        .point(OPERATION, &[("mcp.method.name", "resources/read")], &[])
        .expect("the read's duration");
    assert!(
        !read.attributes.contains_key("mcp.resource.uri"),
        "{read:?}"
    );
}

/// A free loopback port, for a server that binds it itself.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Waits until the server at `addr` accepts connections.
fn wait_listening(addr: SocketAddr, child: &mut Child) {
    let deadline = Instant::now() + TIMEOUT;
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        assert!(
            child.try_wait().expect("try_wait").is_none(),
            "the server exited before listening"
        );
        assert!(Instant::now() < deadline, "the server did not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Stops a server as a service manager would (SIGTERM) and waits for it.
#[cfg(unix)]
fn terminate(mut child: Child) -> Option<i32> {
    let pid = libc::pid_t::try_from(child.id()).expect("a pid");
    // SAFETY: a plain kill(2) of our own child.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server did not stop within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(unix)]
#[test]
fn an_http_session_is_named_by_its_id_and_no_header_is_recorded() {
    let receiver = Receiver::start();
    let addr: SocketAddr = ([127, 0, 0, 1], free_port()).into();
    let mut child = Command::new(hostile_target_binary())
        .args(["--http", &addr.to_string()])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint())
        .env_remove("OTEL_SERVICE_NAME")
        .env_remove("OTEL_RESOURCE_ATTRIBUTES")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the server");
    wait_listening(addr, &mut child);

    const SECRET: &str = "Bearer s3cr3t-t0ken";
    let mut client = Client::new(addr);
    client.initialize("2025-06-18");
    let session = client.session.clone().expect("a session id");
    let mut reply = client.post_with(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "hi"}}}),
        &[("Authorization", SECRET)],
    );
    assert_eq!(reply.status, 200);
    assert_eq!(reply.replies()[0]["result"]["isError"], false);
    // The session ends: its duration is recorded.
    let ended = send(addr, "DELETE", &[("Mcp-Session-Id", &session)], b"");
    assert_eq!(ended.status, 204);
    assert_eq!(terminate(child), Some(0));

    receiver.wait_for(TIMEOUT, "the session's spans and metrics", |r| {
        r.spans().len() >= 3 && r.point(SESSION, &[], &[]).is_some()
    });
    let spans = receiver.spans();
    assert_eq!(spans.len(), 3, "{spans:#?}");
    for span in &spans {
        assert_eq!(
            attribute(span, "mcp.session.id"),
            Some(session.as_str()),
            "{span:?}"
        );
        assert_eq!(attribute(span, "network.transport"), Some("tcp"));
        assert_eq!(attribute(span, "network.protocol.name"), Some("http"));
        // The service is named after the server when nothing names it.
        assert_eq!(
            span.resource.get("service.name").map(String::as_str),
            Some("hostile-target")
        );
        assert!(span.resource.contains_key("service.version"), "{span:?}");
        for value in span.attributes.values().chain(span.resource.values()) {
            assert!(!value.contains("s3cr3t"), "a token in telemetry: {span:?}");
        }
    }
    let initialize = by_id(&spans, "0");
    let echo = by_id(&spans, "1");
    assert_eq!(initialize.name, "initialize");
    assert_eq!(echo.name, "tools/call echo");
    assert!(initialize.end_ns <= echo.start_ns, "{spans:#?}");

    let tcp = [
        ("network.transport", "tcp"),
        ("network.protocol.name", "http"),
    ];
    let echo = receiver
        .point(
            OPERATION,
            &[tcp[0], tcp[1], ("gen_ai.tool.name", "echo")],
            &[],
        )
        .expect("the call's duration");
    assert_eq!(echo.count, 1);
    let session_point = receiver
        .point(SESSION, &tcp, &[])
        .expect("the session's duration");
    assert_eq!(session_point.count, 1);
}
