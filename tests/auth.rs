//! `Server::auth` over real HTTP, with tokens this test signs itself (HS256
//! and static tokens): every refusal's status and `WWW-Authenticate`
//! header, the Protected Resource Metadata, sessions bound to their
//! subject, and the caller as handlers see it. The same rows against a
//! real OpenID provider, with JWKS discovery and key rotation, are in
//! tests/auth_provider.rs.

mod common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::http::{ACCEPT_BOTH, Client, HttpServer, JSON_BODY, Reply, send};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::auth::{Auth, Identity};
use mcp_runtime::{Context, Server, tool};
use serde_json::{Value, json};

const ISSUER: &str = "https://login.example.test";
const AUDIENCE: &str = "https://mcp.example.test/mcp";
const SECRET: &[u8] = b"a shared secret of at least thirty-two bytes";
const METADATA_URL: &str = "https://mcp.example.test/.well-known/oauth-protected-resource/mcp";

/// Who is calling, as the handler sees it.
#[tool]
async fn whoami(ctx: Context) -> Value {
    match ctx.auth() {
        Some(who) => json!({
            "subject": who.subject(),
            "scopes": who.scopes(),
            "client": who.client_id(),
            "tenant": who.claim("tenant"),
        }),
        None => json!(null),
    }
}

/// A forecast (needs `weather:read`).
#[tool(read_only, scopes = ["weather:read"])]
async fn forecast(city: String) -> String {
    format!("sunny in {city}")
}

/// Wipe everything (needs `admin`).
#[tool(destructive, scopes = ["admin"])]
async fn wipe() -> String {
    "wiped".into()
}

/// Private notes (needs `notes:read`).
#[mcp_runtime::resource("notes://private", scopes = ["notes:read"])]
async fn private_notes() -> String {
    "secret".into()
}

/// A prompt for admins.
#[mcp_runtime::prompt(scopes = ["admin"])]
async fn admin_prompt() -> String {
    "be careful".into()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn claims(sub: &str) -> Value {
    json!({
        "iss": ISSUER, "aud": AUDIENCE, "sub": sub, "exp": now() + 600,
        "scope": "weather:read", "client_id": "test-client", "tenant": "t1",
    })
}

fn sign(claims: &Value) -> String {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(SECRET),
    )
    .unwrap()
}

fn server() -> HttpServer {
    HttpServer::start(
        Server::new("auth-test", "1.0.0")
            .include_tools(["whoami"])
            .auth(
                Auth::hmac(ISSUER, SECRET)
                    .audience(AUDIENCE)
                    .leeway(Duration::ZERO)
                    .scopes_supported(["weather:read"]),
            ),
    )
}

fn initialize_with(server: &HttpServer, token: Option<&str>) -> Reply {
    let mut client = Client::new(server.addr);
    client.bearer = token.map(str::to_owned);
    client.post(&json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "auth-test", "version": "0"}}
    }))
}

fn client_of(server: &HttpServer, token: &str) -> Client {
    let mut client = Client::new(server.addr);
    client.bearer = Some(token.to_owned());
    client.initialize("2025-11-25");
    client
}

/// A 401 whose challenge names the metadata and the scopes, and says
/// `invalid_token` with a reason containing `why` (or no error at all).
fn assert_unauthorized(mut reply: Reply, why: Option<&str>) {
    let challenge = reply
        .header("www-authenticate")
        .unwrap_or_default()
        .to_owned();
    let body = reply.text();
    assert_eq!(reply.status, 401, "{body}");
    assert!(
        challenge.starts_with(&format!(
            "Bearer resource_metadata=\"{METADATA_URL}\", scope=\"weather:read\""
        )),
        "{challenge}"
    );
    match why {
        None => assert!(!challenge.contains("error="), "{challenge}"),
        Some(why) => {
            assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
            assert!(challenge.contains(why), "{challenge}");
            assert!(body.contains(why), "{body}");
        }
    }
}

#[test]
fn a_request_without_a_token_is_told_where_to_get_one() {
    let server = server();
    assert_unauthorized(initialize_with(&server, None), None);
    // Another scheme is as good as none.
    let reply = send(
        server.addr,
        "POST",
        &[
            ACCEPT_BOTH,
            JSON_BODY,
            ("Authorization", "Basic dXNlcjpwYXNz"),
        ],
        b"{}",
    );
    assert_unauthorized(reply, None);
    // GET and DELETE need a token too.
    let reply = send(server.addr, "GET", &[ACCEPT_BOTH], b"");
    assert_unauthorized(reply, None);
}

#[test]
fn every_kind_of_bad_token_is_refused_with_its_reason() {
    let server = server();
    let mut expired = claims("alice");
    expired["exp"] = json!(now() - 5);
    let mut other_audience = claims("alice");
    other_audience["aud"] = json!("https://other.example.test/mcp");
    let mut other_issuer = claims("alice");
    other_issuer["iss"] = json!("https://evil.example.test");
    let mut not_yet = claims("alice");
    not_yet["nbf"] = json!(now() + 300);
    let good = sign(&claims("alice"));
    let (head, rest) = good.split_once('.').unwrap();
    let (body, signature) = rest.split_once('.').unwrap();
    let flipped = if signature.starts_with('A') { "B" } else { "A" };
    let bad_signature = format!("{head}.{body}.{flipped}{}", &signature[1..]);
    // base64url of {"alg":"none","typ":"JWT"}
    let none_header = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0";
    let unsigned = format!("{none_header}.{body}.");
    let other_key = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims("alice"),
        &EncodingKey::from_secret(b"another secret, also thirty-two bytes long"),
    )
    .unwrap();
    for (token, why) in [
        (sign(&expired), "expired"),
        (sign(&other_audience), "another resource"),
        (sign(&other_issuer), "untrusted issuer"),
        (sign(&not_yet), "not valid yet"),
        (bad_signature, "signature is invalid"),
        (other_key, "signature is invalid"),
        (unsigned, "alg none"),
        ("not-a-jwt".to_owned(), "not a well-formed JWT"),
    ] {
        assert_unauthorized(initialize_with(&server, Some(&token)), Some(why));
    }
    // Refusals cost nothing: a good token still works.
    let mut alice = client_of(&server, &good);
    let result = alice.call("tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(
        result["result"]["structuredContent"]["result"]["subject"],
        "alice"
    );
}

#[test]
fn handlers_see_the_caller() {
    let server = server();
    let mut alice = client_of(&server, &sign(&claims("alice")));
    let result = alice.call("tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(
        result["result"]["structuredContent"]["result"],
        json!({"subject": "alice", "scopes": ["weather:read"], "client": "test-client", "tenant": "t1"})
    );
}

#[test]
fn a_session_belongs_to_the_subject_that_created_it() {
    let server = server();
    let alice = client_of(&server, &sign(&claims("alice")));
    let session = alice.session.clone().expect("a session id");
    // Bob, with a valid token of his own, presents Alice's session id.
    let mut bob = Client::new(server.addr);
    bob.bearer = Some(sign(&claims("bob")));
    bob.session = Some(session.clone());
    bob.version = Some("2025-11-25".into());
    let mut reply = bob.request("tools/call", json!({"name": "whoami", "arguments": {}}));
    let status = reply.status;
    assert_eq!(status, 404, "{}", reply.text());
    let stream = send(
        server.addr,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", &session),
            ("Authorization", &format!("Bearer {}", sign(&claims("bob")))),
        ],
        b"",
    );
    assert_eq!(stream.status, 404);
    // Alice, with a new token (say, after a refresh), keeps her session.
    let mut alice_again = alice;
    alice_again.bearer = Some(sign(&claims("alice")));
    let result = alice_again.call("tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(
        result["result"]["structuredContent"]["result"]["subject"],
        "alice"
    );
}

#[test]
fn the_protected_resource_metadata_is_published_at_both_well_known_paths() {
    let server = server();
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let mut reply = common::http::send_raw(
            server.addr,
            format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        );
        assert_eq!(reply.status, 200, "{path}");
        assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
        assert_eq!(
            reply.json(),
            json!({
                "resource": AUDIENCE,
                "authorization_servers": [ISSUER],
                "bearer_methods_supported": ["header"],
                "scopes_supported": ["weather:read"],
            })
        );
    }
    let reply = common::http::send_raw(
        server.addr,
        b"GET /.well-known/other HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(reply.status, 404);
}

#[test]
fn static_tokens_stand_for_their_callers() {
    let server = HttpServer::start(
        Server::new("auth-test", "1.0.0")
            .include_tools(["whoami"])
            .auth(Auth::static_tokens([(
                "gateway-secret",
                Identity::new("gateway").with_scopes(["weather:read"]),
            )])),
    );
    let mut gateway = client_of(&server, "gateway-secret");
    let result = gateway.call("tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(
        result["result"]["structuredContent"]["result"]["subject"],
        "gateway"
    );
    let mut reply = initialize_with(&server, Some("guess"));
    let status = reply.status;
    assert_eq!(status, 401, "{}", reply.text());
    assert_eq!(
        reply.header("www-authenticate"),
        // No metadata to name without an audience; the scopes this
        // binary's resource and prompt declare.
        Some(
            "Bearer scope=\"admin notes:read\", error=\"invalid_token\", \
             error_description=\"unknown token\""
        )
    );
}

#[test]
fn an_unreachable_authorization_server_is_a_503_not_a_401() {
    // A loopback port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = HttpServer::start(
        Server::new("auth-test", "1.0.0")
            .include_tools(["whoami"])
            .auth(Auth::issuer(format!("http://127.0.0.1:{port}")).audience(AUDIENCE)),
    );
    // An RS256 token whose key would come from that server's JWKS (base64url
    // of {"alg":"RS256","kid":"k1"}; the signature is never reached).
    let token = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.e30.c2ln";
    let mut reply = initialize_with(&server, Some(token));
    let status = reply.status;
    assert_eq!(status, 503, "{}", reply.text());
    assert_eq!(reply.header("retry-after"), Some("5"));
}

#[test]
fn settings_that_cannot_work_stop_the_server_with_the_fix() {
    let error = Server::new("auth-test", "1.0.0")
        .auth(Auth::issuer(ISSUER))
        .into_router()
        .expect_err("refused")
        .to_string();
    assert!(
        error.contains(".audience(\"https://your.host/mcp\")"),
        "{error}"
    );
    let error = Server::new("auth-test", "1.0.0")
        .auth(
            Auth::hmac(ISSUER, SECRET)
                .audience(AUDIENCE)
                .algorithms(["none"]),
        )
        .into_router()
        .expect_err("refused")
        .to_string();
    assert!(error.contains("`none` cannot be accepted"), "{error}");
    let error = Server::new("auth-test", "1.0.0")
        .auth(Auth::issuer("http://login.example.test").audience(AUDIENCE))
        .into_router()
        .expect_err("refused")
        .to_string();
    assert!(error.contains("over plain http"), "{error}");
}

fn scoped_server(auth: Auth) -> HttpServer {
    HttpServer::start(
        Server::new("auth-test", "1.0.0")
            .include_tools(["whoami", "forecast", "wipe"])
            .auth(auth),
    )
}

/// A 403 asking for `needed`.
fn assert_insufficient(mut reply: Reply, needed: &str) {
    let challenge = reply
        .header("www-authenticate")
        .unwrap_or_default()
        .to_owned();
    let body = reply.text();
    assert_eq!(reply.status, 403, "{body}");
    assert!(
        challenge.starts_with(&format!(
            "Bearer resource_metadata=\"{METADATA_URL}\", error=\"insufficient_scope\", scope=\"{needed}\""
        )),
        "{challenge}"
    );
    assert!(body.contains("needs the scope(s)"), "{body}");
}

#[test]
fn what_declares_scopes_needs_them() {
    let server = scoped_server(Auth::hmac(ISSUER, SECRET).audience(AUDIENCE));
    // `weather:read` only.
    let mut reader = client_of(&server, &sign(&claims("alice")));
    let result = reader.call(
        "tools/call",
        json!({"name": "forecast", "arguments": {"city": "Oslo"}}),
    );
    assert_eq!(result["result"]["content"][0]["text"], "sunny in Oslo");
    // Unscoped tools need nothing.
    let result = reader.call("tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(result["result"]["isError"], json!(false));
    let wipe = reader.request("tools/call", json!({"name": "wipe", "arguments": {}}));
    assert_insufficient(wipe, "admin");
    let read = reader.request("resources/read", json!({"uri": "notes://private"}));
    assert_insufficient(read, "notes:read");
    let get = reader.request("prompts/get", json!({"name": "admin_prompt"}));
    assert_insufficient(get, "admin");
    // Listing shows everything (the default), and the session lives on.
    let tools = reader.call("tools/list", json!({}));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["forecast", "whoami", "wipe"]);
    // Step-up: the same subject with a token granting `admin` keeps its
    // session and may now call the tool.
    let mut admin = claims("alice");
    admin["scope"] = json!("weather:read admin");
    reader.bearer = Some(sign(&admin));
    let result = reader.call("tools/call", json!({"name": "wipe", "arguments": {}}));
    assert_eq!(result["result"]["content"][0]["text"], "wiped");
}

#[test]
fn the_discovery_proxy_needs_the_scopes_of_the_tool_it_calls() {
    let server = HttpServer::start(
        Server::new("auth-test", "1.0.0")
            .include_tools(["whoami", "forecast", "wipe"])
            .tool_search(mcp_runtime::ToolSearch::new())
            .auth(Auth::hmac(ISSUER, SECRET).audience(AUDIENCE)),
    );
    // `weather:read` only.
    let mut reader = client_of(&server, &sign(&claims("alice")));
    let wipe = json!({"name": "call_tool", "arguments": {"name": "wipe"}});
    assert_insufficient(reader.request("tools/call", wipe.clone()), "admin");
    let forecast = json!({"name": "call_tool", "arguments": {
        "name": "forecast", "arguments": {"city": "Oslo"}
    }});
    let result = reader.call("tools/call", forecast);
    assert_eq!(result["result"]["content"][0]["text"], "sunny in Oslo");
    let mut admin = claims("alice");
    admin["scope"] = json!("weather:read admin");
    reader.bearer = Some(sign(&admin));
    let result = reader.call("tools/call", wipe);
    assert_eq!(result["result"]["content"][0]["text"], "wiped");
}

#[test]
fn required_scopes_apply_to_every_request() {
    let server = scoped_server(
        Auth::hmac(ISSUER, SECRET)
            .audience(AUDIENCE)
            .required_scopes(["mcp"]),
    );
    let reply = initialize_with(&server, Some(&sign(&claims("alice"))));
    assert_insufficient(reply, "mcp");
    let mut granted = claims("alice");
    granted["scope"] = json!("mcp weather:read");
    let mut client = client_of(&server, &sign(&granted));
    // The entry's scopes come on top of the required ones.
    let wipe = client.request("tools/call", json!({"name": "wipe", "arguments": {}}));
    assert_insufficient(wipe, "mcp admin");
}

#[test]
fn the_metadata_lists_every_declared_scope_unless_told_otherwise() {
    let server = scoped_server(Auth::hmac(ISSUER, SECRET).audience(AUDIENCE));
    let mut reply = common::http::send_raw(
        server.addr,
        b"GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(
        reply.json()["scopes_supported"],
        json!(["admin", "notes:read", "weather:read"])
    );
    let reply = initialize_with(&server, None);
    let challenge = reply.header("www-authenticate").unwrap_or_default();
    assert!(
        challenge.ends_with("scope=\"admin notes:read weather:read\""),
        "{challenge}"
    );
}

#[test]
fn lists_can_show_only_what_the_caller_may_use() {
    let server = HttpServer::start(
        Server::new("auth-test", "1.0.0")
            .include_tools(["whoami", "forecast", "wipe"])
            .list_only_permitted()
            .auth(Auth::hmac(ISSUER, SECRET).audience(AUDIENCE)),
    );
    let names = |client: &mut Client, method: &str, key: &str, field: &str| -> Vec<String> {
        let list = client.call(method, json!({}));
        list["result"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| entry[field].as_str().unwrap().to_owned())
            .collect()
    };
    let mut reader = client_of(&server, &sign(&claims("alice")));
    assert_eq!(
        names(&mut reader, "tools/list", "tools", "name"),
        ["forecast", "whoami"]
    );
    assert!(names(&mut reader, "resources/list", "resources", "uri").is_empty());
    assert!(names(&mut reader, "prompts/list", "prompts", "name").is_empty());
    let mut everything = claims("root");
    everything["scope"] = json!("weather:read admin notes:read");
    let mut root = client_of(&server, &sign(&everything));
    assert_eq!(
        names(&mut root, "tools/list", "tools", "name"),
        ["forecast", "whoami", "wipe"]
    );
    assert_eq!(
        names(&mut root, "resources/list", "resources", "uri"),
        ["notes://private"]
    );
    assert_eq!(
        names(&mut root, "prompts/list", "prompts", "name"),
        ["admin_prompt"]
    );
}
