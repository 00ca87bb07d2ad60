//! The 2026-07-28 era on one connection (stdio's shape, in process): no
//! `initialize`; each request carries its version and capabilities in
//! `_meta`; `server/discover`; `resultType` and cache hints on results;
//! the removed methods; logs only on request; `input_required` rounds with
//! a signed `requestState`; `subscriptions/listen`. And a legacy session
//! that stays legacy.

mod common;

use std::time::Duration;

use common::step::within;
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::{RpcError, TestClient};
use mcp_runtime::{
    CacheHint, CacheHints, CacheScope, Context, Elicit, ElicitationId, Elicited, LogLevel,
    Notifier, Server, StateKeys, UrlElicitation, prompt, resource, tool,
};

/// Echoes `text`.
#[tool]
async fn echo(text: String) -> String {
    text
}

/// The city names, as a list (a structured value that is not an object).
#[tool]
async fn cities() -> Vec<String> {
    vec!["Oslo".into(), "Lima".into()]
}

/// Logs at info, then answers.
#[tool]
async fn chatty(ctx: Context) -> &'static str {
    ctx.log(LogLevel::Info, "hello from chatty");
    "done"
}

#[derive(Debug, Elicit)]
struct Name {
    name: String,
}

#[derive(Debug, Elicit)]
struct Color {
    color: String,
}

/// Asks a name, then a color: two rounds. Counts its runs in the answer.
#[tool]
async fn two_questions(ctx: Context, greeting: String) -> Result<String, String> {
    let Elicited::Accepted(Name { name }) = ctx
        .elicit::<Name>("Your name?")
        .await
        .map_err(|e| e.to_string())?
    else {
        return Ok("no name".into());
    };
    let Elicited::Accepted(Color { color }) = ctx
        .input_key("color")
        .elicit::<Color>(format!("{name}, your color?"))
        .await
        .map_err(|e| e.to_string())?
    else {
        return Ok("no color".into());
    };
    Ok(format!("{greeting}, {name} who likes {color}"))
}

/// Asks the client's model (needs `sampling`).
#[tool]
async fn needs_sampling(ctx: Context) -> Result<String, String> {
    let sampled = ctx
        .sample(mcp_runtime::SamplingRequest::new(10).user("hi"))
        .await
        .map_err(|e| e.to_string())?;
    Ok(sampled.text().unwrap_or_default().to_owned())
}

/// Needs its user to sign in on a page first.
#[tool]
async fn needs_sign_in(ctx: Context) -> Result<String, String> {
    let page = UrlElicitation::new(
        &ElicitationId::new(),
        "Sign in to Example",
        "https://example.com/sign-in",
    );
    Err(ctx.url_elicitation_required([page]))
}

/// A prompt that asks for a topic first.
#[prompt]
async fn topical(ctx: Context) -> Result<String, String> {
    #[derive(Elicit)]
    struct Topic {
        topic: String,
    }
    match ctx
        .input_key("topic")
        .elicit::<Topic>("Which topic?")
        .await
        .map_err(|e| e.to_string())?
    {
        Elicited::Accepted(Topic { topic }) => Ok(format!("Write about {topic}.")),
        _ => Ok("Write about anything.".into()),
    }
}

/// The one resource.
#[resource("memo://today", mime_type = "text/plain")]
fn memo() -> &'static str {
    "Buy milk."
}

/// A note that asks who reads it first.
#[resource("memo://private", mime_type = "text/plain")]
async fn private_memo(ctx: Context) -> Result<String, String> {
    match ctx
        .input_key("reader")
        .elicit::<Name>("Who is reading?")
        .await
        .map_err(|e| e.to_string())?
    {
        Elicited::Accepted(Name { name }) => Ok(format!("For {name} only.")),
        _ => Err("Nobody reads this.".into()),
    }
}

const MODERN: &str = "2026-07-28";

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "modern-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// `params` with the modern `_meta` (no capabilities) added.
fn with_meta(mut params: Value) -> Value {
    params["_meta"] = meta(json!({}));
    params
}

fn server() -> Server {
    Server::new("modern-test", "1.2.3").instructions("Test instructions.")
}

async fn client() -> TestClient {
    TestClient::start(server()).unwrap()
}

async fn ask(client: &mut TestClient, method: &str, params: Value) -> Result<Value, RpcError> {
    within(client.request(method, params)).await
}

#[tokio::test]
async fn discover_says_what_the_server_speaks_and_who_it_is() {
    let mut client = client().await;
    let discovered = ask(&mut client, "server/discover", with_meta(json!({})))
        .await
        .unwrap();
    assert_eq!(
        discovered["supportedVersions"],
        json!([
            "2026-07-28",
            "2025-11-25",
            "2025-06-18",
            "2025-03-26",
            "2024-11-05"
        ])
    );
    assert_eq!(discovered["resultType"], "complete");
    assert_eq!(discovered["ttlMs"], 3_600_000);
    assert_eq!(discovered["cacheScope"], "public");
    assert_eq!(discovered["instructions"], "Test instructions.");
    assert!(
        discovered["capabilities"]["tools"].is_object(),
        "{discovered}"
    );
    assert_eq!(
        discovered["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "modern-test", "version": "1.2.3"})
    );
    // clientInfo is optional.
    let mut bare = meta(json!({}));
    bare.as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientInfo");
    ask(&mut client, "server/discover", json!({ "_meta": bare }))
        .await
        .unwrap();
}

#[tokio::test]
async fn meta_is_required_and_checked_before_anything_else() {
    let mut client = client().await;
    let error = ask(&mut client, "server/discover", json!({}))
        .await
        .unwrap_err();
    assert_eq!(error.code, -32602, "{error:?}");
    let no_caps = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}});
    let error = ask(&mut client, "tools/list", no_caps).await.unwrap_err();
    assert_eq!(error.code, -32602);
    assert!(
        error.message.contains("clientCapabilities"),
        "{}",
        error.message
    );
    let mut unknown = meta(json!({}));
    unknown["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let error = ask(&mut client, "tools/list", json!({ "_meta": unknown }))
        .await
        .unwrap_err();
    assert_eq!(error.code, -32022);
    let data = error.data.unwrap();
    assert_eq!(data["requested"], "2099-01-01");
    assert_eq!(data["supported"][0], MODERN);
    for removed in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "no/such/method",
    ] {
        let error = ask(&mut client, removed, with_meta(json!({"uri": "x://y"})))
            .await
            .unwrap_err();
        assert_eq!(error.code, -32601, "{removed}: {error:?}");
    }
    let bad_level = {
        let mut m = meta(json!({}));
        m["io.modelcontextprotocol/logLevel"] = json!("loud");
        json!({ "_meta": m })
    };
    let error = ask(&mut client, "tools/list", bad_level).await.unwrap_err();
    assert_eq!(error.code, -32602);
}

#[tokio::test]
async fn every_result_says_its_type_and_lists_their_freshness() {
    let server = server().cache_hints(
        CacheHints::default().lists(CacheHint::new(Duration::from_secs(60), CacheScope::Private)),
    );
    let mut client = TestClient::start(server).unwrap();
    let list = ask(&mut client, "tools/list", with_meta(json!({})))
        .await
        .unwrap();
    assert_eq!(list["resultType"], "complete");
    assert_eq!(list["ttlMs"], 60_000);
    assert_eq!(list["cacheScope"], "private");
    assert!(list["tools"].as_array().unwrap().len() >= 3);
    let called = ask(
        &mut client,
        "tools/call",
        with_meta(json!({"name": "echo", "arguments": {"text": "hi"}})),
    )
    .await
    .unwrap();
    assert_eq!(called["content"][0]["text"], "hi");
    assert_eq!(called["resultType"], "complete");
    assert_eq!(
        called["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "modern-test"
    );
    assert!(
        called.get("ttlMs").is_none(),
        "a call is not cacheable: {called}"
    );
}

/// The `cities` tool as `list` (a `tools/list` result) shows it.
fn cities_in(list: &Value) -> &Value {
    let tools = list["tools"].as_array().unwrap();
    tools.iter().find(|t| t["name"] == "cities").unwrap()
}

#[tokio::test]
async fn structured_content_may_be_any_value_in_this_era_only() {
    let call = json!({"name": "cities", "arguments": {}});
    let mut client = client().await;
    let list = ask(&mut client, "tools/list", with_meta(json!({})));
    let tool = cities_in(&list.await.unwrap()).clone();
    assert_eq!(tool["outputSchema"]["type"], "array", "{tool}");
    let called = ask(&mut client, "tools/call", with_meta(call.clone())).await;
    assert_eq!(
        called.unwrap()["structuredContent"],
        json!(["Oslo", "Lima"])
    );
    // A 2025-11-25 session gets it under `result`, as its schema says.
    let mut legacy = TestClient::connect(server()).await.unwrap();
    let called = ask(&mut legacy, "tools/call", call).await.unwrap();
    let wrapped = json!({"result": ["Oslo", "Lima"]});
    assert_eq!(called["structuredContent"], wrapped);
    let list = ask(&mut legacy, "tools/list", json!({})).await.unwrap();
    let schema = &cities_in(&list)["outputSchema"];
    assert_eq!(schema["properties"]["result"]["type"], "array");
}

#[tokio::test]
async fn a_legacy_session_stays_legacy() {
    let mut client = TestClient::connect(server()).await.unwrap();
    let list = ask(&mut client, "tools/list", with_meta(json!({})))
        .await
        .unwrap();
    assert!(list.get("resultType").is_none(), "{list}");
    let error = ask(&mut client, "server/discover", with_meta(json!({})))
        .await
        .unwrap_err();
    assert_eq!(error.code, -32601);
    // ping is still there for it.
    ask(&mut client, "ping", json!({})).await.unwrap();
}

#[tokio::test]
async fn logs_reach_only_requests_that_asked_for_them() {
    let mut client = client().await;
    let call = json!({"name": "chatty", "arguments": {}});
    ask(&mut client, "tools/call", with_meta(call.clone()))
        .await
        .unwrap();
    let mut loud = call;
    loud["_meta"] = meta(json!({}));
    loud["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    ask(&mut client, "tools/call", loud).await.unwrap();
    let rest = client.close().await;
    let logs: Vec<&Value> = rest
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .collect();
    assert_eq!(logs.len(), 1, "{rest:?}");
    assert_eq!(logs[0]["params"]["data"], "hello from chatty");
}

/// `tools/call two_questions` with `extra` params (answers, state).
fn call_two_questions(extra: Value) -> Value {
    let mut params = json!({"name": "two_questions", "arguments": {"greeting": "Hi"}});
    params["_meta"] = meta(json!({"elicitation": {}}));
    for (key, value) in extra.as_object().unwrap() {
        params[key] = value.clone();
    }
    params
}

#[tokio::test]
async fn a_call_that_asks_goes_round_by_round_with_its_state() {
    let mut client = client().await;
    let first = ask(&mut client, "tools/call", call_two_questions(json!({})))
        .await
        .unwrap();
    assert_eq!(first["resultType"], "input_required", "{first}");
    let requests = first["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1);
    let (key, request) = requests.iter().next().unwrap();
    assert!(key.starts_with("q1-"), "{key}");
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Your name?");
    let state = first["requestState"].as_str().unwrap().to_owned();

    let answer = json!({"action": "accept", "content": {"name": "Ada"}});
    let second = ask(
        &mut client,
        "tools/call",
        call_two_questions(json!({"inputResponses": {key: answer}, "requestState": state})),
    )
    .await
    .unwrap();
    assert_eq!(second["resultType"], "input_required", "{second}");
    assert_eq!(
        second["inputRequests"]["color"]["params"]["message"],
        "Ada, your color?"
    );
    let state2 = second["requestState"].as_str().unwrap();
    assert_ne!(state2, state);

    // The second round's state carries the first answer: only the new one
    // is sent.
    let third = ask(
        &mut client,
        "tools/call",
        call_two_questions(json!({
            "inputResponses": {"color": {"action": "accept", "content": {"color": "teal"}}},
            "requestState": state2,
            "somethingElse": true
        })),
    )
    .await
    .unwrap();
    assert_eq!(third["resultType"], "complete", "{third}");
    assert_eq!(third["content"][0]["text"], "Hi, Ada who likes teal");

    // A missing answer asks again.
    let again = ask(
        &mut client,
        "tools/call",
        call_two_questions(json!({"inputResponses": {"unrelated": {"action": "decline"}}})),
    )
    .await
    .unwrap();
    assert_eq!(again["resultType"], "input_required");
}

#[tokio::test]
async fn a_state_that_was_changed_or_moved_is_refused() {
    let mut client = client().await;
    let first = ask(&mut client, "tools/call", call_two_questions(json!({})))
        .await
        .unwrap();
    let state = first["requestState"].as_str().unwrap();
    let tampered = format!("{state}-TAMPERED");
    let error = ask(
        &mut client,
        "tools/call",
        call_two_questions(json!({"requestState": tampered})),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("requestState"), "{}", error.message);
    // The same state on other arguments.
    let mut moved = call_two_questions(json!({"requestState": state}));
    moved["arguments"]["greeting"] = json!("Bye");
    let error = ask(&mut client, "tools/call", moved).await.unwrap_err();
    assert_eq!(error.code, -32602);
    assert!(
        error.message.contains("another request"),
        "{}",
        error.message
    );
    // A state from a server with another key.
    let mut other =
        TestClient::start(server().request_state_keys(StateKeys::new("other key"))).unwrap();
    let error = ask(
        &mut other,
        "tools/call",
        call_two_questions(json!({"requestState": state})),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code, -32602);
    // Answers that are not results.
    let error = ask(
        &mut client,
        "tools/call",
        call_two_questions(json!({"inputResponses": {"x": 12345}})),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code, -32602);
}

#[tokio::test]
async fn a_capability_the_request_did_not_declare_is_named() {
    let mut client = client().await;
    let error = ask(
        &mut client,
        "tools/call",
        with_meta(json!({"name": "needs_sampling", "arguments": {}})),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code, -32021, "{error:?}");
    assert_eq!(
        error.data.unwrap(),
        json!({"requiredCapabilities": {"sampling": {}}})
    );
    // Declared: the question is asked.
    let mut params = json!({"name": "needs_sampling", "arguments": {}});
    params["_meta"] = meta(json!({"sampling": {}}));
    let asked = ask(&mut client, "tools/call", params).await.unwrap();
    assert_eq!(asked["resultType"], "input_required");
}

#[tokio::test]
async fn pages_to_open_are_questions_not_an_error() {
    let mut client = client().await;
    let mut params = json!({"name": "needs_sign_in", "arguments": {}});
    params["_meta"] = meta(json!({"elicitation": {"url": {}}}));
    let asked = ask(&mut client, "tools/call", params).await.unwrap();
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    let request = asked["inputRequests"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    assert_eq!(
        request["params"],
        json!({"mode": "url", "message": "Sign in to Example", "url": "https://example.com/sign-in"}),
        "no elicitationId in this era"
    );
    // A client without URL mode gets the pages named in an isError result.
    let mut params = json!({"name": "needs_sign_in", "arguments": {}});
    params["_meta"] = meta(json!({"elicitation": {}}));
    let result = ask(&mut client, "tools/call", params).await.unwrap();
    assert_eq!(result["isError"], true);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("https://example.com/sign-in")
    );
}

/// `method` with `params` from a client that takes elicitation: asked
/// once (the first answer is returned for the test to read), then sent
/// again with `content` as the answer to the question `key`; returns both
/// answers.
async fn round_trip(method: &str, params: Value, key: &str, content: Value) -> (Value, Value) {
    let mut client = client().await;
    let mut params = params;
    params["_meta"] = meta(json!({"elicitation": {}}));
    let first = ask(&mut client, method, params.clone()).await.unwrap();
    assert_eq!(first["resultType"], "input_required", "{first}");
    params["inputResponses"] = json!({ key: {"action": "accept", "content": content} });
    params["requestState"] = first["requestState"].clone();
    let second = ask(&mut client, method, params).await.unwrap();
    assert_eq!(second["resultType"], "complete", "{second}");
    (first, second)
}

#[tokio::test]
async fn a_prompt_may_ask_too() {
    let params = json!({"name": "topical"});
    let (_, got) = round_trip("prompts/get", params, "topic", json!({"topic": "tides"})).await;
    assert_eq!(got["messages"][0]["content"]["text"], "Write about tides.");
}

#[tokio::test]
async fn a_resource_read_may_ask_too() {
    let params = json!({"uri": "memo://private"});
    let (first, read) =
        round_trip("resources/read", params, "reader", json!({"name": "Ada"})).await;
    assert_eq!(
        first["inputRequests"]["reader"]["params"]["message"],
        "Who is reading?"
    );
    assert_eq!(read["contents"][0]["text"], "For Ada only.", "{read}");
}

#[tokio::test]
async fn a_subscription_to_resources_hears_only_their_updates() {
    let mut server = server();
    let notifier: Notifier = server.notifier();
    let mut client = TestClient::start(server).unwrap();
    let id = client
        .send_request(
            "subscriptions/listen",
            with_meta(json!({"notifications": {"resourceSubscriptions": ["memo://today"]}})),
        )
        .await;
    let ack = within(client.recv()).await.unwrap();
    assert_eq!(
        ack["params"]["notifications"],
        json!({"resourceSubscriptions": ["memo://today"]})
    );
    assert_eq!(notifier.resource_updated("memo://private"), 0);
    assert_eq!(notifier.resources_changed(), 0, "not asked for");
    assert_eq!(notifier.resource_updated("memo://today"), 1);
    let updated = within(client.recv()).await.unwrap();
    assert_eq!(updated["method"], "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "memo://today");
    assert_eq!(
        updated["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        id
    );
}

#[tokio::test]
async fn a_missing_resource_is_invalid_params_naming_it() {
    let mut client = client().await;
    let error = ask(
        &mut client,
        "resources/read",
        with_meta(json!({"uri": "nothing://here"})),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code, -32602);
    assert_eq!(error.data.unwrap()["uri"], "nothing://here");
    let read = ask(
        &mut client,
        "resources/read",
        with_meta(json!({"uri": "memo://today"})),
    )
    .await
    .unwrap();
    assert_eq!(read["contents"][0]["text"], "Buy milk.");
    assert_eq!(read["resultType"], "complete");
    assert_eq!(
        (read["ttlMs"].clone(), read["cacheScope"].clone()),
        (json!(0), json!("private"))
    );
}

#[tokio::test]
async fn a_subscription_hears_what_it_asked_for_tagged_with_its_id() {
    let mut server = server();
    let notifier: Notifier = server.notifier();
    let mut client = TestClient::start(server).unwrap();
    let id = client
        .send_request(
            "subscriptions/listen",
            with_meta(
                json!({"notifications": {"toolsListChanged": true, "promptsListChanged": false}}),
            ),
        )
        .await;
    let ack = within(client.recv()).await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        id
    );
    assert_eq!(notifier.prompts_changed(), 0, "not asked for");
    assert_eq!(notifier.tools_changed(), 1);
    let changed = within(client.recv()).await.unwrap();
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        id
    );
    // Cancelled: no more.
    client
        .notify("notifications/cancelled", json!({"requestId": id}))
        .await;
    ask(&mut client, "tools/list", with_meta(json!({})))
        .await
        .unwrap();
    assert_eq!(notifier.tools_changed(), 0);
}

#[tokio::test]
async fn a_subscription_is_answered_when_the_input_ends() {
    let mut server = server();
    let _notifier = server.notifier();
    let mut client = TestClient::start(server).unwrap();
    let id = client
        .send_request(
            "subscriptions/listen",
            with_meta(json!({"notifications": {"toolsListChanged": true}})),
        )
        .await;
    let rest = client.close().await;
    let answer = rest.iter().find(|m| m["id"] == id).expect("answered");
    assert_eq!(
        answer["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        id
    );
}
