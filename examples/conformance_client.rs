//! The client the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) runs in client mode, built on
//! `mcp_runtime::client`. For each scenario the suite starts a server of its
//! own, then runs this program with that server's URL as the last argument
//! and the scenario's name in `MCP_CONFORMANCE_SCENARIO`; the server records
//! what the client did, and the suite judges it. `tests/conformance/client`
//! runs every client scenario of the 2025-11-25 requirement set this way.
//!
//! ```text
//! MCP_CONFORMANCE_SCENARIO=tools_call cargo run --example conformance_client --features client -- http://127.0.0.1:PORT/mcp
//! conformance client --command target/debug/examples/conformance_client --scenario tools_call
//! ```
//!
//! For the `auth/*` scenarios the client does OAuth (`HttpOptions::oauth`):
//! the suite's authorization server approves at once, so the interactive
//! step is [`SuiteAuthorizer`], which GETs the authorization URL without
//! following the redirect and hands its `Location` back. The client ID
//! metadata document is the URL the suite expects; pre-registered and
//! client credentials come from `MCP_CONFORMANCE_CONTEXT`.
//!
//! Exits 0 when the scenario's steps succeeded, 1 when one failed (the
//! error goes to stderr), 2 on a usage error. Logs to stderr (`RUST_LOG`: a
//! level, `info` unless set); stdout stays empty.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use mcp_runtime::client::oauth::{Authorizer, BoxFuture, OAuth, OAuthError, SigningAlgorithm, Url};
use mcp_runtime::client::{Client, ClientError, Elicitation, HttpOptions};
use mcp_runtime::serde_json::{Map, Value, json};
use tracing_subscriber::filter::LevelFilter;

/// How long each request may wait: well within the suite's 30 s per
/// scenario, so that a hung server ends this program with an error
/// rather than having the suite kill it.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

const USAGE: &str = "usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance_client <server URL>

The client the MCP conformance suite runs in client mode
(tests/conformance/client). Scenarios: initialize, tools_call, sse-retry,
json-schema-2020-12-preservation, elicitation-sep1034-client-defaults,
auth/*.";

#[tokio::main]
async fn main() -> ExitCode {
    let level = std::env::var("RUST_LOG")
        .ok()
        .and_then(|level| level.parse::<LevelFilter>().ok())
        .unwrap_or(LevelFilter::INFO);
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_max_level(level)
        .init();

    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let (Some(url), Ok(scenario)) = (args.last(), std::env::var("MCP_CONFORMANCE_SCENARIO")) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if let Ok(version) = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION") {
        // The client offers the newest version it knows and takes what
        // the server answers; the suite's wish is only logged.
        tracing::info!(
            requested = version,
            "protocol version asked for by the suite"
        );
    }
    tracing::info!(scenario, url, "running");
    match run(&scenario, url).await {
        Ok(()) => {
            tracing::info!(scenario, "done");
            ExitCode::SUCCESS
        }
        Err(error) => {
            tracing::error!(scenario, "{error}");
            ExitCode::FAILURE
        }
    }
}

/// A step that failed, in words.
type Failure = String;

async fn run(scenario: &str, url: &str) -> Result<(), Failure> {
    let client = connect(scenario, url).await?;
    let outcome = match scenario {
        // The handshake is the test; a first request shows it completed.
        "initialize" => client
            .list_tools()
            .await
            .map(drop)
            .map_err(|e| step("tools/list", e)),
        "tools_call" => tools_call(&client).await,
        "sse-retry" => sse_retry(&client).await,
        "json-schema-2020-12-preservation" => json_schema_preservation(&client).await,
        "elicitation-sep1034-client-defaults" => elicitation_defaults(&client).await,
        // OAuth scenarios: connecting authorized; listing and calling
        // make the later requests some scenarios judge (a step-up on the
        // call, a move to another authorization server).
        auth if auth.starts_with("auth/") => list_and_call_first(&client).await,
        other => Err(format!("no such scenario: {other}")),
    };
    client.close().await;
    outcome
}

async fn connect(scenario: &str, url: &str) -> Result<Client, Failure> {
    let mut options = HttpOptions::new(url).timeout(REQUEST_TIMEOUT);
    if scenario.starts_with("auth/") {
        options = options.oauth(oauth(scenario)?);
    }
    Client::builder()
        .client_info("mcp-runtime-conformance-client", env!("CARGO_PKG_VERSION"))
        // A user who accepts without typing anything: the schema's
        // defaults are what the client sends (SEP-1034).
        .on_elicitation(|request| async move {
            tracing::info!(message = %request.message, "the server asks; accepting the defaults");
            Elicitation::Accept(Map::new())
        })
        .connect_http(options)
        .await
        .map_err(|error| step("connecting", error))
}

/// The client ID metadata document URL the suite's `auth/basic-cimd`
/// expects as `client_id` (nothing fetches it).
const METADATA_DOCUMENT: &str = "https://conformance-test.local/client-metadata.json";
/// The redirect URI of the suite's reference client: nothing listens there,
/// the authorizer reads the redirect instead.
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// The OAuth configuration for an `auth/*` scenario, from
/// `MCP_CONFORMANCE_CONTEXT` where the scenario gives one.
fn oauth(scenario: &str) -> Result<OAuth, Failure> {
    let context: Value = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| format!("MCP_CONFORMANCE_CONTEXT is not JSON: {e}"))?,
        Err(_) => Value::Null,
    };
    let field = |name: &str| context.get(name).and_then(Value::as_str).map(str::to_owned);
    let oauth = match scenario {
        "auth/client-credentials-basic" => {
            let (Some(id), Some(secret)) = (field("client_id"), field("client_secret")) else {
                return Err("the context holds no client_id and client_secret".into());
            };
            OAuth::client_credentials(id, secret)
        }
        "auth/client-credentials-jwt" => {
            let (Some(id), Some(key)) = (field("client_id"), field("private_key_pem")) else {
                return Err("the context holds no client_id and private_key_pem".into());
            };
            let algorithm = match field("signing_algorithm").as_deref() {
                None | Some("ES256") => SigningAlgorithm::ES256,
                Some(other) => return Err(format!("unsupported signing algorithm {other}")),
            };
            OAuth::private_key_jwt(id, key, algorithm)
        }
        "auth/wif-jwt-bearer" => {
            // The workload's identity token, as a platform would hand it.
            let (Some(id), Some(jwt)) = (field("client_id"), field("valid_jwt")) else {
                return Err("the context holds no client_id and valid_jwt".into());
            };
            OAuth::jwt_bearer(id, move || Ok(jwt.clone()))
        }
        _ => {
            let mut oauth = OAuth::authorization_code(SuiteAuthorizer)
                .client_name("mcp-runtime conformance client")
                .metadata_document(METADATA_DOCUMENT);
            if let Some(id) = field("client_id") {
                oauth = oauth.client_id(id);
            }
            if let Some(secret) = field("client_secret") {
                oauth = oauth.client_secret(secret);
            }
            oauth
        }
    };
    Ok(oauth)
}

/// The interactive step against the suite's authorization server, which
/// approves every request at once with a 302 to the redirect URI: GET the
/// authorization URL, do not follow the redirect, return its `Location`.
struct SuiteAuthorizer;

impl SuiteAuthorizer {
    /// The HTTP client, built when needed: by then connecting has installed
    /// the TLS crypto provider reqwest needs (ring).
    fn http() -> Result<reqwest::Client, OAuthError> {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|e| OAuthError::Authorizer(format!("cannot build an HTTP client: {e}")))
    }
}

impl Authorizer for SuiteAuthorizer {
    fn redirect_uri(&self) -> String {
        REDIRECT_URI.into()
    }

    fn authorize(&self, url: Url) -> BoxFuture<'_, Result<Url, OAuthError>> {
        Box::pin(async move {
            let failed = |e: String| OAuthError::Authorizer(e);
            let answer = SuiteAuthorizer::http()?
                .get(url.as_str())
                .send()
                .await
                .map_err(|e| failed(format!("GET the authorization URL: {e}")))?;
            let location = answer
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| {
                    failed(format!(
                        "the authorization server answered {} without a redirect",
                        answer.status()
                    ))
                })?;
            url.join(location)
                .map_err(|e| failed(format!("bad Location {location:?}: {e}")))
        })
    }
}

/// Lists the tools and calls the first (with no arguments).
async fn list_and_call_first(client: &Client) -> Result<(), Failure> {
    let tools = client
        .list_tools()
        .await
        .map_err(|e| step("tools/list", e))?;
    let Some(tool) = tools.first() else {
        return Ok(());
    };
    let result = client
        .call_tool(tool.name(), json!({}))
        .await
        .map_err(|e| step(&format!("calling {}", tool.name()), e))?;
    tracing::info!(tool = tool.name(), is_error = result.is_error, "called");
    Ok(())
}

fn step(what: &str, error: ClientError) -> Failure {
    format!("{what}: {error}")
}

/// Lists the tools, then calls `name` with `arguments`; the text of its
/// result, which must not be an error.
async fn list_then_call(client: &Client, name: &str, arguments: Value) -> Result<String, Failure> {
    let tools = client
        .list_tools()
        .await
        .map_err(|e| step("tools/list", e))?;
    if !tools.iter().any(|tool| tool.name() == name) {
        return Err(format!("the server lists no tool {name:?}"));
    }
    let result = client
        .call_tool(name, arguments)
        .await
        .map_err(|e| step(&format!("calling {name}"), e))?;
    let text = text_of(&result);
    if result.is_error {
        return Err(format!("{name} answered an error: {text}"));
    }
    tracing::info!(tool = name, result = text, "called");
    Ok(text)
}

fn text_of(result: &mcp_runtime::client::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|content| match content {
            mcp_runtime::Content::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `add_numbers` with two numbers; the server checks they arrived as numbers.
async fn tools_call(client: &Client) -> Result<(), Failure> {
    let text = list_then_call(client, "add_numbers", json!({ "a": 5, "b": 3 })).await?;
    if !text.contains('8') {
        return Err(format!("add_numbers answered {text:?}, not the sum 8"));
    }
    Ok(())
}

/// The server answers the call with an SSE stream that it closes before
/// the result, after `retry: 500`: the client must reconnect (GET with
/// `Last-Event-ID`) after 500 ms, and the result comes on that stream.
async fn sse_retry(client: &Client) -> Result<(), Failure> {
    list_then_call(client, "test_reconnection", json!({}))
        .await
        .map(drop)
}

/// The input schema of `json_schema_2020_12_tool`, exactly as listed, is
/// sent back through `json_schema_echo`; the server compares the two.
async fn json_schema_preservation(client: &Client) -> Result<(), Failure> {
    let tools = client
        .list_tools()
        .await
        .map_err(|e| step("tools/list", e))?;
    let schema = tools
        .iter()
        .find(|tool| tool.name() == "json_schema_2020_12_tool")
        .and_then(|tool| tool.input_schema())
        .ok_or("the server lists no json_schema_2020_12_tool with an inputSchema")?
        .clone();
    let result = client
        .call_tool("json_schema_echo", json!({ "schema": schema }))
        .await
        .map_err(|e| step("calling json_schema_echo", e))?;
    if result.is_error {
        return Err(format!(
            "json_schema_echo answered an error: {}",
            text_of(&result)
        ));
    }
    Ok(())
}

/// The tool asks the client to fill in a form (`elicitation/create`) whose
/// fields all have defaults; the client must answer with the defaults
/// applied: the handler accepts with nothing typed, and the client fills
/// in each field's `default`.
async fn elicitation_defaults(client: &Client) -> Result<(), Failure> {
    let text = list_then_call(client, "test_client_elicitation_defaults", json!({})).await?;
    if !text.starts_with("Elicitation completed") {
        return Err(format!("the elicitation did not complete: {text}"));
    }
    Ok(())
}
