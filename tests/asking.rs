//! Requests to the client from inside a tool (`Context::send_request`):
//! over Streamable HTTP and stdio, answered by our client's handlers.

mod common;

use std::time::Duration;

use common::asking::{next_non_notification, raw_client};
use common::http::HttpServer;
use common::step::{STEP, within};
use mcp_runtime::client::{
    Client, ClientBuilder, ClientError, Elicitation, ProtocolVersion, Root, Sampled,
    SamplingRequest,
};
use mcp_runtime::{ClientRequestError, Context, DynamicTool, Server, serde_json};
use serde_json::{Map, json};

fn asking() -> Server {
    let ask = DynamicTool::new(
        "ask",
        "Asks the user for a city.",
        json!({"type": "object"}),
        |_, ctx: Context| async move {
            let schema = json!({
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer", "default": 2}}
            });
            let params = json!({"message": "Where to?", "requestedSchema": schema});
            match ctx.send_request("elicitation/create", params).await {
                Ok(answer) => format!("{}", answer),
                Err(error) => format!("error: {error}"),
            }
        },
    );
    Server::new("asking", "1.0.0").tool(ask)
}

/// A client that opens a legacy session (`initialize`): the server asks it
/// with requests of its own, and a question the client cannot answer is
/// the tool's error. (A 2026-07-28 client is asked in `input_required`
/// rounds, and the server refuses a call that needs a capability the
/// client did not declare: see [`missing_capability`].)
fn legacy() -> ClientBuilder {
    Client::builder().protocol_version(ProtocolVersion::LATEST)
}

/// Asserts that a 2026-07-28 call was refused for the `capability` its
/// client did not declare (-32021).
fn missing_capability<T: std::fmt::Debug>(answer: Result<T, ClientError>, capability: &str) {
    match answer {
        Err(ClientError::Rpc { code, data, .. }) => {
            assert_eq!(code, -32021);
            let required = &data.unwrap()["requiredCapabilities"];
            assert!(required.get(capability).is_some(), "{required}");
        }
        other => panic!("{other:?}"),
    }
}

fn answering() -> mcp_runtime::client::ClientBuilder {
    Client::builder().on_elicitation(|request| async move {
        assert_eq!(request.message, "Where to?");
        let mut answer = Map::new();
        answer.insert("city".into(), json!("Oslo"));
        Elicitation::Accept(answer)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_asks_the_client_over_http() {
    let server = HttpServer::start(asking());
    let url = format!("http://{}/mcp", server.addr);
    let client = within(answering().http(url.clone())).await.unwrap();
    let answer = within(client.call_tool("ask", json!({}))).await.unwrap();
    assert_eq!(
        answer.text(),
        r#"{"action":"accept","content":{"city":"Oslo","days":2}}"#
    );

    // A client that did not declare the capability is not asked.
    let modern = within(Client::http(url.clone())).await.unwrap();
    missing_capability(
        within(modern.call_tool("ask", json!({}))).await,
        "elicitation",
    );
    let plain = within(legacy().http(url)).await.unwrap();
    let answer = within(plain.call_tool("ask", json!({}))).await.unwrap();
    assert_eq!(
        answer.text(),
        format!(
            "error: {}",
            ClientRequestError::NotSupported("elicitation".into())
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_asks_the_client_over_stdio() {
    // The conformance example's fixture, over stdio.
    let binary = common::example_binary("conformance");
    let client = within(answering_anything().stdio(binary, Vec::<&str>::new()))
        .await
        .unwrap();
    let answer = within(client.call_tool("test_elicitation", json!({"message": "Where to?"})))
        .await
        .unwrap();
    assert!(!answer.is_error, "{answer:?}");
    assert_eq!(
        answer.text(),
        r#"User response: action=accept, content=Contact { username: "ada", email: "ada@example.com" }"#
    );
}

fn answering_anything() -> mcp_runtime::client::ClientBuilder {
    Client::builder().on_elicitation(|_| async move {
        let mut answer = Map::new();
        answer.insert("username".into(), json!("ada"));
        answer.insert("email".into(), json!("ada@example.com"));
        Elicitation::Accept(answer)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_answers_times_out_and_the_call_goes_on() {
    let server = HttpServer::start(asking().client_request_timeout(Duration::from_millis(300)));
    let url = format!("http://{}/mcp", server.addr);
    // The server waits for the answer: a legacy session.
    let silent = legacy().on_elicitation(|_| std::future::pending());
    let client = within(silent.http(url)).await.unwrap();
    let answer = within(client.call_tool("ask", json!({}))).await.unwrap();
    assert_eq!(
        answer.text(),
        format!(
            "error: {}",
            ClientRequestError::Timeout(Duration::from_millis(300))
        )
    );
    // The server still serves that client.
    within(client.ping()).await.unwrap();
}

#[tokio::test]
async fn cancelling_the_call_cancels_the_question_and_stray_answers_are_ignored() {
    let mut client = raw_client(asking(), json!({"elicitation": {}})).await;

    // An answer to nothing asked: ignored, the session goes on.
    client
        .send(json!({"jsonrpc": "2.0", "id": "mcp-rs-99", "result": {"action": "decline"}}))
        .await;
    let call = client
        .send_request("tools/call", json!({"name": "ask", "arguments": {}}))
        .await;
    let question = next_non_notification(&mut client).await;
    assert_eq!(question["method"], "elicitation/create", "{question}");
    assert_eq!(question["id"], "mcp-rs-1");
    assert_eq!(question["params"]["message"], "Where to?");

    client
        .notify("notifications/cancelled", json!({"requestId": call}))
        .await;
    let cancelled = within(client.next_notification("notifications/cancelled", STEP))
        .await
        .expect("the question is cancelled with the call");
    assert_eq!(cancelled["params"]["requestId"], "mcp-rs-1");

    // A second call asks again, with a new id, and gets the answer.
    let call = client
        .send_request("tools/call", json!({"name": "ask", "arguments": {}}))
        .await;
    let question = next_non_notification(&mut client).await;
    assert_eq!(question["id"], "mcp-rs-2");
    client
        .send(json!({"jsonrpc": "2.0", "id": "mcp-rs-2", "result": {"action": "decline"}}))
        .await;
    let answer = within(client.response(call)).await.unwrap();
    assert_eq!(answer["content"][0]["text"], r#"{"action":"decline"}"#);
}

fn with_roots_tool() -> Server {
    let places = DynamicTool::new(
        "places",
        "The client's roots.",
        json!({"type": "object"}),
        |_, ctx: Context| async move {
            match ctx.roots().await {
                Ok(roots) => roots
                    .iter()
                    .map(|r| format!("{} ({})", r.uri, r.name.as_deref().unwrap_or("-")))
                    .collect::<Vec<_>>()
                    .join(", "),
                Err(error) => format!("error: {error}"),
            }
        },
    );
    asking().tool(places)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roots_come_from_the_client_and_change_when_it_says_so() {
    let server = HttpServer::start(with_roots_tool());
    let url = format!("http://{}/mcp", server.addr);
    let client = Client::builder()
        .roots([Root::new("file:///home/ada/trip").named("trip")])
        .http(url.clone());
    let client = within(client).await.unwrap();
    let places = within(client.call_tool("places", json!({}))).await.unwrap();
    assert_eq!(places.text(), "file:///home/ada/trip (trip)");

    assert!(
        within(client.set_roots([Root::new("file:///srv/maps")]))
            .await
            .unwrap()
    );
    // The notification and the next call travel separately: wait for it.
    within(async {
        loop {
            let places = client.call_tool("places", json!({})).await.unwrap();
            if places.text() == "file:///srv/maps (-)" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;

    let modern = within(Client::http(url.clone())).await.unwrap();
    missing_capability(within(modern.call_tool("places", json!({}))).await, "roots");
    let plain = within(legacy().http(url)).await.unwrap();
    let places = within(plain.call_tool("places", json!({}))).await.unwrap();
    assert_eq!(
        places.text(),
        format!(
            "error: {}",
            ClientRequestError::NotSupported("roots".into())
        )
    );
    assert!(!within(plain.set_roots([])).await.unwrap());
}

#[tokio::test]
async fn roots_are_asked_once_until_the_client_says_they_changed() {
    let mut client = raw_client(with_roots_tool(), json!({"roots": {"listChanged": true}})).await;
    let roots = json!({"roots": [{"uri": "file:///a", "name": "A"}]});

    let call = client
        .send_request("tools/call", json!({"name": "places", "arguments": {}}))
        .await;
    let question = next_non_notification(&mut client).await;
    assert_eq!(question["method"], "roots/list");
    client
        .send(json!({"jsonrpc": "2.0", "id": question["id"], "result": roots}))
        .await;
    let answer = within(client.response(call)).await.unwrap();
    assert_eq!(answer["content"][0]["text"], "file:///a (A)");

    // Kept: the second call asks nothing.
    let answer = within(client.call_tool("places", json!({}))).await.unwrap();
    assert_eq!(answer["content"][0]["text"], "file:///a (A)");

    client
        .notify("notifications/roots/list_changed", json!({}))
        .await;
    let call = client
        .send_request("tools/call", json!({"name": "places", "arguments": {}}))
        .await;
    let question = next_non_notification(&mut client).await;
    assert_eq!(question["method"], "roots/list", "asked again");
    let roots = json!({"roots": [{"uri": "file:///b"}]});
    client
        .send(json!({"jsonrpc": "2.0", "id": question["id"], "result": roots}))
        .await;
    let answer = within(client.response(call)).await.unwrap();
    assert_eq!(answer["content"][0]["text"], "file:///b (-)");
}

fn summarizing() -> Server {
    let summarize = DynamicTool::new(
        "summarize",
        "Asks the client's model for a summary.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        |arguments, ctx: Context| async move {
            let text = arguments["text"].as_str().unwrap_or_default().to_owned();
            let request = SamplingRequest::new(50)
                .system("Summarize in three words.")
                .user(text)
                .temperature(0.0);
            match ctx.sample(request).await {
                Ok(answer) => format!("{}: {}", answer.model, answer.text().unwrap_or("-")),
                Err(error) => format!("error: {error}"),
            }
        },
    );
    Server::new("summarizing", "1.0.0").tool(summarize)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_asks_the_clients_model_and_a_refusal_is_an_error() {
    let server = HttpServer::start(summarizing());
    let url = format!("http://{}/mcp", server.addr);
    let model = Client::builder().on_sampling(|request: SamplingRequest| async move {
        assert_eq!(
            request.system_prompt.as_deref(),
            Some("Summarize in three words.")
        );
        assert_eq!(request.max_tokens, 50);
        let said = request.messages[0].text().unwrap_or_default().to_owned();
        Ok(Sampled::new("tiny-model", format!("about {said}")))
    });
    let client = within(model.http(url.clone())).await.unwrap();
    let answer = within(client.call_tool("summarize", json!({"text": "rain"})))
        .await
        .unwrap();
    assert_eq!(answer.text(), "tiny-model: about rain");

    // A 2026-07-28 client's refusal fails its own call: the era has no
    // error answer to an input request.
    let refusing = Client::builder().on_sampling(|_| async { Err("the user said no".to_owned()) });
    let client = within(refusing.http(url.clone())).await.unwrap();
    match within(client.call_tool("summarize", json!({"text": "rain"}))).await {
        Err(ClientError::Rpc {
            code: -1, message, ..
        }) => {
            assert!(message.ends_with("the user said no"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // A legacy client's refusal is the tool's error.
    let refusing = legacy().on_sampling(|_| async { Err("the user said no".to_owned()) });
    let client = within(refusing.http(url)).await.unwrap();
    let answer = within(client.call_tool("summarize", json!({"text": "rain"})))
        .await
        .unwrap();
    assert_eq!(
        answer.text(),
        "error: the client answered error -1: the user said no"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_calls_asking_at_once_each_get_their_own_answer() {
    let echo = DynamicTool::new(
        "echo_back",
        "Asks the user to repeat a number.",
        json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        |arguments, ctx: Context| async move {
            let n = arguments["n"].clone();
            let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
            let params = json!({"message": n.to_string(), "requestedSchema": schema});
            match ctx.send_request("elicitation/create", params).await {
                Ok(answer) => answer["content"]["n"].to_string(),
                Err(error) => format!("error: {error}"),
            }
        },
    );
    let server = HttpServer::start(Server::new("echoing", "1.0.0").tool(echo));
    let url = format!("http://{}/mcp", server.addr);
    // The user repeats the number the question shows, after a pause that
    // makes the answers come back out of order.
    let client = Client::builder().on_elicitation(|request| async move {
        let n: i64 = request.message.parse().unwrap();
        tokio::time::sleep(Duration::from_millis(u64::try_from(n % 7).unwrap() * 5)).await;
        let mut answer = Map::new();
        answer.insert("n".into(), json!(n));
        Elicitation::Accept(answer)
    });
    let client = std::sync::Arc::new(within(client.http(url)).await.unwrap());
    let mut calls = tokio::task::JoinSet::new();
    for n in 0..40 {
        let client = std::sync::Arc::clone(&client);
        calls.spawn(async move {
            let answer = client
                .call_tool("echo_back", json!({"n": n}))
                .await
                .unwrap();
            (n, answer.text())
        });
    }
    let mut answered = 0;
    while let Some(done) = within(calls.join_next()).await {
        let (n, text) = done.unwrap();
        assert_eq!(text, n.to_string());
        answered += 1;
    }
    assert_eq!(answered, 40);
}

#[tokio::test]
async fn a_client_that_goes_away_while_asked_ends_the_call() {
    let stopped = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = std::sync::Arc::clone(&stopped);
    let ask = DynamicTool::new(
        "ask",
        "Asks, and notes when it stops.",
        json!({"type": "object"}),
        move |_, ctx: Context| {
            let guard = common::Stopped(std::sync::Arc::clone(&flag));
            async move {
                let params =
                    json!({"message": "Still there?", "requestedSchema": {"type": "object"}});
                let answer = ctx.send_request("elicitation/create", params).await;
                drop(guard);
                format!("{answer:?}")
            }
        },
    );
    let mut client = raw_client(
        Server::new("asking", "1.0.0").tool(ask),
        json!({"elicitation": {}}),
    )
    .await;
    client
        .send_request("tools/call", json!({"name": "ask", "arguments": {}}))
        .await;
    let question = next_non_notification(&mut client).await;
    assert_eq!(question["method"], "elicitation/create");
    // Gone without answering: the call ends rather than waiting out the
    // five-minute timeout.
    drop(within(client.close()).await);
    within(async {
        while !stopped.load(std::sync::atomic::Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_weather_example_asks_its_user_and_its_model_over_stdio() {
    let client = Client::builder()
        .on_elicitation(|request| async move {
            assert_eq!(
                request.message,
                "Send severe-weather alerts for Paris, France?"
            );
            assert_eq!(
                request.requested_schema["properties"]["level"]["oneOf"][1],
                json!({"const": "emergency", "title": "Emergencies only"})
            );
            let mut answer = Map::new();
            answer.insert("confirm".into(), json!(true));
            Elicitation::Accept(answer)
        })
        .on_sampling(|request: SamplingRequest| async move {
            let asked = request.messages[0].text().unwrap_or_default().to_owned();
            assert!(
                asked.starts_with("The forecast for Paris, France:\nday 0: "),
                "{asked}"
            );
            Ok(Sampled::new("tiny-model", " Mild and dry. "))
        })
        .stdio(common::weather_binary(), Vec::<&str>::new());
    let client = within(client).await.unwrap();

    let subscribed = within(client.call_tool("subscribe_alerts", json!({"city": "paris"})))
        .await
        .unwrap();
    assert!(!subscribed.is_error, "{subscribed:?}");
    assert_eq!(
        subscribed.structured_content,
        Some(json!({"city": "Paris", "subscribed": true, "level": "warning"}))
    );
    let summary =
        within(client.call_tool("summarize_forecast", json!({"city": "Paris", "days": 2})))
            .await
            .unwrap();
    assert_eq!(
        summary.structured_content,
        Some(json!({"city": "Paris", "summary": "Mild and dry.", "model": "tiny-model"}))
    );

    // A client that can be asked nothing gets errors that say why.
    let modern = within(Client::stdio(common::weather_binary(), Vec::<&str>::new()))
        .await
        .unwrap();
    let refused = modern.call_tool("subscribe_alerts", json!({"city": "Paris"}));
    missing_capability(within(refused).await, "elicitation");
    let plain = within(legacy().stdio(common::weather_binary(), Vec::<&str>::new()))
        .await
        .unwrap();
    let refused = within(plain.call_tool("subscribe_alerts", json!({"city": "Paris"})))
        .await
        .unwrap();
    assert!(refused.is_error);
    assert_eq!(
        refused.text(),
        "Could not ask the user: the client did not declare the `elicitation` capability, so it \
         cannot be asked for it"
    );
}

/// A city, asked for with a form.
#[derive(Debug, mcp_runtime::Elicit)]
struct Destination {
    #[allow(dead_code)]
    city: String,
}

/// Asks the client the way its argument `how` names, and ends with the
/// error it got.
fn asking_every_way() -> Server {
    let ask = DynamicTool::new(
        "ask_for",
        "Asks the client.",
        json!({"type": "object"}),
        |arguments: serde_json::Value, ctx: Context| async move {
            match arguments["how"].as_str() {
                Some("send_request") => {
                    let params =
                        json!({"message": "Where to?", "requestedSchema": {"type": "object"}});
                    ctx.send_request("elicitation/create", params)
                        .await
                        .map(drop)
                }
                Some("elicit") => ctx.elicit::<Destination>("Where to?").await.map(drop),
                Some("sample") => {
                    let request = SamplingRequest::new(100).user("Name a city.");
                    ctx.sample(request).await.map(drop)
                }
                _ => ctx.roots().await.map(drop),
            }
        },
    );
    Server::new("asking", "1.0.0").tool(ask)
}

#[test]
fn a_stateless_server_says_it_cannot_ask_a_client_that_declared_every_capability() {
    let server = HttpServer::start(asking_every_way().stateless());
    let mut client = server.client();
    // Declared here, but a stateless server keeps nothing of it: each
    // request stands alone, and an answer would have nowhere to go.
    let every = json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}});
    let init = client.call(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": every,
               "clientInfo": {"name": "legacy", "version": "0"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    for (how, asked) in [
        ("send_request", "elicitation"),
        ("elicit", "elicitation"),
        ("sample", "sampling"),
        ("roots", "roots"),
    ] {
        let arguments = json!({"how": how});
        let reply = client.call(
            "tools/call",
            json!({"name": "ask_for", "arguments": arguments}),
        );
        let result = &reply["result"];
        assert_eq!(result["isError"], true, "{how}: {reply}");
        assert_eq!(
            result["content"][0]["text"],
            format!(
                "this server runs stateless HTTP, which has no channel back to the client, so it \
                 cannot ask the client for `{asked}`; serve HTTP with sessions (without \
                 `--stateless` or `Server::stateless`) to ask clients of protocol 2025-11-25 and \
                 earlier"
            ),
            "{how}: {reply}"
        );
    }
}
