//! Typed elicitation (`ctx.elicit::<T>()` with `#[derive(Elicit)]`, and
//! `ctx.elicit_url`): the schema a client is sent, the answer a tool gets
//! back, and every way it can fail, seen from a raw client.

mod common;

use common::asking::{next_non_notification, raw_client, raw_client_at};
use common::results::text_of;
use common::step::{STEP, within};
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Context, Elicit, ElicitationId, Elicited, Server, UrlElicitation, tool};

#[derive(Debug, Elicit)]
#[elicit(rename_all = "kebab-case")]
enum Severity {
    #[elicit(title = "Warnings and worse")]
    Warning,
    #[elicit(title = "Emergencies only")]
    EmergencyOnly,
}

#[derive(Debug, Elicit)]
enum Channel {
    Chat,
    Email,
    Sms,
}

// Read through `Debug`, which the tool echoes.
#[allow(dead_code)]
#[derive(Debug, Elicit)]
#[elicit(rename_all = "camelCase")]
struct Alerts {
    /// Send alerts?
    confirm: bool,
    /// From which level on.
    #[elicit(title = "Severity", default = Severity::Warning)]
    min_severity: Severity,
    #[elicit(min_items = 1)]
    channels: Vec<Channel>,
    #[elicit(format = "email", max_length = 100)]
    email: Option<String>,
    #[elicit(minimum = 1, maximum = 7, default = 3)]
    days: u8,
}

/// Asks for alert settings and says what it got.
#[tool]
async fn set_alerts(ctx: Context) -> Result<String, String> {
    let answer = ctx
        .elicit::<Alerts>("Alerts for Paris?")
        .await
        .map_err(|e| e.to_string())?;
    Ok(match answer {
        Elicited::Accepted(alerts) => format!("{alerts:?}"),
        Elicited::Declined => "declined".into(),
        Elicited::Cancelled => "cancelled".into(),
    })
}

/// Sends the user to a sign-in page, and tells the client once it is done.
#[tool]
async fn sign_in(ctx: Context) -> Result<String, String> {
    let id = ElicitationId::new();
    let url = format!("https://example.com/connect?elicitation={id}");
    match ctx
        .elicit_url(&id, "Sign in to Example Co", url)
        .await
        .map_err(|e| e.to_string())?
    {
        Elicited::Accepted(done) => {
            // Where a web route would do it, once the browser came back.
            assert!(done.send());
            Ok(format!("signed in: {}", done.id()))
        }
        other => Ok(format!("{other:?}")),
    }
}

/// Sends a URL that is not one.
#[tool]
async fn bad_url(ctx: Context) -> Result<String, String> {
    let id = ElicitationId::new();
    ctx.elicit_url(&id, "Open this", "example.com/no-scheme")
        .await
        .map(|_| "sent".to_owned())
        .map_err(|e| e.to_string())
}

/// Needs the user signed in elsewhere before it can start.
#[tool]
async fn list_files(ctx: Context) -> Result<Vec<String>, String> {
    let id = ElicitationId::from("sign-in-1".to_owned());
    let page = UrlElicitation::new(&id, "Sign in to Example Co", "https://example.com/connect");
    Err(ctx.url_elicitation_required([page]))
}

fn server() -> Server {
    Server::new("elicit", "1.0.0")
}

/// Calls `tool`, answers its `elicitation/create` with `result`, and returns
/// the question and the call's result.
async fn ask_and_answer(client: &mut TestClient, tool: &str, result: Value) -> (Value, Value) {
    let id = client
        .send_request("tools/call", json!({"name": tool, "arguments": {}}))
        .await;
    let question = next_non_notification(client).await;
    assert_eq!(question["method"], "elicitation/create", "{question}");
    client
        .send(json!({"jsonrpc": "2.0", "id": question["id"], "result": result}))
        .await;
    let answer = within(client.response(id)).await.unwrap();
    (question["params"].clone(), answer)
}

#[tokio::test]
async fn the_schema_comes_from_the_type_and_the_answer_is_read_into_it() {
    let mut client = raw_client(server(), json!({"elicitation": {}})).await;
    let (params, result) = ask_and_answer(
        &mut client,
        "set_alerts",
        json!({"action": "accept", "content": {"confirm": true, "channels": ["Chat", "Sms"], "email": null}}),
    )
    .await;
    assert_eq!(params["message"], "Alerts for Paris?");
    assert_eq!(params.get("mode"), None, "form mode is the default");
    assert_eq!(
        params["requestedSchema"],
        json!({
            "type": "object",
            "properties": {
                "confirm": {"type": "boolean", "description": "Send alerts?"},
                "minSeverity": {
                    "type": "string",
                    "title": "Severity",
                    "description": "From which level on.",
                    "oneOf": [
                        {"const": "warning", "title": "Warnings and worse"},
                        {"const": "emergency-only", "title": "Emergencies only"}
                    ],
                    "default": "warning"
                },
                "channels": {
                    "type": "array",
                    "items": {"type": "string", "enum": ["Chat", "Email", "Sms"]},
                    "minItems": 1
                },
                "email": {"type": "string", "format": "email", "maxLength": 100},
                "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 3}
            },
            "required": ["confirm", "channels"]
        })
    );
    // Left-out fields got their defaults; `null` counts as left out.
    assert_eq!(result["isError"], json!(false), "{result}");
    assert_eq!(
        text_of(&result),
        "Alerts { confirm: true, min_severity: Warning, channels: [Chat, Sms], email: None, days: 3 }"
    );
}

#[tokio::test]
async fn declined_and_cancelled_reach_the_tool() {
    let mut client = raw_client(server(), json!({"elicitation": {}})).await;
    let (_, result) = ask_and_answer(&mut client, "set_alerts", json!({"action": "decline"})).await;
    assert_eq!(text_of(&result), "declined");
    let (_, result) = ask_and_answer(&mut client, "set_alerts", json!({"action": "cancel"})).await;
    assert_eq!(text_of(&result), "cancelled");
}

#[tokio::test]
async fn an_answer_that_breaks_the_form_is_an_error_naming_each_field() {
    let mut client = raw_client(server(), json!({"elicitation": {}})).await;
    let (_, result) = ask_and_answer(
        &mut client,
        "set_alerts",
        json!({"action": "accept", "content": {"confirm": "yes", "channels": [], "days": 9, "minSeverity": "loud"}}),
    )
    .await;
    assert_eq!(result["isError"], json!(true), "{result}");
    let message = text_of(&result);
    assert!(
        message.starts_with("the client's answer does not fit what was asked: "),
        "{message}"
    );
    for field in ["/confirm", "/channels", "/days", "/minSeverity"] {
        assert!(message.contains(field), "{field} not named in: {message}");
    }

    // No action at all is an error too; the session goes on.
    let (_, result) = ask_and_answer(&mut client, "set_alerts", json!({"content": {}})).await;
    assert!(text_of(&result).contains("no `action`"), "{result}");
    within(client.request("ping", json!({}))).await.unwrap();
}

#[tokio::test]
async fn each_mode_needs_the_client_to_declare_it() {
    // Only URL mode declared: no form is sent.
    let mut client = raw_client(server(), json!({"elicitation": {"url": {}}})).await;
    let result =
        within(client.request("tools/call", json!({"name": "set_alerts", "arguments": {}})))
            .await
            .unwrap();
    assert_eq!(
        text_of(&result),
        "the client did not declare the `elicitation.form` capability, so it cannot be asked for it"
    );
    // An empty `elicitation` means form mode only: no URL is sent.
    let mut client = raw_client(server(), json!({"elicitation": {}})).await;
    let result = within(client.request("tools/call", json!({"name": "sign_in", "arguments": {}})))
        .await
        .unwrap();
    assert!(text_of(&result).contains("`elicitation.url`"), "{result}");
    // Nor to a client of an older protocol, whatever it declares.
    let mut client = raw_client_at(
        server(),
        "2025-06-18",
        json!({"elicitation": {"url": {}, "form": {}}}),
    )
    .await;
    let result = within(client.request("tools/call", json!({"name": "sign_in", "arguments": {}})))
        .await
        .unwrap();
    assert!(text_of(&result).contains("`elicitation.url`"), "{result}");
}

#[tokio::test]
async fn a_url_elicitation_carries_its_id_and_completes_to_the_client_that_was_asked() {
    let mut client = raw_client(server(), json!({"elicitation": {"form": {}, "url": {}}})).await;
    let (params, result) =
        ask_and_answer(&mut client, "sign_in", json!({"action": "accept"})).await;
    assert_eq!(params["mode"], "url");
    assert_eq!(params["message"], "Sign in to Example Co");
    let id = params["elicitationId"].as_str().unwrap();
    assert_eq!(id.len(), 32, "128 random bits: {id}");
    assert_eq!(
        params["url"],
        format!("https://example.com/connect?elicitation={id}")
    );
    assert_eq!(text_of(&result), format!("signed in: {id}"));
    let complete = within(client.next_notification("notifications/elicitation/complete", STEP))
        .await
        .expect("the completion notice");
    assert_eq!(complete["params"], json!({"elicitationId": id}));

    // A URL that is not one is never sent.
    let result = within(client.request("tools/call", json!({"name": "bad_url", "arguments": {}})))
        .await
        .unwrap();
    assert_eq!(result["isError"], json!(true));
    assert!(
        text_of(&result).contains("is not an absolute URL"),
        "{result}"
    );
}

#[tokio::test]
async fn a_2025_06_18_client_gets_titled_choices_as_enum_names() {
    let mut client = raw_client_at(server(), "2025-06-18", json!({"elicitation": {}})).await;
    let (params, _) = ask_and_answer(
        &mut client,
        "set_alerts",
        json!({"action": "accept", "content": {"confirm": false, "channels": ["Email"], "minSeverity": "emergency-only"}}),
    )
    .await;
    assert_eq!(
        params["requestedSchema"]["properties"]["minSeverity"],
        json!({
            "type": "string",
            "title": "Severity",
            "description": "From which level on.",
            "enum": ["warning", "emergency-only"],
            "enumNames": ["Warnings and worse", "Emergencies only"],
            "default": "warning"
        })
    );
}

#[tokio::test]
async fn a_tool_can_end_with_url_elicitation_required() {
    let mut client = raw_client(server(), json!({"elicitation": {"url": {}}})).await;
    let error =
        within(client.request("tools/call", json!({"name": "list_files", "arguments": {}})))
            .await
            .unwrap_err();
    assert_eq!(error.code, -32042, "{error:?}");
    assert_eq!(
        error.data,
        Some(json!({"elicitations": [{
            "mode": "url",
            "elicitationId": "sign-in-1",
            "url": "https://example.com/connect",
            "message": "Sign in to Example Co"
        }]}))
    );
    within(client.request("ping", json!({}))).await.unwrap();

    // A client without URL mode reads the pages in an isError result.
    let mut client = raw_client(server(), json!({"elicitation": {}})).await;
    let result =
        within(client.request("tools/call", json!({"name": "list_files", "arguments": {}})))
            .await
            .unwrap();
    assert_eq!(result["isError"], json!(true));
    assert_eq!(
        text_of(&result),
        "This request needs a page opened first: Sign in to Example Co (open https://example.com/connect)"
    );
}
