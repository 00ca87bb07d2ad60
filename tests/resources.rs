//! `#[resource]` functions over a connection, for every protocol version:
//! the capabilities, the two lists (order, pages, fields per version),
//! reading, "resource not found", subscriptions and the notifications of a
//! [`Notifier`](mcp_runtime::Notifier).
//!
//! This binary serves resources and templates only: no prompt, and nothing
//! that completes.

use std::time::Duration;

use mcp_runtime::testing::TestClient;
use mcp_runtime::{Blob, ProtocolVersion, Server, resource};
use serde::Serialize;
use serde_json::{Value, json};

/// How long a test waits for something that should come.
const WAIT: Duration = Duration::from_secs(10);

#[derive(Serialize)]
struct Settings {
    theme: &'static str,
}

/// The application's settings.
#[resource(
    "config://app",
    title = "Settings",
    mime_type = "application/json",
    icons = ["https://example.com/gear.png"],
    meta = r#"{"team": "core"}"#
)]
fn settings() -> Settings {
    Settings { theme: "dark" }
}

/// The logo.
#[resource("assets://logo.png", mime_type = "image/png")]
fn logo() -> Blob {
    Blob::new(b"\x89PNG")
}

#[resource("notes://b", name = "second_note", description = "The second note.")]
async fn note_b() -> &'static str {
    "b"
}

/// The first note.
#[resource("notes://a")]
async fn note_a() -> String {
    "a".into()
}

/// A user's profile.
#[resource(
    "users://{id}/profile",
    title = "User profile",
    icons = ["https://example.com/user.png"],
    meta = r#"{"pii": true}"#
)]
async fn profile(id: u64) -> Option<String> {
    (id == 7).then(|| format!("user {id}"))
}

/// A file under the root.
#[resource("files:///{+path}", mime_type = "text/markdown")]
fn file(path: String) -> String {
    format!("# {path}")
}

/// An order of a year.
#[resource("orders://{year}/{number}")]
fn order(year: u16, number: u32) -> Result<Option<String>, String> {
    match number {
        0 => Err(format!("the order book of {year} is locked")),
        1 => Ok(Some(format!("order {year}/{number}"))),
        _ => Ok(None),
    }
}

/// Every static resource's URI, in the order listed: by URI.
const URIS: [&str; 4] = [
    "assets://logo.png",
    "config://app",
    "notes://a",
    "notes://b",
];
/// Every template, in the order listed: by URI template.
const TEMPLATES: [&str; 3] = [
    "files:///{+path}",
    "orders://{year}/{number}",
    "users://{id}/profile",
];

fn server() -> Server {
    Server::new("resources", "1.0.0")
}

async fn connect(version: ProtocolVersion) -> TestClient {
    TestClient::connect_with_version(server(), version.as_str())
        .await
        .unwrap()
}

fn uris<'a>(entries: &'a [Value], key: &str) -> Vec<&'a str> {
    entries.iter().map(|e| e[key].as_str().unwrap()).collect()
}

#[tokio::test]
async fn capabilities_declare_resources_and_nothing_else_served() {
    for version in ProtocolVersion::LEGACY {
        let mut client = TestClient::start(server()).unwrap();
        let result = client.initialize(version.as_str()).await.unwrap();
        assert_eq!(result["protocolVersion"], version.as_str());
        let capabilities = &result["capabilities"];
        assert_eq!(
            capabilities["resources"],
            json!({"subscribe": true, "listChanged": false}),
            "{version}"
        );
        for absent in ["prompts", "completions"] {
            assert!(capabilities.get(absent).is_none(), "{version}: {absent}");
        }
        // What is not served is not found.
        for method in ["prompts/list", "prompts/get", "completion/complete"] {
            let error = client.request(method, json!({})).await.unwrap_err();
            assert_eq!(error.code, -32601, "{version}: {method}");
        }
    }
    // A notifier can announce list changes: the capabilities say so.
    let mut server = server();
    let _notifier = server.notifier();
    let mut client = TestClient::start(server).unwrap();
    let result = client.initialize("2025-11-25").await.unwrap();
    assert_eq!(
        result["capabilities"]["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
}

#[tokio::test]
async fn both_lists_are_in_order_on_every_page_size() {
    let mut client = connect(ProtocolVersion::LATEST).await;
    let resources = client.list_resources().await.unwrap();
    assert_eq!(uris(&resources, "uri"), URIS);
    let templates = client.list_resource_templates().await.unwrap();
    assert_eq!(uris(&templates, "uriTemplate"), TEMPLATES);

    for size in 1..=5 {
        let mut paged = TestClient::connect(server().page_size(size)).await.unwrap();
        for (method, key, all) in [
            ("resources/list", "resources", &resources),
            ("resources/templates/list", "resourceTemplates", &templates),
        ] {
            let mut collected = Vec::new();
            let mut params = json!({});
            let mut pages = 0;
            loop {
                let page = paged.request(method, params).await.unwrap();
                let entries = page[key].as_array().unwrap();
                pages += 1;
                collected.extend(entries.iter().cloned());
                match page.get("nextCursor") {
                    Some(cursor) => {
                        assert_eq!(entries.len(), size, "{method}: only the last page is short");
                        params = json!({ "cursor": cursor });
                    }
                    None => break,
                }
            }
            assert_eq!(pages, all.len().div_ceil(size), "{method}, size {size}");
            assert_eq!(&collected, all, "{method}, size {size}");
        }
        // The helpers follow the cursors to the same lists.
        assert_eq!(paged.list_resources().await.unwrap(), resources);
        assert_eq!(paged.list_resource_templates().await.unwrap(), templates);
    }
}

#[tokio::test]
async fn a_bad_cursor_is_invalid_params() {
    let mut client = TestClient::connect(server().page_size(1)).await.unwrap();
    for method in ["resources/list", "resources/templates/list"] {
        let first = client.request(method, json!({})).await.unwrap();
        let good = first["nextCursor"].as_str().unwrap().to_owned();
        for cursor in [json!("garbage"), json!(format!("{good}x")), json!(7)] {
            let error = client
                .request(method, json!({ "cursor": cursor }))
                .await
                .unwrap_err();
            assert_eq!(error.code, -32602, "{method} {cursor}");
        }
        client
            .request(method, json!({ "cursor": good }))
            .await
            .unwrap();
    }
}

/// `title` and `_meta` arrived with 2025-06-18, `icons` with 2025-11-25.
fn with_metadata(
    mut entry: Value,
    version: ProtocolVersion,
    title: &str,
    icon: &str,
    meta: Value,
) -> Value {
    let fields = entry.as_object_mut().unwrap();
    if version >= ProtocolVersion::V2025_06_18 {
        fields.insert("title".into(), json!(title));
        fields.insert("_meta".into(), meta);
    }
    if version >= ProtocolVersion::V2025_11_25 {
        fields.insert("icons".into(), json!([{ "src": icon }]));
    }
    entry
}

#[tokio::test]
async fn entries_carry_the_fields_of_each_version() {
    for version in ProtocolVersion::LEGACY {
        let mut client = connect(version).await;
        let resources = client.list_resources().await.unwrap();
        let expected = with_metadata(
            json!({"uri": "config://app", "name": "settings",
                   "description": "The application's settings.",
                   "mimeType": "application/json"}),
            version,
            "Settings",
            "https://example.com/gear.png",
            json!({"team": "core"}),
        );
        assert_eq!(resources[1], expected, "{version}");
        // Keys and doc comments; no metadata, so the same for every version.
        assert_eq!(
            resources[2..],
            [
                json!({"uri": "notes://a", "name": "note_a", "description": "The first note.",
                       "mimeType": "text/plain"}),
                json!({"uri": "notes://b", "name": "second_note",
                       "description": "The second note.", "mimeType": "text/plain"}),
            ],
            "{version}"
        );

        let templates = client.list_resource_templates().await.unwrap();
        let expected = with_metadata(
            json!({"uriTemplate": "users://{id}/profile", "name": "profile",
                   "description": "A user's profile.", "mimeType": "text/plain"}),
            version,
            "User profile",
            "https://example.com/user.png",
            json!({"pii": true}),
        );
        assert_eq!(templates[2], expected, "{version}");
        assert_eq!(
            templates[0],
            json!({"uriTemplate": "files:///{+path}", "name": "file",
                   "description": "A file under the root.", "mimeType": "text/markdown"}),
            "{version}"
        );
    }
}

#[tokio::test]
async fn resources_and_templates_are_read_alike_in_every_version() {
    for version in ProtocolVersion::LEGACY {
        let mut client = connect(version).await;
        let reads = [
            (
                "config://app",
                json!({"uri": "config://app", "mimeType": "application/json",
                       "text": r#"{"theme":"dark"}"#}),
            ),
            (
                "assets://logo.png",
                json!({"uri": "assets://logo.png", "mimeType": "image/png", "blob": "iVBORw=="}),
            ),
            (
                "users://7/profile",
                json!({"uri": "users://7/profile", "mimeType": "text/plain", "text": "user 7"}),
            ),
            (
                "files:///docs/guide%20one.md",
                json!({"uri": "files:///docs/guide%20one.md", "mimeType": "text/markdown",
                       "text": "# docs/guide one.md"}),
            ),
            (
                "orders://2025/1",
                json!({"uri": "orders://2025/1", "mimeType": "text/plain",
                       "text": "order 2025/1"}),
            ),
        ];
        for (uri, contents) in reads {
            let read = client.read_resource(uri).await.unwrap();
            assert_eq!(read, json!({ "contents": [contents] }), "{version}: {uri}");
        }
    }
}

#[tokio::test]
async fn what_is_not_found_is_32002_with_the_uri() {
    let not_found = [
        // Matches nothing.
        "nothing://here",
        "users://7",
        "users://7/profile/more",
        "files:///",
        // The handler says `None`.
        "users://8/profile",
        "orders://2025/2",
        // A variable that does not parse.
        "users://seven/profile",
        "users://-1/profile",
        "orders://99999/1",
    ];
    for version in ProtocolVersion::LEGACY {
        let mut client = connect(version).await;
        for uri in not_found {
            let error = client.read_resource(uri).await.unwrap_err();
            assert_eq!(error.code, -32002, "{version}: {uri}");
            assert_eq!(error.data, Some(json!({ "uri": uri })), "{version}: {uri}");
            assert!(
                error.message.starts_with("Resource not found"),
                "{version}: {uri}: {}",
                error.message
            );
        }
        // A handler's `Err` is not "not found": its own words.
        let error = client.read_resource("orders://2025/0").await.unwrap_err();
        assert_eq!(
            (error.code, error.message.as_str()),
            (-32603, "the order book of 2025 is locked")
        );
        client.request("ping", json!({})).await.unwrap();
    }
}

#[tokio::test]
async fn subscribing_and_unsubscribing_answer_empty_objects() {
    for version in ProtocolVersion::LEGACY {
        let mut client = connect(version).await;
        for uri in ["config://app", "users://7/profile", "files:///a/b"] {
            assert_eq!(client.subscribe(uri).await.unwrap(), json!({}), "{uri}");
            assert_eq!(client.unsubscribe(uri).await.unwrap(), json!({}), "{uri}");
        }
        // Unsubscribing from what was never subscribed to is no error.
        assert_eq!(client.unsubscribe("notes://a").await.unwrap(), json!({}));
        let error = client.subscribe("nothing://here").await.unwrap_err();
        assert_eq!(
            (error.code, error.data),
            (-32002, Some(json!({"uri": "nothing://here"})))
        );
        for method in ["resources/subscribe", "resources/unsubscribe"] {
            let error = client.request(method, json!({})).await.unwrap_err();
            assert_eq!(error.code, -32602, "{method}");
        }
    }
}

fn updated(uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
           "params": {"uri": uri}})
}

#[tokio::test]
async fn updates_reach_the_subscribers_of_that_uri_only_until_they_unsubscribe() {
    let mut server = server();
    let notifier = server.notifier();
    let mut watcher = TestClient::connect_with_version(server, "2024-11-05")
        .await
        .unwrap();
    let mut other = watcher.connect_another("2025-11-25").await.unwrap();
    let mut second = watcher.connect_another("2025-06-18").await.unwrap();

    watcher.subscribe("users://7/profile").await.unwrap();
    second.subscribe("users://7/profile").await.unwrap();
    other.subscribe("config://app").await.unwrap();

    // One template, two URIs: only the one subscribed to is told.
    assert_eq!(notifier.resource_updated("users://8/profile"), 0);
    assert_eq!(notifier.resource_updated("users://7/profile"), 2);
    for client in [&mut watcher, &mut second] {
        let update = client
            .next_notification("notifications/resources/updated", WAIT)
            .await
            .expect("the subscriber was not told");
        assert_eq!(update, updated("users://7/profile"));
    }
    assert!(other.drain_notifications().await.unwrap().is_empty());

    // After unsubscribing, that session is no longer told; the others are.
    watcher.unsubscribe("users://7/profile").await.unwrap();
    assert_eq!(notifier.resource_updated("users://7/profile"), 1);
    assert_eq!(notifier.resource_updated("config://app"), 1);
    assert!(watcher.drain_notifications().await.unwrap().is_empty());
    assert_eq!(
        second.drain_notifications().await.unwrap(),
        [updated("users://7/profile")]
    );
    assert_eq!(
        other.drain_notifications().await.unwrap(),
        [updated("config://app")]
    );

    // A session that ended is not told.
    drop(second.close().await);
    assert_eq!(notifier.resource_updated("users://7/profile"), 0);
}

#[tokio::test]
async fn list_changes_reach_every_session_in_every_version() {
    let mut server = server();
    let notifier = server.notifier();
    let first = TestClient::connect_with_version(server, "2024-11-05")
        .await
        .unwrap();
    let mut clients = vec![];
    for version in &ProtocolVersion::LEGACY[1..] {
        clients.push(first.connect_another(version.as_str()).await.unwrap());
    }
    clients.push(first);

    assert_eq!(notifier.resources_changed(), 4);
    assert_eq!(notifier.tools_changed(), 4);
    for client in &mut clients {
        let methods: Vec<Value> = client
            .drain_notifications()
            .await
            .unwrap()
            .into_iter()
            .map(|n| {
                assert_eq!(n["params"], json!({}), "{n}");
                n["method"].clone()
            })
            .collect();
        assert_eq!(
            methods,
            [
                "notifications/resources/list_changed",
                "notifications/tools/list_changed"
            ]
        );
    }
}
