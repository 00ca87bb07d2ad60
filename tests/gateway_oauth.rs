//! The gateway example in front of protected upstreams, end to end, with
//! real parts only: the OpenID provider of the auth tests
//! (tests/oidc/provider.mjs, npm oidc-provider) as the authorization server
//! of everyone, the weather example with `--auth-issuer` as the protected
//! upstream, the gateway (itself protected with `--auth-issuer`) mounting it
//! with OAuth, and the Python SDK's client (PyPI `mcp`, in the venv
//! tests/interop/python/install makes on first use) calling the weather
//! tools through the gateway.
//!
//! The authorization-code flow is the real one: the gateway prints the
//! authorization URL, tests/oidc/login.mjs goes through the provider's
//! login and consent pages as a browser would, and the test delivers the
//! redirect to the gateway's loopback listener; the tokens, kept in a
//! file with the client the gateway registered, are refreshed as they
//! expire, and reused after a restart without a new sign-in (the very
//! first request of the new run carrying the stored token). The
//! client-credentials
//! grant is the headless variant; the chain example mounts a protected
//! server from its config file with it.
//!
//! Between the gateway and each weather server sits a recording proxy (a
//! [`Tap`]), which keeps the `Authorization` header of every request that
//! reached the upstream: the gateway must never send its own clients'
//! tokens upstream, and each upstream must only ever see tokens issued for
//! it (their `aud` is its URL), never one issued for another resource.

mod common;

use std::io::Read;
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::oidc::{self, APP_CLIENT, CLIENT, Provider};
use common::running::Running;
use common::step::STEP;
use common::tap::Tap;
use mcp_runtime::client::oauth::{FileTokenStore, StoredToken, TokenKey, TokenStore, Url};
use serde_json::{Value, json};

/// The scope every weather tool declares.
const SCOPE: &str = "weather:read";

/// A free port of 127.0.0.1 (for a server that must know its URL before it
/// listens, as its OAuth audience).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The weather example, protected by `provider`, behind a [`Tap`] whose URL
/// is its audience.
fn protected_weather(provider: &Provider) -> (Running, Tap) {
    protected(provider, "weather server", &common::weather_binary())
}

/// An example server (`binary`) protected by `provider`, behind a [`Tap`]
/// whose URL is its audience.
fn protected(provider: &Provider, what: &'static str, binary: &Path) -> (Running, Tap) {
    let port = free_port();
    let tap = Tap::start(SocketAddr::from(([127, 0, 0, 1], port)));
    let weather = Running::start(
        what,
        Command::new(binary).args([
            "--http",
            &format!("127.0.0.1:{port}"),
            "--auth-issuer",
            provider.issuer(),
            "--auth-audience",
            &tap.url(),
        ]),
    );
    weather.serving();
    (weather, tap)
}

/// The gateway, serving HTTP on a free port and protected by `provider`
/// (its audience its own URL), with `args` after those options (its own
/// options, then `--` and the upstreams).
fn start_gateway(provider: &Provider, args: &[&str], env: &[(&str, &str)]) -> (Running, String) {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut command = Command::new(common::gateway_binary());
    command
        .args(["--http", &format!("127.0.0.1:{port}")])
        .args(["--auth-issuer", provider.issuer(), "--auth-audience", &url])
        .args(args)
        .envs(env.iter().copied());
    (Running::start("gateway", &mut command), url)
}

/// The sign-in of one upstream's mount, as a user at a browser would do
/// it: the authorization URL the gateway printed, through the provider's
/// login and consent pages (login.mjs), and the redirect delivered to the
/// gateway's loopback listener. Returns the authorization URL; `done`
/// holds those already gone through (a URL may be logged more than once).
fn sign_in(gateway: &Running, provider: &Provider, login: &str, done: &mut Vec<String>) -> Url {
    let prefix = format!("{}/auth?", provider.issuer());
    let authorization = gateway.wait_for("an authorization URL", |line| {
        line.split_whitespace()
            .map(|word| word.trim_start_matches("url="))
            .map(|word| word.trim_matches(|c| matches!(c, '"' | '<' | '>' | '\'')))
            .find(|word| word.starts_with(&prefix) && !done.iter().any(|seen| seen == word))
            .map(str::to_owned)
    });
    done.push(authorization.clone());
    let redirect = provider.login(&authorization, login);
    let redirect = Url::parse(&redirect).expect("a redirect URL");
    assert_eq!(redirect.host_str(), Some("127.0.0.1"), "{redirect}");
    let addr = SocketAddr::from(([127, 0, 0, 1], redirect.port().expect("a port")));
    let target = match redirect.query() {
        Some(query) => format!("{}?{query}", redirect.path()),
        None => redirect.path().to_owned(),
    };
    let reply = common::http::send_to(addr, "GET", &target, &[], b"");
    assert_eq!(
        reply.status,
        200,
        "the gateway's loopback listener refused the redirect; its log:\n{}",
        gateway.log()
    );
    Url::parse(&authorization).expect("an authorization URL")
}

/// The query parameter `name` of `url`.
fn param(url: &Url, name: &str) -> Option<String> {
    url.query_pairs()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.into_owned())
}

/// The Python SDK's client, as `mcp-test` (client credentials), against the
/// gateway at `url`: it calls each `(tool, arguments)` and reports (see
/// tests/interop/python/gateway_oauth_client.py).
fn python_client(url: &str, provider: &Provider, calls: &[(&str, Value)]) -> Value {
    let mut command = Command::new(common::python::python());
    command
        .arg(common::python::script("gateway_oauth_client.py"))
        .args([url, provider.issuer(), CLIENT, &oidc::secret(CLIENT)])
        .env("PYTHONDONTWRITEBYTECODE", "1");
    for (tool, arguments) in calls {
        command.args([tool.to_string(), arguments.to_string()]);
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the Python client");
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let (tx, done) = mpsc::channel();
    std::thread::spawn(move || {
        let (mut stdout, mut stderr) = (String::new(), String::new());
        let _ = out.read_to_string(&mut stdout);
        let _ = err.read_to_string(&mut stderr);
        let _ = tx.send((stdout, stderr));
    });
    let Ok((stdout, stderr)) = done.recv_timeout(STEP * 2) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the Python client did not finish within {:?}", STEP * 2);
    };
    let status = child.wait().unwrap();
    assert!(
        status.success(),
        "the Python client failed ({status}): {stderr}"
    );
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("the Python client printed no JSON ({e}): {stdout}\n{stderr}"))
}

/// The structured content of the call of `tool` in the Python client's
/// report, which must have succeeded.
fn structured<'a>(report: &'a Value, tool: &str) -> &'a Value {
    &call(report, tool)["structured"]
}

/// The text of the call of `tool` in the Python client's report, which
/// must have succeeded.
fn text<'a>(report: &'a Value, tool: &str) -> &'a str {
    call(report, tool)["text"].as_str().expect("a text")
}

fn call<'a>(report: &'a Value, tool: &str) -> &'a Value {
    let call = report["calls"]
        .as_array()
        .expect("calls")
        .iter()
        .find(|call| call["tool"] == tool)
        .unwrap_or_else(|| panic!("no call of {tool} in {report}"));
    assert_eq!(call["is_error"], false, "{tool} failed: {call}");
    call
}

/// What the upstream behind `tap` was sent: tokens only of its own (`aud`
/// its URL, issued by `provider` to `subject`) and never `forbidden` (the
/// gateway's own clients' tokens, or another resource's), the gateway
/// having connected `runs` times. Returns the client ids the tokens were
/// issued to.
fn assert_only_own_tokens(
    tap: &Tap,
    provider: &Provider,
    subject: &str,
    forbidden: &[&str],
    runs: usize,
) -> Vec<String> {
    let (tokens, without) = tap.tokens();
    assert!(
        !tokens.is_empty(),
        "the upstream at {} got no token at all",
        tap.url()
    );
    // Only the first request of a run goes without a token (the 401 that
    // starts discovery: the token store is keyed by the issuer, which the
    // gateway learns from it); the rest carry one.
    assert!(without <= runs, "{without} requests without a token");
    let mut clients = Vec::new();
    for token in &tokens {
        assert!(
            !forbidden.contains(&token.as_str()),
            "the upstream at {} was sent a token that is not its own",
            tap.url()
        );
        let claims = oidc::claims(token);
        assert_eq!(claims["iss"], provider.issuer(), "{claims}");
        assert_eq!(
            claims["aud"],
            tap.url(),
            "a token for another resource: {claims}"
        );
        assert_eq!(claims["sub"], subject, "{claims}");
        let client = claims["client_id"].as_str().unwrap_or_default().to_owned();
        assert_ne!(client, CLIENT, "the gateway's client's token went upstream");
        if !clients.contains(&client) {
            clients.push(client);
        }
    }
    clients
}

#[test]
fn the_gateway_signs_in_to_protected_upstreams_and_a_python_client_calls_them() {
    let provider = Provider::start();
    // Two protected servers on one authorization server (their resource
    // URIs must differ: the weather example's and the progress example's).
    let (_north, north) = protected_weather(&provider);
    let (_south, south) = protected(&provider, "progress server", &common::progress_binary());
    let store = scratch("authorization-code-tokens.json");
    let store_arg = store.display().to_string();
    let (north_url, south_url) = (north.url(), south.url());
    // North: nothing known beforehand (dynamic registration, a public
    // client); south: a confidential client registered beforehand, with a
    // redirect URI of its own. One token file for both.
    let redirect_uri = format!("http://127.0.0.1:{}/callback", free_port());
    let south_args = [
        "--name",
        "south",
        "--url",
        &south_url,
        "--oauth-grant",
        "authorization_code",
        "--oauth-client-id",
        APP_CLIENT,
        "--oauth-client-secret-env",
        "SOUTH_SECRET",
        "--oauth-redirect-uri",
        &redirect_uri,
        "--oauth-scopes",
        SCOPE,
        "--oauth-no-browser",
        "--oauth-token-store",
        &store_arg,
    ];
    let secret = oidc::secret(APP_CLIENT);
    let env = [("SOUTH_SECRET", secret.as_str())];
    let north_args = [
        "--",
        "--name",
        "north",
        "--url",
        &north_url,
        "--oauth",
        "--oauth-no-browser",
        "--oauth-token-store",
        &store_arg,
        "--",
    ];
    let both: Vec<&str> = north_args.into_iter().chain(south_args).collect();
    let (gateway, url) = start_gateway(&provider, &both, &env);

    // The mounts, one after the other, each a sign-in at the provider.
    let mut done = Vec::new();
    let first = sign_in(&gateway, &provider, "alice", &mut done);
    // Once north is mounted (its token issued), tokens expire at once (in
    // 2 s; the servers' leeway for the clock is a minute): the gateway
    // refreshes south's as it goes.
    gateway.wait_for("that north is mounted", |line| {
        (line.contains("mounted upstream=") && line.contains("prefix=north")).then_some(())
    });
    provider.set_ttl(2);
    let second = sign_in(&gateway, &provider, "alice", &mut done);
    let served = gateway.serving();
    assert_eq!(served, url);
    // Each authorization URL is on stderr once (the block for the user,
    // not again in a log line).
    let prefix = format!("{}/auth?", provider.issuer());
    assert_eq!(
        gateway.log().matches(&prefix).count(),
        2,
        "{}",
        gateway.log()
    );
    let expected = [(&first, &north_url, SCOPE), (&second, &south_url, SCOPE)];
    for (authorization, resource, scope) in expected {
        assert_eq!(
            param(authorization, "code_challenge_method").as_deref(),
            Some("S256")
        );
        assert!(param(authorization, "code_challenge").is_some());
        assert!(param(authorization, "state").is_some());
        assert_eq!(
            param(authorization, "response_type").as_deref(),
            Some("code")
        );
        assert_eq!(param(authorization, "resource").as_ref(), Some(resource));
        // The weather server's challenge names its scope; the progress
        // server declares none, and the gateway is told which to ask for
        // (oidc-provider grants nothing to a request without a scope).
        let scopes = param(authorization, "scope").unwrap_or_default();
        assert!(scopes.split(' ').any(|s| s == scope), "{scopes}");
        let redirect = param(authorization, "redirect_uri").unwrap_or_default();
        assert!(redirect.starts_with("http://127.0.0.1:"), "{redirect}");
    }
    let registered = param(&first, "client_id").unwrap_or_default();
    assert!(
        !registered.is_empty() && registered != APP_CLIENT,
        "north registers a client of its own: {registered}"
    );
    assert_eq!(param(&second, "client_id").as_deref(), Some(APP_CLIENT));
    assert_eq!(param(&second, "redirect_uri"), Some(redirect_uri.clone()));

    // A Python SDK client of the gateway, with a token for the gateway.
    let report = python_client(
        &url,
        &provider,
        &[
            ("north_get_forecast", json!({"city": "Cairo", "days": 2})),
            ("north_current_conditions", json!({"city": "Tokyo"})),
            ("south_count_slowly", json!({"to": 2, "delay_ms": 10})),
        ],
    );
    assert_eq!(report["server"], "gateway");
    let tools: Vec<&str> = report["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for tool in common::WEATHER_TOOLS {
        assert!(
            tools.contains(&format!("north_{tool}").as_str()),
            "{tools:?}"
        );
    }
    assert!(tools.contains(&"south_count_slowly"), "{tools:?}");
    let forecast = structured(&report, "north_get_forecast");
    assert_eq!(forecast["city"], "Cairo");
    assert_eq!(forecast["days"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        structured(&report, "north_current_conditions")["city"],
        "Tokyo"
    );
    assert_eq!(text(&report, "south_count_slowly"), "counted to 2");
    let incoming = report["token"].as_str().expect("the client's token");
    assert_eq!(oidc::claims(incoming)["aud"], url.as_str());

    // Upstream, only the gateway's own tokens, each for its upstream.
    let (north_tokens, _) = north.tokens();
    let (south_tokens, _) = south.tokens();
    let south_only: Vec<&str> = south_tokens.iter().map(String::as_str).collect();
    let north_only: Vec<&str> = north_tokens.iter().map(String::as_str).collect();
    let north_clients = assert_only_own_tokens(
        &north,
        &provider,
        "alice",
        &[&[incoming][..], &south_only].concat(),
        1,
    );
    assert_eq!(north_clients, [registered.as_str()]);
    let south_clients = assert_only_own_tokens(
        &south,
        &provider,
        "alice",
        &[&[incoming][..], &north_only].concat(),
        1,
    );
    assert_eq!(south_clients, [APP_CLIENT]);

    // The token file: the owner's alone, one token per upstream.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&store)
            .expect("the token file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
    let file = FileTokenStore::new(&store);
    for (resource, client) in [
        (&north_url, &registered),
        (&south_url, &APP_CLIENT.to_owned()),
    ] {
        let key = TokenKey {
            issuer: provider.issuer().to_owned(),
            resource: resource.clone(),
            client_id: client.clone(),
        };
        let token = file.load(&key).expect("the store reads").expect("a token");
        assert_eq!(oidc::claims(&token.access_token)["aud"], resource.as_str());
    }
    drop(gateway);
    let (south_before, _) = south.tokens();
    let (north_before, _) = north.tokens();

    // Until south's stored token has expired (it lived 2 s); the next ones
    // live an hour.
    provider.set_ttl(3600);
    let key = TokenKey {
        issuer: provider.issuer().to_owned(),
        resource: south_url.clone(),
        client_id: APP_CLIENT.to_owned(),
    };
    let stored = file.load(&key).unwrap().expect("south's token");
    assert!(stored.refresh_token.is_some(), "no refresh token was kept");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !stored.expires_within(Duration::ZERO) {
        assert!(
            std::time::Instant::now() < deadline,
            "{stored:?} does not expire"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // A restart with the same file, without a sign-in: north's client,
    // registered on the fly, and its token (still valid) are in the file;
    // south's refresh token gets a new access token.
    let (again, again_url) = start_gateway(&provider, &both, &env);
    assert_eq!(again.serving(), again_url);
    assert!(
        !again
            .log()
            .contains(&format!("{}/auth?", provider.issuer())),
        "a second sign-in: {}",
        again.log()
    );
    let again_report = python_client(
        &again_url,
        &provider,
        &[
            ("south_count_slowly", json!({"to": 1, "delay_ms": 1})),
            ("north_current_conditions", json!({"city": "Lima"})),
        ],
    );
    assert_eq!(text(&again_report, "south_count_slowly"), "counted to 1");
    assert_eq!(
        structured(&again_report, "north_current_conditions")["city"],
        "Lima"
    );
    let incoming_again = again_report["token"].as_str().expect("a token");
    let forbidden = [&[incoming, incoming_again][..], &north_only].concat();
    // South's stored token had expired: its first request waits for the
    // 401 that leads to the refresh.
    assert_only_own_tokens(&south, &provider, "alice", &forbidden, 2);
    // North's had not: the restarted gateway sent it from its very first
    // request (one token-less request in both runs), and it was the token
    // of the first run, of the client registered then.
    let forbidden = [&[incoming, incoming_again][..], &south_only].concat();
    let north_clients = assert_only_own_tokens(&north, &provider, "alice", &forbidden, 1);
    assert_eq!(north_clients, [registered.as_str()]);
    let (north_after, _) = north.tokens();
    let north_since_restart = &north_after[north_before.len()..];
    assert!(
        !north_since_restart.is_empty()
            && north_since_restart
                .iter()
                .all(|token| north_before.contains(token)),
        "north was given a new token after the restart"
    );
    let (south_after, _) = south.tokens();
    let since_restart = &south_after[south_before.len()..];
    assert!(
        !since_restart.is_empty()
            && since_restart
                .iter()
                .all(|token| !south_before.contains(token)),
        "the expired token was sent again instead of a refreshed one"
    );
}

#[test]
fn the_gateway_uses_client_credentials_for_a_headless_upstream() {
    let provider = Provider::start();
    let (_weather, tap) = protected_weather(&provider);
    // A token for another resource, in the token file under its own key:
    // valid, same issuer, same client, and never to be sent here.
    let store = scratch("client-credentials-tokens.json");
    let elsewhere = format!("http://127.0.0.1:{}/mcp", free_port());
    let foreign = provider.token(APP_CLIENT, SCOPE, &elsewhere);
    let key = TokenKey {
        issuer: provider.issuer().to_owned(),
        resource: elsewhere.clone(),
        client_id: APP_CLIENT.to_owned(),
    };
    FileTokenStore::new(&store)
        .save(
            &key,
            &StoredToken::bearer(foreign.clone()).with_scopes([SCOPE]),
        )
        .expect("seed the token file");

    let url = tap.url();
    let store_arg = store.display().to_string();
    // One connection upstream per client session: they share the token.
    let (gateway, gateway_url) = start_gateway(
        &provider,
        &[
            "--per-session",
            "--",
            "--url",
            &url,
            "--oauth-grant",
            "client_credentials",
            "--oauth-client-id",
            APP_CLIENT,
            "--oauth-client-secret-env",
            "WEATHER_CLIENT_SECRET",
            "--oauth-token-store",
            &store_arg,
        ],
        &[("WEATHER_CLIENT_SECRET", &oidc::secret(APP_CLIENT))],
    );
    assert_eq!(gateway.serving(), gateway_url);
    let report = python_client(
        &gateway_url,
        &provider,
        &[
            ("get_forecast", json!({"city": "Cairo", "days": 3})),
            ("search_cities", json!({"query": "san"})),
        ],
    );
    assert_eq!(structured(&report, "get_forecast")["city"], "Cairo");
    structured(&report, "search_cities");
    // A second client session: a second connection upstream.
    let second = python_client(
        &gateway_url,
        &provider,
        &[("current_conditions", json!({"city": "Tokyo"}))],
    );
    assert_eq!(structured(&second, "current_conditions")["city"], "Tokyo");
    let incoming = report["token"].as_str().expect("the client's token");
    let incoming_second = second["token"].as_str().expect("the client's token");
    // The service's own subject (the client id), for this upstream only,
    // one token for the mount's connections (only the first went without).
    let forbidden = [incoming, incoming_second, &foreign];
    let clients = assert_only_own_tokens(&tap, &provider, APP_CLIENT, &forbidden, 1);
    assert_eq!(clients, [APP_CLIENT]);
    let (mut tokens, _) = tap.tokens();
    tokens.dedup();
    assert_eq!(
        tokens.len(),
        1,
        "the per-session connections did not share the token"
    );
    assert!(
        !gateway
            .log()
            .contains(&format!("{}/auth?", provider.issuer()))
    );
}

#[test]
fn the_gateway_names_what_is_wrong_with_its_oauth_options() {
    let usage_error = |args: &[&str], expected: &str| {
        let output = Command::new(common::gateway_binary())
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run the gateway");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    };
    let url = "http://127.0.0.1:1/mcp";
    usage_error(
        &["--", "--oauth", "./weather"],
        "the --oauth options (command 1) apply to a --url server",
    );
    usage_error(
        &["--", "--url", url, "--oauth-grant", "client_credentials"],
        "the client_credentials grant needs --oauth-client-id and --oauth-client-secret-env",
    );
    usage_error(
        &["--", "--url", url, "--oauth-grant", "password"],
        "`password` is not a grant",
    );
    usage_error(
        &["--", "--url", url, "--oauth-client-secret", "s3cret"],
        "--oauth-client-secret-env VAR",
    );
    usage_error(
        &["--", "--url", url, "--", "--url", url],
        "needs a name to prefix its tools with",
    );
    usage_error(
        &["--", "--url", url, "extra"],
        "a --url server has no command",
    );
    usage_error(
        &["--", "--url", "ftp://x"],
        "is not an http:// or https:// URL",
    );
    usage_error(&["--", "--url", url, "--oauth-scopes"], "needs a value");
}

/// A fresh path in this test target's scratch folder.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gateway-oauth");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn the_chain_mounts_a_protected_server_named_in_its_config() {
    let provider = Provider::start();
    let (_weather, tap) = protected_weather(&provider);
    let config = scratch("chain.toml");
    std::fs::write(
        &config,
        format!(
            "[[servers]]\nname = \"weather\"\nurl = {}\n\
             oauth = {{ client_id = {}, client_secret_env = \"CHAIN_WEATHER_SECRET\", scopes = [{}] }}\n",
            json!(tap.url()),
            json!(APP_CLIENT),
            json!(SCOPE),
        ),
    )
    .unwrap();
    // --list-tools: the chain mounts its servers, prints what it serves
    // and exits.
    let mut child = Command::new(common::example_binary("chain"))
        .arg(&config)
        .arg("--list-tools")
        .env("CHAIN_WEATHER_SECRET", oidc::secret(APP_CLIENT))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the chain");
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let (tx, done) = mpsc::channel();
    std::thread::spawn(move || {
        let (mut stdout, mut stderr) = (String::new(), String::new());
        let _ = out.read_to_string(&mut stdout);
        let _ = err.read_to_string(&mut stderr);
        let _ = tx.send((stdout, stderr));
    });
    let Ok((stdout, stderr)) = done.recv_timeout(STEP) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the chain did not list its tools within {STEP:?}");
    };
    let status = child.wait().unwrap();
    assert!(status.success(), "{stderr}");
    let listed: Value = serde_json::from_str(&stdout).expect("a JSON tool list");
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    let expected: Vec<String> = common::WEATHER_TOOLS
        .iter()
        .map(|tool| format!("weather_{tool}"))
        .collect();
    assert_eq!(names, expected);
    let clients = assert_only_own_tokens(&tap, &provider, APP_CLIENT, &[], 1);
    assert_eq!(clients, [APP_CLIENT]);
}
