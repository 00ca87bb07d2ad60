//! A POST's SSE stream in a fleet (`Server::sessions` on Redis) resumes on
//! any instance: three servers in this process on one Redis, and the raw
//! client of tests/common/http.rs. A call with progress runs on B; its
//! client's connection drops, and it resumes with `Last-Event-ID` on C,
//! which gets the rest from B through the store: every later event once,
//! ending with the response. B copies the stream to the store when its
//! reader drops, or when C asks (the client resumed before B noticed).
//! When B is gone, C answers the request with an error, as a server that
//! no longer keeps a stream does. A batch's answers to questions another
//! instance asked are passed on there, each.

mod common;

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::http::{Client, HttpServer, Reply, TIMEOUT, send, wait_until};
use common::redis::Redis;
use mcp_runtime::sessions::RedisSessions;
use mcp_runtime::{Context, Server, tool};
use serde_json::{Value, json};

/// The gates opened so far (each test names its own).
static OPEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);

fn open(gate: &str) {
    OPEN.lock()
        .unwrap()
        .get_or_insert_with(HashSet::new)
        .insert(gate.to_owned());
}

fn is_open(gate: &str) -> bool {
    OPEN.lock()
        .unwrap()
        .as_ref()
        .is_some_and(|open| open.contains(gate))
}

/// Reports progress up to `to`, waiting for `gate` to open after
/// `gate_after` (or the tests' timeout), each number a little later.
#[tool]
async fn count_gated(to: u32, gate_after: u32, gate: String, ctx: Context) -> String {
    for i in 1..=to {
        if i == gate_after + 1 {
            let deadline = Instant::now() + TIMEOUT;
            while !is_open(&gate) && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
        ctx.progress(f64::from(i), Some(f64::from(to)), None);
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    format!("counted to {to}")
}

/// How many roots the client has (asked of it).
#[tool]
async fn count_roots(ctx: Context) -> Result<String, String> {
    match ctx.roots().await {
        Ok(roots) => Ok(format!("{} roots", roots.len())),
        Err(error) => Err(error.to_string()),
    }
}

fn server(store: RedisSessions) -> Server {
    Server::new("fleet-streams-test", "1.0.0")
        .shutdown_grace(Duration::from_millis(200))
        .sessions(store)
}

/// Three servers sharing `redis`.
fn fleet(redis: &Redis) -> [HttpServer; 3] {
    let store = || {
        RedisSessions::new(&redis.url())
            .unwrap()
            .timeout(Duration::from_secs(1))
    };
    [(); 3].map(|()| HttpServer::start(server(store())))
}

/// A session started on `server`, initialized.
fn session(server: &HttpServer) -> Client {
    let mut client = server.client();
    client.initialize("2025-11-25");
    client
}

/// The same session's client, sending to `server`.
/// Calls `count_gated` with request id `id`: its open SSE response.
fn call(client: &mut Client, id: &str, to: u32, gate: &str) -> Reply {
    let reply = client.post(&json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "count_gated",
                   "arguments": {"to": to, "gate_after": 3, "gate": gate},
                   "_meta": {"progressToken": "p"}}
    }));
    assert_eq!(reply.status, 200);
    assert!(reply.content_type().starts_with("text/event-stream"));
    reply
}

/// One event read: its id and message (`None` for the priming event).
fn event(stream: &mut Reply) -> Option<(String, Option<Value>)> {
    let (id, data) = stream.next_event()?;
    let message = (!data.is_empty()).then(|| serde_json::from_str(&data).unwrap());
    Some((id.unwrap_or_default(), message))
}

/// The progress a message reports, if it is a progress notification.
fn progress(message: &Value) -> Option<u64> {
    (message["method"] == "notifications/progress")
        .then(|| message["params"]["progress"].as_f64())
        .flatten()
        .map(|p| p as u64)
}

/// Reads `stream` until progress `n`: that event's id.
fn until_progress(stream: &mut Reply, n: u64) -> String {
    loop {
        let (id, message) = event(stream).expect("the stream goes on");
        if message.as_ref().and_then(progress) == Some(n) {
            return id;
        }
    }
}

/// Resumes with `Last-Event-ID: last` on `client`'s server.
fn resume(client: &Client, last: &str) -> Reply {
    let session = client.session.as_deref().unwrap();
    let headers = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Last-Event-ID", last),
    ];
    let reply = send(client.addr, "GET", &headers, b"");
    assert_eq!(reply.status, 200);
    assert!(reply.content_type().starts_with("text/event-stream"));
    reply
}

/// Every event of `stream` to its end: (id, message).
fn rest(stream: &mut Reply) -> Vec<(String, Value)> {
    let mut events = Vec::new();
    while let Some((id, message)) = event(stream) {
        events.push((id, message.expect("no event without a message")));
    }
    events
}

/// The store's key of the POST stream an event id of it names.
fn exported_key(client: &Client, event_id: &str) -> String {
    let (instance, rest) = event_id.split_once('~').expect("an instance");
    let (number, _) = rest.split_once('.').expect("a request named");
    let session = client.session.as_deref().unwrap();
    format!("mcp:session:{session}:ev:{instance}.{number}")
}

/// Asserts that `events` are the progress after `after` up to `to`, then
/// the response to `id`, once each, with ids of the same stream.
fn assert_the_rest(events: &[(String, Value)], after: u64, to: u64, id: &str, seen: &str) {
    let reported: Vec<u64> = events
        .iter()
        .filter_map(|(_, message)| progress(message))
        .collect();
    assert_eq!(
        reported,
        ((after + 1)..=to).collect::<Vec<_>>(),
        "{events:?}"
    );
    let (last_id, response) = events.last().expect("events");
    assert_eq!(response["id"], id, "{response}");
    assert_eq!(
        response["result"]["content"][0]["text"],
        format!("counted to {to}")
    );
    assert_eq!(events.len() as u64, to - after + 1, "{events:?}");
    let stream_of = |event_id: &str| event_id.rsplit_once('_').unwrap().0.to_owned();
    for (event_id, _) in events {
        assert_eq!(stream_of(event_id), stream_of(seen), "{event_id}");
    }
    let seq = |event_id: &str| -> u64 { event_id.rsplit_once('_').unwrap().1.parse().unwrap() };
    assert!(seq(last_id) > seq(seen));
}

#[test]
fn a_post_stream_whose_reader_dropped_resumes_on_another_instance() {
    let redis = Redis::start();
    let [a, b, c] = fleet(&redis);
    let client = session(&a);
    let mut stream = call(&mut client.at(&b), "dropped", 12, "dropped");
    let seen = until_progress(&mut stream, 2);
    assert!(
        seen.split_once('~').is_some_and(|(i, _)| i.len() == 8),
        "a fleet's POST stream names its instance: {seen}"
    );
    // The client's connection breaks; B notices when it writes next, and
    // copies the stream to the store.
    drop(stream);
    open("dropped");
    let key = exported_key(&client, &seen);
    wait_until("B copied the stream", || redis.exists(&key));
    let mut resumed = resume(&client.at(&c), &seen);
    assert_the_rest(&rest(&mut resumed), 2, 12, "dropped", &seen);
}

#[test]
fn a_post_stream_resumed_elsewhere_before_its_owner_noticed_is_asked_for() {
    let redis = Redis::start();
    let [a, b, c] = fleet(&redis);
    let client = session(&a);
    // The first connection stays open (as far as B knows): nothing is
    // copied until C asks.
    let mut stream = call(&mut client.at(&b), "asked", 10, "asked");
    let seen = until_progress(&mut stream, 2);
    let key = exported_key(&client, &seen);
    assert!(
        !redis.exists(&key),
        "nothing in the store before it is needed"
    );
    let mut resumed = resume(&client.at(&c), &seen);
    // Progress 3 came before the gate: C has it from the store.
    let (_, third) = event(&mut resumed).expect("progress 3");
    assert_eq!(third.as_ref().and_then(progress), Some(3));
    assert!(redis.exists(&key));
    open("asked");
    let mut events = vec![];
    events.extend(rest(&mut resumed));
    let mut all = vec![(
        String::new(),
        json!({"method": "notifications/progress", "params": {"progress": 3}}),
    )];
    all.extend(events);
    assert_the_rest(&all[1..], 3, 10, "asked", &seen);
    drop(stream);
}

#[test]
fn a_post_stream_whose_instance_stopped_resumes_as_an_error_for_its_request() {
    let redis = Redis::start();
    let [a, b, c] = fleet(&redis);
    let client = session(&a);
    let mut stream = call(&mut client.at(&b), "lost", 10, "never");
    let seen = until_progress(&mut stream, 2);
    drop(stream);
    b.stop().unwrap();
    let started = Instant::now();
    let mut resumed = resume(&client.at(&c), &seen);
    let events = rest(&mut resumed);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let (_, last) = events.last().expect("the error");
    assert_eq!(last["id"], "lost", "{last}");
    assert!(last["result"].is_null(), "{last}");
    assert!(
        last["error"]["message"]
            .as_str()
            .unwrap()
            .contains("result is lost"),
        "{last}"
    );
    // What the store had of the stream came first, if B copied it in time.
    for (_, message) in &events[..events.len() - 1] {
        assert_eq!(progress(message), Some(3), "{message}");
    }
    // The session lives on.
    let mut on_a = client.at(&a);
    assert_eq!(on_a.request("tools/list", json!({})).status, 200);
}

#[test]
fn a_post_stream_resumed_on_its_own_instance_is_read_from_memory() {
    let redis = Redis::start();
    let [a, b, _c] = fleet(&redis);
    let client = session(&a);
    let mut stream = call(&mut client.at(&b), "home", 6, "home");
    let seen = until_progress(&mut stream, 2);
    let key = exported_key(&client, &seen);
    let mut resumed = resume(&client.at(&b), &seen);
    open("home");
    assert_the_rest(&rest(&mut resumed), 2, 6, "home", &seen);
    assert!(!redis.exists(&key), "the store is not used");
    drop(stream);
}

/// A 2025-03-26 session (batches allowed) declaring roots, initialized.
fn batch_session(server: &HttpServer) -> Client {
    let mut client = server.client();
    let mut reply = client.post(&json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-03-26", "capabilities": {"roots": {}},
                   "clientInfo": {"name": "fleet-test", "version": "0"}}
    }));
    assert_eq!(reply.status, 200);
    client.session = reply.header("mcp-session-id").map(str::to_owned);
    client.version = Some("2025-03-26".into());
    drop(reply.replies());
    let mut ack = client.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let status = ack.status;
    assert_eq!(status, 202, "{}", ack.text());
    client
}

/// `count_roots` called on `client`'s server: its open stream, and the
/// id of the `roots/list` it asks.
fn ask_roots(client: &mut Client) -> (Reply, String) {
    let mut call = client.request(
        "tools/call",
        json!({"name": "count_roots", "arguments": {}}),
    );
    assert_eq!(call.status, 200);
    loop {
        let (_, message) = event(&mut call).expect("the question");
        if let Some(message) = message {
            assert_eq!(message["method"], "roots/list", "{message}");
            let id = message["id"].as_str().expect("a string id").to_owned();
            return (call, id);
        }
    }
}

#[test]
fn a_batch_of_answers_reaches_each_instance_that_asked() {
    let redis = Redis::start();
    let [a, b, c] = fleet(&redis);
    let client = batch_session(&a);
    let (mut on_b, asked_on_b) = ask_roots(&mut client.at(&b));
    let (mut on_c, asked_on_c) = ask_roots(&mut client.at(&c));
    // Answered together, through C: one answer is C's own, one B's.
    let mut answered = client.at(&c).post(&json!([
        {"jsonrpc": "2.0", "id": asked_on_b, "result": {"roots": [{"uri": "file:///b"}]}},
        {"jsonrpc": "2.0", "id": asked_on_c,
         "result": {"roots": [{"uri": "file:///c1"}, {"uri": "file:///c2"}]}},
    ]));
    let status = answered.status;
    assert_eq!(status, 202, "{}", answered.text());
    let text = |call: &mut Reply| {
        let result = call.messages().pop().expect("the call's result");
        result["result"]["content"][0]["text"].clone()
    };
    // Each call read its own answer (a session keeps the roots it got,
    // per instance).
    assert_eq!(text(&mut on_b), "1 roots");
    assert_eq!(text(&mut on_c), "2 roots");
}

#[test]
fn a_batch_mixing_another_instances_answer_with_requests_is_refused() {
    let redis = Redis::start();
    let [a, b, c] = fleet(&redis);
    let client = batch_session(&a);
    let (mut on_b, asked) = ask_roots(&mut client.at(&b));
    let mut mixed = client.at(&c).post(&json!([
        {"jsonrpc": "2.0", "id": asked, "result": {"roots": []}},
        {"jsonrpc": "2.0", "id": 7, "method": "ping"},
    ]));
    assert_eq!(mixed.status, 400);
    let refusal = mixed.json();
    assert!(
        refusal["error"]["message"]
            .as_str()
            .unwrap()
            .contains("batch of their own"),
        "{refusal}"
    );
    // Alone, the answer goes through.
    let answered = client.at(&c).post(&json!([
        {"jsonrpc": "2.0", "id": asked, "result": {"roots": []}},
    ]));
    assert_eq!(answered.status, 202);
    let result = on_b.messages().pop().expect("the call's result");
    assert_eq!(result["result"]["content"][0]["text"], "0 roots");
}
