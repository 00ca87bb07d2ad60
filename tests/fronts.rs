//! The gateway and chain examples (examples/gateway, examples/chain), run
//! as binaries and driven by our own client (`mcp_runtime::client`), in
//! front of our examples (weather, progress) and the reference server
//! `@modelcontextprotocol/server-everything` (npm, pinned in
//! tests/upstreams, installed by tests/upstreams/install on first use, as
//! the OpenID provider is by tests/oidc/install). The Python SDK drives them
//! too, against more servers we did not write, in
//! tests/interop/python/gateway.py and chain.py.

mod common;

use common::step::{STEP, within};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::time::{Duration, Instant};

use mcp_runtime::client::{Client, ClientError, CompletionRef, HttpOptions};
use mcp_runtime::serde_json;
use serde_json::json;

/// Serve HTTP on a free loopback port.
const HTTP: &str = "--http";
const ANY_PORT: &str = "127.0.0.1:0";

fn chain_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| common::example_binary("chain")).clone()
}

/// The Node 22 and the reference server's script (tests/upstreams/install
/// runs first if they are missing or stale), and `stdio`.
fn everything() -> [String; 3] {
    let (node, args) = common::upstreams::everything();
    let [script, stdio] = <[String; 2]>::try_from(args).expect("a script and `stdio`");
    [path(&node), script, stdio]
}

fn path(path: &Path) -> String {
    path.display().to_string()
}

/// A gateway or chain serving HTTP on a free port (`args` say `--http
/// 127.0.0.1:0`; the URL is read from its log). Killed when dropped; `terminate` stops it
/// as a service manager would.
struct Front {
    child: Child,
    url: String,
    log: Arc<Mutex<String>>,
}

impl Front {
    fn http(binary: &Path, args: &[&str]) -> Front {
        let mut child = Command::new(binary)
            .args(args)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the front");
        let log = Arc::new(Mutex::new(String::new()));
        let (found, url) = mpsc::channel();
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in stderr.lines() {
                let Ok(line) = line else { break };
                if line.contains("serving MCP over Streamable HTTP")
                    && let Some(at) = line.find("url=")
                {
                    let url = line[at + 4..].split_whitespace().next().unwrap_or_default();
                    let _ = found.send(url.trim_matches('"').to_owned());
                }
                let mut log = sink.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        let url = url.recv_timeout(STEP).unwrap_or_else(|_| {
            let _ = child.kill();
            panic!(
                "the front did not serve HTTP within {STEP:?}; its log:\n{}",
                log.lock().unwrap()
            )
        });
        Front { child, url, log }
    }

    async fn client(&self) -> Client {
        within(Client::http(self.url.clone()))
            .await
            .expect("connect")
    }

    /// A client that opens a session (`initialize`): what a per-session
    /// rate limit counts by.
    async fn legacy_client(&self) -> Client {
        let client = Client::builder()
            .protocol_version(mcp_runtime::client::ProtocolVersion::LATEST)
            .http(self.url.clone());
        within(client).await.expect("connect")
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// SIGTERM, then its exit status (within the step's time) and its log.
    #[cfg(unix)]
    fn terminate(mut self) -> (Option<i32>, String) {
        let pid = libc::pid_t::try_from(self.child.id()).expect("a pid");
        // SAFETY: a plain kill(2) of our own child.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        let deadline = Instant::now() + STEP;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                // The log thread ends with the process's stderr.
                std::thread::sleep(Duration::from_millis(50));
                return (status.code(), self.log());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        (None, self.log())
    }
}

impl Drop for Front {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `binary` with `args` to the end (stdin closed): exit status,
/// stdout, stderr.
fn run(binary: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(binary)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run the front");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A file in this test target's scratch folder.
fn scratch(name: &str, text: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fronts-{name}"));
    std::fs::write(&path, text).unwrap();
    path
}

/// A TOML basic string for `value` (JSON's escapes are TOML's).
fn toml_string(value: &str) -> String {
    json!(value).to_string()
}

#[tokio::test]
async fn the_gateway_serves_two_stdio_servers_over_http_under_their_names() {
    let weather = path(&common::weather_binary());
    let progress = path(&common::progress_binary());
    let gateway = Front::http(
        &common::gateway_binary(),
        &[
            HTTP, ANY_PORT, "--", &weather, "--", "--name", "slow", &progress,
        ],
    );
    let client = gateway.client().await;
    assert_eq!(client.server_info().name(), "gateway");

    let tools = within(client.list_tools()).await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "slow_count_slowly",
            "weather_current_conditions",
            "weather_get_forecast",
            "weather_search_cities",
            "weather_subscribe_alerts",
            "weather_summarize_forecast",
            "weather_weather_report"
        ]
    );
    let forecast = tools
        .iter()
        .find(|t| t.name() == "weather_get_forecast")
        .unwrap();
    assert!(forecast.output_schema().is_some(), "{forecast:?}");

    // A call with progress: one notification per day, through the gateway.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let result = within(client.call_tool_with_progress(
        "weather_get_forecast",
        json!({"city": "Lima", "days": 3}),
        move |done, total, _| record.lock().unwrap().push((done, total)),
    ))
    .await
    .unwrap();
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.structured_content.as_ref().unwrap()["city"], "Lima");
    assert_eq!(
        *seen.lock().unwrap(),
        [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]
    );

    // The upstream's tool errors stay tool errors.
    let unknown = within(client.call_tool("weather_get_forecast", json!({"city": "Pariss"})))
        .await
        .unwrap();
    assert!(unknown.is_error && unknown.text().contains("Did you mean Paris?"));

    // Resources keep their URIs; prompts get the prefix; completion reaches
    // the upstream.
    let cities = within(client.read_resource("weather://cities"))
        .await
        .unwrap();
    assert_eq!(cities.len(), 1);
    let prompts = within(client.list_prompts()).await.unwrap();
    assert!(
        prompts.iter().any(|p| p.name() == "weather_plan_trip"),
        "{prompts:?}"
    );
    let plan = within(client.get_prompt("weather_plan_trip", [("city", "Lisbon")]))
        .await
        .unwrap();
    assert!(!plan.messages.is_empty());
    let completion = within(client.complete(
        &CompletionRef::Prompt("weather_plan_trip".into()),
        "city",
        "Ber",
    ))
    .await
    .unwrap();
    assert!(
        completion.values.contains(&"Berlin".to_owned()),
        "{completion:?}"
    );

    // A call dropped midway is cancelled; the gateway goes on serving.
    let slow = client.call_tool_with_progress(
        "slow_count_slowly",
        json!({"to": 100, "delay_ms": 50}),
        |_, _, _| {},
    );
    assert!(
        tokio::time::timeout(Duration::from_millis(300), slow)
            .await
            .is_err()
    );
    within(client.ping()).await.unwrap();

    client.close().await;
    let (status, log) = gateway.terminate();
    assert_eq!(status, Some(0), "{log}");
}

#[tokio::test]
async fn one_upstream_keeps_its_names_and_one_process_serves_every_session() {
    let [node, script, stdio] = everything();
    let gateway = Front::http(
        &common::gateway_binary(),
        &[HTTP, ANY_PORT, "--", &node, &script, &stdio],
    );
    let first = gateway.client().await;
    let second = gateway.client().await;
    let tools = within(first.list_tools()).await.unwrap();
    assert!(tools.iter().any(|t| t.name() == "echo"), "{tools:?}");
    let echo = within(first.call_tool("echo", json!({"message": "hi"})))
        .await
        .unwrap();
    assert!(echo.text().contains("hi"), "{echo:?}");
    // server-everything keeps the simulated logging on or off per process
    // (over stdio it knows no sessions): the second session turns off what
    // the first turned on.
    let on = within(first.call_tool("toggle-simulated-logging", json!({})))
        .await
        .unwrap();
    assert!(on.text().starts_with("Started"), "{on:?}");
    let off = within(second.call_tool("toggle-simulated-logging", json!({})))
        .await
        .unwrap();
    assert!(off.text().starts_with("Stopped"), "{off:?}");
    drop((first, second));
    let (status, log) = gateway.terminate();
    assert_eq!(status, Some(0), "{log}");
}

#[tokio::test]
async fn per_session_gives_each_session_its_own_upstream_process() {
    let [node, script, stdio] = everything();
    let gateway = Front::http(
        &common::gateway_binary(),
        &[
            HTTP,
            ANY_PORT,
            "--per-session",
            "--",
            &node,
            &script,
            &stdio,
        ],
    );
    let first = gateway.client().await;
    let second = gateway.client().await;
    for client in [&first, &second] {
        let on = within(client.call_tool("toggle-simulated-logging", json!({})))
            .await
            .unwrap();
        assert!(on.text().starts_with("Started"), "{on:?}");
    }
    drop((first, second));
    let (status, log) = gateway.terminate();
    assert_eq!(status, Some(0), "{log}");
}

#[tokio::test]
async fn the_rate_limit_refuses_calls_past_each_clients_quota() {
    let weather = path(&common::weather_binary());
    let gateway = Front::http(
        &common::gateway_binary(),
        &[HTTP, ANY_PORT, "--rate-limit", "1", "--", &weather],
    );
    // The quota is per session: 2026-07-28 clients have none, and
    // without a token all of them share one quota.
    let first = gateway.legacy_client().await;
    let second = gateway.legacy_client().await;
    let args = json!({"query": "san"});
    within(first.call_tool("search_cities", args.clone()))
        .await
        .unwrap();
    // Lists are not calls: they do not count.
    within(first.list_tools()).await.unwrap();
    match within(first.call_tool("search_cities", args.clone())).await {
        Err(ClientError::Rpc { code, message, .. }) => {
            assert_eq!(code, -32600);
            assert!(
                message.starts_with("rate limit exceeded for session ")
                    && message.contains("retry in"),
                "{message}"
            );
        }
        other => panic!("expected the rate limit's refusal, got {other:?}"),
    }
    // Another client has a quota of its own.
    within(second.call_tool("search_cities", args))
        .await
        .unwrap();
    drop((first, second));
    let (status, log) = gateway.terminate();
    assert_eq!(status, Some(0), "{log}");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_oauth_the_rate_limit_counts_per_token_subject() {
    // A real OpenID provider (tests/oidc) issues the tokens.
    let provider = common::oidc::Provider::start();
    let port = std::net::TcpListener::bind(ANY_PORT)
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let audience = format!("http://{addr}/mcp");
    let weather = path(&common::weather_binary());
    let gateway = Front::http(
        &common::gateway_binary(),
        &[
            HTTP,
            &addr,
            "--auth-issuer",
            provider.issuer(),
            "--auth-audience",
            &audience,
            "--rate-limit",
            "1",
            "--",
            &weather,
        ],
    );

    // No token: refused, with where to get one.
    match within(Client::http(gateway.url.clone())).await {
        Err(ClientError::Http {
            status,
            www_authenticate,
            ..
        }) => {
            assert_eq!(status, 401);
            let challenge = www_authenticate.unwrap_or_default();
            assert!(challenge.contains("resource_metadata="), "{challenge}");
        }
        Err(other) => panic!("expected 401, got {other:?}"),
        Ok(_) => panic!("expected 401, got a session"),
    }

    // One client, two sessions: one quota, the token's subject's.
    let token = provider.token(common::oidc::CLIENT, "weather:read", &audience);
    let connect =
        || Client::connect_http(HttpOptions::new(gateway.url.clone()).bearer_token(token.clone()));
    let first = within(connect()).await.expect("a token gets a session");
    let second = within(connect()).await.expect("a second session");
    let args = json!({"query": "san"});
    let answer = within(first.call_tool("search_cities", args.clone()))
        .await
        .unwrap();
    assert!(!answer.is_error, "{answer:?}");
    match within(second.call_tool("search_cities", args)).await {
        Err(ClientError::Rpc { code, message, .. }) => {
            assert_eq!(code, -32600);
            assert!(
                message.starts_with("rate limit exceeded for ")
                    && message.contains(common::oidc::CLIENT),
                "{message}"
            );
        }
        other => panic!("expected the shared quota's refusal, got {other:?}"),
    }
    drop((first, second));
    let (status, log) = gateway.terminate();
    assert_eq!(status, Some(0), "{log}");
}

#[test]
fn the_gateway_names_what_is_wrong_with_its_command_line() {
    let gateway = common::gateway_binary();
    let (status, stdout, _) = run(&gateway, &["--help"]);
    assert_eq!(status, Some(0));
    assert!(
        stdout.contains("--per-session") && stdout.contains("--rate-limit N"),
        "{stdout}"
    );

    let usage_error = |args: &[&str], expected: &str| {
        let (status, stdout, stderr) = run(&gateway, args);
        assert_eq!(status, Some(2), "{args:?}: {stderr}");
        assert_eq!(stdout, "");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(stderr.trim_end().ends_with("try --help"), "{stderr}");
    };
    usage_error(
        &["--http", "8080"],
        "no server to serve: give its command after `--`",
    );
    usage_error(
        &["--", "./a/weather", "--", "weather"],
        "two servers are named `weather`",
    );
    usage_error(
        &["--rate-limit", "0", "--", "x"],
        "--rate-limit takes a number",
    );
    usage_error(&["--", "--name"], "`--name` of command 1 needs a name");
    usage_error(&["--", "x", "--"], "command 2 is empty");

    // A server that cannot start: exit 1, naming it.
    let (status, _, stderr) = run(&gateway, &["--", "/no/such/server"]);
    assert_eq!(status, Some(1), "{stderr}");
    assert!(stderr.contains("/no/such/server"), "{stderr}");
}

/// A config mounting the weather example (prefix `w`), the progress
/// example and server-everything, with one tool blocked.
fn chain_config() -> PathBuf {
    let [node, script, _] = everything();
    let text = format!(
        r#"blocked_tools = ["everything_get-env", "w_search_cities"]

[[servers]]
name = "weather"
prefix = "w"
command = {weather}
env = {{ WEATHER_REFRESH_SECS = "60" }}

[[servers]]
name = "progress"
command = [{progress}]

[[servers]]
name = "everything"
command = [{node}, {script}, "stdio"]
"#,
        weather = toml_string(&path(&common::weather_binary())),
        progress = toml_string(&path(&common::progress_binary())),
        node = toml_string(&node),
        script = toml_string(&script),
    );
    scratch("chain.toml", &text)
}

#[tokio::test]
async fn the_chain_mounts_the_servers_of_its_config_over_stdio() {
    let config = chain_config();
    let client = within(Client::stdio(chain_binary(), [&config]))
        .await
        .expect("connect to the chain");
    assert_eq!(client.server_info().name(), "chain");
    let tools = within(client.list_tools()).await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    for expected in ["w_get_forecast", "progress_count_slowly", "everything_echo"] {
        assert!(names.contains(&expected), "{expected} in {names:?}");
    }
    // A model is not shown what it may not call.
    for blocked in ["w_search_cities", "everything_get-env"] {
        assert!(!names.contains(&blocked), "{blocked} in {names:?}");
    }

    let counted = within(client.call_tool_with_progress(
        "progress_count_slowly",
        json!({"to": 3, "delay_ms": 1}),
        |_, _, _| {},
    ))
    .await
    .unwrap();
    assert!(!counted.is_error, "{counted:?}");
    let echo = within(client.call_tool("everything_echo", json!({"message": "chained"})))
        .await
        .unwrap();
    assert!(echo.text().contains("chained"));

    // Called all the same, it is a tool the chain does not have.
    for blocked in [
        "w_search_cities",
        "everything_get-env",
        "everything_no-such-tool",
    ] {
        match within(client.call_tool(blocked, json!({"query": "x"}))).await {
            Err(ClientError::Rpc { code, message, .. }) => {
                assert_eq!(code, -32602);
                assert_eq!(message, format!("Unknown tool: {blocked}"));
            }
            other => panic!("{blocked}: expected an unknown tool, got {other:?}"),
        }
    }
    client.close().await;
}

#[tokio::test]
async fn the_chain_logs_every_call_with_its_outcome() {
    let config = chain_config();
    let chain = Front::http(&chain_binary(), &[&path(&config), HTTP, ANY_PORT]);
    let client = chain.client().await;
    within(client.call_tool("w_get_forecast", json!({"city": "Lima", "days": 1})))
        .await
        .unwrap();
    within(client.call_tool("w_get_forecast", json!({"city": "Pariss"})))
        .await
        .unwrap();
    assert!(
        within(client.call_tool("w_search_cities", json!({"query": "x"})))
            .await
            .is_err()
    );
    client.close().await;
    let (status, log) = chain.terminate();
    assert_eq!(status, Some(0), "{log}");
    let calls: Vec<&str> = log
        .lines()
        .filter(|line| line.contains(" chain: ") && line.contains("method=tools/call"))
        .collect();
    let outcomes: Vec<(&str, &str)> = calls
        .iter()
        .map(|line| {
            let field = |name: &str| {
                let at = line.find(&format!("{name}=")).expect("the field") + name.len() + 1;
                let rest = &line[at..];
                &rest[..rest.find(" duration_ms").unwrap_or(rest.len())]
            };
            (field("tool").split(' ').next().unwrap(), field("outcome"))
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("w_get_forecast", "ok"),
            ("w_get_forecast", "tool_error"),
            ("w_search_cities", "error -32602")
        ],
        "{log}"
    );
}

#[test]
fn the_chain_names_the_file_the_place_and_the_fix_of_a_config_mistake() {
    let chain = chain_binary();
    let refused = |name: &str, text: &str, expected: &str| {
        let config = scratch(name, text);
        let (status, stdout, stderr) = run(&chain, &[&path(&config)]);
        assert_eq!(status, Some(2), "{text}: {stderr}");
        assert_eq!(stdout, "");
        let line = stderr.trim_end();
        assert_eq!(
            line,
            format!("error: {}{expected}", config.display()),
            "{text}"
        );
    };
    refused(
        "both.toml",
        "[[servers]]\nname = \"a\"\ncommand = \"x\"\nurl = \"http://127.0.0.1:1/mcp\"\n",
        " line 1 (server `a`): it has both `command` and `url`: keep the one that says where the server is",
    );
    refused(
        "neither.toml",
        "blocked_tools = []\n\n[[servers]]\nname = \"a\"\n",
        " line 3 (server `a`): it has neither `command` (a stdio server to spawn) nor `url` (a Streamable HTTP endpoint): add one",
    );
    refused(
        "typo.toml",
        "[[servers]]\nname = \"a\"\ncomand = [\"x\"]\n",
        " line 3, column 1: unknown field `comand`, expected one of `name`, `command`, `args`, `url`, `prefix`, `env`, `cwd`, `oauth`, `tags`, `tools`; see examples/chain/chain.toml for the format",
    );
    refused(
        "oauth-command.toml",
        "[[servers]]\nname = \"a\"\ncommand = \"x\"\noauth = {}\n",
        " line 1 (server `a`): `oauth` applies to a `url` server (OAuth protects HTTP servers), not to a `command`: remove it",
    );
    refused(
        "oauth-secret.toml",
        "[[servers]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/mcp\"\noauth = { grant = \"client_credentials\", client_id = \"c\" }\n",
        " line 1 (server `a`): the client_credentials grant needs `oauth.client_id` and `oauth.client_secret`: the client the authorization server knows this front as",
    );
    refused(
        "oauth-typo.toml",
        "[[servers]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/mcp\"\noauth = { scope = [\"s\"] }\n",
        " line 4, column 11: unknown field `scope`, expected one of `grant`, `client_id`, `client_secret`, `client_secret_env`, `scopes`, `metadata_document`, `token_store`, `redirect_uri`, `open_browser`; see examples/chain/chain.toml for the format",
    );
    refused(
        "twice.toml",
        "[[servers]]\nname = \"a\"\ncommand = \"x\"\n\n[[servers]]\nname = \"a\"\ncommand = \"y\"\n",
        " line 5 (server `a`): another server is called `a` already: give each server its own `name`",
    );
    refused(
        "empty.toml",
        "",
        " names no server: add a `[[servers]]` table with a `name` and a `command` or a `url` (see examples/chain/chain.toml for the format)",
    );
    refused(
        "type.json",
        "{\"servers\": [{\"name\": \"a\", \"command\": 3}]}",
        " line 1, column 39: invalid type: integer `3`, expected a string (the program) or an array of strings (the program and its arguments); see examples/chain/chain.toml for the format",
    );
    refused(
        "url.json",
        "{\"servers\": [{\"name\": \"a\", \"url\": \"localhost:8000\"}]}",
        ", servers[0] (server `a`): `url = \"localhost:8000\"` is not an http:// or https:// URL: give the server's MCP endpoint, such as \"http://127.0.0.1:8000/mcp\"",
    );

    let (status, _, stderr) = run(&chain, &["/no/such/chain.toml"]);
    assert_eq!(status, Some(2));
    assert!(
        stderr.starts_with("error: cannot read the config file /no/such/chain.toml: "),
        "{stderr}"
    );
}

#[test]
fn a_json_config_works_too_and_list_tools_shows_what_the_chain_serves_without_the_blocked() {
    let weather = path(&common::weather_binary());
    let config = scratch(
        "chain.json",
        &json!({
            "servers": [{"name": "w", "command": weather}],
            "blocked_tools": ["w_search_cities"],
        })
        .to_string(),
    );
    let (status, stdout, stderr) = run(&chain_binary(), &[&path(&config), "--list-tools"]);
    assert_eq!(status, Some(0), "{stderr}");
    let listed: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "w_current_conditions",
            "w_get_forecast",
            "w_subscribe_alerts",
            "w_summarize_forecast",
            "w_weather_report"
        ]
    );
}
