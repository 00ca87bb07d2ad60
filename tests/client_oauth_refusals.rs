//! Issue 28's broken or malicious authorization servers, against the
//! client's OAuth (`mcp_runtime::client::oauth`): metadata for another
//! issuer, a resource metadata document for another server, an endless
//! step-up, a redirect elsewhere, no PKCE S256, an authorization response
//! from another issuer, and a stored token for another server. Each is
//! refused with a clear error, and no token is issued or sent where it
//! does not belong. The authorization server and the protected server are
//! tests/common/oauth_server.rs; the flows that succeed are
//! tests/client_oauth.rs.

mod common;
#[path = "common/oauth_tools.rs"]
mod oauth_tools;

use std::sync::Arc;

use common::oauth_server::{
    Away, Behaviour, Browser, connect, oauth_error_of, options_at, refused, refused_at, setup,
    token_file,
};
use common::step::within;
use mcp_runtime::client::Client;
use mcp_runtime::client::oauth::{
    FileTokenStore, OAuth, OAuthError, StoredToken, TokenKey, TokenStore,
};
use serde_json::json;

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
    let error = refused_at(&decoy, oauth).await;
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
    assert!(
        within(Client::connect_http(options_at(&decoy, oauth)))
            .await
            .is_err()
    );
    assert_eq!(setup.fixture.count("token sent to the decoy"), 0);
}
