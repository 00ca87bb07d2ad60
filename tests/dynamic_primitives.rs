//! Resources, resource templates and prompts defined at run time
//! (`DynamicResource`, `DynamicPrompt`), served over a connection: listing,
//! reading, getting, completing, subscribing, the errors of each, and the
//! capabilities and shapes each protocol version sees; views of MCP Apps
//! (`DynamicResource::view`).
//!
//! This binary defines no `#[resource]` or `#[prompt]`, so what it serves is
//! exactly what each test adds.

use mcp_runtime::apps::{MIME_TYPE, Permission, ViewMeta};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{
    Arguments, Content, DynamicPrompt, DynamicResource, GetPromptResult, PromptError,
    PromptMessage, ReadError, ResourceContents, Server,
};
use serde_json::{Value, json};

fn text(uri: impl Into<String>, text: impl Into<String>) -> ResourceContents {
    ResourceContents::Text {
        uri: uri.into(),
        mime_type: None,
        text: text.into(),
        meta: None,
    }
}

fn cities() -> Vec<String> {
    (0..150).map(|i| format!("city-{i:03}")).collect()
}

fn server() -> Server {
    let readme = DynamicResource::new("docs://readme", "readme", |uri, _, _| async move {
        Ok(vec![text(uri, "# Read me")])
    })
    .title("The read-me")
    .description("What this server is.")
    .mime_type("text/markdown");
    let broken = DynamicResource::new("docs://broken", "broken", |_, _, _| async move {
        Err(ReadError::Failed("the disk is on fire".into()))
    });
    let city = DynamicResource::new(
        "weather://cities/{name}",
        "city",
        |uri, vars, _| async move {
            let name = vars.get("name").unwrap_or_default().to_owned();
            if name == "Atlantis" {
                return Err(ReadError::NotFound);
            }
            Ok(vec![text(uri, format!("{name}: sunny"))])
        },
    )
    .complete("name", |prefix, _| async move {
        cities()
            .into_iter()
            .filter(|c| c.starts_with(&prefix))
            .collect()
    });
    let file = DynamicResource::new("files:///{+path}", "file", |uri, vars, _| async move {
        let path = vars.get("path").unwrap_or_default().to_owned();
        Ok(vec![text(uri, path)])
    });
    let plan = DynamicPrompt::new("plan_trip", |args: Arguments, _| async move {
        let city = args.get("city").unwrap_or_default();
        if city == "nowhere" {
            return Err(PromptError("there is nothing to plan in `nowhere`".into()));
        }
        let days = args.get("days").unwrap_or("3");
        Ok(GetPromptResult::new(vec![
            PromptMessage::user(format!("Plan {days} days in {city}.")),
            PromptMessage::assistant(Content::audio(b"RIFF", "audio/wav")),
        ])
        .description("A trip plan"))
    })
    .title("Plan a trip")
    .description("Plans a trip to a city.")
    .argument("city", "The city to visit.", true)
    .argument("days", "How many days.", false)
    .complete("city", |prefix, given| async move {
        let days = given.get("days").unwrap_or("?").to_owned();
        vec![format!("{prefix}ville ({days} days)")]
    });
    Server::new("primitives", "1.0.0")
        .resource(readme)
        .resource(broken)
        .resource(city)
        .resource(file)
        .prompt(plan)
}

async fn client() -> TestClient {
    TestClient::connect(server()).await.unwrap()
}

#[tokio::test]
async fn capabilities_declare_what_is_served() {
    let mut client = TestClient::start(server()).unwrap();
    let result = client.initialize("2025-11-25").await.unwrap();
    assert_eq!(
        result["capabilities"],
        json!({
            "logging": {},
            "tools": {"listChanged": false},
            "resources": {"subscribe": true, "listChanged": false},
            "prompts": {"listChanged": false},
            "completions": {}
        })
    );
    // `completions` arrived with 2025-03-26.
    let mut old = TestClient::start(server()).unwrap();
    let result = old.initialize("2024-11-05").await.unwrap();
    assert!(result["capabilities"].get("completions").is_none());
    assert!(result["capabilities"].get("resources").is_some());

    // Nothing of the kind served: not declared, and its methods are not found.
    let mut bare = TestClient::start(Server::new("bare", "0")).unwrap();
    let result = bare.initialize("2025-11-25").await.unwrap();
    for absent in ["resources", "prompts", "completions"] {
        assert!(result["capabilities"].get(absent).is_none(), "{absent}");
    }
    for method in ["resources/list", "prompts/list", "completion/complete"] {
        let error = bare.request(method, json!({})).await.unwrap_err();
        assert_eq!(error.code, -32601, "{method}");
    }
}

#[tokio::test]
async fn resources_and_templates_are_listed_apart_in_order() {
    let mut client = client().await;
    let list = client.request("resources/list", json!({})).await.unwrap();
    assert_eq!(
        list,
        json!({"resources": [
            {"uri": "docs://broken", "name": "broken"},
            {"uri": "docs://readme", "name": "readme", "title": "The read-me",
             "description": "What this server is.", "mimeType": "text/markdown"}
        ]})
    );
    let templates = client
        .request("resources/templates/list", json!({}))
        .await
        .unwrap();
    let uris: Vec<&str> = templates["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["files:///{+path}", "weather://cities/{name}"]);
}

#[tokio::test]
async fn titles_are_not_sent_to_versions_before_2025_06_18() {
    let mut client = TestClient::connect_with_version(server(), "2025-03-26")
        .await
        .unwrap();
    let list = client.request("resources/list", json!({})).await.unwrap();
    assert!(list["resources"][1].get("title").is_none(), "{list}");
    let prompts = client.request("prompts/list", json!({})).await.unwrap();
    assert!(prompts["prompts"][0].get("title").is_none(), "{prompts}");
}

#[tokio::test]
async fn reading_a_resource_and_a_template() {
    let mut client = client().await;
    let read = client
        .request("resources/read", json!({"uri": "docs://readme"}))
        .await
        .unwrap();
    assert_eq!(
        read,
        json!({"contents": [{"uri": "docs://readme", "text": "# Read me"}]})
    );
    let read = client
        .request(
            "resources/read",
            json!({"uri": "weather://cities/S%C3%A3o%20Paulo"}),
        )
        .await
        .unwrap();
    assert_eq!(read["contents"][0]["text"], "São Paulo: sunny");
    let read = client
        .request("resources/read", json!({"uri": "files:///etc/hosts"}))
        .await
        .unwrap();
    assert_eq!(read["contents"][0]["text"], "etc/hosts");
}

#[tokio::test]
async fn unknown_resources_and_failures_are_errors_naming_the_uri() {
    let mut client = client().await;
    for uri in [
        "docs://nothing",
        "weather://cities/Atlantis",
        "weather://cities/a/b",
    ] {
        let error = client
            .request("resources/read", json!({"uri": uri}))
            .await
            .unwrap_err();
        assert_eq!(error.code, -32002, "{uri}");
        assert_eq!(error.data, Some(json!({"uri": uri})));
        assert!(error.message.contains(uri), "{}", error.message);
    }
    let error = client
        .request("resources/read", json!({"uri": "docs://broken"}))
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.message.as_str()),
        (-32603, "the disk is on fire")
    );
    let error = client
        .request("resources/read", json!({}))
        .await
        .unwrap_err();
    assert_eq!(error.code, -32602);
    // The connection still serves.
    client.request("ping", json!({})).await.unwrap();
}

#[tokio::test]
async fn subscribing_to_what_exists() {
    let mut client = client().await;
    let result = client
        .request(
            "resources/subscribe",
            json!({"uri": "weather://cities/Oslo"}),
        )
        .await
        .unwrap();
    assert_eq!(result, json!({}));
    let error = client
        .request("resources/subscribe", json!({"uri": "docs://nothing"}))
        .await
        .unwrap_err();
    assert_eq!(error.code, -32002);
    let result = client
        .request(
            "resources/unsubscribe",
            json!({"uri": "weather://cities/Oslo"}),
        )
        .await
        .unwrap();
    assert_eq!(result, json!({}));
}

#[tokio::test]
async fn prompts_are_listed_with_their_arguments() {
    let mut client = client().await;
    let list = client.request("prompts/list", json!({})).await.unwrap();
    assert_eq!(
        list,
        json!({"prompts": [{
            "name": "plan_trip",
            "title": "Plan a trip",
            "description": "Plans a trip to a city.",
            "arguments": [
                {"name": "city", "description": "The city to visit.", "required": true},
                {"name": "days", "description": "How many days.", "required": false}
            ]
        }]})
    );
}

#[tokio::test]
async fn getting_a_prompt_and_its_errors() {
    let mut client = client().await;
    let got = client
        .request(
            "prompts/get",
            json!({"name": "plan_trip", "arguments": {"city": "Oslo", "days": "2"}}),
        )
        .await
        .unwrap();
    assert_eq!(got["description"], "A trip plan");
    assert_eq!(
        got["messages"][0],
        json!({"role": "user", "content": {"type": "text", "text": "Plan 2 days in Oslo."}})
    );
    assert_eq!(got["messages"][1]["content"]["type"], "audio");

    let cases: [(Value, &str); 5] = [
        (
            json!({"name": "plan_trip"}),
            "missing required argument `city`",
        ),
        (
            json!({"name": "plan_trip", "arguments": {"city": 7}}),
            "`city` must be a string",
        ),
        (
            json!({"name": "plan_trip", "arguments": {"city": "x", "weeks": "1"}}),
            "no argument `weeks`; its arguments are: city, days",
        ),
        (json!({"name": "nope"}), "Unknown prompt: nope"),
        (
            json!({"name": "plan_trip", "arguments": {"city": "nowhere"}}),
            "there is nothing to plan in `nowhere`",
        ),
    ];
    for (params, expected) in cases {
        let error = client
            .request("prompts/get", params.clone())
            .await
            .unwrap_err();
        assert_eq!(error.code, -32602, "{params}");
        assert!(
            error.message.contains(expected),
            "{params}: {}",
            error.message
        );
    }
}

#[tokio::test]
async fn audio_in_a_prompt_is_text_for_2024_11_05() {
    let mut client = TestClient::connect_with_version(server(), "2024-11-05")
        .await
        .unwrap();
    let got = client
        .request(
            "prompts/get",
            json!({"name": "plan_trip", "arguments": {"city": "Oslo"}}),
        )
        .await
        .unwrap();
    assert_eq!(got["messages"][1]["content"]["type"], "text");
}

#[tokio::test]
async fn completion_of_prompt_arguments_and_template_variables() {
    let mut client = client().await;
    let result = client
        .request(
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "plan_trip"},
                "argument": {"name": "city", "value": "Os"},
                "context": {"arguments": {"days": "4"}}
            }),
        )
        .await
        .unwrap();
    assert_eq!(
        result,
        json!({"completion": {"values": ["Osville (4 days)"]}})
    );

    let result = client
        .request(
            "completion/complete",
            json!({
                "ref": {"type": "ref/resource", "uri": "weather://cities/{name}"},
                "argument": {"name": "name", "value": "city-"}
            }),
        )
        .await
        .unwrap();
    let completion = &result["completion"];
    assert_eq!(completion["values"].as_array().unwrap().len(), 100);
    assert_eq!(completion["total"], 150);
    assert_eq!(completion["hasMore"], true);

    // An argument with no completion completes to nothing.
    let result = client
        .request(
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "plan_trip"},
                "argument": {"name": "days", "value": "1"}
            }),
        )
        .await
        .unwrap();
    assert_eq!(result, json!({"completion": {"values": []}}));

    for (reference, argument) in [
        (json!({"type": "ref/prompt", "name": "nope"}), "city"),
        (json!({"type": "ref/prompt", "name": "plan_trip"}), "weeks"),
        (json!({"type": "ref/resource", "uri": "docs://readme"}), "x"),
        (json!({"type": "ref/tool", "name": "x"}), "x"),
    ] {
        let error = client
            .request(
                "completion/complete",
                json!({"ref": reference, "argument": {"name": argument, "value": ""}}),
            )
            .await
            .unwrap_err();
        assert_eq!(error.code, -32602, "{reference}");
    }
}

#[test]
fn duplicate_uris_and_bad_templates_stop_the_server() {
    let read =
        |uri: &'static str| DynamicResource::new(uri, "r", |_, _, _| async move { Ok(Vec::new()) });
    let error = Server::new("d", "0")
        .resource(read("a://x"))
        .resource(read("a://x"))
        .registry()
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("two resources have the URI `a://x`"),
        "{text}"
    );
    assert!(text.contains("tests/dynamic_primitives.rs:"), "{text}");

    let error = Server::new("d", "0")
        .resource(read("a://{x}{y}"))
        .registry()
        .unwrap_err();
    assert!(error.to_string().contains("cannot be served"), "{error}");

    let error = Server::new("d", "0")
        .resource(read("a://{x}").complete("y", |_, _| async { Vec::new() }))
        .registry()
        .unwrap_err();
    assert!(error.to_string().contains("the variable `y`"), "{error}");
}

#[tokio::test]
async fn a_notifier_tells_subscribers_about_updates_and_everyone_about_lists() {
    let mut server = server();
    let notifier = server.notifier();
    let mut client = TestClient::start(server).unwrap();
    let result = client.initialize("2025-11-25").await.unwrap();
    assert_eq!(result["capabilities"]["resources"]["listChanged"], true);
    assert_eq!(result["capabilities"]["tools"]["listChanged"], true);

    // Not subscribed: nobody is told.
    assert_eq!(notifier.resource_updated("weather://cities/Oslo"), 0);
    client
        .request(
            "resources/subscribe",
            json!({"uri": "weather://cities/Oslo"}),
        )
        .await
        .unwrap();
    assert_eq!(notifier.resource_updated("weather://cities/Oslo"), 1);
    assert_eq!(notifier.resource_updated("weather://cities/Rome"), 0);
    assert_eq!(notifier.prompts_changed(), 1);
    client.request("ping", json!({})).await.unwrap();
    let seen: Vec<Value> = [client.recv().await, client.recv().await]
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(
        seen,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                   "params": {"uri": "weather://cities/Oslo"}}),
            json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed",
                   "params": {}}),
        ]
    );
    // A session that ended is no longer told.
    drop(client.close().await);
    assert_eq!(notifier.tools_changed(), 0);
}

/// Two views: one whose reads carry no metadata of their own, and one whose
/// item sets its own `_meta.ui` (which wins over the resource's).
fn views() -> Server {
    let chart = DynamicResource::new("ui://weather/chart", "chart", |uri, _, _| async move {
        Ok(vec![text(uri, "<!doctype html><p>chart</p>")])
    })
    .title("Forecast chart")
    .view(
        ViewMeta::new()
            .connect_domains(["https://api.example.com"])
            .resource_domains(["https://*.cdn.example.com"])
            .permission(Permission::ClipboardWrite)
            .prefers_border(false),
    );
    let map = DynamicResource::new("ui://weather/map", "map", |uri, _, _| async move {
        let own = json!({"ui": {"prefersBorder": true}, "example.com/at": 1});
        let own = own.as_object().cloned().unwrap_or_default();
        Ok(vec![text(uri, "<p>map</p>").with_meta(own)])
    })
    .view(ViewMeta::new().domain("map.example.com"));
    Server::new("views", "1.0.0").resource(chart).resource(map)
}

#[tokio::test]
async fn a_view_is_listed_and_read_with_its_mime_type_and_ui_meta() {
    let chart_ui = json!({
        "csp": {
            "connectDomains": ["https://api.example.com"],
            "resourceDomains": ["https://*.cdn.example.com"]
        },
        "permissions": {"clipboardWrite": {}},
        "prefersBorder": false
    });
    for version in ["2025-06-18", "2025-11-25"] {
        let mut client = TestClient::connect_with_version(views(), version)
            .await
            .unwrap();
        let list = client.request("resources/list", json!({})).await.unwrap();
        assert_eq!(
            list,
            json!({"resources": [
                {"uri": "ui://weather/chart", "name": "chart", "title": "Forecast chart",
                 "mimeType": MIME_TYPE, "_meta": {"ui": chart_ui}},
                {"uri": "ui://weather/map", "name": "map", "mimeType": MIME_TYPE,
                 "_meta": {"ui": {"domain": "map.example.com"}}}
            ]}),
            "{version}"
        );
        let read = client
            .request("resources/read", json!({"uri": "ui://weather/chart"}))
            .await
            .unwrap();
        assert_eq!(
            read,
            json!({"contents": [{
                "uri": "ui://weather/chart",
                "mimeType": MIME_TYPE,
                "text": "<!doctype html><p>chart</p>",
                "_meta": {"ui": chart_ui}
            }]}),
            "{version}"
        );
        let read = client
            .request("resources/read", json!({"uri": "ui://weather/map"}))
            .await
            .unwrap();
        assert_eq!(
            read["contents"][0]["_meta"],
            json!({"ui": {"prefersBorder": true}, "example.com/at": 1}),
            "{version}"
        );
    }
    // Before 2025-06-18 no `_meta` is sent, on the list or on the items;
    // the MIME type is.
    for version in ["2025-03-26", "2024-11-05"] {
        let mut client = TestClient::connect_with_version(views(), version)
            .await
            .unwrap();
        let list = client.request("resources/list", json!({})).await.unwrap();
        for entry in list["resources"].as_array().unwrap() {
            assert_eq!(entry["mimeType"], MIME_TYPE, "{version}");
            assert!(entry.get("_meta").is_none(), "{version}: {entry}");
        }
        for uri in ["ui://weather/chart", "ui://weather/map"] {
            let read = client
                .request("resources/read", json!({"uri": uri}))
                .await
                .unwrap();
            assert_eq!(read["contents"][0]["mimeType"], MIME_TYPE, "{version}");
            assert!(
                read["contents"][0].get("_meta").is_none(),
                "{version}: {read}"
            );
        }
    }
}
