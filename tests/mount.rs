//! `Server::mount`: another server's tools, resources, templates and
//! prompts served as ours, under a prefix, with every request forwarded.
//! Upstreams here are our own examples over stdio and in-process servers
//! over Streamable HTTP on loopback (which a test can change, stop and
//! start again); one test mounts the reference server
//! `@modelcontextprotocol/server-everything` (tests/upstreams/install, run
//! on first use), and tests/client.rs and the interop suite mount more
//! servers we did not write.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use common::http::HttpServer;
use common::step::{STEP, within};
use mcp_runtime::client::Client;
use mcp_runtime::middleware::{BoxError, McpError, McpRequest, McpService};
use mcp_runtime::testing::{CompletionRef, TestClient};
use mcp_runtime::{
    Context, DynamicResource, DynamicTool, MountError, Primitive, ResourceContents, Server,
    ServerHandle, Upstream, serde_json,
};
use serde_json::{Value, json};
use tokio::process::Command;

fn weather() -> Upstream {
    Upstream::command(common::weather_binary(), Vec::<&str>::new())
}

fn names(list: &[Value]) -> Vec<&str> {
    list.iter().map(|t| t["name"].as_str().unwrap()).collect()
}

fn url(server: &HttpServer) -> String {
    format!("http://{}/mcp", server.addr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_is_served_under_its_prefix_as_it_serves_itself() {
    // As the mount speaks to it (legacy first), and as our test client
    // below speaks to the front: 2025-11-25.
    let direct = Client::builder()
        .protocol_version(mcp_runtime::client::ProtocolVersion::LATEST)
        .spawn(Command::new(common::weather_binary()));
    let direct = within(direct).await.unwrap();
    let front = within(Server::new("front", "1.0.0").mount("w", weather()))
        .await
        .unwrap();
    let mut client = TestClient::start(front).unwrap();
    let init = within(client.initialize("2025-11-25")).await.unwrap();
    let instructions = init["instructions"].as_str().unwrap();
    assert!(
        instructions.starts_with("Tools and prompts named `w_...`: "),
        "{instructions}"
    );
    assert!(
        instructions.contains(direct.instructions().unwrap()),
        "{instructions}"
    );

    let tools = within(client.list_tools()).await.unwrap();
    assert_eq!(
        names(&tools),
        [
            "w_current_conditions",
            "w_get_forecast",
            "w_search_cities",
            "w_subscribe_alerts",
            "w_summarize_forecast",
            "w_weather_report"
        ]
    );
    // Schemas, annotations, title and description as the upstream lists them.
    for theirs in within(direct.list_tools()).await.unwrap() {
        let theirs = theirs.as_json();
        let name = format!("w_{}", theirs["name"].as_str().unwrap());
        let ours = tools.iter().find(|t| t["name"] == name.as_str()).unwrap();
        for key in [
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
        ] {
            assert_eq!(ours.get(key), theirs.get(key), "{name}: {key}");
        }
    }

    let forecast = within(client.call_tool("w_get_forecast", json!({"city": "Paris", "days": 2})))
        .await
        .unwrap();
    assert_eq!(forecast["isError"], false, "{forecast}");
    assert_eq!(forecast["structuredContent"]["city"], "Paris");
    assert_eq!(
        forecast["structuredContent"]["days"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // The upstream's own failure stays a result the model reads.
    let atlantis = within(client.call_tool("w_get_forecast", json!({"city": "Atlantis"})))
        .await
        .unwrap();
    assert_eq!(atlantis["isError"], true);
    // Arguments are checked against the upstream's schema here.
    let invalid = within(client.call_tool("w_get_forecast", json!({"days": 2}))).await;
    assert!(invalid.is_err() || invalid.unwrap()["isError"] == true);

    let resources = within(client.list_resources()).await.unwrap();
    assert!(resources.iter().any(|r| r["uri"] == "weather://cities"));
    let templates = within(client.list_resource_templates()).await.unwrap();
    assert_eq!(templates[0]["uriTemplate"], "weather://cities/{name}");
    let cities = within(client.read_resource("weather://cities"))
        .await
        .unwrap();
    assert!(
        cities["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Lisbon")
    );
    let paris = within(client.read_resource("weather://cities/Paris"))
        .await
        .unwrap();
    assert_eq!(paris["contents"][0]["uri"], "weather://cities/Paris");
    let nowhere = within(client.read_resource("weather://nowhere")).await;
    assert!(nowhere.is_err(), "{nowhere:?}");

    let prompts = within(client.list_prompts()).await.unwrap();
    assert_eq!(names(&prompts), ["w_plan_trip"]);
    assert_eq!(prompts[0]["arguments"][0]["name"], "city");
    assert_eq!(prompts[0]["arguments"][0]["required"], true);
    let plan = within(client.get_prompt("w_plan_trip", json!({"city": "Lisbon", "days": "2"})))
        .await
        .unwrap();
    assert!(plan.to_string().contains("2-day trip"), "{plan}");

    let city = within(client.complete(&CompletionRef::Prompt("w_plan_trip".into()), "city", "Lis"))
        .await
        .unwrap();
    assert_eq!(city["completion"]["values"], json!(["Lisbon"]), "{city}");
    let name = within(client.complete(
        &CompletionRef::Resource("weather://cities/{name}".into()),
        "name",
        "Par",
    ))
    .await
    .unwrap();
    let values = name["completion"]["values"].as_array().unwrap();
    assert!(values.contains(&json!("Paris")), "{name}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_or_uri_already_served_refuses_the_mount_naming_both() {
    // The same server twice: its tools would differ by prefix, its
    // resource URIs would not.
    let front = within(Server::new("front", "1.0.0").mount("a", weather()))
        .await
        .unwrap();
    let error = within(front.mount("b", weather())).await.unwrap_err();
    let MountError::Collision { kind, key, .. } = &error else {
        panic!("{error}");
    };
    assert_eq!(*kind, Primitive::Resource);
    // The first URI both serve: a skill file, the view of get_forecast or a
    // city's.
    assert!(
        key.starts_with("skill://weather/")
            || key == "ui://weather/forecast"
            || key.starts_with("weather://"),
        "{key}"
    );
    let sentence = error.to_string();
    assert!(sentence.contains("the upstream server `"), "{sentence}");
    assert!(sentence.contains("weather`"), "{sentence}");
    assert!(
        sentence.contains("resource URIs are not prefixed"),
        "{sentence}"
    );

    // A tool of ours under the name a mounted one would take.
    let line = line!() + 1;
    let local = DynamicTool::new(
        "w_get_forecast",
        "Ours.",
        json!({"type": "object"}),
        |_, _| async { "ours" },
    );
    let error = within(
        Server::new("front", "1.0.0")
            .tool(local)
            .mount("w", weather()),
    )
    .await
    .unwrap_err();
    let sentence = error.to_string();
    assert!(sentence.contains("tool `w_get_forecast`"), "{sentence}");
    assert!(
        sentence.contains(&format!("the tool added at tests/mount.rs:{line}")),
        "{sentence}"
    );
    assert!(sentence.contains("another prefix"), "{sentence}");

    let error = within(Server::new("front", "1.0.0").mount("a b", weather()))
        .await
        .unwrap_err();
    assert!(matches!(error, MountError::InvalidPrefix { .. }), "{error}");

    let unreachable = Upstream::command("/nonexistent/mcp-server", ["--stdio"]);
    let error = within(Server::new("front", "1.0.0").mount("x", unreachable))
        .await
        .unwrap_err();
    let sentence = error.to_string();
    assert!(
        sentence.contains("could not mount the upstream server `/nonexistent/mcp-server --stdio`"),
        "{sentence}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reaches_the_caller_and_cancelling_cancels_upstream() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let seen = Arc::clone(&cancelled);
    let wait = DynamicTool::new(
        "wait",
        "Waits until cancelled, reporting progress.",
        json!({"type": "object"}),
        move |_, ctx: Context| {
            // Set when the call stops running: cancelled, or dropped with
            // its stream.
            let stopped = common::Stopped(Arc::clone(&seen));
            async move {
                for step in 1..=3 {
                    ctx.progress(f64::from(step), Some(10.0), Some("waiting"));
                }
                ctx.cancelled().await;
                drop(stopped);
                "cancelled"
            }
        },
    );
    let upstream = HttpServer::start(Server::new("up", "1.0.0").tool(wait));
    let front = within(Server::new("front", "1.0.0").mount("up", Upstream::http(url(&upstream))))
        .await
        .unwrap();
    let mut client = within(TestClient::connect(front)).await.unwrap();

    let id = client
        .send_request(
            "tools/call",
            json!({"name": "up_wait", "arguments": {}, "_meta": {"progressToken": "p1"}}),
        )
        .await;
    let mut progress = Vec::new();
    while progress.len() < 3 {
        let note = within(client.next_notification("notifications/progress", STEP))
            .await
            .expect("progress from upstream");
        assert_eq!(note["params"]["progressToken"], "p1");
        assert_eq!(note["params"]["total"], 10.0);
        progress.push(note["params"]["progress"].as_f64().unwrap());
    }
    assert_eq!(progress, [1.0, 2.0, 3.0]);

    client
        .notify(
            "notifications/cancelled",
            json!({"requestId": id, "reason": "changed my mind"}),
        )
        .await;
    within(async {
        while !cancelled.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    // Never answered, and the front still serves.
    let tools = within(client.list_tools()).await.unwrap();
    assert_eq!(names(&tools), ["up_wait"]);
}

/// An upstream that a test changes through its handle.
fn changing() -> (Server, ServerHandle) {
    let mut server = Server::new("up", "1.0.0");
    let handle = server.handle();
    let first = DynamicTool::new(
        "first",
        "The first.",
        json!({"type": "object"}),
        |_, _| async { "first" },
    );
    (server.tool(first), handle)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_list_changes_are_followed_and_announced() {
    let (server, handle) = changing();
    let upstream = HttpServer::start(server);
    let front = within(Server::new("front", "1.0.0").mount("up", Upstream::http(url(&upstream))))
        .await
        .unwrap();
    let mut client = within(TestClient::connect(front)).await.unwrap();
    assert_eq!(
        names(&within(client.list_tools()).await.unwrap()),
        ["up_first"]
    );

    let late = DynamicTool::new(
        "late",
        "Came later.",
        json!({"type": "object"}),
        |_, _| async { "late" },
    );
    handle.add_tool(late).unwrap();
    within(client.next_notification("notifications/tools/list_changed", STEP))
        .await
        .expect("the front announces the upstream's change");
    assert_eq!(
        names(&within(client.list_tools()).await.unwrap()),
        ["up_first", "up_late"]
    );
    let answer = within(client.call_tool("up_late", json!({})))
        .await
        .unwrap();
    assert_eq!(answer["content"][0]["text"], "late");

    let doc = DynamicResource::new("doc://readme", "readme", |uri, _, _| async move {
        Ok(vec![ResourceContents::Text {
            uri,
            mime_type: Some("text/plain".into()),
            text: "read me".into(),
            meta: None,
        }])
    });
    handle.add_resource(doc).unwrap();
    within(client.next_notification("notifications/resources/list_changed", STEP))
        .await
        .expect("announced");
    let read = within(client.read_resource("doc://readme")).await.unwrap();
    assert_eq!(read["contents"][0]["text"], "read me");

    handle.remove_tool("first");
    within(client.next_notification("notifications/tools/list_changed", STEP))
        .await
        .expect("announced");
    assert_eq!(
        names(&within(client.list_tools()).await.unwrap()),
        ["up_late"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_upstream_loses_its_entries_and_gets_them_back_when_it_returns() {
    let (server, _handle) = changing();
    let upstream = HttpServer::start(server);
    let addr = upstream.addr;
    let front = within(Server::new("front", "1.0.0").mount("up", Upstream::http(url(&upstream))))
        .await
        .unwrap();
    let mut client = within(TestClient::connect(front)).await.unwrap();
    within(client.request("logging/setLevel", json!({"level": "info"})))
        .await
        .unwrap();
    assert_eq!(
        names(&within(client.list_tools()).await.unwrap()),
        ["up_first"]
    );

    upstream.stop().unwrap();
    within(client.next_notification("notifications/tools/list_changed", STEP))
        .await
        .expect("the front announces that the upstream's tools are gone");
    assert_eq!(
        names(&within(client.list_tools()).await.unwrap()),
        [] as [&str; 0]
    );
    let gone = within(client.call_tool("up_first", json!({}))).await;
    assert!(gone.is_err(), "{gone:?}");

    let (server, _handle) = changing();
    let _back = HttpServer::start_at(addr, server);
    within(client.next_notification("notifications/tools/list_changed", STEP))
        .await
        .expect("the front announces that the upstream is back");
    assert_eq!(
        names(&within(client.list_tools()).await.unwrap()),
        ["up_first"]
    );
    let answer = within(client.call_tool("up_first", json!({})))
        .await
        .unwrap();
    assert_eq!(answer["content"][0]["text"], "first");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_upstream_that_exits_is_spawned_again() {
    // Each connection spawns a process; the first is killed after three
    // seconds (coreutils `timeout`), as a crash would end it.
    let spawned = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&spawned);
    let upstream = Upstream::connect(move || {
        let mut command = match count.fetch_add(1, Ordering::SeqCst) {
            0 => {
                let mut command = Command::new("timeout");
                command.arg("3").arg(common::weather_binary());
                command
            }
            _ => Command::new(common::weather_binary()),
        };
        command.env("WEATHER_REFRESH_SECS", "3600");
        Client::spawn(command)
    });
    let front = within(Server::new("front", "1.0.0").mount("w", upstream))
        .await
        .unwrap();
    let mut client = within(TestClient::connect(front)).await.unwrap();
    assert_eq!(within(client.list_tools()).await.unwrap().len(), 6);

    within(client.next_notification("notifications/tools/list_changed", STEP))
        .await
        .expect("the front announces that the upstream's tools are gone");
    let during = within(client.list_tools()).await.unwrap();
    if !during.is_empty() {
        // Already back: the removal was announced, then the return.
        assert_eq!(spawned.load(Ordering::SeqCst), 2);
    } else {
        within(client.next_notification("notifications/tools/list_changed", STEP))
            .await
            .expect("the front announces that the upstream is back");
    }
    let tools = within(client.list_tools()).await.unwrap();
    assert_eq!(
        names(&tools),
        [
            "w_current_conditions",
            "w_get_forecast",
            "w_search_cities",
            "w_subscribe_alerts",
            "w_summarize_forecast",
            "w_weather_report"
        ]
    );
    assert_eq!(spawned.load(Ordering::SeqCst), 2);
    let answer = within(client.call_tool("w_search_cities", json!({"query": "Par"})))
        .await
        .unwrap();
    assert_eq!(answer["isError"], false, "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn middleware_wraps_mounted_tools_like_local_ones() {
    // A policy written once: no tool whose name ends in `_forecast`.
    let refuse = tower::layer::layer_fn(|inner: McpService| {
        tower::service_fn(move |request: McpRequest| {
            let mut inner = inner.clone();
            async move {
                if request
                    .tool()
                    .is_some_and(|t| t.name().ends_with("_forecast"))
                {
                    let refused = McpError::invalid_params("forecasts are not allowed here");
                    return Err(BoxError::from(refused));
                }
                tower::Service::call(&mut inner, request).await
            }
        })
    });
    let front = within(
        Server::new("front", "1.0.0")
            .layer(refuse)
            .mount("w", weather()),
    )
    .await
    .unwrap();
    let mut client = within(TestClient::connect(front)).await.unwrap();
    let refused = within(client.call_tool("w_get_forecast", json!({"city": "Paris"}))).await;
    let error = refused.unwrap_err();
    assert!(
        error.message.contains("forecasts are not allowed"),
        "{error:?}"
    );
    let allowed = within(client.call_tool("w_search_cities", json!({"query": "Par"})))
        .await
        .unwrap();
    assert_eq!(allowed["isError"], false, "{allowed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_messages_and_resource_updates_pass_through() {
    let mut server = Server::new("up", "1.0.0");
    let notifier = server.notifier();
    let status = DynamicResource::new("status://now", "status", |uri, _, _| async move {
        Ok(vec![ResourceContents::Text {
            uri,
            mime_type: None,
            text: "fine".into(),
            meta: None,
        }])
    });
    let upstream = HttpServer::start(server.resource(status));
    let front = within(Server::new("front", "1.0.0").mount("up", Upstream::http(url(&upstream))))
        .await
        .unwrap();
    let mut client = within(TestClient::connect(front)).await.unwrap();

    // The upstream's subscription is made when ours is: only then does
    // the upstream tell the front.
    within(client.subscribe("status://now")).await.unwrap();
    within(async {
        loop {
            if notifier.resource_updated("status://now") > 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    let updated = within(client.next_notification("notifications/resources/updated", STEP))
        .await
        .expect("the update reaches our subscriber");
    assert_eq!(updated["params"]["uri"], "status://now");

    // A log message the upstream sends to its clients reaches ours, named
    // after the mount, at the level our client chose.
    within(client.request("logging/setLevel", json!({"level": "warning"})))
        .await
        .unwrap();
    notifier.log(mcp_runtime::LogLevel::Info, Some("disk"), json!("quiet"));
    notifier.log(mcp_runtime::LogLevel::Error, Some("disk"), json!("full"));
    let message = within(client.next_notification("notifications/message", STEP))
        .await
        .expect("the upstream's log message");
    assert_eq!(message["params"]["level"], "error", "{message}");
    assert_eq!(message["params"]["logger"], "up/disk");
    assert_eq!(message["params"]["data"], "full");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_per_session_upstream_gets_a_connection_for_each_session() {
    let session_tool = DynamicTool::new(
        "whoami",
        "The upstream session's id.",
        json!({"type": "object"}),
        |_, _| async { "an upstream session" },
    );
    let upstream = HttpServer::start(Server::new("up", "1.0.0").tool(session_tool));
    let connections = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&connections);
    let address = url(&upstream);
    let per_session = Upstream::connect(move || {
        count.fetch_add(1, Ordering::SeqCst);
        Client::http(address.clone())
    })
    .per_session();
    let front = within(Server::new("front", "1.0.0").mount("up", per_session))
        .await
        .unwrap();
    // The first connection lists what is served.
    assert_eq!(connections.load(Ordering::SeqCst), 1);
    let mut first = within(TestClient::connect(front)).await.unwrap();
    let mut second = within(first.connect_another("2025-11-25")).await.unwrap();
    for _ in 0..2 {
        for client in [&mut first, &mut second] {
            let answer = within(client.call_tool("up_whoami", json!({})))
                .await
                .unwrap();
            assert_eq!(answer["content"][0]["text"], "an upstream session");
        }
    }
    // One more per session, made at its first call and kept.
    assert_eq!(connections.load(Ordering::SeqCst), 3);

    let error = within(Server::new("front", "1.0.0").mount(
        "up",
        Upstream::from(within(Client::http(url(&upstream))).await.unwrap()).per_session(),
    ))
    .await
    .unwrap_err();
    assert!(
        matches!(error, MountError::PerSessionNeedsConnect { .. }),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_server_everything_mounted_whole() {
    let (node, args) = common::upstreams::everything();
    let direct = within(Client::stdio(&node, &args)).await.unwrap();
    let front = within(Server::new("front", "1.0.0").mount("ev", Upstream::command(&node, &args)))
        .await
        .unwrap();
    let mut client = within(TestClient::connect(front)).await.unwrap();

    // Everything it serves is served here: no schema, name or template of
    // a server we did not write is left out.
    let theirs = within(direct.list_tools()).await.unwrap();
    let mut expected: Vec<String> = theirs.iter().map(|t| format!("ev_{}", t.name())).collect();
    expected.sort();
    let tools = within(client.list_tools()).await.unwrap();
    assert_eq!(names(&tools), expected);
    for tool in &theirs {
        let name = format!("ev_{}", tool.name());
        let ours = tools.iter().find(|t| t["name"] == name.as_str()).unwrap();
        assert_eq!(Some(&ours["inputSchema"]), tool.input_schema(), "{name}");
    }
    let their_resources = within(direct.list_resources()).await.unwrap();
    let resources = within(client.list_resources()).await.unwrap();
    assert_eq!(resources.len(), their_resources.len());
    let their_templates = within(direct.list_resource_templates()).await.unwrap();
    let templates = within(client.list_resource_templates()).await.unwrap();
    assert_eq!(templates.len(), their_templates.len());
    let their_prompts = within(direct.list_prompts()).await.unwrap();
    let prompts = within(client.list_prompts()).await.unwrap();
    assert_eq!(prompts.len(), their_prompts.len());

    let echo = within(client.call_tool("ev_echo", json!({"message": "hello"})))
        .await
        .unwrap();
    assert!(
        echo["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("hello")
    );
    let first = their_resources[0].uri();
    let read = within(client.read_resource(first)).await.unwrap();
    assert_eq!(read["contents"][0]["uri"], first);
    let args = within(client.get_prompt("ev_args-prompt", json!({"city": "Lisbon"})))
        .await
        .unwrap();
    assert!(args.to_string().contains("Lisbon"), "{args}");
    let department = within(client.complete(
        &CompletionRef::Prompt("ev_completable-prompt".into()),
        "department",
        "Eng",
    ))
    .await
    .unwrap();
    assert_eq!(department["completion"]["values"], json!(["Engineering"]));

    // Its progress reaches our caller's token.
    let id = client
        .send_request(
            "tools/call",
            json!({
                "name": "ev_trigger-long-running-operation",
                "arguments": {"duration": 1, "steps": 3},
                "_meta": {"progressToken": "op"}
            }),
        )
        .await;
    for step in 1..=3 {
        let note = within(client.next_notification("notifications/progress", STEP))
            .await
            .expect("progress");
        assert_eq!(note["params"]["progressToken"], "op");
        assert_eq!(note["params"]["progress"], f64::from(step));
    }
    let done = within(client.response(id)).await.unwrap();
    assert!(done.to_string().contains("completed"), "{done}");
}

/// An upstream scripted in sh that lists one tool named `odd` with this
/// input schema and answers every call with "checked upstream".
#[cfg(unix)]
fn scripted_upstream(input_schema: Value) -> Upstream {
    let script = r#"
        while read -r line; do
            id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
            case "$line" in
                *'"method":"initialize"'*) echo '{"jsonrpc":"2.0","id":'$id',"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"odd","version":"0"}}}';;
                *'"method":"tools/list"'*) echo '{"jsonrpc":"2.0","id":'$id',"result":{"tools":[{"name":"odd","inputSchema":SCHEMA}]}}';;
                *'"method":"tools/call"'*) echo '{"jsonrpc":"2.0","id":'$id',"result":{"content":[{"type":"text","text":"checked upstream"}]}}';;
                *'"method":"ping"'*) echo '{"jsonrpc":"2.0","id":'$id',"result":{}}';;
                *'"method":"server/discover"'*) echo '{"jsonrpc":"2.0","id":'$id',"error":{"code":-32601,"message":"Method not found"}}';;
            esac
        done
    "#;
    let schema = input_schema.to_string();
    assert!(
        !schema.contains('\''),
        "the schema goes between single quotes"
    );
    Upstream::command("sh", ["-c", &script.replace("SCHEMA", &schema)])
}

/// A front mounting `upstream` under `x`, connected, and the tools it
/// lists: only `x_odd`.
#[cfg(unix)]
async fn mounted_odd(upstream: Upstream) -> (TestClient, Vec<Value>) {
    let front = within(Server::new("front", "1.0.0").mount("x", upstream))
        .await
        .unwrap();
    let mut client = within(TestClient::connect(front)).await.unwrap();
    let tools = within(client.list_tools()).await.unwrap();
    assert_eq!(names(&tools), ["x_odd"]);
    (client, tools)
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_this_validator_does_not_know_is_served_and_checked_upstream() {
    // `propertyNames` is not a keyword of ours: a local tool with it is
    // refused, a mounted one is served, its arguments left to its server.
    let upstream = scripted_upstream(json!({
        "type": "object",
        "propertyNames": {"pattern": "^[a-z]+$"}
    }));
    let (mut client, tools) = mounted_odd(upstream).await;
    assert_eq!(
        tools[0]["inputSchema"]["propertyNames"]["pattern"],
        "^[a-z]+$"
    );
    let answer = within(client.call_tool("x_odd", json!({"Upper": 1})))
        .await
        .unwrap();
    assert_eq!(answer["content"][0]["text"], "checked upstream");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_tool_with_a_bad_header_mark_is_served_without_its_marks() {
    // A `number` may not be mirrored into a header: clients would drop the
    // tool as listed, so it is served without any `x-mcp-header`.
    let upstream = scripted_upstream(json!({
        "type": "object",
        "properties": {
            "ratio": {"type": "number", "x-mcp-header": "Ratio"},
            "region": {"type": "string", "x-mcp-header": "Region"}
        }
    }));
    let (mut client, tools) = mounted_odd(upstream).await;
    assert_eq!(
        tools[0]["inputSchema"]["properties"],
        json!({"ratio": {"type": "number"}, "region": {"type": "string"}})
    );
    let answer = within(client.call_tool("x_odd", json!({"ratio": 0.5, "region": "eu"})))
        .await
        .unwrap();
    assert_eq!(answer["content"][0]["text"], "checked upstream");
}
