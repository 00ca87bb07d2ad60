//! The client's OAuth (`mcp_runtime::client::oauth`) end to end, in this
//! process: a small authorization server (an axum router on a loopback
//! port: metadata, dynamic registration, token endpoint; its
//! authorization endpoint approves in the test's authorizer, the
//! "browser") and our own protected server (`Server::auth` with HS256
//! tokens). The happy paths (authorization code with PKCE and `resource`,
//! step-up, refresh, a file store reused, client credentials), and issue
//! 28's broken or malicious authorization servers: each refused with a
//! clear error, and no token issued or sent where it does not belong.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use common::http::HttpServer;
use common::step::within;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::auth::Auth;
use mcp_runtime::client::oauth::{
    Authorizer, BoxFuture, FileTokenStore, LoopbackAuthorizer, OAuth, OAuthError, RegistrationKey,
    StoredRegistration, StoredToken, TokenKey, TokenStore, Url,
};
use mcp_runtime::client::{Client, ClientError, HttpOptions};
use mcp_runtime::{Server, tool};
use serde_json::{Value, json};

const SECRET: &[u8] = b"a shared secret of at least thirty-two bytes";
const REDIRECT: &str = "http://127.0.0.1:5173/callback";
/// A client id the authorization server no longer knows.
const FORGOTTEN: &str = "forgotten-client";

/// The weather in a city.
#[tool(read_only, scopes = ["weather:read"])]
async fn forecast(city: String) -> String {
    format!("sunny in {city}")
}

/// Wipes everything.
#[tool(destructive, scopes = ["admin"])]
async fn wipe() -> String {
    "wiped".into()
}

/// Needs a scope nobody is granted.
#[tool(scopes = ["never"])]
async fn forbidden() -> String {
    "unreachable".into()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// How the authorization server behaves (and misbehaves).
#[derive(Clone)]
struct Behaviour {
    /// The issuer its metadata names (`None`: its own).
    metadata_issuer: Option<String>,
    /// `code_challenge_methods_supported` (`None`: absent).
    pkce_methods: Option<Vec<&'static str>>,
    /// What `iss` the authorization response carries (`None`: none).
    iss: Option<String>,
    /// Where the authorization response is sent instead of the redirect URI.
    redirect_elsewhere: Option<&'static str>,
    /// The scopes it grants (others asked for are dropped).
    grantable: Vec<&'static str>,
    /// `expires_in` of its access tokens.
    expires_in: u64,
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

#[derive(Default)]
struct Record {
    /// What happened, in order: `metadata`, `register`, `authorize <scope>`,
    /// `token <grant>`.
    events: Vec<String>,
    /// The `resource` of each authorization and token request.
    resources: Vec<String>,
    codes: HashMap<String, Code>,
    issued: u32,
    /// The client id of each authorization and token request.
    clients: Vec<String>,
}

struct Fixture {
    issuer: Mutex<String>,
    behaviour: Behaviour,
    record: Mutex<Record>,
}

type Shared = Arc<Fixture>;

impl Fixture {
    fn issuer(&self) -> String {
        self.issuer.lock().unwrap().clone()
    }

    fn log(&self, event: impl Into<String>) {
        self.record.lock().unwrap().events.push(event.into());
    }

    fn events(&self) -> Vec<String> {
        self.record.lock().unwrap().events.clone()
    }

    fn count(&self, prefix: &str) -> usize {
        self.events()
            .iter()
            .filter(|e| e.starts_with(prefix))
            .count()
    }

    /// The authorization endpoint, as the browser would reach it: checks
    /// PKCE, records, approves, and redirects back.
    fn approve(&self, url: &Url) -> Result<Url, OAuthError> {
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
struct Setup {
    fixture: Shared,
    url: String,
    _authorization_server: HttpServer,
    _server: HttpServer,
}

/// The authorization server alone, on a loopback port.
fn authorization_server(behaviour: Behaviour) -> (Shared, HttpServer) {
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
fn protected(issuer: &str, url: &str) -> Server {
    let auth = Auth::hmac(issuer, SECRET)
        .audience(url)
        .scopes_supported(["weather:read"]);
    Server::new("protected", "1.0.0")
        .include_tools(["forecast", "wipe", "forbidden"])
        .auth(auth)
}

fn setup(behaviour: Behaviour) -> Setup {
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
struct Browser(Shared);

impl Authorizer for Browser {
    fn redirect_uri(&self) -> String {
        REDIRECT.into()
    }

    fn authorize(&self, url: Url) -> BoxFuture<'_, Result<Url, OAuthError>> {
        Box::pin(async move { self.0.approve(&url) })
    }
}

/// A user who never authorizes.
struct Away;

impl Authorizer for Away {
    fn redirect_uri(&self) -> String {
        REDIRECT.into()
    }

    fn authorize(&self, _: Url) -> BoxFuture<'_, Result<Url, OAuthError>> {
        Box::pin(async { Err(OAuthError::Authorizer("nobody is there".into())) })
    }
}

fn options(setup: &Setup, oauth: OAuth) -> HttpOptions {
    HttpOptions::new(&setup.url)
        .timeout(Duration::from_secs(20))
        .oauth(oauth)
}

async fn connect(setup: &Setup, oauth: OAuth) -> Result<Client, ClientError> {
    within(Client::connect_http(options(setup, oauth))).await
}

/// Connects, expecting an OAuth error.
async fn refused(setup: &Setup, oauth: OAuth) -> OAuthError {
    match connect(setup, oauth).await {
        Ok(_) => panic!("connected"),
        Err(error) => oauth_error_of(error),
    }
}

fn oauth_error_of(error: ClientError) -> OAuthError {
    match error {
        ClientError::OAuth(error) => error,
        other => panic!("not an OAuth error: {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authorization_code_then_step_up() {
    let setup = setup(Behaviour::default());
    let oauth = OAuth::authorization_code(Browser(Arc::clone(&setup.fixture)));
    let client = connect(&setup, oauth).await.unwrap();
    let result = within(client.call_tool("forecast", json!({"city": "Oslo"})))
        .await
        .unwrap();
    assert!(!result.is_error, "{result:?}");
    // The challenge's scope, with offline_access (the server lists it).
    assert_eq!(
        setup.fixture.events(),
        [
            "metadata",
            "register",
            "authorize weather:read offline_access",
            "token authorization_code"
        ]
    );
    // admin: a 403 insufficient_scope, then a second authorization asking
    // for what was granted as well, then the call again.
    let result = within(client.call_tool("wipe", json!({}))).await.unwrap();
    assert!(!result.is_error, "{result:?}");
    let authorizations: Vec<_> = setup
        .fixture
        .events()
        .into_iter()
        .filter(|e| e.starts_with("authorize"))
        .collect();
    assert_eq!(authorizations.len(), 2, "{authorizations:?}");
    for scope in ["admin", "weather:read", "offline_access"] {
        assert!(authorizations[1].contains(scope), "{authorizations:?}");
    }
    // Registered once; the same canonical resource in every request.
    assert_eq!(setup.fixture.count("register"), 1);
    let resources = setup.fixture.record.lock().unwrap().resources.clone();
    assert_eq!(resources.len(), 4);
    assert!(resources.iter().all(|r| r == &setup.url), "{resources:?}");
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_are_refreshed_and_kept_in_a_file() {
    // Tokens that expire within the refresh margin: each use refreshes.
    let setup = setup(Behaviour {
        expires_in: 5,
        ..Behaviour::default()
    });
    let path = std::env::temp_dir().join(format!("mcp-client-oauth-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let oauth = OAuth::authorization_code(Browser(Arc::clone(&setup.fixture)))
        .token_store(FileTokenStore::new(&path));
    let client = connect(&setup, oauth).await.unwrap();
    within(client.list_tools()).await.unwrap();
    assert!(
        setup.fixture.count("token refresh_token") >= 1,
        "{:?}",
        setup.fixture.events()
    );
    assert_eq!(setup.fixture.count("authorize"), 1);
    client.close().await;
    let kept = std::fs::read_to_string(&path).unwrap();
    assert!(
        kept.contains("refresh:weather:read"),
        "the file keeps the refresh token"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // Another run, with nobody at the browser: the stored token (refreshed)
    // and the stored registration are enough.
    let again = OAuth::authorization_code(Away).token_store(FileTokenStore::new(&path));
    let client = connect(&setup, again).await.unwrap();
    within(client.list_tools()).await.unwrap();
    assert_eq!(
        setup.fixture.count("authorize"),
        1,
        "{:?}",
        setup.fixture.events()
    );
    assert_eq!(
        setup.fixture.count("register"),
        1,
        "{:?}",
        setup.fixture.events()
    );
    client.close().await;
    std::fs::remove_file(&path).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_credentials_with_basic_authentication() {
    let setup = setup(Behaviour::default());
    // The secret is form-encoded in the Basic header (RFC 6749 2.3.1).
    let oauth = OAuth::client_credentials("service", "s3cret+").scopes(["weather:read"]);
    let client = connect(&setup, oauth).await.unwrap();
    let result = within(client.call_tool("forecast", json!({"city": "Rome"})))
        .await
        .unwrap();
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        setup.fixture.events(),
        ["metadata", "token client_credentials"]
    );
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workload_assertion_and_a_refused_one() {
    let setup = setup(Behaviour::default());
    let oauth = OAuth::jwt_bearer("workload", |request| async move {
        assert!(request.issuer.starts_with("http://127.0.0.1:"));
        assert!(request.resource.ends_with("/mcp"));
        Ok("workload-jwt".to_owned())
    })
    .scopes(["weather:read"]);
    let client = connect(&setup, oauth).await.unwrap();
    let result = within(client.call_tool("forecast", json!({"city": "Quito"})))
        .await
        .unwrap();
    assert!(!result.is_error, "{result:?}");
    client.close().await;
    // A refused assertion fails at once: no retry, no other grant.
    let setup = self::setup(Behaviour::default());
    let oauth = OAuth::jwt_bearer("workload", |_| async { Ok("forged".to_owned()) });
    let error = refused(&setup, oauth).await;
    assert!(error.to_string().contains("invalid_grant"), "{error}");
    let tokens: Vec<_> = setup
        .fixture
        .events()
        .into_iter()
        .filter(|e| e.starts_with("token"))
        .collect();
    assert_eq!(
        tokens,
        ["token urn:ietf:params:oauth:grant-type:jwt-bearer"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_for_another_issuer_is_refused() {
    let setup = setup(Behaviour {
        metadata_issuer: Some("https://evil.example.com".into()),
        ..Behaviour::default()
    });
    let oauth = OAuth::authorization_code(Browser(Arc::clone(&setup.fixture)));
    let error = refused(&setup, oauth).await;
    assert!(
        matches!(error, OAuthError::IssuerMismatch { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("evil.example.com"), "{error}");
    assert_eq!(
        setup.fixture.events(),
        ["metadata"],
        "nothing after the metadata"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_for_another_resource_is_refused_before_any_authorization() {
    let setup = setup(Behaviour::default());
    let decoy = format!("{}/decoy/mcp", setup.fixture.issuer());
    let oauth = OAuth::authorization_code(Browser(Arc::clone(&setup.fixture)));
    let connecting = Client::connect_http(
        HttpOptions::new(&decoy)
            .timeout(Duration::from_secs(20))
            .oauth(oauth),
    );
    let error = match within(connecting).await {
        Ok(_) => panic!("connected"),
        Err(error) => oauth_error_of(error),
    };
    assert!(
        matches!(error, OAuthError::ResourceMismatch { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("other.example.com"), "{error}");
    // Not even the authorization server's metadata was asked for; no
    // token exists, none was sent.
    assert_eq!(setup.fixture.events(), ["resource metadata"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_to_another_authorization_server_registers_anew() {
    let (first, _first_server) = authorization_server(Behaviour::default());
    let (second, _second_server) = authorization_server(Behaviour::default());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let url = format!("http://{addr}/mcp");
    let server = HttpServer::start_at(addr, protected(&first.issuer(), &url));
    // One browser for both: each request goes to the server it names.
    let browser = Browser(Arc::clone(&first));
    let second_browser = Arc::clone(&second);
    let oauth = OAuth::authorization_code(Routed(browser, second_browser));
    let client = within(Client::connect_http(
        HttpOptions::new(&url)
            .timeout(Duration::from_secs(20))
            .oauth(oauth),
    ))
    .await
    .unwrap();
    within(client.list_tools()).await.unwrap();
    // The server now trusts another authorization server only.
    tokio::task::spawn_blocking(move || server.stop())
        .await
        .unwrap()
        .unwrap();
    let _server = HttpServer::start_at(addr, protected(&second.issuer(), &url));
    let result = within(client.call_tool("forecast", json!({"city": "Kyiv"})))
        .await
        .unwrap();
    assert!(!result.is_error, "{result:?}");
    // Registered at the second, which never saw the first's client id.
    assert_eq!(second.count("register"), 1, "{:?}", second.events());
    let first_client = format!("client-of-{}", first.issuer());
    let seen = second.record.lock().unwrap().clients.clone();
    assert!(!seen.is_empty());
    assert!(!seen.contains(&first_client), "{seen:?}");
    client.close().await;
}

/// A browser that goes to whichever of two authorization servers the
/// request names.
struct Routed(Browser, Shared);

impl Authorizer for Routed {
    fn redirect_uri(&self) -> String {
        REDIRECT.into()
    }

    fn authorize(&self, url: Url) -> BoxFuture<'_, Result<Url, OAuthError>> {
        Box::pin(async move {
            if url.as_str().starts_with(&self.1.issuer()) {
                self.1.approve(&url)
            } else {
                self.0.0.approve(&url)
            }
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_metadata_url_the_path_is_tried_then_the_root() {
    let setup = setup(Behaviour::default());
    let bare = format!("{}/bare/mcp", setup.fixture.issuer());
    let oauth = OAuth::authorization_code(Browser(Arc::clone(&setup.fixture)));
    let connecting = Client::connect_http(
        HttpOptions::new(&bare)
            .timeout(Duration::from_secs(20))
            .oauth(oauth),
    );
    let error = match within(connecting).await {
        Ok(_) => panic!("connected"),
        Err(error) => oauth_error_of(error),
    };
    // The root document is for another server: refused all the same.
    assert!(
        matches!(error, OAuthError::ResourceMismatch { .. }),
        "{error}"
    );
    assert_eq!(
        setup.fixture.events(),
        [
            "missing /.well-known/oauth-protected-resource/bare/mcp",
            "resource metadata"
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_step_up_stops_at_the_limit() {
    let setup = setup(Behaviour::default());
    let oauth = OAuth::authorization_code(Browser(Arc::clone(&setup.fixture)));
    let client = connect(&setup, oauth).await.unwrap();
    // "never" is never granted: every call is refused 403 insufficient_scope.
    let error = within(client.call_tool("forbidden", json!({})))
        .await
        .unwrap_err();
    let error = oauth_error_of(error);
    assert!(
        matches!(error, OAuthError::StepUpLimit { attempts: 3, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("insufficient_scope"), "{error}");
    // The first authorization (at connect) and three for the call.
    assert_eq!(
        setup.fixture.count("authorize"),
        4,
        "{:?}",
        setup.fixture.events()
    );
    // The client still works for what it may do.
    let result = within(client.call_tool("forecast", json!({"city": "Lima"})))
        .await
        .unwrap();
    assert!(!result.is_error);
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_elsewhere_is_refused_and_the_code_never_used() {
    let setup = setup(Behaviour {
        redirect_elsewhere: Some("http://attacker.example.com/callback"),
        ..Behaviour::default()
    });
    let oauth = OAuth::authorization_code(Browser(Arc::clone(&setup.fixture)));
    let error = refused(&setup, oauth).await;
    assert!(matches!(error, OAuthError::Redirect(_)), "{error}");
    assert!(
        error.to_string().contains("attacker.example.com"),
        "{error}"
    );
    assert_eq!(
        setup.fixture.count("token"),
        0,
        "{:?}",
        setup.fixture.events()
    );
    // And the loopback authorizer refuses to listen anywhere else.
    let refused = mcp_runtime::client::oauth::LoopbackAuthorizer::redirect_to(
        "http://attacker.example.com:80/callback",
    )
    .await
    .unwrap_err();
    assert!(refused.to_string().contains("not a loopback"), "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_pkce_s256_is_refused() {
    for methods in [None, Some(vec!["plain"])] {
        let setup = setup(Behaviour {
            pkce_methods: methods,
            ..Behaviour::default()
        });
        let oauth = OAuth::authorization_code(Browser(Arc::clone(&setup.fixture)));
        let error = refused(&setup, oauth).await;
        assert!(
            matches!(error, OAuthError::PkceUnsupported { .. }),
            "{error}"
        );
        assert_eq!(setup.fixture.events(), ["metadata"]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authorization_response_from_another_issuer_is_refused() {
    let setup = setup(Behaviour {
        iss: Some("https://evil.example.com".into()),
        ..Behaviour::default()
    });
    let oauth = OAuth::authorization_code(Browser(Arc::clone(&setup.fixture)));
    let error = refused(&setup, oauth).await;
    assert!(
        matches!(error, OAuthError::IssuerParameter { .. }),
        "{error}"
    );
    assert_eq!(
        setup.fixture.count("token"),
        0,
        "{:?}",
        setup.fixture.events()
    );
}

/// A scratch token file for this test.
fn token_file(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "mcp-client-oauth-{name}-{}.json",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_run_reuses_the_registration_and_sends_the_token_at_once() {
    let setup = setup(Behaviour::default());
    let path = token_file("restart");
    let oauth = OAuth::authorization_code(Browser(Arc::clone(&setup.fixture)))
        .token_store(FileTokenStore::new(&path));
    let client = connect(&setup, oauth).await.unwrap();
    within(client.call_tool("forecast", json!({"city": "Lima"})))
        .await
        .unwrap();
    client.close().await;
    let first_run = setup.fixture.events();
    assert_eq!(setup.fixture.count("register"), 1, "{first_run:?}");
    assert_eq!(setup.fixture.count("authorize"), 1, "{first_run:?}");
    // The registration is in the file (the fixture's clients are public:
    // no secret to keep).
    let kept = FileTokenStore::new(&path)
        .load_registration(&RegistrationKey::new(setup.fixture.issuer(), "mcp-runtime"))
        .unwrap()
        .expect("the registration is kept");
    assert_eq!(
        kept.client_id,
        format!("client-of-{}", setup.fixture.issuer())
    );
    assert_eq!(kept.redirect_uri.as_deref(), Some(REDIRECT));

    // A new process (a new OAuth), nobody at the browser: no registration,
    // no authorization, and not even a 401 to start discovery: the first
    // request carries the stored token.
    let again = OAuth::authorization_code(Away).token_store(FileTokenStore::new(&path));
    let client = connect(&setup, again).await.unwrap();
    let result = within(client.call_tool("forecast", json!({"city": "Oslo"})))
        .await
        .unwrap();
    assert!(!result.is_error, "{result:?}");
    client.close().await;
    assert_eq!(
        setup.fixture.events(),
        first_run,
        "the second run went to the authorization server"
    );
    std::fs::remove_file(&path).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_registration_for_another_redirect_uri_is_replaced_at_sign_in() {
    let setup = setup(Behaviour::default());
    let path = token_file("other-redirect");
    let store = FileTokenStore::new(&path);
    let key = RegistrationKey::new(setup.fixture.issuer(), "mcp-runtime");
    store
        .save_registration(
            &key,
            &StoredRegistration::new("an-old-client", "none")
                .with_redirect_uri("http://127.0.0.1:1/elsewhere"),
        )
        .unwrap();
    let oauth = OAuth::authorization_code(Browser(Arc::clone(&setup.fixture)))
        .token_store(FileTokenStore::new(&path));
    let client = connect(&setup, oauth).await.unwrap();
    client.close().await;
    // Registered anew for this redirect URI, and that client authorized.
    assert_eq!(
        setup.fixture.count("register"),
        1,
        "{:?}",
        setup.fixture.events()
    );
    let clients = setup.fixture.record.lock().unwrap().clients.clone();
    let registered = format!("client-of-{}", setup.fixture.issuer());
    assert!(
        !clients.is_empty() && clients.iter().all(|c| c == &registered),
        "{clients:?}"
    );
    let kept = store.load_registration(&key).unwrap().unwrap();
    assert_eq!(kept.client_id, registered);
    std::fs::remove_file(&path).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_token_is_not_sent_first_to_a_server_it_was_not_issued_for() {
    let setup = setup(Behaviour::default());
    let decoy = format!("{}/decoy/mcp", setup.fixture.issuer());
    // A store that says the decoy was last sent a token issued for
    // another resource (a file edited by hand, or a server that moved).
    let store = FileTokenStore::new(token_file("foreign"));
    let key = TokenKey {
        issuer: setup.fixture.issuer(),
        resource: "https://other.example.com/mcp".into(),
        client_id: "app".into(),
    };
    store
        .save(&key, &StoredToken::bearer("a-token-for-another-server"))
        .unwrap();
    store.save_last_used(&decoy, &key).unwrap();
    let oauth = OAuth::authorization_code(Away).token_store(store);
    let connecting = Client::connect_http(
        HttpOptions::new(&decoy)
            .timeout(Duration::from_secs(20))
            .oauth(oauth),
    );
    assert!(within(connecting).await.is_err());
    assert_eq!(setup.fixture.count("token sent to the decoy"), 0);
}

/// A `tracing` writer into a buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn the_loopback_authorizer_logs_that_it_waits_not_the_url_again() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let authorizer = LoopbackAuthorizer::bind("127.0.0.1:0")
        .await
        .unwrap()
        .open_browser(false)
        .timeout(Duration::from_millis(100));
    let url = Url::parse("https://as.example/authorize?client_id=marker-client").unwrap();
    // Nobody comes back: the wait times out.
    assert!(authorizer.authorize(url).await.is_err());
    let logged = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(logged.contains("waiting for the authorization"), "{logged}");
    assert!(
        !logged.contains("marker-client"),
        "the URL was logged: {logged}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_registration_the_server_forgot_is_replaced_at_sign_in() {
    let setup = setup(Behaviour::default());
    let path = token_file("forgotten");
    let store = FileTokenStore::new(&path);
    // An earlier run registered FORGOTTEN and kept an expired token with
    // a refresh token; the authorization server has since forgotten the
    // client (its registrations lived in memory, say).
    let registration_key = RegistrationKey::new(setup.fixture.issuer(), "mcp-runtime");
    store
        .save_registration(
            &registration_key,
            &StoredRegistration::new(FORGOTTEN, "none").with_redirect_uri(REDIRECT),
        )
        .unwrap();
    let key = TokenKey {
        issuer: setup.fixture.issuer(),
        resource: setup.url.clone(),
        client_id: FORGOTTEN.into(),
    };
    let expired = StoredToken::bearer("expired")
        .with_refresh_token("refresh:weather:read")
        .with_expires_at(1);
    store.save(&key, &expired).unwrap();
    let oauth = OAuth::authorization_code(Browser(Arc::clone(&setup.fixture)))
        .token_store(FileTokenStore::new(&path));
    let client = connect(&setup, oauth).await.unwrap();
    client.close().await;
    // The refresh was refused (invalid_client): registered anew, and the
    // user sent to sign in as that client, never as the forgotten one.
    let events = setup.fixture.events();
    assert_eq!(setup.fixture.count("token refresh_token"), 1, "{events:?}");
    assert_eq!(setup.fixture.count("register"), 1, "{events:?}");
    assert_eq!(setup.fixture.count("authorize"), 1, "{events:?}");
    let kept = store.load_registration(&registration_key).unwrap().unwrap();
    assert_eq!(
        kept.client_id,
        format!("client-of-{}", setup.fixture.issuer())
    );
    std::fs::remove_file(&path).unwrap();
}
