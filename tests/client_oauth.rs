//! The client's OAuth (`mcp_runtime::client::oauth`) end to end, in this
//! process, when the authorization server behaves: the authorization code
//! with PKCE and `resource`, then a step-up; refresh, and tokens kept in a
//! file; client credentials; a workload's JWT bearer assertion; a server
//! that moves to another authorization server; discovery without a metadata
//! URL (the path, then the root); a new run that reuses the registration
//! and the token; kept registrations replaced at sign-in; what the loopback
//! authorizer logs. The authorization server and the protected server are
//! tests/common/oauth_server.rs; its misbehaving variants, refused, are
//! tests/client_oauth_refusals.rs.

mod common;
#[path = "common/oauth_tools.rs"]
mod oauth_tools;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::http::HttpServer;
use common::oauth_server::{
    Away, Behaviour, Browser, FORGOTTEN, REDIRECT, Shared, authorization_server, connect,
    protected, refused, refused_at, setup, token_file,
};
use common::step::within;
use mcp_runtime::client::oauth::{
    Authorizer, BoxFuture, FileTokenStore, LoopbackAuthorizer, OAuth, OAuthError, RegistrationKey,
    StoredRegistration, StoredToken, TokenKey, TokenStore, Url,
};
use mcp_runtime::client::{Client, HttpOptions};
use serde_json::json;

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
    let error = refused_at(&bare, oauth).await;
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
