//! The client OAuth tests' authorization server and protected server
//! (tests/client_oauth.rs, tests/client_oauth_refusals.rs), in the test's
//! process. The authorization server is an axum router on a loopback port:
//! metadata, dynamic registration, a token endpoint (authorization code with
//! PKCE, refresh, client credentials with Basic authentication, JWT bearer),
//! a resource metadata document for another server and MCP endpoints that
//! point to it; [`Behaviour`] makes it misbehave. Its authorization endpoint
//! is [`Fixture::approve`], which the test's authorizer ([`Browser`]), the
//! "browser", calls. The protected MCP server (`Server::auth` with HS256
//! tokens this authorization server signs) serves `forecast`, `wipe` and
//! `forbidden`: those tools are in tests/common/oauth_tools.rs, which a test
//! that starts it includes (a `#[tool]` is served by every binary that
//! compiles it).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::Server;
use mcp_runtime::auth::Auth;
use mcp_runtime::client::oauth::{Authorizer, BoxFuture, OAuth, OAuthError, Url};
use mcp_runtime::client::{Client, ClientError, HttpOptions};
use serde_json::{Value, json};

use super::http::HttpServer;
use super::step::within;

const SECRET: &[u8] = b"a shared secret of at least thirty-two bytes";
/// The redirect URI of the test authorizers (nothing listens there).
pub const REDIRECT: &str = "http://127.0.0.1:5173/callback";
/// A client id the authorization server no longer knows.
pub const FORGOTTEN: &str = "forgotten-client";

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// How the authorization server behaves (and misbehaves).
#[derive(Clone)]
pub struct Behaviour {
    /// The issuer its metadata names (`None`: its own).
    pub metadata_issuer: Option<String>,
    /// `code_challenge_methods_supported` (`None`: absent).
    pub pkce_methods: Option<Vec<&'static str>>,
    /// What `iss` the authorization response carries (`None`: none).
    pub iss: Option<String>,
    /// Where the authorization response is sent instead of the redirect URI.
    pub redirect_elsewhere: Option<&'static str>,
    /// The scopes it grants (others asked for are dropped).
    pub grantable: Vec<&'static str>,
    /// `expires_in` of its access tokens.
    pub expires_in: u64,
}

impl Default for Behaviour {
    fn default() -> Behaviour {
        Behaviour {
            metadata_issuer: None,
            pkce_methods: Some(vec!["S256"]),
            iss: Some(String::new()),
            redirect_elsewhere: None,
            grantable: vec!["weather:read", "admin", "offline_access"],
            expires_in: 3600,
        }
    }
}

/// A code issued, waiting for its token request.
struct Code {
    challenge: String,
    scope: String,
    resource: String,
    client_id: String,
}

/// What the authorization server saw.
#[derive(Default)]
pub struct Record {
    /// What happened, in order: `metadata`, `register`, `authorize <scope>`,
    /// `token <grant>`.
    events: Vec<String>,
    /// The `resource` of each authorization and token request.
    pub resources: Vec<String>,
    codes: HashMap<String, Code>,
    issued: u32,
    /// The client id of each authorization and token request.
    pub clients: Vec<String>,
}

/// The authorization server's state: its issuer, how it behaves, what
/// it saw.
pub struct Fixture {
    issuer: Mutex<String>,
    behaviour: Behaviour,
    pub record: Mutex<Record>,
}

/// The fixture, shared with its handlers.
pub type Shared = Arc<Fixture>;

impl Fixture {
    /// Its issuer, `http://127.0.0.1:PORT`.
    pub fn issuer(&self) -> String {
        self.issuer.lock().unwrap().clone()
    }

    fn log(&self, event: impl Into<String>) {
        self.record.lock().unwrap().events.push(event.into());
    }

    /// What happened so far, in order.
    pub fn events(&self) -> Vec<String> {
        self.record.lock().unwrap().events.clone()
    }

    /// How many events start with `prefix`.
    pub fn count(&self, prefix: &str) -> usize {
        self.events()
            .iter()
            .filter(|e| e.starts_with(prefix))
            .count()
    }

    /// The authorization endpoint, as the browser would reach it: checks
    /// PKCE, records, approves, and redirects back.
    pub fn approve(&self, url: &Url) -> Result<Url, OAuthError> {
        let query: HashMap<String, String> = url.query_pairs().into_owned().collect();
        let scope = query.get("scope").cloned().unwrap_or_default();
        self.log(format!("authorize {scope}"));
        self.record
            .lock()
            .unwrap()
            .clients
            .push(query["client_id"].clone());
        assert_eq!(query["response_type"], "code");
        assert_eq!(query["code_challenge_method"], "S256");
        assert_eq!(query["redirect_uri"], REDIRECT);
        assert_ne!(query["client_id"], FORGOTTEN, "an unknown client");
        let granted: Vec<&str> = scope
            .split_ascii_whitespace()
            .filter(|s| self.behaviour.grantable.contains(s))
            .collect();
        let mut record = self.record.lock().unwrap();
        record.resources.push(query["resource"].clone());
        record.issued += 1;
        let code = format!("code-{}", record.issued);
        record.codes.insert(
            code.clone(),
            Code {
                challenge: query["code_challenge"].clone(),
                scope: granted.join(" "),
                resource: query["resource"].clone(),
                client_id: query["client_id"].clone(),
            },
        );
        let base = self.behaviour.redirect_elsewhere.unwrap_or(REDIRECT);
        let mut back = Url::parse(base).unwrap();
        back.query_pairs_mut()
            .append_pair("code", &code)
            .append_pair("state", &query["state"]);
        match &self.behaviour.iss {
            Some(iss) if iss.is_empty() => {
                back.query_pairs_mut().append_pair("iss", &self.issuer());
            }
            Some(iss) => {
                back.query_pairs_mut().append_pair("iss", iss);
            }
            None => {}
        }
        Ok(back)
    }
}

async fn metadata(State(fixture): State<Shared>) -> Response {
    fixture.log("metadata");
    let issuer = fixture.issuer();
    let mut document = json!({
        "issuer": fixture.behaviour.metadata_issuer.clone().unwrap_or_else(|| issuer.clone()),
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "scopes_supported": fixture.behaviour.grantable,
        "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
        "authorization_response_iss_parameter_supported": fixture.behaviour.iss.is_some(),
    });
    if let Some(methods) = &fixture.behaviour.pkce_methods {
        document["code_challenge_methods_supported"] = json!(methods);
    }
    reply(StatusCode::OK, document)
}

async fn register(State(fixture): State<Shared>, body: String) -> Response {
    fixture.log("register");
    let client_id = format!("client-of-{}", fixture.issuer());
    let request: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(request["application_type"], "native");
    assert_eq!(request["redirect_uris"], json!([REDIRECT]));
    let grants = request["grant_types"].as_array().unwrap();
    assert!(grants.contains(&json!("refresh_token")), "{request}");
    reply(
        StatusCode::CREATED,
        json!({"client_id": client_id, "token_endpoint_auth_method": "none"}),
    )
}

/// A protected resource metadata document for another server.
async fn foreign_resource_metadata(State(fixture): State<Shared>) -> Response {
    fixture.log("resource metadata");
    reply(
        StatusCode::OK,
        json!({"resource": "https://other.example.com/mcp", "authorization_servers": [fixture.issuer()]}),
    )
}

/// An MCP endpoint that points to that document, and notes any token
/// sent to it.
async fn decoy_endpoint(State(fixture): State<Shared>, headers: HeaderMap) -> Response {
    if headers.contains_key("authorization") {
        fixture.log("token sent to the decoy");
    }
    let challenge = format!(
        "Bearer resource_metadata=\"{}/foreign-resource\"",
        fixture.issuer()
    );
    let mut response = reply(StatusCode::UNAUTHORIZED, json!({"error": "invalid_token"}));
    response
        .headers_mut()
        .insert("www-authenticate", challenge.parse().unwrap());
    response
}

/// An MCP endpoint whose challenge names no metadata document.
async fn bare_endpoint() -> Response {
    let mut response = reply(StatusCode::UNAUTHORIZED, json!({"error": "invalid_token"}));
    response
        .headers_mut()
        .insert("www-authenticate", "Bearer".parse().unwrap());
    response
}

/// Anything else: 404, noted.
async fn missing(State(fixture): State<Shared>, uri: axum::http::Uri) -> Response {
    fixture.log(format!("missing {}", uri.path()));
    reply(StatusCode::NOT_FOUND, json!({"error": "not_found"}))
}

fn reply(status: StatusCode, body: Value) -> Response {
    let json = [(axum::http::header::CONTENT_TYPE, "application/json")];
    (status, json, body.to_string()).into_response()
}

fn oauth_error(error: &str) -> Response {
    reply(StatusCode::BAD_REQUEST, json!({"error": error}))
}

async fn token(State(fixture): State<Shared>, headers: HeaderMap, body: String) -> Response {
    let form: HashMap<String, String> = Url::parse(&format!("http://form/?{body}"))
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect();
    let grant = form.get("grant_type").cloned().unwrap_or_default();
    fixture.log(format!("token {grant}"));
    if let Some(client_id) = form.get("client_id") {
        fixture
            .record
            .lock()
            .unwrap()
            .clients
            .push(client_id.clone());
    }
    let resource = form.get("resource").cloned().unwrap_or_default();
    fixture
        .record
        .lock()
        .unwrap()
        .resources
        .push(resource.clone());
    let (scope, client_id) = match grant.as_str() {
        "authorization_code" => {
            let Some(code) = fixture.record.lock().unwrap().codes.remove(&form["code"]) else {
                return oauth_error("invalid_grant");
            };
            let verifier = form.get("code_verifier").cloned().unwrap_or_default();
            use base64::Engine;
            use sha2::Digest;
            let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(sha2::Sha256::digest(verifier.as_bytes()));
            if computed != code.challenge || code.resource != resource {
                return oauth_error("invalid_grant");
            }
            (code.scope, code.client_id)
        }
        "refresh_token" => {
            if form.get("client_id").map(String::as_str) == Some(FORGOTTEN) {
                return reply(StatusCode::UNAUTHORIZED, json!({"error": "invalid_client"}));
            }
            let Some(scope) = form["refresh_token"].strip_prefix("refresh:") else {
                return oauth_error("invalid_grant");
            };
            (scope.to_owned(), form["client_id"].clone())
        }
        "client_credentials" => {
            let basic = headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            use base64::Engine;
            let expected = base64::engine::general_purpose::STANDARD.encode("service:s3cret%2B");
            if basic != format!("Basic {expected}") {
                return oauth_error("invalid_client");
            }
            (
                form.get("scope").cloned().unwrap_or_default(),
                "service".to_owned(),
            )
        }
        "urn:ietf:params:oauth:grant-type:jwt-bearer" => {
            if form.get("assertion").map(String::as_str) != Some("workload-jwt") {
                return oauth_error("invalid_grant");
            }
            (
                form.get("scope").cloned().unwrap_or_default(),
                form["client_id"].clone(),
            )
        }
        _ => return oauth_error("unsupported_grant_type"),
    };
    let claims = json!({
        "iss": fixture.issuer(), "aud": resource, "sub": "user", "client_id": client_id,
        "scope": scope, "exp": now() + fixture.behaviour.expires_in,
        "jti": fixture.count("token "),
    });
    let access_token = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(SECRET),
    )
    .unwrap();
    reply(
        StatusCode::OK,
        json!({
            "access_token": access_token, "token_type": "Bearer",
            "expires_in": fixture.behaviour.expires_in, "scope": scope,
            "refresh_token": format!("refresh:{scope}"),
        }),
    )
}

/// The authorization server and, behind it, a protected MCP server.
pub struct Setup {
    pub fixture: Shared,
    pub url: String,
    _authorization_server: HttpServer,
    _server: HttpServer,
}

/// The authorization server alone, on a loopback port.
pub fn authorization_server(behaviour: Behaviour) -> (Shared, HttpServer) {
    let fixture = Arc::new(Fixture {
        issuer: Mutex::new(String::new()),
        behaviour,
        record: Mutex::new(Record::default()),
    });
    let router = axum::Router::new()
        .route("/.well-known/oauth-authorization-server", get(metadata))
        .route("/register", post(register))
        .route("/token", post(token))
        .route("/foreign-resource", get(foreign_resource_metadata))
        .route("/decoy/mcp", post(decoy_endpoint))
        .route("/bare/mcp", post(bare_endpoint))
        .route(
            "/.well-known/oauth-protected-resource",
            get(foreign_resource_metadata),
        )
        .fallback(missing)
        .with_state(Arc::clone(&fixture));
    let authorization_server = HttpServer::start_router(router);
    *fixture.issuer.lock().unwrap() = format!("http://{}", authorization_server.addr);
    (fixture, authorization_server)
}

/// The protected MCP server, its tokens issued by `issuer`.
pub fn protected(issuer: &str, url: &str) -> Server {
    let auth = Auth::hmac(issuer, SECRET)
        .audience(url)
        .scopes_supported(["weather:read"]);
    Server::new("protected", "1.0.0")
        .include_tools(["forecast", "wipe", "forbidden"])
        .auth(auth)
}

/// The authorization server and the protected server, started.
pub fn setup(behaviour: Behaviour) -> Setup {
    let (fixture, authorization_server) = authorization_server(behaviour);
    let issuer = fixture.issuer();
    let mut url = String::new();
    let server = HttpServer::start_with(|addr| {
        url = format!("http://{addr}/mcp");
        protected(&issuer, &url)
    });
    Setup {
        fixture,
        url,
        _authorization_server: authorization_server,
        _server: server,
    }
}

/// The browser: straight to the fixture's authorization endpoint.
pub struct Browser(pub Shared);

impl Authorizer for Browser {
    fn redirect_uri(&self) -> String {
        REDIRECT.into()
    }

    fn authorize(&self, url: Url) -> BoxFuture<'_, Result<Url, OAuthError>> {
        Box::pin(async move { self.0.approve(&url) })
    }
}

/// A user who never authorizes.
pub struct Away;

impl Authorizer for Away {
    fn redirect_uri(&self) -> String {
        REDIRECT.into()
    }

    fn authorize(&self, _: Url) -> BoxFuture<'_, Result<Url, OAuthError>> {
        Box::pin(async { Err(OAuthError::Authorizer("nobody is there".into())) })
    }
}

/// Client options for the protected server, with `oauth`.
pub fn options(setup: &Setup, oauth: OAuth) -> HttpOptions {
    options_at(&setup.url, oauth)
}

/// The client's options for the server at `url` (another path of the
/// fixture's, say), with `oauth`.
pub fn options_at(url: &str, oauth: OAuth) -> HttpOptions {
    HttpOptions::new(url)
        .timeout(Duration::from_secs(20))
        .oauth(oauth)
}

/// Connects to the protected server with `oauth`.
pub async fn connect(setup: &Setup, oauth: OAuth) -> Result<Client, ClientError> {
    within(Client::connect_http(options(setup, oauth))).await
}

/// Connects, expecting an OAuth error.
pub async fn refused(setup: &Setup, oauth: OAuth) -> OAuthError {
    refused_at(&setup.url, oauth).await
}

/// Connects to the server at `url`, expecting an OAuth error.
pub async fn refused_at(url: &str, oauth: OAuth) -> OAuthError {
    match within(Client::connect_http(options_at(url, oauth))).await {
        Ok(_) => panic!("connected"),
        Err(error) => oauth_error_of(error),
    }
}

/// The OAuth error inside a client error (a panic for any other).
pub fn oauth_error_of(error: ClientError) -> OAuthError {
    match error {
        ClientError::OAuth(error) => error,
        other => panic!("not an OAuth error: {other}"),
    }
}

/// A scratch token file for this test.
pub fn token_file(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "mcp-client-oauth-{name}-{}.json",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    path
}
