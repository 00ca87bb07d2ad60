//! `#[prompt]` functions over a connection, for every protocol version:
//! the capabilities, the list (order, pages, fields per version), getting
//! a prompt, its content shaped per version, its errors, and the list
//! change notification.
//!
//! This binary serves prompts only: no resource, and nothing that
//! completes.

use mcp_runtime::testing::TestClient;
use mcp_runtime::{
    Annotations, Content, GetPromptResult, PromptMessage, ProtocolVersion, Server, prompt,
};
use serde_json::{Value, json};

/// Greet someone.
#[prompt(
    title = "Greeting",
    icons = ["https://example.com/wave.png"],
    meta = r#"{"tone": "warm"}"#
)]
fn greet(
    /// Who to greet.
    name: String,
    /// How many times.
    times: Option<u32>,
) -> String {
    format!("Greet {name} {} times.", times.unwrap_or(1))
}

/// Every kind of content.
#[prompt(name = "media")]
async fn media_prompt() -> Vec<PromptMessage> {
    let annotations = Annotations::new()
        .priority(0.5)
        .last_modified("2025-01-01T00:00:00Z");
    vec![
        PromptMessage::user("Look:"),
        PromptMessage::user(Content::image(b"GIF8", "image/gif")),
        PromptMessage::assistant(Content::audio(b"RIFF", "audio/wav")),
        PromptMessage::user(
            Content::embedded_text("notes://a", Some("text/plain"), "a note")
                .with_annotations(annotations),
        ),
        PromptMessage::user(Content::embedded_blob("blobs://1", None, b"\x01\x02")),
        PromptMessage::user(Content::resource_link("notes://b", "note_b")),
    ]
}

/// Divide two numbers.
#[prompt]
fn divide(
    /// The dividend.
    a: i64,
    /// The divisor.
    b: i64,
) -> Result<String, String> {
    if b == 0 {
        return Err("cannot divide by zero: `b` is 0".into());
    }
    Ok(format!("{a} / {b} = {}", a / b))
}

#[prompt(description = "Says hello.")]
async fn bare() -> GetPromptResult {
    GetPromptResult::new(vec![PromptMessage::assistant("Hello!")]).description("A greeting")
}

/// Review code.
#[prompt(title = "Code review")]
fn review(language: String, focus: Option<String>) -> String {
    let focus = focus.unwrap_or_else(|| "anything".into());
    format!("Review this {language} code, focusing on {focus}.")
}

/// Every prompt, in the order listed: by name.
const NAMES: [&str; 5] = ["bare", "divide", "greet", "media", "review"];

fn server() -> Server {
    Server::new("prompts", "1.0.0")
}

async fn connect(version: ProtocolVersion) -> TestClient {
    TestClient::connect_with_version(server(), version.as_str())
        .await
        .unwrap()
}

#[tokio::test]
async fn capabilities_declare_prompts_and_nothing_else_served() {
    for version in ProtocolVersion::LEGACY {
        let mut client = TestClient::start(server()).unwrap();
        let result = client.initialize(version.as_str()).await.unwrap();
        let capabilities = &result["capabilities"];
        assert_eq!(
            capabilities["prompts"],
            json!({"listChanged": false}),
            "{version}"
        );
        for absent in ["resources", "completions"] {
            assert!(capabilities.get(absent).is_none(), "{version}: {absent}");
        }
        for method in [
            "resources/list",
            "resources/templates/list",
            "resources/read",
            "resources/subscribe",
            "completion/complete",
        ] {
            let error = client.request(method, json!({})).await.unwrap_err();
            assert_eq!(error.code, -32601, "{version}: {method}");
        }
        // An argument with nothing to complete it completes nothing, so
        // not even `completion/complete` of `greet` is served.
        let error = client
            .request(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "greet"},
                       "argument": {"name": "name", "value": ""}}),
            )
            .await
            .unwrap_err();
        assert_eq!(error.code, -32601, "{version}");
    }
}

#[tokio::test]
async fn the_list_is_in_order_on_every_page_size() {
    let mut client = connect(ProtocolVersion::LATEST).await;
    let prompts = client.list_prompts().await.unwrap();
    let names: Vec<&str> = prompts
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, NAMES);

    for size in 1..=6 {
        let mut paged = TestClient::connect(server().page_size(size)).await.unwrap();
        let mut collected = Vec::new();
        let mut params = json!({});
        loop {
            let page = paged.request("prompts/list", params).await.unwrap();
            let entries = page["prompts"].as_array().unwrap();
            collected.extend(entries.iter().cloned());
            match page.get("nextCursor") {
                Some(cursor) => {
                    assert_eq!(entries.len(), size, "only the last page is short");
                    params = json!({ "cursor": cursor });
                }
                None => break,
            }
        }
        assert_eq!(collected, prompts, "size {size}");
        assert_eq!(paged.list_prompts().await.unwrap(), prompts, "size {size}");
        let error = paged
            .request("prompts/list", json!({"cursor": "garbage"}))
            .await
            .unwrap_err();
        assert_eq!(error.code, -32602);
    }
}

#[tokio::test]
async fn entries_carry_the_fields_of_each_version() {
    for version in ProtocolVersion::LEGACY {
        let mut client = connect(version).await;
        let prompts = client.list_prompts().await.unwrap();

        // `title` and `_meta` arrived with 2025-06-18, `icons` with 2025-11-25.
        let mut greet = json!({
            "name": "greet",
            "description": "Greet someone.",
            "arguments": [
                {"name": "name", "description": "Who to greet.", "required": true},
                {"name": "times", "description": "How many times.", "required": false}
            ]
        });
        let mut review = json!({
            "name": "review",
            "description": "Review code.",
            "arguments": [
                {"name": "language", "required": true},
                {"name": "focus", "required": false}
            ]
        });
        if version >= ProtocolVersion::V2025_06_18 {
            greet["title"] = json!("Greeting");
            greet["_meta"] = json!({"tone": "warm"});
            review["title"] = json!("Code review");
        }
        if version >= ProtocolVersion::V2025_11_25 {
            greet["icons"] = json!([{"src": "https://example.com/wave.png"}]);
        }
        assert_eq!(prompts[2], greet, "{version}");
        assert_eq!(prompts[4], review, "{version}");
        // No arguments: no `arguments`.
        assert_eq!(
            prompts[0],
            json!({"name": "bare", "description": "Says hello."}),
            "{version}"
        );
    }
}

fn user_text(text: &str) -> Value {
    json!({"role": "user", "content": {"type": "text", "text": text}})
}

#[tokio::test]
async fn prompts_are_got_with_their_arguments_as_strings() {
    for version in ProtocolVersion::LEGACY {
        let mut client = connect(version).await;
        let got = client
            .get_prompt("greet", json!({"name": "Ada", "times": "2"}))
            .await
            .unwrap();
        assert_eq!(
            got,
            json!({ "messages": [user_text("Greet Ada 2 times.")] }),
            "{version}"
        );
        // An optional argument may be left out.
        let got = client
            .get_prompt("greet", json!({"name": "Ada"}))
            .await
            .unwrap();
        assert_eq!(got["messages"][0], user_text("Greet Ada 1 times."));
        let got = client
            .get_prompt("divide", json!({"a": "7", "b": "-2"}))
            .await
            .unwrap();
        assert_eq!(got["messages"][0], user_text("7 / -2 = -3"));
        // A `GetPromptResult` keeps its description; no arguments, none sent.
        let got = client.get_prompt("bare", Value::Null).await.unwrap();
        assert_eq!(
            got,
            json!({"description": "A greeting", "messages": [
                {"role": "assistant", "content": {"type": "text", "text": "Hello!"}}
            ]})
        );
    }
}

#[tokio::test]
async fn content_is_shaped_for_each_version() {
    for version in ProtocolVersion::LEGACY {
        let mut client = connect(version).await;
        let got = client.get_prompt("media", json!({})).await.unwrap();
        let messages = got["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 6, "{version}");
        assert_eq!(messages[0], user_text("Look:"));
        assert_eq!(
            messages[1],
            json!({"role": "user", "content": {"type": "image", "data": "R0lGOA==",
                                               "mimeType": "image/gif"}})
        );
        assert_eq!(messages[2]["role"], "assistant");

        // Audio arrived with 2025-03-26; older clients get a text block.
        let audio = &messages[2]["content"];
        if version >= ProtocolVersion::V2025_03_26 {
            assert_eq!(
                *audio,
                json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}),
                "{version}"
            );
        } else {
            assert_eq!(audio["type"], "text", "{version}");
            assert!(audio.get("data").is_none(), "{version}");
            assert!(
                audio["text"].as_str().unwrap().contains("audio/wav"),
                "{audio}"
            );
        }

        // `lastModified` arrived with 2025-06-18.
        let mut annotations = json!({"priority": 0.5});
        if version >= ProtocolVersion::V2025_06_18 {
            annotations["lastModified"] = json!("2025-01-01T00:00:00Z");
        }
        assert_eq!(
            messages[3]["content"],
            json!({"type": "resource",
                   "resource": {"uri": "notes://a", "mimeType": "text/plain", "text": "a note"},
                   "annotations": annotations}),
            "{version}"
        );
        assert_eq!(
            messages[4]["content"],
            json!({"type": "resource", "resource": {"uri": "blobs://1", "blob": "AQI="}}),
            "{version}"
        );

        // Resource links arrived with 2025-06-18; older clients get text.
        let link = &messages[5]["content"];
        if version >= ProtocolVersion::V2025_06_18 {
            assert_eq!(
                *link,
                json!({"type": "resource_link", "uri": "notes://b", "name": "note_b"}),
                "{version}"
            );
        } else {
            assert_eq!(
                *link,
                json!({"type": "text", "text": "Resource: notes://b (note_b)"}),
                "{version}"
            );
        }
    }
}

#[tokio::test]
async fn bad_gets_are_invalid_params_naming_what_is_wrong() {
    let cases = [
        ("nope", json!({}), "nope"),
        ("greet", json!({}), "`name`"),
        ("greet", Value::Null, "`name`"),
        ("greet", json!({"times": "2"}), "`name`"),
        ("greet", json!({"name": "Ada", "times": "many"}), "`times`"),
        ("greet", json!({"name": "Ada", "times": "-1"}), "`times`"),
        ("divide", json!({"a": "1", "b": "x"}), "`b`"),
        // Prompt arguments arrive as strings.
        ("greet", json!({"name": 7}), "`name`"),
        ("divide", json!({"a": 1, "b": "2"}), "`a`"),
    ];
    for version in ProtocolVersion::LEGACY {
        let mut client = connect(version).await;
        for (name, arguments, named) in &cases {
            let error = client
                .get_prompt(name, arguments.clone())
                .await
                .unwrap_err();
            assert_eq!(error.code, -32602, "{version}: {name} {arguments}");
            assert!(
                error.message.contains(named),
                "{version}: {name} {arguments}: {}",
                error.message
            );
        }
        // The handler's `Err`: its own words.
        let error = client
            .get_prompt("divide", json!({"a": "1", "b": "0"}))
            .await
            .unwrap_err();
        assert_eq!(
            (error.code, error.message.as_str()),
            (-32602, "cannot divide by zero: `b` is 0")
        );
        let error = client.request("prompts/get", json!({})).await.unwrap_err();
        assert_eq!(error.code, -32602, "{version}: no name");
        client.request("ping", json!({})).await.unwrap();
    }
}

#[tokio::test]
async fn a_list_change_reaches_every_session() {
    let mut server = server();
    let notifier = server.notifier();
    let mut first = TestClient::start(server).unwrap();
    let result = first.initialize("2024-11-05").await.unwrap();
    assert_eq!(
        result["capabilities"]["prompts"],
        json!({"listChanged": true})
    );
    let mut second = first.connect_another("2025-11-25").await.unwrap();
    assert_eq!(notifier.prompts_changed(), 2);
    for client in [&mut first, &mut second] {
        assert_eq!(
            client.drain_notifications().await.unwrap(),
            [
                json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed",
                    "params": {}})
            ]
        );
    }
}
