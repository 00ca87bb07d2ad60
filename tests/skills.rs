//! Skills (SEP-2640, feature `skills`): `Server::skill` serves each file of
//! a skill as a `skill://` resource and answers `skills/list` and
//! `skills/get` in both eras, declares the extension, and refuses a skill
//! that breaks the rules with a sentence at start-up. The weather example's
//! own skill is checked against its files on disk.
//!
//! This binary defines no `#[resource]`, so what it serves is exactly what
//! each test adds.

mod common;

use common::step::within;
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::skills::{EXTENSION, Skill};
use mcp_runtime::testing::{RpcError, TestClient};
use mcp_runtime::{RegistryError, Server};
use sha2::{Digest, Sha256};

const MODERN: &str = "2026-07-28";

const TRIP_MD: &str = "---
name: trip
description: Plan a trip.
license: MIT
metadata:
  version: \"2\"
flag: yes
---
# Trip

See [cities](references/cities.md).
";

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: The skill {name}.\n---\nBody of {name}.\n")
}

fn server() -> Server {
    Server::new("skills-test", "1.0.0")
        .skill(Skill::from_files(
            "travel/trip",
            [
                ("SKILL.md", TRIP_MD),
                ("references/cities.md", "Paris, Lyon — and Nice.\n"),
            ],
        ))
        .skill(Skill::new("alpha").file("SKILL.md", skill_md("alpha")))
        .skill(Skill::new("zeta").file("SKILL.md", skill_md("zeta")))
}

fn sha256(text: &str) -> String {
    let hash = Sha256::digest(text.as_bytes());
    let hex: String = hash.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// `params` with the 2026-07-28 `_meta` added.
fn modern(mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "skills-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    params
}

async fn ask(client: &mut TestClient, method: &str, params: Value) -> Result<Value, RpcError> {
    within(client.request(method, params)).await
}

fn trip_entry() -> Value {
    json!({
        "uri": "skill://travel/trip/SKILL.md",
        "frontmatter": {
            "name": "trip", "description": "Plan a trip.", "license": "MIT",
            "metadata": {"version": "2"}, "flag": "yes"
        },
        "resources": [
            {"uri": "skill://travel/trip/SKILL.md", "digest": sha256(TRIP_MD), "size": TRIP_MD.len()},
            {
                "uri": "skill://travel/trip/references/cities.md",
                "digest": sha256("Paris, Lyon — and Nice.\n"),
                "size": "Paris, Lyon — and Nice.\n".len()
            },
        ]
    })
}

#[tokio::test]
async fn legacy_clients_list_and_get_skills_with_digests_of_what_they_read() {
    for version in ["2025-06-18", "2025-11-25"] {
        let mut client = TestClient::start(server()).unwrap();
        let init = within(client.initialize(version)).await.unwrap();
        assert_eq!(
            init["capabilities"]["extensions"],
            json!({EXTENSION: {}}),
            "{init}"
        );
        let listed = ask(&mut client, "skills/list", json!({})).await.unwrap();
        let uris: Vec<&str> = listed["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| entry["uri"].as_str().unwrap())
            .collect();
        assert_eq!(
            uris,
            [
                "skill://alpha/SKILL.md",
                "skill://travel/trip/SKILL.md",
                "skill://zeta/SKILL.md"
            ]
        );
        assert_eq!(listed["skills"][1], trip_entry());
        // No cache hint and no resultType before 2026-07-28.
        assert_eq!(listed.as_object().unwrap().len(), 1, "{listed}");

        let got = ask(
            &mut client,
            "skills/get",
            json!({"uri": "skill://travel/trip/SKILL.md"}),
        )
        .await
        .unwrap();
        assert_eq!(got, json!({"skill": trip_entry()}));

        // Every file reads back as the bytes its digest and size promise.
        for file in trip_entry()["resources"].as_array().unwrap() {
            let uri = file["uri"].as_str().unwrap();
            let read = within(client.read_resource(uri)).await.unwrap();
            let contents = &read["contents"][0];
            let text = contents["text"].as_str().unwrap();
            assert_eq!(sha256(text), file["digest"], "{uri}");
            assert_eq!(json!(text.len()), file["size"], "{uri}");
            assert_eq!(contents["mimeType"], "text/markdown", "{uri}");
        }
    }
}

#[tokio::test]
async fn skill_files_are_listed_resources_named_by_the_frontmatter() {
    let mut client = within(TestClient::connect(server())).await.unwrap();
    let resources = within(client.list_resources()).await.unwrap();
    let trip = resources
        .iter()
        .find(|r| r["uri"] == "skill://travel/trip/SKILL.md")
        .expect("SKILL.md is listed");
    assert_eq!(trip["name"], "trip");
    assert_eq!(trip["description"], "Plan a trip.");
    assert_eq!(trip["mimeType"], "text/markdown");
    let uris: Vec<&str> = resources
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "skill://alpha/SKILL.md",
            "skill://travel/trip/SKILL.md",
            "skill://travel/trip/references/cities.md",
            "skill://zeta/SKILL.md"
        ]
    );
}

#[tokio::test]
async fn modern_clients_get_the_cache_hint_and_result_type() {
    let mut client = TestClient::start(server()).unwrap();
    let discovered = ask(&mut client, "server/discover", modern(json!({})))
        .await
        .unwrap();
    assert_eq!(
        discovered["capabilities"]["extensions"][EXTENSION],
        json!({}),
        "{discovered}"
    );
    let listed = ask(&mut client, "skills/list", modern(json!({})))
        .await
        .unwrap();
    assert_eq!(listed["resultType"], "complete");
    assert_eq!(listed["ttlMs"], 300_000);
    assert_eq!(listed["cacheScope"], "public");
    assert_eq!(listed["skills"][1], trip_entry());
    let got = ask(
        &mut client,
        "skills/get",
        modern(json!({"uri": "skill://travel/trip/SKILL.md"})),
    )
    .await
    .unwrap();
    assert_eq!(got["skill"], trip_entry());
    assert_eq!(got["resultType"], "complete");
    assert_eq!(got["ttlMs"], 300_000);
    assert_eq!(got["cacheScope"], "public");
}

#[tokio::test]
async fn skills_list_is_paged_and_an_unknown_skill_is_invalid_params() {
    let mut client = within(TestClient::connect(server().page_size(2)))
        .await
        .unwrap();
    let first = ask(&mut client, "skills/list", json!({})).await.unwrap();
    assert_eq!(first["skills"].as_array().unwrap().len(), 2);
    let cursor = first["nextCursor"]
        .as_str()
        .expect("a second page")
        .to_owned();
    let second = ask(&mut client, "skills/list", json!({"cursor": cursor}))
        .await
        .unwrap();
    assert_eq!(second["skills"][0]["uri"], "skill://zeta/SKILL.md");
    assert!(second.get("nextCursor").is_none(), "{second}");
    let bad = ask(&mut client, "skills/list", json!({"cursor": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(bad.code, -32602);

    for uri in [
        "skill://travel/SKILL.md",
        "skill://travel/trip/references/cities.md",
    ] {
        let error = ask(&mut client, "skills/get", json!({"uri": uri}))
            .await
            .unwrap_err();
        assert_eq!(error.code, -32602, "{uri}");
        assert!(error.message.contains(uri), "{}", error.message);
    }
    let error = ask(&mut client, "skills/get", json!({})).await.unwrap_err();
    assert_eq!(error.code, -32602);
}

#[tokio::test]
async fn a_server_without_skills_serves_no_skills_methods() {
    let server = Server::new("plain", "1.0.0");
    let mut client = within(TestClient::connect(server)).await.unwrap();
    let error = ask(&mut client, "skills/list", json!({}))
        .await
        .unwrap_err();
    assert_eq!(error.code, -32601);
    let mut client = TestClient::start(Server::new("plain", "1.0.0")).unwrap();
    let init = within(client.initialize("2025-11-25")).await.unwrap();
    assert!(init["capabilities"].get("extensions").is_none(), "{init}");
}

/// The start-up error of a server with `skills`, as a sentence.
fn refusal(skills: Vec<Skill>) -> String {
    let mut server = Server::new("bad", "1.0.0");
    for skill in skills {
        server = server.skill(skill);
    }
    let error = server.registry().unwrap_err();
    assert!(
        matches!(error, RegistryError::InvalidSkill { .. }),
        "{error}"
    );
    error.to_string()
}

#[test]
fn a_bad_skill_is_refused_at_start_up_with_a_sentence() {
    let line = line!() + 1;
    let sentence = refusal(vec![Skill::new("travel/trip").file("notes.md", "hi")]);
    assert_eq!(
        sentence,
        format!(
            "cannot start the MCP server: the skill `skill://travel/trip` given to \
             `Server::skill` at tests/skills.rs:{line} cannot be served: it has no `SKILL.md`; \
             add one (`(\"SKILL.md\", include_str!(..))`), with YAML frontmatter giving `name` \
             and `description`"
        )
    );

    let cases: [(&str, &str, &str); 9] = [
        (
            "trip",
            "# Trip\nNo frontmatter.\n",
            "SKILL.md must begin with a `---` line that opens its YAML frontmatter",
        ),
        (
            "trip",
            "---\nname: trip\ndescription: x\n",
            "the frontmatter of SKILL.md has no closing `---` line",
        ),
        (
            "trip",
            "---\nname: [trip\n---\n",
            "the frontmatter of SKILL.md is not YAML that JSON can carry: ",
        ),
        (
            "trip",
            "---\n- trip\n---\n",
            "the frontmatter of SKILL.md must be a mapping of keys to values",
        ),
        (
            "trip",
            "---\ndescription: x\n---\n",
            "the frontmatter of SKILL.md needs `name`, a string",
        ),
        (
            "trip",
            "---\nname: trip\n---\n",
            "the frontmatter of SKILL.md needs `description`, a string",
        ),
        (
            "travel/trip",
            "---\nname: voyage\ndescription: x\n---\n",
            "its frontmatter `name` is \"voyage\", but the last segment of the skill's path \
             is \"trip\"; they must be equal",
        ),
        (
            "Trip",
            "---\nname: Trip\ndescription: x\n---\n",
            "its name \"Trip\" breaks the Agent Skills naming rule",
        ),
        (
            "trip",
            "---\nname: trip\ndescription: x\nmetadata:\n  n: 1\n---\n",
            "its `metadata` must map keys to strings",
        ),
    ];
    for (path, manifest, reason) in cases {
        let sentence = refusal(vec![Skill::new(path).file("SKILL.md", manifest)]);
        assert!(
            sentence.contains(&format!("cannot be served: {reason}")),
            "{path}: {sentence}"
        );
    }

    let bad_paths = [("trip/../x", "SKILL.md"), ("trip", "refs//a.md")];
    for (path, file) in bad_paths {
        let sentence = refusal(vec![
            Skill::new(path)
                .file("SKILL.md", skill_md("trip"))
                .file(file, "x"),
        ]);
        assert!(
            sentence.contains("must be `/`-separated segments of letters, digits"),
            "{sentence}"
        );
    }

    let sentence = refusal(vec![
        Skill::new("trip")
            .file("SKILL.md", skill_md("trip"))
            .file("SKILL.md", skill_md("trip")),
    ]);
    assert!(
        sentence.ends_with("cannot be served: its file `SKILL.md` is given twice"),
        "{sentence}"
    );
}

#[test]
fn two_skills_at_one_path_or_one_inside_another_are_refused() {
    let first = line!() + 2;
    let sentence = refusal(vec![
        Skill::new("trip").file("SKILL.md", skill_md("trip")),
        Skill::new("trip").file("SKILL.md", skill_md("trip")),
    ]);
    assert!(
        sentence.contains(&format!(
            "cannot be served: another skill at the same path was added at \
             tests/skills.rs:{first}; give each skill a path of its own"
        )),
        "{sentence}"
    );
    let sentence = refusal(vec![
        Skill::new("trip").file("SKILL.md", skill_md("trip")),
        Skill::new("trip/packing").file("SKILL.md", skill_md("packing")),
    ]);
    assert!(
        sentence.contains(
            "the skill `skill://trip/packing` given to `Server::skill` at tests/skills.rs:"
        ) && sentence.contains("it lies inside the skill `trip`"),
        "{sentence}"
    );
}

#[test]
fn the_weather_example_serves_its_trip_briefing_skill() {
    let mut weather = common::Process::spawn(&common::weather_binary());
    let init = weather.initialize("2025-11-25");
    assert_eq!(
        init["result"]["capabilities"]["extensions"][EXTENSION],
        json!({}),
        "{init}"
    );
    let listed = weather.request(1, "skills/list", json!({}));
    let skills = listed["result"]["skills"].as_array().expect("skills");
    assert_eq!(skills.len(), 1, "{listed}");
    let entry = &skills[0];
    assert_eq!(entry["uri"], "skill://weather/trip-briefing/SKILL.md");
    assert_eq!(entry["frontmatter"]["name"], "trip-briefing");
    assert_eq!(entry["frontmatter"]["metadata"], json!({"version": "1.0"}));
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/weather/skills/trip-briefing"
    );
    let files = entry["resources"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{entry}");
    for (id, file) in (2..).zip(files) {
        let uri = file["uri"].as_str().unwrap();
        let relative = uri
            .strip_prefix("skill://weather/trip-briefing/")
            .expect("a file of the skill");
        let on_disk = std::fs::read_to_string(format!("{dir}/{relative}")).unwrap();
        assert_eq!(file["digest"], sha256(&on_disk), "{uri}");
        let read = weather.request(id, "resources/read", json!({"uri": uri}));
        assert_eq!(read["result"]["contents"][0]["text"], on_disk, "{uri}");
    }
    weather.finish();
}

/// A layer that writes down the method of every request it sees.
fn recording(
    log: &std::sync::Arc<std::sync::Mutex<Vec<String>>>,
) -> impl tower::Layer<
    mcp_runtime::middleware::McpService,
    Service = mcp_runtime::middleware::McpService,
> + Send
+ Sync
+ 'static {
    use mcp_runtime::middleware::{McpRequest, McpService};
    use tower::ServiceExt;

    let log = std::sync::Arc::clone(log);
    tower::layer::layer_fn(move |inner: McpService| {
        let log = std::sync::Arc::clone(&log);
        McpService::new(tower::service_fn(move |request: McpRequest| {
            log.lock().unwrap().push(request.method().to_owned());
            inner.clone().oneshot(request)
        }))
    })
}

#[tokio::test]
async fn skills_methods_go_through_the_layers_and_answer_the_same() {
    let seen = std::sync::Arc::default();
    let mut client = within(TestClient::connect(server().layer(recording(&seen))))
        .await
        .unwrap();
    let listed = ask(&mut client, "skills/list", json!({})).await.unwrap();
    assert_eq!(listed["skills"][1], trip_entry());
    let got = ask(
        &mut client,
        "skills/get",
        json!({"uri": "skill://travel/trip/SKILL.md"}),
    )
    .await
    .unwrap();
    assert_eq!(got, json!({"skill": trip_entry()}));
    let error = ask(
        &mut client,
        "skills/get",
        json!({"uri": "skill://nope/SKILL.md"}),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code, -32602);

    // A 2026-07-28 client (no `initialize`): the same entry, with the tail.
    let mut modern_client = TestClient::start(server().layer(recording(&seen))).unwrap();
    let modern_get = ask(
        &mut modern_client,
        "skills/get",
        modern(json!({"uri": "skill://travel/trip/SKILL.md"})),
    )
    .await
    .unwrap();
    assert_eq!(modern_get["skill"], trip_entry());
    assert_eq!(modern_get["ttlMs"], 300_000, "{modern_get}");
    assert_eq!(modern_get["resultType"], "complete");
    let methods = seen.lock().unwrap().clone();
    assert_eq!(
        methods,
        [
            "initialize",
            "skills/list",
            "skills/get",
            "skills/get",
            "skills/get"
        ]
    );
}

/// The TypeScript SDK 2.4 client's Skills extension (tests/interop/ts/skills.mjs)
/// reads the weather example's skill over Streamable HTTP in both eras and
/// verifies every file against its entry, the frontmatter with its own YAML
/// reader.
#[test]
fn the_typescript_sdk_client_verifies_the_weather_skill() {
    use std::process::Command;
    use std::time::Duration;

    let server = common::fleet::Instance::start(&[]);
    let script = common::typescript::script("skills.mjs");
    let common::Finished {
        status,
        stdout,
        stderr,
    } = common::run_within(
        Command::new("node")
            .current_dir(script.parent().unwrap())
            .arg(&script)
            .arg(format!("http://{}/mcp", server.addr)),
        Duration::from_secs(60),
    )
    .unwrap_or_else(|output| panic!("the TypeScript client did not finish within 60 s: {output}"));
    assert!(
        status.success() && stdout.contains("typescript-skills: 10 passed, 0 failed"),
        "{stdout}\n{stderr}\nthe server's log:\n{}",
        server.log()
    );
}
