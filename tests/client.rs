//! The client (`mcp_runtime::client`) over stdio: against our own examples
//! (every typed call, progress, cancellation), against scripted servers
//! that exit, hang or answer a version we do not know, and against a
//! server we did not write, the reference server
//! `@modelcontextprotocol/server-everything` (npm, pinned in
//! tests/upstreams, installed by tests/upstreams/install, which the first
//! test to run it runs when the install is missing or stale).

mod common;

use common::step::within;
use std::sync::{Arc, Mutex};
use std::time::Duration;
#[cfg(unix)]
use std::time::Instant;

use mcp_runtime::client::{
    Client, ClientError, CompletionRef, LogLevel, Notification, ProtocolVersion, ResourceContents,
};
use mcp_runtime::serde_json;
use serde_json::json;
use tokio::process::Command;

/// The weather example, connected in the era `first` leads to (the
/// example speaks both).
async fn weather_at(first: ProtocolVersion) -> Client {
    let mut command = Command::new(common::weather_binary());
    command.env("WEATHER_REFRESH_SECS", "1");
    let client = Client::builder().protocol_version(first).spawn(command);
    within(client).await.expect("connect")
}

#[tokio::test]
async fn every_typed_call_against_the_weather_example() {
    every_typed_call(ProtocolVersion::LATEST).await;
}

/// The same calls in the 2026-07-28 era: no session, `_meta` on each
/// request, subscriptions on `subscriptions/listen`.
#[tokio::test]
async fn every_typed_call_against_the_weather_example_in_2026_07_28() {
    every_typed_call(ProtocolVersion::MODERN).await;
}

async fn every_typed_call(version: ProtocolVersion) {
    let client = weather_at(version).await;
    assert_eq!(client.protocol_version(), version);
    assert_eq!(client.server_info().name(), "weather");
    assert!(client.instructions().unwrap().contains("36 large cities"));
    let capabilities = client.capabilities();
    assert!(capabilities.tools() && capabilities.resources() && capabilities.prompts());
    assert!(capabilities.resource_subscribe() && capabilities.completions());

    within(client.ping()).await.unwrap();

    let tools = within(client.list_tools()).await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, common::WEATHER_TOOLS);
    assert_eq!(tools[1].title(), Some("Weather forecast"));
    assert!(tools[1].output_schema().is_some());
    assert_eq!(tools[1].annotations().unwrap()["readOnlyHint"], true);

    let forecast = within(client.call_tool("get_forecast", json!({"city": "Paris", "days": 2})))
        .await
        .unwrap();
    assert!(!forecast.is_error);
    let structured = forecast.structured_content.expect("structured output");
    assert_eq!(structured["city"], "Paris");
    assert_eq!(structured["days"].as_array().unwrap().len(), 2);

    // A tool's own failure is a result; an unknown tool is a JSON-RPC error.
    let unknown_city = within(client.call_tool("get_forecast", json!({"city": "Atlantis"})))
        .await
        .unwrap();
    assert!(unknown_city.is_error);
    match within(client.call_tool("no_such_tool", json!({}))).await {
        Err(ClientError::Rpc { code, message, .. }) => {
            assert_eq!(code, -32602, "{message}");
            assert!(message.contains("no_such_tool"), "{message}");
        }
        other => panic!("{other:?}"),
    }

    let resources = within(client.list_resources()).await.unwrap();
    assert!(resources.iter().any(|r| r.uri() == "weather://cities"));
    let templates = within(client.list_resource_templates()).await.unwrap();
    assert_eq!(templates[0].uri_template(), "weather://cities/{name}");
    let contents = within(client.read_resource("weather://cities"))
        .await
        .unwrap();
    match &contents[0] {
        ResourceContents::Text { uri, text, .. } => {
            assert_eq!(uri, "weather://cities");
            assert!(text.contains("Lisbon"));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        within(client.read_resource("weather://nowhere")).await,
        Err(ClientError::Rpc { .. })
    ));

    let prompts = within(client.list_prompts()).await.unwrap();
    assert_eq!(prompts[0].name(), "plan_trip");
    assert_eq!(prompts[0].arguments(), [("city", true), ("days", false)]);
    let plan = within(client.get_prompt("plan_trip", [("city", "Lisbon"), ("days", "2")]))
        .await
        .unwrap();
    assert!(
        plan.messages
            .last()
            .unwrap()
            .content
            .as_text()
            .unwrap_or_default()
            .contains("2-day trip")
    );

    let prompt_ref = CompletionRef::Prompt("plan_trip".into());
    let completion = within(client.complete(&prompt_ref, "city", "Lis"))
        .await
        .unwrap();
    assert_eq!(completion.values, ["Lisbon"]);
    let template_ref = CompletionRef::Resource("weather://cities/{name}".into());
    let completion = within(client.complete(&template_ref, "name", "Par"))
        .await
        .unwrap();
    assert!(completion.values.contains(&"Paris".to_owned()));

    within(client.set_log_level(LogLevel::Debug)).await.unwrap();

    // A subscription announces each refresh (every second here).
    let mut notifications = client.notifications();
    within(client.subscribe("weather://cities/Paris"))
        .await
        .unwrap();
    let updated = within(async {
        loop {
            if let Some(Notification::ResourceUpdated { uri }) = notifications.recv().await {
                return uri;
            }
        }
    })
    .await;
    assert_eq!(updated, "weather://cities/Paris");
    within(client.unsubscribe("weather://cities/Paris"))
        .await
        .unwrap();

    within(client.close()).await;
    assert!(matches!(
        within(client.ping()).await,
        Err(ClientError::Closed)
    ));
    assert_eq!(within(notifications.recv()).await, None, "the stream ends");
}

#[tokio::test]
async fn progress_reaches_the_callback() {
    let client = within(Client::stdio(common::progress_binary(), [] as [&str; 0]))
        .await
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let result = within(client.call_tool_with_progress(
        "count_slowly",
        json!({"to": 3, "delay_ms": 10}),
        move |progress, total, _message| record.lock().unwrap().push((progress, total)),
    ))
    .await
    .unwrap();
    assert_eq!(result.text(), "counted to 3");
    assert_eq!(
        *seen.lock().unwrap(),
        [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]
    );
}

#[tokio::test]
async fn a_dropped_call_is_cancelled_on_the_server() {
    let client = within(Client::stdio(common::progress_binary(), [] as [&str; 0]))
        .await
        .unwrap();
    let mut notifications = client.notifications();
    let (first, mut first_seen) = tokio::sync::mpsc::unbounded_channel();
    let call = client.call_tool_with_progress(
        "count_slowly",
        json!({"to": 1000, "delay_ms": 20}),
        move |_, _, _| {
            let _ = first.send(());
        },
    );
    // Dropped once the call is under way: the server gets
    // notifications/cancelled and stops counting.
    tokio::select! {
        _ = call => panic!("the call finished"),
        _ = within(first_seen.recv()) => {}
    }
    // Progress the server sent before it read the cancellation arrives as
    // an `Other` notification (no one waits for that call any more)...
    tokio::time::sleep(Duration::from_millis(300)).await;
    while notifications.try_recv().is_some() {}
    // ...and then no more: the server stopped the call.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let late: Vec<Notification> = std::iter::from_fn(|| notifications.try_recv()).collect();
    assert!(late.is_empty(), "the call went on: {late:?}");
    within(client.ping()).await.unwrap();
}

/// What a legacy server answers the client's first request, the
/// `server/discover` probe (id 1): it has no such method.
#[cfg(unix)]
const NO_DISCOVER: &str =
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#;

/// A legacy server scripted in sh: it refuses the `server/discover`
/// probe, answers `initialize` (id 2) with `version`, reads
/// `notifications/initialized`, then runs `then` (the client's next
/// request has id 3).
#[cfg(unix)]
fn scripted(version: &str, then: &str) -> Command {
    let answer = json!({
        "jsonrpc": "2.0", "id": 2,
        "result": {
            "protocolVersion": version, "capabilities": {},
            "serverInfo": {"name": "scripted", "version": "0"}
        }
    });
    let script = format!(
        "read -r line; echo '{NO_DISCOVER}'; read -r line; echo '{answer}'; read -r line; {then}"
    );
    let mut command = Command::new("sh");
    command.args(["-c", &script]);
    command
}

// sh scripts the server.
#[cfg(unix)]
#[tokio::test]
async fn requests_from_the_server_are_answered() {
    // The server pings, then asks for something this client does not do;
    // the text of its answer to our call says whether both were answered.
    let check = r#"
        echo '{"jsonrpc":"2.0","id":"s1","method":"ping"}'
        echo '{"jsonrpc":"2.0","id":"s2","method":"sampling/createMessage","params":{}}'
        read -r a; read -r b; read -r c
        all="$a $b $c"
        t=missing
        case "$all" in *'"id":"s1","result":{}'*)
            case "$all" in *'"id":"s2","error":{"code":-32601'*) t=answered;; esac;;
        esac
        echo '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"'$t'"}]}}'
        read -r line
    "#;
    let client = within(Client::spawn(scripted("2025-11-25", check)))
        .await
        .unwrap();
    let result = within(client.call_tool("check", json!({}))).await.unwrap();
    assert_eq!(result.text(), "answered");
}

// sh scripts the server.
#[cfg(unix)]
#[tokio::test]
async fn a_question_from_the_server_is_answered_by_the_handler_with_defaults() {
    // The server checks the capability and the client's name in
    // `initialize`, asks a question (`elicitation/create`) whose schema has
    // defaults, and answers our call with whether the answer had the
    // handler's value and the defaults it left out.
    let script = r#"
        read -r probe
        echo '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}'
        read -r init
        ok=no
        case "$init" in *'"capabilities":{"elicitation":{}}'*'"clientInfo":{"name":"planner","version":"2.0"}'*) ok=yes;; esac
        echo '{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"asking","version":"0"}}}'
        read -r initialized
        read -r call
        echo '{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Where to?","requestedSchema":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","default":3},"unit":{"type":"string","enum":["metric","imperial"],"default":"metric"}},"required":["city"]}}}'
        read -r answer
        t="$ok-missing"
        case "$answer" in *'"id":"e1","result":{"action":"accept","content":{"city":"Oslo","days":3,"unit":"metric"}}'*) t="$ok-answered";; esac
        echo '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"'$t'"}]}}'
        read -r line
    "#;
    let mut command = Command::new("sh");
    command.args(["-c", script]);
    let asked = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&asked);
    let client = Client::builder()
        .client_info("planner", "2.0")
        .on_elicitation(move |request| {
            record.lock().unwrap().push(request.message.clone());
            async move {
                let mut answer = serde_json::Map::new();
                answer.insert("city".into(), json!("Oslo"));
                mcp_runtime::client::Elicitation::Accept(answer)
            }
        })
        .spawn(command);
    let client = within(client).await.unwrap();
    let result = within(client.call_tool("plan", json!({}))).await.unwrap();
    assert_eq!(result.text(), "yes-answered");
    assert_eq!(*asked.lock().unwrap(), ["Where to?"]);
}

// sh scripts the server.
#[cfg(unix)]
#[tokio::test]
async fn lists_follow_next_cursor() {
    let pages = r#"
        read -r line
        echo '{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"p2"}}'
        read -r line
        case "$line" in *'"cursor":"p2"'*)
            echo '{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"b","inputSchema":{"type":"object"}}]}}';;
        esac
        read -r line
    "#;
    let client = within(Client::spawn(scripted("2025-11-25", pages)))
        .await
        .unwrap();
    client.set_timeout(Duration::from_secs(5));
    let tools = within(client.list_tools()).await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["a", "b"]);
}

// sh scripts the server.
#[cfg(unix)]
#[tokio::test]
async fn a_server_that_exits_mid_call_gives_closed() {
    // Reads the call, then exits without answering.
    let client = within(Client::spawn(scripted(
        "2025-06-18",
        "read -r line; exit 0",
    )))
    .await
    .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_06_18);
    assert_eq!(client.server_info().name(), "scripted");
    let started = Instant::now();
    assert!(matches!(
        within(client.call_tool("anything", json!({}))).await,
        Err(ClientError::Closed)
    ));
    assert!(started.elapsed() < Duration::from_secs(10));
    // And so does every later call.
    assert!(matches!(
        within(client.ping()).await,
        Err(ClientError::Closed)
    ));
}

// sh scripts the server.
#[cfg(unix)]
#[tokio::test]
async fn a_server_that_hangs_gives_timeout() {
    let client = within(Client::spawn(scripted("2025-11-25", "exec sleep 60")))
        .await
        .unwrap();
    client.set_timeout(Duration::from_millis(300));
    let started = Instant::now();
    assert!(matches!(
        within(client.call_tool("anything", json!({}))).await,
        Err(ClientError::Timeout)
    ));
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(300) && waited < Duration::from_secs(10));
}

// sh scripts the server.
#[cfg(unix)]
#[tokio::test]
async fn a_version_we_do_not_know_is_refused() {
    match within(Client::spawn(scripted("1999-01-01", "exec sleep 60"))).await {
        Err(ClientError::UnsupportedVersion(version)) => assert_eq!(version, "1999-01-01"),
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("connected"),
    }
}

#[tokio::test]
async fn a_server_that_fails_to_start_is_an_error() {
    let command = Command::new("/nonexistent/mcp-server");
    assert!(matches!(
        within(Client::spawn(command)).await,
        Err(ClientError::Io(_))
    ));
    // Starts, then exits before answering `initialize`.
    #[cfg(unix)]
    {
        let mut command = Command::new("sh");
        command.args(["-c", "exit 3"]);
        assert!(matches!(
            within(Client::spawn(command)).await,
            Err(ClientError::Closed)
        ));
    }
}

/// The reference server, as tests/upstreams/install installed it.
fn everything_command() -> Command {
    let (node, args) = common::upstreams::everything();
    let mut command = Command::new(node);
    command.args(args);
    command
}

#[tokio::test]
async fn the_reference_server_everything() {
    let client = within(Client::spawn(everything_command())).await.unwrap();
    assert!(client.server_info().name().contains("everything"));
    // A legacy server: it refused the server/discover probe, and the
    // client initialized.
    assert!(!client.protocol_version().is_modern());

    let tools = within(client.list_tools()).await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    for expected in ["echo", "get-sum", "trigger-long-running-operation"] {
        assert!(names.contains(&expected), "{expected} in {names:?}");
    }

    let echo = within(client.call_tool("echo", json!({"message": "hello"})))
        .await
        .unwrap();
    assert!(echo.text().contains("hello"), "{echo:?}");
    let sum = within(client.call_tool("get-sum", json!({"a": 2, "b": 3})))
        .await
        .unwrap();
    assert!(sum.text().contains('5'), "{sum:?}");

    let resources = within(client.list_resources()).await.unwrap();
    let first = resources.first().expect("some resources");
    let contents = within(client.read_resource(first.uri())).await.unwrap();
    assert_eq!(contents[0].uri(), first.uri());
    let templates = within(client.list_resource_templates()).await.unwrap();
    assert!(!templates.is_empty());

    let prompts = within(client.list_prompts()).await.unwrap();
    let prompt_names: Vec<&str> = prompts.iter().map(|p| p.name()).collect();
    assert!(prompt_names.contains(&"simple-prompt"), "{prompt_names:?}");
    let simple = within(client.get_prompt("simple-prompt", [] as [(&str, &str); 0]))
        .await
        .unwrap();
    assert!(!simple.messages.is_empty());
    let args = within(client.get_prompt("args-prompt", [("city", "Lisbon")]))
        .await
        .unwrap();
    assert!(
        args.messages[0]
            .content
            .as_text()
            .unwrap_or_default()
            .contains("Lisbon"),
        "{args:?}"
    );

    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let done = within(client.call_tool_with_progress(
        "trigger-long-running-operation",
        json!({"duration": 1, "steps": 3}),
        move |progress, total, _| record.lock().unwrap().push((progress, total)),
    ))
    .await
    .unwrap();
    assert!(done.text().contains("completed"), "{done:?}");
    assert_eq!(
        *seen.lock().unwrap(),
        [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]
    );

    let department = CompletionRef::Prompt("completable-prompt".into());
    let completion = within(client.complete(&department, "department", "Eng"))
        .await
        .unwrap();
    assert_eq!(completion.values, ["Engineering"]);

    // Log messages, at the level asked for: the tool sends one at once.
    within(client.set_log_level(LogLevel::Debug)).await.unwrap();
    let mut notifications = client.notifications();
    within(client.call_tool("toggle-simulated-logging", json!({})))
        .await
        .unwrap();
    let (level, data) = within(async {
        loop {
            if let Some(Notification::Log { level, data, .. }) = notifications.recv().await {
                return (level, data);
            }
        }
    })
    .await;
    assert!(level.is_some(), "a level the protocol defines");
    assert!(
        data.as_str().is_some_and(|d| d.contains("message")),
        "{data}"
    );

    within(client.ping()).await.unwrap();
    within(client.close()).await;
}
