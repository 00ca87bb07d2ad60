//! The OAuth resource server (`Server::auth`) against a real authorization
//! server: the npm package `oidc-provider` (tests/oidc/provider.mjs,
//! installed by tests/oidc/install), started on loopback by each test. The
//! first test to start one runs that script when the install is missing or
//! older than its pins (tests/common/prerequisite.rs: once, under a lock);
//! if it cannot install it, every test here fails with the script's output
//! and what to install by hand.
//!
//! The failure table of the issue, each row with its status and its
//! `WWW-Authenticate` challenge: no token, expired, wrong audience, wrong
//! issuer (a second provider), bad signature, `alg: none`, an unknown key,
//! a missing scope (403), another subject's session id (404). Then the happy
//! path, key rotation without a restart, opaque tokens by introspection, and
//! the Protected Resource Metadata at both of its addresses.

mod common;

use std::collections::BTreeMap;
use std::net::SocketAddr;

use common::http::{self, Client, HttpServer, Reply};
use common::oidc::{self, CLIENT, OTHER_CLIENT, Provider, SERVER_CLIENT};
use mcp_runtime::auth::Auth;
use mcp_runtime::{Context, Server, tool};
use serde_json::{Value, json};

/// The forecast for a city (the token needs `weather:read`).
#[tool(scopes = ["weather:read"])]
async fn forecast(city: String) -> String {
    format!("sunny in {city}")
}

/// Who is calling: the subject, client and scopes of the token.
#[tool]
async fn whoami(ctx: Context) -> String {
    common::caller::caller(&ctx)
}

const SCOPE: &str = "weather:read";

/// This server's canonical URI, the audience its tokens must name.
fn audience(addr: SocketAddr) -> String {
    format!("http://{addr}/mcp")
}

/// Where the Protected Resource Metadata of the server at `addr` is.
fn metadata_url(addr: SocketAddr) -> String {
    format!("http://{addr}/.well-known/oauth-protected-resource/mcp")
}

/// A server trusting `provider`'s tokens, with `configure` applied to its
/// `Auth` (whose audience names the server's port).
fn secured_with(provider: &Provider, configure: impl FnOnce(Auth) -> Auth) -> HttpServer {
    let issuer = provider.issuer().to_owned();
    HttpServer::start_with(move |addr| {
        Server::new("auth-provider-test", "1.0.0").auth(configure(
            Auth::issuer(issuer)
                .audience(audience(addr))
                .scopes_supported([SCOPE]),
        ))
    })
}

fn secured(provider: &Provider) -> HttpServer {
    secured_with(provider, |auth| auth)
}

/// A client of `server` presenting `token`.
fn client(server: &HttpServer, token: &str) -> Client {
    let mut client = server.client();
    client.bearer = Some(token.to_owned());
    client
}

fn initialize_message() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "auth-provider-test", "version": "0"}}
    })
}

/// `initialize` presenting `token` (none: no `Authorization` header).
fn initialize_with(server: &HttpServer, token: Option<&str>) -> Reply {
    let mut client = server.client();
    client.bearer = token.map(str::to_owned);
    client.post(&initialize_message())
}

/// The scheme and the parameters of a `WWW-Authenticate` challenge (one
/// challenge; parameters `name=token` or `name="quoted string"`).
fn challenge(reply: &Reply) -> (String, BTreeMap<String, String>) {
    let header = reply
        .header("www-authenticate")
        .unwrap_or_else(|| panic!("no WWW-Authenticate on a {} reply", reply.status));
    let (scheme, mut rest) = header.split_once(' ').unwrap_or((header, ""));
    let mut params = BTreeMap::new();
    loop {
        rest = rest.trim_start_matches([' ', ',']);
        let Some((name, after)) = rest.split_once('=') else {
            assert!(rest.is_empty(), "unparsed {rest:?} in {header:?}");
            break;
        };
        let (value, after) = if let Some(quoted) = after.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let end = loop {
                match chars.next() {
                    Some((_, '\\')) => value.push(chars.next().expect("an escaped char").1),
                    Some((i, '"')) => break i + 1,
                    Some((_, c)) => value.push(c),
                    None => panic!("an unterminated string in {header:?}"),
                }
            };
            (value, &quoted[end..])
        } else {
            let end = after.find(',').unwrap_or(after.len());
            (after[..end].trim().to_owned(), &after[end..])
        };
        let previous = params.insert(name.trim().to_ascii_lowercase(), value);
        assert!(previous.is_none(), "{name} twice in {header:?}");
        rest = after;
    }
    (scheme.to_owned(), params)
}

/// A 401 whose challenge names the metadata and the scopes; with
/// `error="invalid_token"` and a reason when a token was presented (the
/// reason and the body never hold the token).
fn assert_unauthorized(mut reply: Reply, addr: SocketAddr, token: Option<&str>, row: &str) {
    let body = reply.text();
    assert_eq!(reply.status, 401, "{row}: {body}");
    let (scheme, params) = challenge(&reply);
    assert_eq!(scheme, "Bearer", "{row}");
    assert_eq!(
        params.get("resource_metadata"),
        Some(&metadata_url(addr)),
        "{row}: {params:?}"
    );
    assert_eq!(
        params.get("scope").map(String::as_str),
        Some(SCOPE),
        "{row}: {params:?}"
    );
    let Some(token) = token else {
        assert_eq!(params.get("error"), None, "{row}: {params:?}");
        return;
    };
    assert_eq!(
        params.get("error").map(String::as_str),
        Some("invalid_token"),
        "{row}: {params:?}"
    );
    let description = params
        .get("error_description")
        .unwrap_or_else(|| panic!("{row}: no error_description in {params:?}"));
    assert!(!description.is_empty(), "{row}");
    assert!(
        !description.contains(token),
        "{row}: the token is in {description:?}"
    );
    assert!(
        !body.contains(token),
        "{row}: the token is in the body {body:?}"
    );
}

/// The result of a tool call that succeeded, as its text.
fn tool_text(reply: &mut Reply) -> String {
    assert_eq!(reply.status, 200);
    let response = reply.replies().pop().expect("a response");
    let result = &response["result"];
    assert_ne!(result["isError"], true, "{response}");
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {response}"))
        .to_owned()
}

fn call(client: &mut Client, name: &str, arguments: Value) -> Reply {
    client.request("tools/call", json!({"name": name, "arguments": arguments}))
}

/// Every JWT row of the failure table: 401, `invalid_token`.
#[test]
fn invalid_tokens_are_refused_with_401_invalid_token() {
    let provider = Provider::start();
    let server = secured(&provider);
    let addr = server.addr;
    let mine = audience(addr);
    let good = provider.token(CLIENT, SCOPE, &mine);

    assert_unauthorized(initialize_with(&server, None), addr, None, "no token");

    let expired = provider.expired_token(CLIENT, SCOPE, &mine);
    let elsewhere = provider.token(CLIENT, SCOPE, "http://127.0.0.1:1/mcp");
    let stranger = Provider::start();
    let foreign = stranger.token(CLIENT, SCOPE, &mine);
    let unknown_kid = oidc::with_header(&good, |header| header["kid"] = json!("no-such-key"));
    let rows = [
        ("expired two minutes ago", expired),
        ("audience of another server", elsewhere),
        ("another issuer", foreign),
        ("tampered signature", oidc::tampered_signature(&good)),
        ("alg: none", oidc::alg_none(&good)),
        ("a key the issuer never published", unknown_kid),
        ("not a JWT", "not-a-token".to_owned()),
    ];
    for (row, token) in &rows {
        assert_unauthorized(
            initialize_with(&server, Some(token)),
            addr,
            Some(token),
            row,
        );
    }

    // The good token still works after all that.
    assert_eq!(initialize_with(&server, Some(&good)).status, 200);
}

/// Every request needs the token, not only `initialize`: a session opened
/// with one does not let a request without one through.
#[test]
fn every_request_of_a_session_needs_the_token() {
    let provider = Provider::start();
    let server = secured(&provider);
    let token = provider.token(CLIENT, SCOPE, &audience(server.addr));
    let mut client = client(&server, &token);
    client.initialize("2025-11-25");
    let session = client.session.clone().expect("a session id");

    let bare = [
        ("Content-Type", "application/json"),
        http::ACCEPT_BOTH,
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let ping = json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}).to_string();
    let reply = http::send(server.addr, "POST", &bare, ping.as_bytes());
    assert_unauthorized(reply, server.addr, None, "POST in a session, no token");
    let reply = http::send(server.addr, "DELETE", &bare[2..], b"");
    assert_unauthorized(reply, server.addr, None, "DELETE of a session, no token");

    let mut reply = client.request("ping", json!({}));
    let body = reply.text();
    assert_eq!(reply.status, 200, "{body}");
}

/// A token without the tool's scope: 403 `insufficient_scope` naming the
/// scope needed; the rest of the session works.
#[test]
fn a_missing_scope_is_refused_with_403_insufficient_scope() {
    let provider = Provider::start();
    let server = secured(&provider);
    let token = provider.token(CLIENT, "admin", &audience(server.addr));
    let mut client = client(&server, &token);
    client.initialize("2025-11-25");

    let listed = client.call("tools/list", json!({}));
    let names: Vec<_> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|tool| tool["name"].clone())
        .collect();
    assert_eq!(
        names,
        ["forecast", "whoami"],
        "every tool is listed by default"
    );

    let mut reply = call(&mut client, "forecast", json!({"city": "Oslo"}));
    let body = reply.text();
    assert_eq!(reply.status, 403, "{body}");
    let (scheme, params) = challenge(&reply);
    assert_eq!(scheme, "Bearer");
    assert_eq!(
        params.get("error").map(String::as_str),
        Some("insufficient_scope"),
        "{params:?}"
    );
    assert_eq!(
        params.get("scope").map(String::as_str),
        Some(SCOPE),
        "{params:?}"
    );
    assert_eq!(
        params.get("resource_metadata"),
        Some(&metadata_url(server.addr)),
        "{params:?}"
    );
    assert!(!body.contains(&token));

    let who = tool_text(&mut call(&mut client, "whoami", json!({})));
    assert_eq!(who, format!("{CLIENT} {CLIENT} [admin]"));
}

/// A session belongs to the subject that opened it: another subject's
/// token with its id gets 404, as an unknown session would; the owner
/// goes on.
#[test]
fn another_subjects_session_id_is_not_found() {
    let provider = Provider::start();
    let server = secured(&provider);
    let resource = audience(server.addr);
    let mut owner = client(&server, &provider.token(CLIENT, SCOPE, &resource));
    owner.initialize("2025-11-25");

    let mut intruder = owner.clone();
    intruder.bearer = Some(provider.token(OTHER_CLIENT, SCOPE, &resource));
    let mut reply = call(&mut intruder, "whoami", json!({}));
    let body = reply.text();
    assert_eq!(reply.status, 404, "{body}");
    let mut reply = intruder.request("ping", json!({}));
    let body = reply.text();
    assert_eq!(reply.status, 404, "{body}");

    let who = tool_text(&mut call(&mut owner, "whoami", json!({})));
    assert_eq!(who, format!("{CLIENT} {CLIENT} [{SCOPE}]"));
}

/// The happy path: initialize, tools/list, a scoped tool, the caller's
/// identity in the handler, and the session closed with DELETE.
#[test]
fn a_token_with_the_scope_calls_the_scoped_tool() {
    let provider = Provider::start();
    let server = secured(&provider);
    let token = provider.token(OTHER_CLIENT, "weather:read admin", &audience(server.addr));
    let mut client = client(&server, &token);
    let init = client.initialize("2025-11-25");
    assert_eq!(init["serverInfo"]["name"], "auth-provider-test");
    let listed = client.call("tools/list", json!({}));
    assert_eq!(
        listed["result"]["tools"].as_array().map(Vec::len),
        Some(2),
        "{listed}"
    );

    let forecast = tool_text(&mut call(&mut client, "forecast", json!({"city": "Oslo"})));
    assert_eq!(forecast, "sunny in Oslo");
    let who = tool_text(&mut call(&mut client, "whoami", json!({})));
    assert_eq!(
        who,
        format!("{OTHER_CLIENT} {OTHER_CLIENT} [weather:read admin]")
    );

    let session = client.session.clone().expect("a session id");
    let authorization = format!("Bearer {token}");
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("Authorization", authorization.as_str()),
    ];
    assert_eq!(http::send(server.addr, "DELETE", &headers, b"").status, 204);
}

/// Key rotation: after the provider signs with a new key, its tokens are
/// accepted without restarting the server (which refetches the keys when
/// a token names one it does not know), and so are the old key's while
/// the provider still publishes it.
#[test]
fn rotated_keys_are_picked_up_without_a_restart() {
    let provider = Provider::start();
    let server = secured(&provider);
    let resource = audience(server.addr);
    let before = provider.token(CLIENT, SCOPE, &resource);
    assert_eq!(initialize_with(&server, Some(&before)).status, 200);

    let kid = provider.rotate_keys();
    let after = provider.token(CLIENT, SCOPE, &resource);
    assert_eq!(oidc::header(&after)["kid"], kid.as_str());
    let mut client = client(&server, &after);
    client.initialize("2025-11-25");
    let forecast = tool_text(&mut call(&mut client, "forecast", json!({"city": "Rome"})));
    assert_eq!(forecast, "sunny in Rome");
    assert_eq!(initialize_with(&server, Some(&before)).status, 200);

    let kid = provider.rotate_keys_dropping_old();
    let latest = provider.token(CLIENT, SCOPE, &resource);
    assert_eq!(oidc::header(&latest)["kid"], kid.as_str());
    assert_eq!(initialize_with(&server, Some(&latest)).status, 200);
}

/// Opaque tokens checked by introspection: an active one passes with its
/// scopes (the subject of a client-credentials token is its client, which
/// oidc-provider gives as `client_id` only); revoked, expired, another
/// server's or unknown ones get 401.
#[test]
fn opaque_tokens_are_checked_by_introspection() {
    let provider = Provider::opaque();
    let server = secured_with(&provider, |auth| {
        auth.introspect(SERVER_CLIENT, oidc::secret(SERVER_CLIENT))
    });
    let addr = server.addr;
    let mine = audience(addr);

    let token = provider.token(CLIENT, SCOPE, &mine);
    let mut scoped = client(&server, &token);
    scoped.initialize("2025-11-25");
    let who = tool_text(&mut call(&mut scoped, "whoami", json!({})));
    assert_eq!(who, format!("{CLIENT} {CLIENT} [{SCOPE}]"));
    let forecast = tool_text(&mut call(&mut scoped, "forecast", json!({"city": "Lima"})));
    assert_eq!(forecast, "sunny in Lima");

    let unscoped = client(&server, &provider.token(CLIENT, "", &mine));
    let mut unscoped = unscoped;
    unscoped.initialize("2025-11-25");
    let mut reply = call(&mut unscoped, "forecast", json!({"city": "Lima"}));
    let body = reply.text();
    assert_eq!(reply.status, 403, "{body}");

    // Revoked before the server ever saw it (a verdict it saw is cached).
    let revoked = provider.token(CLIENT, SCOPE, &mine);
    provider.revoke(CLIENT, &revoked);
    let expired = provider.expired_token(CLIENT, SCOPE, &mine);
    let elsewhere = provider.token(CLIENT, SCOPE, "http://127.0.0.1:1/mcp");
    let rows = [
        ("revoked", revoked),
        ("expired", expired),
        ("audience of another server", elsewhere),
        (
            "never issued",
            "Rc3gYj1Dz0J1ZC0r5c4Hn3cP5fZ6nqvI4gR2oQ9f1aB".to_owned(),
        ),
    ];
    for (row, token) in &rows {
        assert_unauthorized(
            initialize_with(&server, Some(token)),
            addr,
            Some(token),
            row,
        );
    }
}

/// The Protected Resource Metadata (RFC 9728), at the path-suffixed
/// address the 401 names and at the plain one, without a token.
#[test]
fn the_protected_resource_metadata_is_served_at_both_addresses() {
    let provider = Provider::start();
    let server = secured(&provider);
    let expected = json!({
        "resource": audience(server.addr),
        "authorization_servers": [provider.issuer()],
        "scopes_supported": [SCOPE],
        "bearer_methods_supported": ["header"],
    });
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let mut reply = http::send_to(server.addr, "GET", path, &[], b"");
        assert_eq!(reply.status, 200, "GET {path}");
        assert!(
            reply.content_type().starts_with("application/json"),
            "GET {path}"
        );
        let document = reply.json();
        for (name, value) in expected.as_object().unwrap() {
            assert_eq!(&document[name], value, "{name} at {path}: {document}");
        }
    }
}

// --- The provider itself ------------------------------------------------------

/// The provider issues what the table assumes: RS256 JWTs typed `at+jwt`
/// with the subject, scope, client, issuer and audience asked for, signed
/// with a published key; the forgeries differ from it as intended.
#[test]
fn the_provider_issues_jwt_access_tokens_for_a_resource() {
    let provider = Provider::start();
    let resource = "http://127.0.0.1:1/mcp";
    let token = provider.token(CLIENT, SCOPE, resource);
    let header = oidc::header(&token);
    assert_eq!(header["alg"], "RS256", "{header}");
    assert_eq!(header["typ"], "at+jwt", "{header}");
    let claims = oidc::claims(&token);
    assert_eq!(claims["sub"], CLIENT, "{claims}");
    assert_eq!(claims["client_id"], CLIENT, "{claims}");
    assert_eq!(claims["scope"], SCOPE, "{claims}");
    assert_eq!(claims["iss"], provider.issuer(), "{claims}");
    assert_eq!(claims["aud"], resource, "{claims}");
    let lifetime = claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap();
    assert_eq!(lifetime, 3600, "{claims}");
    let jwks = provider.jwks();
    assert_eq!(jwks["keys"][0]["kid"], header["kid"], "{jwks}");

    let other = oidc::claims(&provider.token(OTHER_CLIENT, "weather:read admin", resource));
    assert_eq!(other["sub"], OTHER_CLIENT, "{other}");
    assert_eq!(other["scope"], "weather:read admin", "{other}");
    let unscoped = oidc::claims(&provider.token(CLIENT, "", resource));
    assert_eq!(unscoped.get("scope"), None, "{unscoped}");

    let (status, refused) = provider.token_request(CLIENT, "", "https://example.com/mcp");
    assert_eq!((status, &refused["error"]), (400, &json!("invalid_target")));

    let tampered = oidc::tampered_signature(&token);
    assert_ne!(tampered, token);
    assert_eq!(oidc::claims(&tampered), claims);
    assert_eq!(oidc::header(&tampered), header);
    let none = oidc::alg_none(&token);
    assert_eq!(oidc::header(&none)["alg"], "none");
    assert_eq!(oidc::claims(&none), claims);
    assert!(none.ends_with('.'), "{none}");
}

/// Expired tokens, key rotation and opaque tokens, as the provider makes
/// them.
#[test]
fn the_provider_expires_rotates_and_introspects() {
    let provider = Provider::start();
    let resource = "http://127.0.0.1:1/mcp";
    let expired = oidc::claims(&provider.expired_token(CLIENT, SCOPE, resource));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let exp = expired["exp"].as_i64().unwrap();
    assert!(
        (now - 125..=now - 115).contains(&exp),
        "exp {exp}, now {now}"
    );

    let before = oidc::header(&provider.token(CLIENT, "", resource))["kid"].clone();
    let kid = provider.rotate_keys();
    let after = oidc::header(&provider.token(CLIENT, "", resource))["kid"].clone();
    assert_eq!(after, kid.as_str());
    assert_ne!(after, before);
    let kids: Vec<_> = provider.jwks()["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|key| key["kid"].clone())
        .collect();
    assert_eq!(kids, [after.clone(), before]);
    let dropped = provider.rotate_keys_dropping_old();
    assert_eq!(provider.jwks()["keys"].as_array().unwrap().len(), 1);
    assert_eq!(provider.jwks()["keys"][0]["kid"], dropped.as_str());

    let provider = Provider::opaque();
    let token = provider.token(CLIENT, SCOPE, resource);
    assert_eq!(token.split('.').count(), 1, "not a JWT: {token}");
    let answer = provider.introspect(&token);
    assert_eq!(answer["active"], true, "{answer}");
    assert_eq!(answer["client_id"], CLIENT, "{answer}");
    assert_eq!(answer["aud"], resource, "{answer}");
    assert_eq!(answer["scope"], SCOPE, "{answer}");
    provider.revoke(CLIENT, &token);
    assert_eq!(provider.introspect(&token)["active"], false);
    let expired = provider.expired_token(CLIENT, SCOPE, resource);
    assert_eq!(provider.introspect(&expired)["active"], false);
}
