//! The resources, resource templates, prompts and completions of the
//! library's two modules, seen through the public API: the registry's
//! listings, and a `TestClient` speaking the protocol to the server.

use downstream::Notebook;
use mcp_runtime::Server;
use mcp_runtime::serde_json::{self, Value, json};
use mcp_runtime::testing::TestClient;

fn server() -> Server {
    Server::new("downstream", env!("CARGO_PKG_VERSION")).state(Notebook::default())
}

#[test]
fn both_modules_resources_and_prompts_are_listed() {
    let registry = server().registry().expect("valid registry");
    let uris: Vec<&str> = registry.resources().iter().map(|r| r.uri()).collect();
    assert_eq!(uris, ["math://constants", "notes://all"]);
    let templates: Vec<&str> = registry
        .resource_templates()
        .iter()
        .map(|r| r.uri())
        .collect();
    assert_eq!(templates, ["math://squares/{n}", "notes://{number}"]);
    let prompts: Vec<&str> = registry.prompts().iter().map(|p| p.name()).collect();
    assert_eq!(prompts, ["practice", "summarize_notes"]);

    let square = &registry.resource_templates()[0];
    assert_eq!(square.name(), "square");
    assert_eq!(square.mime_type(), Some("text/plain"));
    assert_eq!(
        square.description(),
        Some("The square of a whole number, as text.")
    );
    let practice = registry.prompt("practice").unwrap();
    assert_eq!(practice.title(), Some("Practice arithmetic"));
}

async fn complete(client: &mut TestClient, reference: Value, name: &str, value: &str) -> Value {
    let params = json!({"ref": reference, "argument": {"name": name, "value": value}});
    let result = client.request("completion/complete", params).await.unwrap();
    result["completion"]["values"].clone()
}

#[tokio::test]
async fn resources_are_read_prompts_got_and_arguments_completed() {
    let mut client = TestClient::connect(server()).await.unwrap();

    let constants = client
        .request("resources/read", json!({"uri": "math://constants"}))
        .await
        .unwrap();
    let contents = &constants["contents"][0];
    assert_eq!(contents["mimeType"], "application/json");
    let text: Value = json_text(contents);
    assert_eq!(text["pi"], json!(std::f64::consts::PI));

    let square = client
        .request("resources/read", json!({"uri": "math://squares/12"}))
        .await
        .unwrap();
    assert_eq!(
        square["contents"],
        json!([{"uri": "math://squares/12", "mimeType": "text/plain", "text": "144"}])
    );
    // A variable that does not parse as a u32 matches nothing.
    let error = client
        .request("resources/read", json!({"uri": "math://squares/twelve"}))
        .await
        .unwrap_err();
    assert_eq!(error.code, -32002);
    assert_eq!(error.data, Some(json!({"uri": "math://squares/twelve"})));

    // The notes resources follow the state the tool changes.
    let missing = client
        .request("resources/read", json!({"uri": "notes://1"}))
        .await
        .unwrap_err();
    assert_eq!(missing.code, -32002);
    let note = json!({"note": {"title": "milk", "tags": ["errands"]}});
    client.call_tool("save_note", note).await.unwrap();
    let first = client
        .request("resources/read", json!({"uri": "notes://1"}))
        .await
        .unwrap();
    assert_eq!(
        json_text(&first["contents"][0]),
        json!({"title": "milk", "tags": ["errands"]})
    );

    let practice = client
        .request(
            "prompts/get",
            json!({"name": "practice", "arguments": {"operation": "division", "level": "hard"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        practice["messages"],
        json!([{"role": "user", "content": {"type": "text",
            "text": "Give me five hard division exercises, one at a time, and check my answers."}}])
    );
    let summary = client
        .request(
            "prompts/get",
            json!({"name": "summarize_notes", "arguments": {"style": "bullets"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        summary["messages"][1]["content"]["text"],
        "Summarize this note as a bulleted list."
    );
    let refused = client
        .request(
            "prompts/get",
            json!({"name": "practice", "arguments": {"operation": "roots"}}),
        )
        .await
        .unwrap_err();
    assert_eq!(refused.code, -32602);
    assert!(refused.message.contains("\"roots\""), "{}", refused.message);

    let practice_ref = json!({"type": "ref/prompt", "name": "practice"});
    let summary_ref = json!({"type": "ref/prompt", "name": "summarize_notes"});
    let square_ref = json!({"type": "ref/resource", "uri": "math://squares/{n}"});
    assert_eq!(
        complete(&mut client, practice_ref.clone(), "operation", "d").await,
        json!(["division"])
    );
    assert_eq!(
        complete(&mut client, practice_ref, "level", "").await,
        json!(["easy", "hard"])
    );
    assert_eq!(
        complete(&mut client, summary_ref, "style", "p").await,
        json!(["paragraph"])
    );
    assert_eq!(
        complete(&mut client, square_ref, "n", "2").await,
        json!(["2", "20"])
    );
}

/// The JSON in a text resource's `text`.
fn json_text(contents: &Value) -> Value {
    serde_json::from_str(contents["text"].as_str().expect("text contents")).expect("JSON text")
}
