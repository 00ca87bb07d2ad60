//! Legacy sessions shared by a fleet (`Server::sessions` on Redis): three
//! servers in this process, one Redis, and the raw client of
//! tests/common/http.rs moving one session id from server to server as a
//! balancer without stickiness would. Each request of the session works
//! on whichever instance it reaches: what the client changed through one
//! is seen by the others, a question asked by a call on one is answered
//! through another, a cancellation reaches the call wherever it runs, and
//! `DELETE` ends the session everywhere. The session's GET stream, held by
//! one instance, carries what another sends outside any request, once;
//! `Last-Event-ID` resumes it on any instance, and a GET elsewhere takes
//! it over. Without a store (the control) the second instance knows
//! nothing of the session.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::http::{Client, HttpServer, TIMEOUT, send, wait_until};
use common::redis::Redis;
use mcp_runtime::sessions::RedisSessions;
use mcp_runtime::{Context, Elicit, Elicited, LogLevel, Notifier, Server, State, resource, tool};
use serde_json::{Value, json};

/// Echo the text back.
#[tool]
async fn echo(text: String) -> String {
    text
}

/// Logs once at `info` and once at `error`.
#[tool]
async fn levels(ctx: Context) -> String {
    ctx.log(LogLevel::Info, "at info");
    ctx.log(LogLevel::Error, "at error");
    "logged".into()
}

/// The form `ask_name` asks for.
#[derive(Elicit)]
struct Name {
    /// Your name
    name: String,
}

/// Asks the user for a name, and greets them.
#[tool]
async fn ask_name(ctx: Context) -> Result<String, String> {
    match ctx.elicit::<Name>("What is your name?").await {
        Ok(Elicited::Accepted(Name { name })) => Ok(format!("hello {name}")),
        Ok(_) => Ok("no name".into()),
        Err(error) => Err(error.to_string()),
    }
}

static WAITING: AtomicBool = AtomicBool::new(false);
static DROPPED: AtomicBool = AtomicBool::new(false);

/// Sets [`DROPPED`] when the call it lives in is dropped (cancelled).
struct Dropped;

impl Drop for Dropped {
    fn drop(&mut self) {
        DROPPED.store(true, Ordering::Release);
    }
}

/// Waits until cancelled (or the tests' timeout).
#[tool]
async fn wait_for_cancel() -> String {
    let dropped = Dropped;
    WAITING.store(true, Ordering::Release);
    tokio::time::sleep(TIMEOUT).await;
    // Not cancelled: not dropped either.
    std::mem::forget(dropped);
    "not cancelled".into()
}

/// Logs each of `messages` at `info` from a task (2025-11-25), outside
/// the request that started it: on the session's GET stream.
#[tool(task = "optional")]
async fn log_later(messages: Vec<String>, ctx: Context) -> String {
    for message in messages {
        ctx.log(LogLevel::Info, message);
    }
    "logged".into()
}

/// Sends `message` as a log message to every session, outside any call.
#[tool]
fn announce(message: String, notifier: State<Notifier>) -> String {
    notifier.log(LogLevel::Info, None, json!(message));
    "announced".into()
}

/// Tells the sessions subscribed to `test://thing` that it changed.
#[tool]
fn touch(notifier: State<Notifier>) -> String {
    notifier.resource_updated("test://thing");
    "touched".into()
}

/// Tells every client that the tool list changed (through the notifier:
/// fleet-wide).
#[tool]
fn retool(notifier: State<Notifier>) -> String {
    notifier.tools_changed();
    "retooled".into()
}

/// A thing to subscribe to.
#[resource("test://thing", name = "thing")]
fn thing() -> String {
    "a thing".into()
}

/// A server of the fleet: keeping its sessions in `store`, if given.
fn server(store: Option<RedisSessions>) -> Server {
    let mut server = Server::new("fleet-sessions-test", "1.0.0");
    let notifier = server.notifier();
    let server = server.state(notifier);
    match store {
        Some(store) => server.sessions(store),
        None => server,
    }
}

/// Three servers sharing `redis`.
fn fleet(redis: &Redis) -> [HttpServer; 3] {
    let store = || {
        RedisSessions::new(&redis.url())
            .unwrap()
            .timeout(Duration::from_secs(1))
    };
    [(); 3].map(|()| HttpServer::start(server(Some(store()))))
}

/// `initialize` on `server` (protocol 2025-11-25, with `capabilities`):
/// a client of the session, not yet told `notifications/initialized`.
fn initialize(server: &HttpServer, capabilities: Value) -> Client {
    let mut client = server.client();
    let mut reply = client.post(&json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": capabilities,
                   "clientInfo": {"name": "fleet-test", "version": "0"}}
    }));
    let status = reply.status;
    assert_eq!(status, 200, "initialize: {}", reply.text());
    client.session = reply.header("mcp-session-id").map(str::to_owned);
    assert!(client.session.is_some(), "a session id");
    let result = reply.replies().remove(0)["result"].clone();
    client.version = result["protocolVersion"].as_str().map(str::to_owned);
    client
}

/// The same session's client, sending to `server`.
fn initialized(client: &mut Client) -> u16 {
    let mut reply = client.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let status = reply.status;
    assert!(status == 202 || status == 404, "{}", reply.text());
    status
}

/// The levels of the log messages a call of `levels` sent.
fn logged(client: &mut Client) -> Vec<String> {
    let mut reply = client.request("tools/call", json!({"name": "levels", "arguments": {}}));
    assert_eq!(reply.status, 200);
    reply
        .replies()
        .into_iter()
        .filter(|message| message["method"] == "notifications/message")
        .map(|message| message["params"]["level"].as_str().unwrap().to_owned())
        .collect()
}

fn delete(client: &Client) -> u16 {
    let session = client.session.as_deref().unwrap();
    send(
        client.addr,
        "DELETE",
        &[
            ("Mcp-Session-Id", session),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        b"",
    )
    .status
}

#[test]
fn one_session_is_served_by_every_instance() {
    let redis = Redis::start();
    let [a, b, c] = fleet(&redis);
    let client = initialize(&a, json!({}));
    let (mut on_a, mut on_b, mut on_c) = (client.at(&a), client.at(&b), client.at(&c));
    // A notification, not only requests.
    assert_eq!(initialized(&mut on_b), 202);
    let tools = on_c.call("tools/list", json!({}));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(names.contains(&"echo"), "{tools}");
    let echoed = on_b.call(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    assert_eq!(echoed["result"]["content"][0]["text"], "hi", "{echoed}");

    // What the client changes through one instance holds on another, even
    // one that cached the session before.
    assert_eq!(logged(&mut on_b), ["info", "error"]);
    let set = on_a.call("logging/setLevel", json!({"level": "error"}));
    assert!(set["result"].is_object(), "{set}");
    assert_eq!(logged(&mut on_b), ["error"]);
    assert_eq!(logged(&mut on_c), ["error"]);

    // Ended through one, gone from all.
    assert_eq!(delete(&on_a), 204);
    for client in [&mut on_a, &mut on_b, &mut on_c] {
        let mut reply = client.request("tools/list", json!({}));
        let status = reply.status;
        assert_eq!(status, 404, "{}", reply.text());
    }
}

#[test]
fn without_a_store_another_instance_does_not_know_the_session() {
    let a = HttpServer::start(server(None));
    let b = HttpServer::start(server(None));
    let client = initialize(&a, json!({}));
    assert_eq!(initialized(&mut client.at(&b)), 404);
    assert_eq!(initialized(&mut client.at(&a)), 202);
}

#[test]
fn a_question_asked_on_one_instance_is_answered_through_another() {
    let redis = Redis::start();
    let [a, b, c] = fleet(&redis);
    let client = initialize(&a, json!({"elicitation": {}}));
    assert_eq!(initialized(&mut client.at(&a)), 202);
    let mut call = client
        .at(&b)
        .request("tools/call", json!({"name": "ask_name", "arguments": {}}));
    assert_eq!(call.status, 200);
    assert!(call.content_type().starts_with("text/event-stream"));
    let question: Value = loop {
        let (_, data) = call.next_event().expect("the question");
        if !data.is_empty() {
            break serde_json::from_str(&data).unwrap();
        }
    };
    assert_eq!(question["method"], "elicitation/create", "{question}");
    // The id names the instance that asked.
    let id = question["id"].as_str().expect("a string id").to_owned();
    let tag = id
        .strip_prefix("mcp-rs-")
        .and_then(|rest| rest.split_once('-'));
    assert!(
        tag.is_some_and(|(tag, _)| tag.len() == 8),
        "an instance-tagged id: {id}"
    );
    let mut answered = client.at(&c).post(&json!({
        "jsonrpc": "2.0", "id": id,
        "result": {"action": "accept", "content": {"name": "Ada"}}
    }));
    let status = answered.status;
    assert_eq!(status, 202, "{}", answered.text());
    let result = call.messages().pop().expect("the call's result");
    assert_eq!(
        result["result"]["content"][0]["text"], "hello Ada",
        "{result}"
    );
}

#[test]
fn a_cancellation_sent_to_one_instance_cancels_the_call_on_another() {
    let redis = Redis::start();
    let [a, b, c] = fleet(&redis);
    let client = initialize(&a, json!({}));
    assert_eq!(initialized(&mut client.at(&a)), 202);
    let mut on_b = client.at(&b);
    // Never answered: read on a thread of its own, and left there.
    std::thread::spawn(move || {
        let _ = on_b.post(&json!({
            "jsonrpc": "2.0", "id": 77, "method": "tools/call",
            "params": {"name": "wait_for_cancel", "arguments": {}}
        }));
    });
    wait_until("the call runs", || WAITING.load(Ordering::Acquire));
    let mut cancelled = client.at(&c).post(&json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 77, "reason": "changed my mind"}
    }));
    let status = cancelled.status;
    assert_eq!(status, 202, "{}", cancelled.text());
    wait_until("the call is dropped", || DROPPED.load(Ordering::Acquire));
}

#[test]
fn while_redis_is_down_requests_are_answered_503_and_after_it_the_session_goes_on() {
    let mut redis = Redis::persistent();
    let [a, b, c] = fleet(&redis);
    let client = initialize(&a, json!({}));
    assert_eq!(initialized(&mut client.at(&b)), 202);
    let (mut on_b, mut on_c) = (client.at(&b), client.at(&c));
    assert_eq!(on_b.request("tools/list", json!({})).status, 200);

    redis.stop();
    for client in [&mut on_b, &mut on_c] {
        let started = Instant::now();
        let mut reply = client.request("tools/list", json!({}));
        assert_eq!(reply.status, 503);
        assert!(reply.header("retry-after").is_some(), "Retry-After");
        let body = reply.json();
        assert_eq!(body["error"]["code"], -32603, "{body}");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("Service Unavailable: the session store cannot be reached")
                && message.contains(&format!("redis at {}", redis.addr)),
            "{message}"
        );
        assert!(started.elapsed() < TIMEOUT);
    }

    redis.restart();
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let status = on_c.request("tools/list", json!({})).status;
        if status == 200 {
            break;
        }
        assert_eq!(status, 503);
        assert!(Instant::now() < deadline, "the session came back");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(on_b.request("tools/list", json!({})).status, 200);
    let _ = a;
}

/// Opens the session's GET stream on `client`'s server, resuming after
/// `last` if given.
fn get(client: &Client, last: Option<&str>) -> common::http::Reply {
    let session = client.session.as_deref().unwrap();
    let mut headers = vec![
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    if let Some(last) = last {
        headers.push(("Last-Event-ID", last));
    }
    let reply = send(client.addr, "GET", &headers, b"");
    assert_eq!(reply.status, 200);
    assert!(reply.content_type().starts_with("text/event-stream"));
    reply
}

/// Has a task on `client`'s server log `messages`, outside its request.
fn log_from_task(client: &mut Client, messages: &[&str]) {
    let created = client.call(
        "tools/call",
        json!({"name": "log_later", "arguments": {"messages": messages}, "task": {}}),
    );
    assert!(created["result"]["task"].is_object(), "{created}");
}

/// The log messages of a GET stream up to `last` (included), with their
/// event ids; other events are skipped.
fn logs_until(stream: &mut common::http::Reply, last: &str) -> Vec<(String, String)> {
    let mut logs = Vec::new();
    loop {
        let (id, data) = stream.next_event().expect("the stream goes on");
        if data.is_empty() {
            continue;
        }
        let message: Value = serde_json::from_str(&data).unwrap();
        if message["method"] != "notifications/message" {
            continue;
        }
        let text = message["params"]["data"].as_str().unwrap().to_owned();
        let done = text == last;
        logs.push((id.expect("an event id"), text));
        if done {
            return logs;
        }
    }
}

fn texts(logs: &[(String, String)]) -> Vec<&str> {
    logs.iter().map(|(_, text)| text.as_str()).collect()
}

#[test]
fn the_get_stream_held_by_one_instance_carries_what_another_sends_once() {
    let redis = Redis::start();
    let [a, b, c] = fleet(&redis);
    let client = initialize(&a, json!({}));
    assert_eq!(initialized(&mut client.at(&a)), 202);
    let mut stream = get(&client.at(&c), None);
    // The priming event: an id to resume from, no data.
    let (id, data) = stream.next_event().expect("the priming event");
    assert_eq!((id.as_deref(), data.as_str()), (Some("0_0-0"), ""));

    log_from_task(&mut client.at(&b), &["one"]);
    log_from_task(&mut client.at(&a), &["two", "end"]);
    let logs = logs_until(&mut stream, "end");
    assert_eq!(texts(&logs), ["one", "two", "end"]);
    for (id, _) in &logs {
        let entry = id.strip_prefix("0_").expect("a GET stream's id");
        assert!(entry.split_once('-').is_some(), "a stream entry's id: {id}");
    }
}

#[test]
fn last_event_id_resumes_the_get_stream_on_another_instance() {
    let redis = Redis::start();
    let [a, b, c] = fleet(&redis);
    let client = initialize(&a, json!({}));
    assert_eq!(initialized(&mut client.at(&a)), 202);
    let mut on_c = get(&client.at(&c), None);
    log_from_task(&mut client.at(&b), &["1", "2", "3"]);
    let first = logs_until(&mut on_c, "1");
    assert_eq!(texts(&first), ["1"]);
    drop(on_c);

    let mut on_a = get(&client.at(&a), Some(&first[0].0));
    log_from_task(&mut client.at(&b), &["4"]);
    let rest = logs_until(&mut on_a, "4");
    assert_eq!(texts(&rest), ["2", "3", "4"]);
}

#[test]
fn a_get_on_another_instance_takes_the_stream_over() {
    let redis = Redis::start();
    let [a, b, c] = fleet(&redis);
    let client = initialize(&a, json!({}));
    assert_eq!(initialized(&mut client.at(&a)), 202);
    let mut on_a = get(&client.at(&a), None);
    assert!(on_a.next_event().is_some(), "the priming event");
    let mut on_b = get(&client.at(&b), None);
    // A's response ends (within the read timeout).
    assert_eq!(on_a.next_event(), None);
    log_from_task(&mut client.at(&c), &["taken"]);
    assert_eq!(texts(&logs_until(&mut on_b, "taken")), ["taken"]);
}

#[test]
fn a_get_after_the_holder_lost_its_stream_starts_about_where_it_was_sent() {
    let redis = Redis::start();
    let [a, b, c] = fleet(&redis);
    let client = initialize(&a, json!({}));
    assert_eq!(initialized(&mut client.at(&a)), 202);
    let mut on_c = get(&client.at(&c), None);
    log_from_task(&mut client.at(&b), &["1", "2"]);
    assert_eq!(texts(&logs_until(&mut on_c, "2")), ["1", "2"]);
    // The holder notes how far it sent with its busy leases (every 2 s):
    // two of them.
    std::thread::sleep(Duration::from_secs(4));
    // A GET without Last-Event-ID elsewhere (as after the holder died)
    // does not send again what the holder sent.
    let mut on_a = get(&client.at(&a), None);
    log_from_task(&mut client.at(&b), &["3"]);
    assert_eq!(texts(&logs_until(&mut on_a, "3")), ["3"]);
    drop(on_c);
}

#[test]
fn a_session_is_its_owners_on_every_instance() {
    use mcp_runtime::auth::{Auth, Identity};
    let redis = Redis::start();
    let with_auth = || {
        let store = RedisSessions::new(&redis.url()).unwrap();
        HttpServer::start(server(Some(store)).auth(Auth::static_tokens([
            ("alice-token", Identity::new("alice")),
            ("bob-token", Identity::new("bob")),
        ])))
    };
    let (a, b) = (with_auth(), with_auth());
    let mut alice = a.client();
    alice.bearer = Some("alice-token".into());
    let alice = {
        let reply = alice.post(&json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "fleet-test", "version": "0"}}
        }));
        assert_eq!(reply.status, 200);
        alice.session = reply.header("mcp-session-id").map(str::to_owned);
        alice.version = Some("2025-11-25".into());
        alice
    };
    let mut bob = alice.at(&b);
    bob.bearer = Some("bob-token".into());
    // Answered as an unknown session, on an instance that never saw it.
    assert_eq!(bob.request("tools/list", json!({})).status, 404);
    assert_eq!(alice.at(&b).request("tools/list", json!({})).status, 200);
    // And on one that cached it since.
    assert_eq!(bob.request("tools/list", json!({})).status, 404);
}

#[test]
fn a_stopped_instance_leaves_its_sessions_to_the_others() {
    let redis = Redis::start();
    let [a, b, _c] = fleet(&redis);
    let client = initialize(&a, json!({}));
    assert_eq!(initialized(&mut client.at(&a)), 202);
    let mut held = get(&client.at(&a), None);
    assert!(held.next_event().is_some(), "the priming event");
    // As on SIGTERM: its GET stream ends, the session does not.
    a.stop().unwrap();
    assert_eq!(held.next_event(), None);
    let mut on_b = client.at(&b);
    assert_eq!(on_b.request("tools/list", json!({})).status, 200);
    let mut taken = get(&on_b, None);
    log_from_task(&mut client.at(&b), &["still here"]);
    assert_eq!(texts(&logs_until(&mut taken, "still here")), ["still here"]);
}

/// The notifications of a GET stream up to the log message `last`
/// (included): `message:DATA` or `updated:URI`, other events skipped.
fn notices_until(stream: &mut common::http::Reply, last: &str) -> Vec<String> {
    let mut seen = Vec::new();
    loop {
        let (_, data) = stream.next_event().expect("the stream goes on");
        if data.is_empty() {
            continue;
        }
        let message: Value = serde_json::from_str(&data).unwrap();
        let params = &message["params"];
        let notice = match message["method"].as_str() {
            Some("notifications/message") => {
                format!("message:{}", params["data"].as_str().unwrap())
            }
            Some("notifications/resources/updated") => {
                format!("updated:{}", params["uri"].as_str().unwrap())
            }
            _ => continue,
        };
        let done = notice == format!("message:{last}") || notice == last;
        seen.push(notice);
        if done {
            return seen;
        }
    }
}

#[test]
fn what_a_notifier_tells_reaches_the_session_once_through_the_holder_of_its_get_stream() {
    let redis = Redis::start();
    let [a, b, c] = fleet(&redis);
    let client = initialize(&a, json!({}));
    assert_eq!(initialized(&mut client.at(&a)), 202);
    let subscribed = client
        .at(&b)
        .call("resources/subscribe", json!({"uri": "test://thing"}));
    assert!(subscribed["result"].is_object(), "{subscribed}");
    let mut on_c = get(&client.at(&c), None);

    let call = |server: &HttpServer, name: &str, arguments: Value| {
        let called = client
            .at(server)
            .call("tools/call", json!({"name": name, "arguments": arguments}));
        assert!(called["result"]["isError"] != true, "{called}");
    };
    // From an instance that neither initialized the session nor holds
    // its GET stream, and from the one that initialized it.
    call(&b, "announce", json!({"message": "hello"}));
    assert_eq!(notices_until(&mut on_c, "hello"), ["message:hello"]);
    call(&a, "touch", json!({}));
    assert_eq!(
        notices_until(&mut on_c, "updated:test://thing"),
        ["updated:test://thing"]
    );
    call(&a, "announce", json!({"message": "end"}));
    assert_eq!(notices_until(&mut on_c, "end"), ["message:end"]);
}

#[test]
fn a_listen_stream_of_the_2026_era_hears_what_a_notifier_tells_on_another_instance() {
    let redis = Redis::start();
    let [a, b, c] = fleet(&redis);
    // The 2026-07-28 era has no session: its listen stream stays on the
    // instance it reached (C) and hears the fleet's notifier events.
    let listen = json!({
        "jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen",
        "params": {
            "notifications": {"toolsListChanged": true, "resourceSubscriptions": ["test://thing"]},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    });
    let mut stream = send(
        c.addr,
        "POST",
        &[
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "application/json"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "subscriptions/listen"),
        ],
        listen.to_string().as_bytes(),
    );
    assert_eq!(stream.status, 200);
    let mut next = || -> Value {
        let (_, data) = stream.next_event().expect("an event on the listen stream");
        serde_json::from_str(&data).unwrap()
    };
    assert_eq!(next()["method"], "notifications/subscriptions/acknowledged");

    // A legacy session's calls on A and B make the changes.
    let client = initialize(&a, json!({}));
    assert_eq!(initialized(&mut client.at(&a)), 202);
    let call = |server: &HttpServer, name: &str| {
        let called = client
            .at(server)
            .call("tools/call", json!({"name": name, "arguments": {}}));
        assert!(called["result"]["isError"] != true, "{called}");
    };
    call(&b, "retool");
    let changed = next();
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    call(&a, "touch");
    let updated = next();
    assert_eq!(updated["method"], "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "test://thing");
    // Once each: the next thing heard is the next change.
    call(&b, "retool");
    assert_eq!(next()["method"], "notifications/tools/list_changed");
}
