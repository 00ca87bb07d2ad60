//! Sampling with tools (protocol 2025-11-25): a tool lets the client's
//! model use tools the server runs, over our server and our client, and
//! every way it can go wrong is a clear error.

mod common;

use std::sync::Arc;

use common::asking::{next_non_notification, raw_client_at};
use common::http::HttpServer;
use common::step::within;
use mcp_runtime::client::{Client, ClientError, ProtocolVersion};
use mcp_runtime::{
    ClientRequestError, Context, DynamicTool, Registry, Role, Sampled, SamplingMessage,
    SamplingRequest, SamplingTool, StopReason, ToolChoice, ToolResult, ToolUse, serde_json,
};
use serde_json::json;

/// The tools the model may use: the server's own, run in process.
fn weather_tools() -> Arc<Registry> {
    let get_weather = DynamicTool::new(
        "get_weather",
        "The current weather of a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        |arguments, _ctx: Context| async move {
            match arguments["city"].as_str() {
                Some("Paris") => Ok("Paris: rain, 14°C".to_owned()),
                Some("Oslo") => Ok("Oslo: sunny, 9°C".to_owned()),
                other => Err(format!("no weather for {other:?}")),
            }
        },
    );
    let registry = mcp_runtime::Server::new("weather-tools", "1.0.0")
        .tool(get_weather)
        .registry()
        .expect("the registry builds");
    Arc::new(registry)
}

/// A tool that asks the client's model `question`, lets it use the
/// weather tools for up to three rounds (the last without tools), and
/// returns its final text with the number of requests it took.
fn agent() -> mcp_runtime::Server {
    let tools = weather_tools();
    let advise = DynamicTool::new(
        "advise",
        "Answers a question, with the model's help.",
        json!({"type": "object", "properties": {"question": {"type": "string"}}}),
        move |arguments, ctx: Context| {
            let tools = Arc::clone(&tools);
            async move {
                let offered = SamplingTool::from(&**tools.get("get_weather").unwrap());
                let question = arguments["question"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                let mut request = SamplingRequest::new(300)
                    .system("Use get_weather for facts.")
                    .user(question)
                    .tool(offered)
                    .tool_choice(ToolChoice::Auto);
                for round in 1..=3 {
                    if round == 3 {
                        request = request.tool_choice(ToolChoice::None);
                    }
                    let answer = ctx
                        .sample(request.clone())
                        .await
                        .map_err(|e| e.to_string())?;
                    if !answer.wants_tools() {
                        let text = answer.text().unwrap_or("-");
                        return Ok(format!("{text} (after {round} requests)"));
                    }
                    let mut results = Vec::new();
                    for asked in answer.tool_uses() {
                        let result = tools.call(&asked.name, asked.input.clone()).await;
                        results.push(match result {
                            Ok(result) => ToolResult::from_call(&asked.id, result),
                            Err(error) => ToolResult::error(&asked.id, error.to_string()),
                        });
                    }
                    request = request.answered(answer).tool_results(results);
                }
                Err::<String, String>("the model kept asking for tools".into())
            }
        },
    );
    mcp_runtime::Server::new("agent", "1.0.0").tool(advise)
}

/// A stand-in for a model: asks for the weather of both cities, then
/// answers with what the tools said.
async fn model(request: SamplingRequest) -> Result<Sampled, String> {
    assert_eq!(request.tools.len(), 1, "{request:?}");
    assert_eq!(request.tools[0].name, "get_weather");
    assert_eq!(request.tools[0].input_schema["required"], json!(["city"]));
    let last = request.messages.last().expect("a message");
    if last.role == Role::User && last.content.iter().all(|b| b.as_tool_result().is_some()) {
        assert_eq!(request.tool_choice, Some(ToolChoice::Auto));
        // The conversation so far came back whole: question, uses, results.
        assert_eq!(request.messages.len(), 3);
        assert_eq!(request.messages[1].tool_uses().count(), 2);
        let said: Vec<String> = last
            .content
            .iter()
            .filter_map(|block| block.as_tool_result())
            .map(|result| {
                format!(
                    "{}={}",
                    result.tool_use_id,
                    result.content[0].as_text().unwrap()
                )
            })
            .collect();
        return Ok(Sampled::new("stub-model", said.join("; ")));
    }
    assert_eq!(last.text(), Some("Paris or Oslo?"));
    Ok(Sampled::using_tools(
        "stub-model",
        [
            ToolUse::new("p", "get_weather", json!({"city": "Paris"})),
            ToolUse::new("o", "get_weather", json!({"city": "Oslo"})),
        ],
    )
    .with(mcp_runtime::SamplingContent::text("Let me look both up.")))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_uses_the_servers_tools_and_then_answers() {
    let server = HttpServer::start(agent());
    let url = format!("http://{}/mcp", server.addr);
    let client = within(Client::builder().on_sampling(model).http(url))
        .await
        .unwrap();
    let answer = within(client.call_tool("advise", json!({"question": "Paris or Oslo?"})))
        .await
        .unwrap();
    assert!(!answer.is_error, "{answer:?}");
    assert_eq!(
        answer.text(),
        "p=Paris: rain, 14°C; o=Oslo: sunny, 9°C (after 2 requests)"
    );
}

#[tokio::test]
async fn a_client_without_sampling_tools_is_not_sent_tools() {
    let cases = [
        ("2025-11-25", json!({"sampling": {}}), "sampling.tools"),
        (
            "2025-06-18",
            json!({"sampling": {"tools": {}}}),
            "sampling.tools",
        ),
        ("2025-11-25", json!({}), "sampling"),
    ];
    for (version, capabilities, missing) in cases {
        let mut client = raw_client_at(agent(), version, capabilities.clone()).await;
        let call = client
            .send_request(
                "tools/call",
                json!({"name": "advise", "arguments": {"question": "?"}}),
            )
            .await;
        // The answer to the call comes first: nothing was asked.
        let message = next_non_notification(&mut client).await;
        assert_eq!(message["id"], call, "{version} {capabilities}: {message}");
        assert_eq!(message["result"]["isError"], true);
        assert_eq!(
            message["result"]["content"][0]["text"],
            ClientRequestError::NotSupported(missing.into()).to_string()
        );
    }
}

#[tokio::test]
async fn the_request_on_the_wire_and_malformed_answers() {
    let answers = [
        (
            json!({"role": "assistant", "model": "m", "stopReason": "toolUse",
                   "content": {"type": "tool_use", "id": "1", "name": "rm_rf", "input": {}}}),
            "the tool `rm_rf`, which the request did not offer",
        ),
        (
            json!({"role": "assistant", "model": "m",
                   "content": [{"type": "tool_use", "id": "1", "name": "get_weather", "input": "Paris"}]}),
            "the input of the tool use `1` is not an object",
        ),
        (
            json!({"role": "assistant", "model": "m", "content": {"type": "video"}}),
            "unknown variant `video`",
        ),
        (
            json!({"role": "assistant", "model": "m"}),
            "missing field `content`",
        ),
    ];
    let mut client = raw_client_at(agent(), "2025-11-25", json!({"sampling": {"tools": {}}})).await;
    for (answer, expected) in answers {
        let call = client
            .send_request(
                "tools/call",
                json!({"name": "advise", "arguments": {"question": "Paris or Oslo?"}}),
            )
            .await;
        let question = next_non_notification(&mut client).await;
        assert_eq!(question["method"], "sampling/createMessage", "{question}");
        let params = &question["params"];
        // One block: an object, as clients before 2025-11-25 expect.
        assert_eq!(
            params["messages"],
            json!([{"role": "user", "content": {"type": "text", "text": "Paris or Oslo?"}}])
        );
        assert_eq!(params["toolChoice"], json!({"mode": "auto"}));
        assert_eq!(params["tools"][0]["name"], "get_weather");
        assert_eq!(
            params["tools"][0]["description"],
            "The current weather of a city."
        );
        assert_eq!(params["tools"][0]["inputSchema"]["type"], "object");
        client
            .send(json!({"jsonrpc": "2.0", "id": question["id"], "result": answer}))
            .await;
        let result = within(client.response(call)).await.unwrap();
        assert_eq!(result["isError"], true);
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with(
                "the client's answer does not fit what was asked: sampling/createMessage: "
            ),
            "{text}"
        );
        assert!(text.contains(expected), "{text} (expected {expected})");
    }
}

/// A tool that sends the conversation its arguments describe.
fn sender() -> mcp_runtime::Server {
    let send = DynamicTool::new(
        "send",
        "Sends a conversation to the client's model.",
        json!({"type": "object", "properties": {"broken": {"type": "boolean"}}}),
        |arguments, ctx: Context| async move {
            let tool = SamplingTool::new("get_weather", "Weather.", json!({"type": "object"}));
            let uses = Sampled::using_tools("m", [ToolUse::new("a", "get_weather", json!({}))]);
            let mut request = SamplingRequest::new(10)
                .user("Weather?")
                .tool(tool)
                .answered(uses);
            if arguments["broken"] == true {
                // The result and some text in one message: not allowed.
                request = request.message(
                    SamplingMessage::tool_results([ToolResult::text("a", "14°C")]).with("and"),
                );
            } else {
                request = request.tool_results([ToolResult::text("a", "14°C")]);
            }
            match ctx.sample(request).await {
                Ok(answer) => Ok(answer.text().unwrap_or("-").to_owned()),
                Err(error) => Err(error.to_string()),
            }
        },
    );
    // The same broken conversation, sent raw: our client refuses it.
    let raw = DynamicTool::new(
        "send_raw",
        "Sends a broken conversation without the server's checks.",
        json!({"type": "object"}),
        |_, ctx: Context| async move {
            let params = json!({
                "maxTokens": 10,
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "Weather?"}},
                    {"role": "assistant", "content": {"type": "tool_use", "id": "a", "name": "w", "input": {}}},
                    {"role": "user", "content": {"type": "text", "text": "never mind"}}
                ]
            });
            match ctx.send_request("sampling/createMessage", params).await {
                Ok(answer) => Ok(answer.to_string()),
                Err(error) => Err(error.to_string()),
            }
        },
    );
    mcp_runtime::Server::new("sender", "1.0.0")
        .tool(send)
        .tool(raw)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_breaking_the_tool_rules_is_refused_at_both_ends() {
    let server = HttpServer::start(sender());
    let url = format!("http://{}/mcp", server.addr);
    let client = Client::builder().on_sampling(|request: SamplingRequest| async move {
        let last = request.messages.last().unwrap();
        let result = last.content[0].as_tool_result().expect("a tool result");
        assert_eq!(result.tool_use_id, "a");
        Ok(Sampled::new("m", "14°C, take a coat").stopped_by(StopReason::EndTurn))
    });
    let client = within(client.http(url.clone())).await.unwrap();

    let fine = within(client.call_tool("send", json!({}))).await.unwrap();
    assert!(!fine.is_error, "{fine:?}");
    assert_eq!(fine.text(), "14°C, take a coat");

    // Not sent: the server checks its own conversation.
    let broken = within(client.call_tool("send", json!({"broken": true})))
        .await
        .unwrap();
    assert!(broken.is_error);
    assert_eq!(
        broken.text(),
        "the request was not sent: message 2 mixes tool results with other content; \
         a message with tool results holds nothing else"
    );

    // Sent raw: our client answers -32602 without asking its model. In the
    // 2026-07-28 era (this client), the call fails with it...
    let expected = "Invalid params: not a valid sampling request: the tool uses of message 1 \
                    must be answered by the next message, a user message of tool results";
    match within(client.call_tool("send_raw", json!({}))).await {
        Err(ClientError::Rpc { code, message, .. }) => {
            assert_eq!(code, -32602);
            assert!(message.ends_with(expected), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // ...and in a legacy session the tool gets it as the client's answer.
    let legacy = Client::builder()
        .protocol_version(ProtocolVersion::LATEST)
        .on_sampling(|_| async { Ok(Sampled::new("m", "never asked")) });
    let legacy = within(legacy.http(url)).await.unwrap();
    let raw = within(legacy.call_tool("send_raw", json!({})))
        .await
        .unwrap();
    assert!(raw.is_error);
    assert_eq!(
        raw.text(),
        "the client answered error -32602: Invalid params: not a valid sampling request: \
         the tool uses of message 1 must be answered by the next message, a user message \
         of tool results"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_declares_sampling_tools() {
    let shown = DynamicTool::new(
        "capabilities",
        "The client's capabilities.",
        json!({"type": "object"}),
        |_, ctx: Context| async move { ctx.client_info().unwrap().capabilities.to_string() },
    );
    let server = HttpServer::start(mcp_runtime::Server::new("shown", "1.0.0").tool(shown));
    let url = format!("http://{}/mcp", server.addr);
    let client = Client::builder().on_sampling(model).http(url.clone());
    let client = within(client).await.unwrap();
    let answer = within(client.call_tool("capabilities", json!({})))
        .await
        .unwrap();
    assert_eq!(answer.text(), r#"{"sampling":{"tools":{}}}"#);
    let plain = within(Client::http(url)).await.unwrap();
    let answer = within(plain.call_tool("capabilities", json!({})))
        .await
        .unwrap();
    assert_eq!(answer.text(), "{}");
}
