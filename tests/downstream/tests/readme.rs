//! The guide's `#[resource]` and `#[prompt]` chapters
//! (`mcp-runtime/guide/04-resources.md`, `05-prompts.md`), compiled and
//! served from outside the workspace: every Rust block of those chapters is
//! in this file word for word (`every_rust_block_of_the_guide_chapters_is_here`),
//! and the tests below check what the guide says a client sees.

mod resources {
    use mcp_runtime::{Blob, State, resource};
    use serde::Serialize;

    #[derive(Serialize)]
    struct Settings {
        theme: String,
        font_size: u8,
    }

    /// The application's settings.
    #[resource("config://app", title = "Settings")]
    async fn settings() -> Settings {
        Settings {
            theme: "dark".into(),
            font_size: 14,
        }
    }

    /// The users, registered with `Server::new(..).state(Users { .. })`.
    pub struct Users {
        pub names: Vec<String>,
    }

    /// A user's profile, in Markdown.
    #[resource("users://{id}/profile", mime_type = "text/markdown")]
    async fn profile(id: usize, users: State<Users>) -> Option<String> {
        let name = users.names.get(id)?; // None: "resource not found"
        Some(format!("# {name}"))
    }

    /// The logo.
    #[resource("assets://logo.png", mime_type = "image/png")]
    fn logo() -> Blob {
        Blob::new(vec![0x89, b'P', b'N', b'G'])
    }
}

// The guide's `main` with a notifier: compiled, never run (it would serve
// stdio).
mod notifier {
    #![allow(dead_code)]
    use super::resources::Users;

    use std::time::Duration;

    use mcp_runtime::Server;

    #[tokio::main]
    async fn main() -> std::io::Result<()> {
        let users = Users {
            names: vec!["Ada".into(), "Grace".into()],
        };
        let mut server = Server::new("app", "1.0.0").state(users);
        let notifier = server.notifier();
        tokio::spawn(async move {
            // Whenever the settings change (here: every minute), tell the
            // clients that subscribed to them.
            loop {
                tokio::time::sleep(Duration::from_secs(60)).await;
                notifier.resource_updated("config://app");
            }
        });
        server.run().await
    }
}

mod prompts {
    use mcp_runtime::{PromptMessage, prompt};
    use schemars::JsonSchema;
    use serde::Deserialize;

    /// How blunt a review may be.
    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Tone {
        Gentle,
        Blunt,
    }

    /// Review code for best practices.
    #[prompt(title = "Code review")]
    async fn code_review(
        /// Programming language.
        #[complete(languages)]
        language: String,
        /// What to focus on.
        focus: Option<String>,
        /// gentle (the default) or blunt.
        tone: Option<Tone>,
    ) -> Vec<PromptMessage> {
        let focus = focus.unwrap_or_else(|| "anything".into());
        let manner = match tone {
            Some(Tone::Blunt) => "Be blunt.",
            _ => "Be kind.",
        };
        vec![PromptMessage::user(format!(
            "Review this {language} code, focusing on {focus}. {manner}"
        ))]
    }

    /// The languages that start with what the user typed, for completion.
    fn languages(prefix: String) -> Vec<&'static str> {
        ["python", "ruby", "rust"]
            .into_iter()
            .filter(|language| language.starts_with(&prefix))
            .collect()
    }
}

use mcp_runtime::Server;
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::{RpcError, TestClient};

/// The guide's chapters on resources and prompts (they were the README's
/// sections), by their titles.
const CHAPTERS: [(&str, &str); 2] = [
    (
        "# What `#[resource]` derives",
        include_str!("../../../mcp-runtime/guide/04-resources.md"),
    ),
    (
        "# What `#[prompt]` and `#[complete]` derive",
        include_str!("../../../mcp-runtime/guide/05-prompts.md"),
    ),
];

/// Text without its whitespace: rustfmt lays out this file's copies.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect()
}

#[test]
fn every_rust_block_of_the_guide_chapters_is_here() {
    let source = squeeze(include_str!("readme.rs"));
    for (heading, chapter) in CHAPTERS {
        assert!(
            chapter.starts_with(&format!("{heading}\n")),
            "the chapter is no longer {heading:?}"
        );
        // `rust` blocks only: the `rust,no_run` one (the notifier) is a
        // doctest of mcp-runtime, and copied below too.
        let blocks: Vec<&str> = chapter
            .split("```rust\n")
            .skip(1)
            .map(|rest| &rest[..rest.find("```").expect("a closed block")])
            .collect();
        assert!(!blocks.is_empty(), "{heading}: no Rust block");
        for block in blocks {
            assert!(
                source.contains(&squeeze(block)),
                "{heading}: this block of the guide is not in tests/readme.rs:\n{block}"
            );
        }
    }
}

async fn client() -> TestClient {
    let users = resources::Users {
        names: vec!["Ada".into(), "Grace".into()],
    };
    TestClient::connect(Server::new("app", "1.0.0").state(users))
        .await
        .unwrap()
}

async fn read(client: &mut TestClient, uri: &str) -> Result<Value, RpcError> {
    let result = client.request("resources/read", json!({ "uri": uri }));
    Ok(result.await?["contents"].clone())
}

#[tokio::test]
async fn the_resources_read_as_the_readme_says() {
    let mut client = client().await;
    let listed = client.request("resources/list", json!({})).await.unwrap();
    assert_eq!(
        listed["resources"][1],
        json!({"uri": "config://app", "name": "settings", "title": "Settings",
               "description": "The application's settings.", "mimeType": "application/json"})
    );
    let templates = client
        .request("resources/templates/list", json!({}))
        .await
        .unwrap();
    assert_eq!(
        templates["resourceTemplates"][0]["uriTemplate"],
        "users://{id}/profile"
    );

    assert_eq!(
        read(&mut client, "config://app").await.unwrap(),
        json!([{"uri": "config://app", "mimeType": "application/json",
                "text": r#"{"theme":"dark","font_size":14}"#}])
    );
    assert_eq!(
        read(&mut client, "users://1/profile").await.unwrap(),
        json!([{"uri": "users://1/profile", "mimeType": "text/markdown", "text": "# Grace"}])
    );
    for missing in ["users://7/profile", "users://ada/profile"] {
        let error = read(&mut client, missing).await.unwrap_err();
        assert_eq!(error.code, -32002, "{missing}");
        assert_eq!(error.data, Some(json!({ "uri": missing })));
    }
    assert_eq!(
        read(&mut client, "assets://logo.png").await.unwrap(),
        json!([{"uri": "assets://logo.png", "mimeType": "image/png", "blob": "iVBORw=="}])
    );

    let subscribed = client.request("resources/subscribe", json!({"uri": "config://app"}));
    assert_eq!(subscribed.await.unwrap(), json!({}));
}

#[tokio::test]
async fn the_prompt_is_got_and_completed_as_the_readme_says() {
    let mut client = client().await;
    let listed = client.request("prompts/list", json!({})).await.unwrap();
    assert_eq!(
        listed["prompts"][0]["arguments"],
        json!([
            {"name": "language", "description": "Programming language.", "required": true},
            {"name": "focus", "description": "What to focus on.", "required": false},
            {"name": "tone", "description": "gentle (the default) or blunt.", "required": false}
        ])
    );
    let got = client
        .request(
            "prompts/get",
            json!({"name": "code_review", "arguments": {"language": "rust", "tone": "blunt"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        got["messages"],
        json!([{"role": "user", "content": {"type": "text",
            "text": "Review this rust code, focusing on anything. Be blunt."}}])
    );
    let error = client
        .request(
            "prompts/get",
            json!({"name": "code_review", "arguments": {}}),
        )
        .await
        .unwrap_err();
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("language"), "{}", error.message);

    let reference = json!({"type": "ref/prompt", "name": "code_review"});
    for (argument, value, values) in [
        ("language", "ru", json!(["ruby", "rust"])),
        ("tone", "b", json!(["blunt"])),
        ("focus", "", json!([])),
    ] {
        let params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
        let answer = client.request("completion/complete", params).await.unwrap();
        assert_eq!(
            answer,
            json!({ "completion": { "values": values } }),
            "{argument}"
        );
    }
}
