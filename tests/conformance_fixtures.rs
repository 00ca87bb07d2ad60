//! The conformance example's fixtures, in process: each returns what the
//! official suite's scenario for it checks (`tests/conformance/run` runs the
//! suite itself over HTTP).

#[allow(dead_code)]
#[path = "../examples/conformance.rs"]
mod conformance;

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::testing::TestClient;
use serde_json::{Value, json};

/// Base64 of the fixtures' media, computed outside Rust (Python's `zlib`,
/// `struct` and `base64`): a 1x1 red PNG and 1 ms of silent 8 kHz WAV.
const RED_PIXEL_PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC";
const SILENT_WAV_BASE64: &str =
    "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

async fn client() -> TestClient {
    TestClient::connect(conformance::server()).await.unwrap()
}

/// Every message the server sends from now until the response to `id`
/// (included), with a deadline so a lost response fails the test.
async fn messages_until_response(client: &mut TestClient, id: i64) -> Vec<Value> {
    let collect = async {
        let mut messages = Vec::new();
        while let Some(message) = client.recv().await {
            let done = message["id"] == id;
            messages.push(message);
            if done {
                break;
            }
        }
        messages
    };
    tokio::time::timeout(Duration::from_secs(10), collect)
        .await
        .expect("no response within 10 s")
}

#[tokio::test]
async fn every_fixture_the_scenarios_call_is_listed() {
    let mut client = client().await;
    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "confirm_delete",
            "failing_job",
            "greet",
            "json_schema_2020_12_tool",
            "list_roots",
            "multi_input",
            "protocol_error_job",
            "slow_compute",
            "test_audio_content",
            "test_custom_header",
            "test_elicitation",
            "test_elicitation_sep1034_defaults",
            "test_elicitation_sep1330_enums",
            "test_embedded_resource",
            "test_error_handling",
            "test_image_content",
            "test_input_required_result_capabilities",
            "test_input_required_result_elicitation",
            "test_input_required_result_list_roots",
            "test_input_required_result_multi_round",
            "test_input_required_result_multiple_inputs",
            "test_input_required_result_request_state",
            "test_input_required_result_sampling",
            "test_input_required_result_tampered_state",
            "test_logging_tool",
            "test_missing_capability",
            "test_multiple_content_types",
            "test_reconnection",
            "test_sampling",
            "test_simple_text",
            "test_streaming_elicitation",
            "test_tool_with_logging",
            "test_tool_with_progress",
            "test_tool_with_task",
            "test_trigger_prompt_change",
            "test_trigger_tool_change",
        ]
    );
    // What `tools-list` checks of each tool.
    for tool in &tools {
        assert!(
            tool["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{tool}"
        );
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
    }
}

#[tokio::test]
async fn custom_header_marks_a_string_parameter_and_echoes_it() {
    let mut client = client().await;
    let tools = client.list_tools().await.unwrap();
    let tool = tools.iter().find(|t| t["name"] == "test_custom_header");
    // `http-custom-header-server-validation` looks for this mark.
    assert_eq!(
        tool.unwrap()["inputSchema"]["properties"]["region"],
        json!({"type": "string", "x-mcp-header": "Region"})
    );
    let result = client
        .call_tool("test_custom_header", json!({"region": "=?base64?SGVsbG8="}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "Region: =?base64?SGVsbG8=");
}

#[tokio::test]
async fn simple_text_needs_no_arguments() {
    let mut client = client().await;
    // The scenario sends no `arguments` at all.
    let result = client
        .request("tools/call", json!({"name": "test_simple_text"}))
        .await
        .unwrap();
    assert_eq!(
        result,
        json!({
            "content": [{"type": "text", "text": "This is a simple text response for testing."}],
            "isError": false
        })
    );
}

#[tokio::test]
async fn image_audio_and_embedded_resource() {
    let mut client = client().await;
    let image = client
        .call_tool("test_image_content", json!({}))
        .await
        .unwrap();
    assert_eq!(
        image["content"],
        json!([{"type": "image", "data": RED_PIXEL_PNG_BASE64, "mimeType": "image/png"}])
    );

    let audio = client
        .call_tool("test_audio_content", json!({}))
        .await
        .unwrap();
    assert_eq!(
        audio["content"],
        json!([{"type": "audio", "data": SILENT_WAV_BASE64, "mimeType": "audio/wav"}])
    );

    let embedded = client
        .call_tool("test_embedded_resource", json!({}))
        .await
        .unwrap();
    assert_eq!(
        embedded["content"],
        json!([{
            "type": "resource",
            "resource": {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content."
            }
        }])
    );
    for result in [image, audio, embedded] {
        assert_eq!(result["isError"], false);
    }
}

#[tokio::test]
async fn multiple_content_types_in_order() {
    let mut client = client().await;
    let result = client
        .call_tool("test_multiple_content_types", json!({}))
        .await
        .unwrap();
    assert_eq!(result["isError"], false);
    assert_eq!(
        result["content"],
        json!([
            {"type": "text", "text": "Multiple content types test:"},
            {"type": "image", "data": RED_PIXEL_PNG_BASE64, "mimeType": "image/png"},
            {
                "type": "resource",
                "resource": {
                    "uri": "test://mixed-content-resource",
                    "mimeType": "application/json",
                    "text": "{\"test\":\"data\",\"value\":123}"
                }
            }
        ])
    );
}

#[tokio::test]
async fn error_handling_is_a_tool_error_with_its_text() {
    let mut client = client().await;
    let result = client
        .call_tool("test_error_handling", json!({}))
        .await
        .unwrap();
    assert_eq!(
        result,
        json!({
            "content": [{
                "type": "text",
                "text": "This tool intentionally returns an error for testing"
            }],
            "isError": true
        })
    );
}

#[tokio::test]
async fn logging_sends_three_messages_before_the_result() {
    let mut client = client().await;
    // As the scenario does: everything from `debug` up.
    let set = client
        .request("logging/setLevel", json!({"level": "debug"}))
        .await
        .unwrap();
    assert_eq!(set, json!({}));

    let id = client
        .send_request(
            "tools/call",
            json!({"name": "test_tool_with_logging", "arguments": {}}),
        )
        .await;
    let messages = messages_until_response(&mut client, id).await;
    let (result, logs) = messages.split_last().unwrap();
    let logs: Vec<(&Value, &Value)> = logs
        .iter()
        .map(|m| {
            assert_eq!(m["method"], "notifications/message", "{m}");
            (&m["params"]["level"], &m["params"]["data"])
        })
        .collect();
    assert_eq!(
        logs,
        [
            (&json!("info"), &json!("Tool execution started")),
            (&json!("info"), &json!("Tool processing data")),
            (&json!("info"), &json!("Tool execution completed")),
        ]
    );
    assert_eq!(
        result["result"]["content"],
        json!([{"type": "text", "text": "Tool with logging executed successfully"}])
    );
}

#[tokio::test]
async fn logging_honours_the_level_the_client_set() {
    let mut client = client().await;
    client
        .request("logging/setLevel", json!({"level": "warning"}))
        .await
        .unwrap();
    let id = client
        .send_request(
            "tools/call",
            json!({"name": "test_tool_with_logging", "arguments": {}}),
        )
        .await;
    let messages = messages_until_response(&mut client, id).await;
    assert_eq!(
        messages.len(),
        1,
        "info messages sent below the level set: {messages:?}"
    );
}

#[tokio::test]
async fn progress_goes_0_50_100_of_100_with_the_token_then_the_result() {
    let mut client = client().await;
    let id = client
        .send_request(
            "tools/call",
            json!({
                "name": "test_tool_with_progress",
                "arguments": {},
                "_meta": {"progressToken": "progress-test-1"}
            }),
        )
        .await;
    let messages = messages_until_response(&mut client, id).await;
    let (result, progress) = messages.split_last().unwrap();
    let progress: Vec<Value> = progress
        .iter()
        .map(|m| {
            assert_eq!(m["method"], "notifications/progress", "{m}");
            m["params"].clone()
        })
        .collect();
    assert_eq!(
        progress,
        [0, 50, 100].map(|step| json!({
            "progressToken": "progress-test-1",
            "progress": f64::from(step),
            "total": 100.0,
            "message": format!("Completed step {step} of 100"),
        }))
    );
    assert_eq!(result["result"]["isError"], false);

    // Without a token the call runs the same, silently.
    let id = client
        .send_request(
            "tools/call",
            json!({"name": "test_tool_with_progress", "arguments": {}}),
        )
        .await;
    let messages = messages_until_response(&mut client, id).await;
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(
        messages[0]["result"]["content"],
        json!([{"type": "text", "text": "Tool with progress executed successfully"}])
    );
}

#[tokio::test]
async fn reconnection_answers() {
    let mut client = client().await;
    let result = client
        .call_tool("test_reconnection", json!({}))
        .await
        .unwrap();
    assert_eq!(result["isError"], false);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Reconnection test completed successfully."),
        "{result}"
    );
}

#[tokio::test]
async fn json_schema_2020_12_keywords_are_listed_as_written() {
    let mut client = client().await;
    let tools = client.list_tools().await.unwrap();
    let tool = tools
        .iter()
        .find(|t| t["name"] == "json_schema_2020_12_tool")
        .unwrap();
    assert_eq!(
        tool["description"],
        "Tool with JSON Schema 2020-12 features"
    );
    let schema = &tool["inputSchema"];
    assert_eq!(*schema, conformance::json_schema_2020_12_input());
    // What the scenario checks, spelled out.
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["$defs"]["address"]["$anchor"], "addressDef");
    assert_eq!(schema["additionalProperties"], false);
    assert!(schema["allOf"][0]["anyOf"].is_array());
    assert_eq!(
        schema["if"],
        json!({"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]})
    );
    assert_eq!(schema["then"], json!({"required": ["phone"]}));
    assert_eq!(schema["else"], json!({"required": ["email"]}));
}

#[tokio::test]
async fn json_schema_2020_12_arguments_are_enforced() {
    let mut client = client().await;
    let ok = client
        .call_tool(
            "json_schema_2020_12_tool",
            json!({"name": "Ada", "email": "ada@example.com", "address": {"city": "London"}}),
        )
        .await
        .unwrap();
    assert_eq!(ok["isError"], false, "{ok}");
    let text = ok["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("JSON Schema 2020-12 tool called with: {") && text.contains("London"),
        "{text}"
    );

    // Neither phone nor email (the `anyOf`), an address through the `$ref`
    // with a number for a city, and a member the schema does not allow.
    for arguments in [
        json!({"name": "Ada"}),
        json!({"email": "ada@example.com", "address": {"city": 1}}),
        json!({"email": "ada@example.com", "age": 36}),
    ] {
        let refused = client
            .call_tool("json_schema_2020_12_tool", arguments.clone())
            .await
            .unwrap();
        assert_eq!(
            refused["isError"], true,
            "{arguments} was accepted: {refused}"
        );
    }
}

/// The `if`/`then`/`else` of the schema: a phone when `contactMethod` is
/// `"phone"`, else an email; each refusal says which member is missing.
#[tokio::test]
async fn json_schema_2020_12_conditional_is_enforced() {
    let mut client = client().await;
    for arguments in [
        json!({"contactMethod": "phone", "phone": "555"}),
        json!({"contactMethod": "email", "email": "ada@example.com"}),
        json!({"email": "ada@example.com"}),
    ] {
        let result = client
            .call_tool("json_schema_2020_12_tool", arguments.clone())
            .await
            .unwrap();
        assert_eq!(result["isError"], false, "{arguments}: {result}");
    }
    for (arguments, missing) in [
        // The `then`: `contactMethod` is "phone", so the phone is required.
        (
            json!({"contactMethod": "phone", "email": "ada@example.com"}),
            "phone",
        ),
        // The `else`: a phone alone is enough for the `anyOf`, not for it.
        (json!({"phone": "555"}), "email"),
        (json!({"contactMethod": "email", "phone": "555"}), "email"),
    ] {
        let refused = client
            .call_tool("json_schema_2020_12_tool", arguments.clone())
            .await
            .unwrap();
        assert_eq!(refused["isError"], true, "{arguments}: {refused}");
        assert_eq!(
            refused["content"][0]["text"],
            format!(
                "Invalid arguments for tool `json_schema_2020_12_tool`:\n\
                 - `/{missing}`: missing required argument `{missing}`\n\
                 Correct the arguments and call the tool again."
            ),
            "{arguments}"
        );
    }
}

// ---- Resources --------------------------------------------------------------

#[tokio::test]
async fn the_resources_and_the_template_are_listed_with_their_metadata() {
    let mut client = client().await;
    // What `resources-list` checks: a `uri` and a `name` on each.
    let list = client.request("resources/list", json!({})).await.unwrap();
    assert_eq!(
        list,
        json!({"resources": [
            {
                "uri": "test://static-binary",
                "name": "static-binary",
                "title": "Static Binary Resource",
                "description": "A static binary resource (image) for testing.",
                "mimeType": "image/png"
            },
            {
                "uri": "test://static-text",
                "name": "static-text",
                "title": "Static Text Resource",
                "description": "A static text resource for testing.",
                "mimeType": "text/plain"
            },
            {
                "uri": "test://watched-resource",
                "name": "watched-resource",
                "title": "Watched Resource",
                "description": "A resource that changes every 3 seconds while the example runs.",
                "mimeType": "text/plain"
            }
        ]})
    );
    let templates = client
        .request("resources/templates/list", json!({}))
        .await
        .unwrap();
    assert_eq!(
        templates,
        json!({"resourceTemplates": [{
            "uriTemplate": "test://template/{id}/data",
            "name": "template",
            "title": "Resource Template",
            "description": "A resource template with parameter substitution.",
            "mimeType": "application/json"
        }]})
    );
}

#[tokio::test]
async fn static_text_and_static_binary_read_as_the_scenarios_expect() {
    let mut client = client().await;
    let text = client
        .request("resources/read", json!({"uri": "test://static-text"}))
        .await
        .unwrap();
    assert_eq!(
        text,
        json!({"contents": [{
            "uri": "test://static-text",
            "mimeType": "text/plain",
            "text": "This is the content of the static text resource."
        }]})
    );
    let binary = client
        .request("resources/read", json!({"uri": "test://static-binary"}))
        .await
        .unwrap();
    assert_eq!(
        binary,
        json!({"contents": [{
            "uri": "test://static-binary",
            "mimeType": "image/png",
            "blob": RED_PIXEL_PNG_BASE64
        }]})
    );
}

#[tokio::test]
async fn the_template_substitutes_the_id() {
    let mut client = client().await;
    for id in ["123", "abc"] {
        let uri = format!("test://template/{id}/data");
        let read = client
            .request("resources/read", json!({"uri": uri}))
            .await
            .unwrap();
        let text = format!(r#"{{"id":"{id}","templateTest":true,"data":"Data for ID: {id}"}}"#);
        assert_eq!(
            read,
            json!({"contents": [{"uri": uri, "mimeType": "application/json", "text": text}]})
        );
    }
    // An id is one path segment: nothing else matches the template.
    for uri in ["test://template/1/2/data", "test://template//data"] {
        let error = client
            .request("resources/read", json!({"uri": uri}))
            .await
            .unwrap_err();
        assert_eq!(
            (error.code, error.data),
            (-32002, Some(json!({"uri": uri})))
        );
    }
}

#[tokio::test]
async fn subscribers_of_the_watched_resource_hear_of_each_change_until_they_unsubscribe() {
    let watched = Arc::new(conformance::Watched::default());
    let mut server = conformance::server_with(Arc::clone(&watched));
    let notifier = server.notifier();
    let mut client = TestClient::connect(server).await.unwrap();
    let read = async |client: &mut TestClient| {
        client
            .request("resources/read", json!({"uri": "test://watched-resource"}))
            .await
            .unwrap()
    };
    assert_eq!(
        read(&mut client).await,
        json!({"contents": [{
            "uri": "test://watched-resource",
            "mimeType": "text/plain",
            "text": "Watched resource content, revision 0"
        }]})
    );
    // Not subscribed yet: nobody to tell.
    assert_eq!(watched.change(&notifier), 0);

    // What `resources-subscribe` and `resources-unsubscribe` send, answered `{}`.
    let subscribe = json!({"uri": "test://watched-resource"});
    assert_eq!(
        client
            .request("resources/subscribe", subscribe.clone())
            .await
            .unwrap(),
        json!({})
    );
    assert_eq!(watched.change(&notifier), 1);
    let update = tokio::time::timeout(Duration::from_secs(10), client.recv())
        .await
        .expect("no update within 10 s")
        .unwrap();
    assert_eq!(
        update,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/resources/updated",
            "params": {"uri": "test://watched-resource"}
        })
    );
    assert_eq!(
        read(&mut client).await["contents"][0]["text"],
        "Watched resource content, revision 2"
    );

    assert_eq!(
        client
            .request("resources/unsubscribe", subscribe)
            .await
            .unwrap(),
        json!({})
    );
    assert_eq!(watched.change(&notifier), 0);
    assert_eq!(
        read(&mut client).await["contents"][0]["text"],
        "Watched resource content, revision 3"
    );
    // No update reached the client once it had unsubscribed.
    let rest = tokio::time::timeout(Duration::from_secs(10), client.close())
        .await
        .expect("the server did not finish within 10 s");
    assert_eq!(rest, Vec::<Value>::new());
}

#[tokio::test]
async fn the_server_declares_subscriptions_and_completions() {
    let mut client = TestClient::start(conformance::server()).unwrap();
    let initialized = client.initialize("2025-11-25").await.unwrap();
    let capabilities = &initialized["capabilities"];
    assert_eq!(
        capabilities["resources"]["subscribe"], true,
        "{capabilities}"
    );
    assert!(capabilities["prompts"].is_object(), "{capabilities}");
    assert_eq!(capabilities["completions"], json!({}), "{capabilities}");
}

// ---- Prompts and completion -------------------------------------------------

#[tokio::test]
async fn the_prompts_are_listed_with_their_arguments() {
    let mut client = client().await;
    // What `prompts-list` checks: a `name` and a `description` on each.
    let list = client.request("prompts/list", json!({})).await.unwrap();
    assert_eq!(
        list,
        json!({"prompts": [
            {
                "name": "test_input_required_result_prompt",
                "description": "A prompt that asks the user for the context to use first."
            },
            {
                "name": "test_prompt_with_arguments",
                "title": "Prompt With Arguments",
                "description": "A prompt with required arguments.",
                "arguments": [
                    {"name": "arg1", "description": "First test argument", "required": true},
                    {"name": "arg2", "description": "Second test argument", "required": true}
                ]
            },
            {
                "name": "test_prompt_with_embedded_resource",
                "title": "Prompt With Embedded Resource",
                "description": "A prompt that includes an embedded resource.",
                "arguments": [{
                    "name": "resourceUri",
                    "description": "URI of the resource to embed",
                    "required": true
                }]
            },
            {
                "name": "test_prompt_with_image",
                "title": "Prompt With Image",
                "description": "A prompt that includes image content."
            },
            {
                "name": "test_simple_prompt",
                "title": "Simple Test Prompt",
                "description": "A simple prompt without arguments."
            }
        ]})
    );
}

#[tokio::test]
async fn the_simple_prompt_and_the_one_with_arguments() {
    let mut client = client().await;
    // `prompts-get-simple` sends no `arguments` at all.
    let simple = client
        .request("prompts/get", json!({"name": "test_simple_prompt"}))
        .await
        .unwrap();
    assert_eq!(
        simple,
        json!({"messages": [{
            "role": "user",
            "content": {"type": "text", "text": "This is a simple prompt for testing."}
        }]})
    );

    let with_arguments = client
        .request(
            "prompts/get",
            json!({
                "name": "test_prompt_with_arguments",
                "arguments": {"arg1": "testValue1", "arg2": "testValue2"}
            }),
        )
        .await
        .unwrap();
    assert_eq!(
        with_arguments,
        json!({"messages": [{
            "role": "user",
            "content": {
                "type": "text",
                "text": "Prompt with arguments: arg1='testValue1', arg2='testValue2'"
            }
        }]})
    );

    // Both arguments are required.
    let error = client
        .request(
            "prompts/get",
            json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "hello"}}),
        )
        .await
        .unwrap_err();
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("arg2"), "{}", error.message);
}

#[tokio::test]
async fn the_embedded_resource_and_image_prompts() {
    let mut client = client().await;
    let embedded = client
        .request(
            "prompts/get",
            json!({
                "name": "test_prompt_with_embedded_resource",
                "arguments": {"resourceUri": "test://example-resource"}
            }),
        )
        .await
        .unwrap();
    assert_eq!(
        embedded,
        json!({"messages": [
            {
                "role": "user",
                "content": {
                    "type": "resource",
                    "resource": {
                        "uri": "test://example-resource",
                        "mimeType": "text/plain",
                        "text": "Embedded resource content for testing."
                    }
                }
            },
            {
                "role": "user",
                "content": {"type": "text", "text": "Please process the embedded resource above."}
            }
        ]})
    );

    let image = client
        .request("prompts/get", json!({"name": "test_prompt_with_image"}))
        .await
        .unwrap();
    assert_eq!(
        image,
        json!({"messages": [
            {
                "role": "user",
                "content": {"type": "image", "data": RED_PIXEL_PNG_BASE64, "mimeType": "image/png"}
            },
            {
                "role": "user",
                "content": {"type": "text", "text": "Please analyze the image above."}
            }
        ]})
    );
}

#[tokio::test]
async fn both_arguments_of_the_prompt_complete_from_the_prefix() {
    let mut client = client().await;
    let mut complete = async |argument: &str, value: &str| {
        client
            .request(
                "completion/complete",
                json!({
                    "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                    "argument": {"name": argument, "value": value}
                }),
            )
            .await
            .unwrap()
    };
    // What `completion-complete` sends.
    assert_eq!(
        complete("arg1", "test").await,
        json!({"completion": {"values": ["testValue1", "testValue2"]}})
    );
    assert_eq!(
        complete("arg2", "par").await,
        json!({"completion": {"values": ["paris", "park", "party"]}})
    );
    assert_eq!(
        complete("arg1", "").await["completion"]["values"],
        json!(conformance::ARGUMENT_VALUES)
    );
    assert_eq!(
        complete("arg2", "zzz").await,
        json!({"completion": {"values": []}})
    );
}
