//! The client's OAuth (`mcp_runtime::client::oauth`) against a real
//! authorization server: the OpenID provider of the auth tests
//! (tests/oidc/provider.mjs, npm oidc-provider). The authorization code
//! flow goes through the provider's own login and consent pages, by an
//! [`Authorizer`] of the test's that runs tests/oidc/login.mjs (the
//! browser's part: it posts the forms and hands back the redirect, which
//! no listener needs to receive). The server is ours, protected by
//! `Server::auth` with the provider as its issuer.
//!
//! The gateway's use of the same flow, and the Python SDK through it, is in
//! tests/gateway_oauth.rs.

mod common;

use std::net::SocketAddr;

use common::http::HttpServer;
use common::oidc::{self, NATIVE_CLIENT, Provider};
use common::step::within;
use mcp_runtime::auth::Auth;
use mcp_runtime::client::oauth::{Authorizer, BoxFuture, OAuth, OAuthError, Url};
use mcp_runtime::client::{Client, ClientError, HttpOptions};
use mcp_runtime::{Context, Server, tool};

/// Who is calling: the subject, client and scopes of the token.
#[tool(scopes = ["weather:read"])]
async fn whoami(ctx: Context) -> String {
    common::caller::caller(&ctx)
}

/// A server trusting `provider`'s tokens for its own URL.
fn protected(provider: &Provider) -> HttpServer {
    let issuer = provider.issuer().to_owned();
    HttpServer::start_with(move |addr: SocketAddr| {
        Server::new("client-oidc-test", "1.0.0")
            .auth(Auth::issuer(issuer).audience(format!("http://{addr}/mcp")))
    })
}

/// The browser of the flow: signs in as `login` and consents (or, with
/// `deny`, aborts at the consent page) with tests/oidc/login.mjs.
struct LoginScript {
    login: &'static str,
    deny: bool,
}

impl Authorizer for LoginScript {
    fn redirect_uri(&self) -> String {
        // A native client's loopback redirect: the provider accepts any
        // port, and nothing needs to listen (the script stops there).
        "http://127.0.0.1:9/callback".into()
    }

    fn authorize(&self, url: Url) -> BoxFuture<'_, Result<Url, OAuthError>> {
        let mut args = vec!["--login", self.login];
        if self.deny {
            args.push("--deny");
        }
        Box::pin(async move {
            let redirect = tokio::task::spawn_blocking(move || oidc::login_at(url.as_str(), &args))
                .await
                .map_err(|e| OAuthError::Authorizer(e.to_string()))?
                .map_err(OAuthError::Authorizer)?;
            Url::parse(&redirect).map_err(|e| OAuthError::Redirect(e.to_string()))
        })
    }
}

async fn connect(server: &HttpServer, oauth: OAuth) -> Result<Client, ClientError> {
    within(Client::connect_http(
        HttpOptions::new(format!("http://{}/mcp", server.addr)).oauth(oauth),
    ))
    .await
}

async fn whoami_of(client: &Client) -> String {
    let result = within(client.call_tool("whoami", serde_json::json!({})))
        .await
        .expect("whoami");
    assert!(!result.is_error, "{result:?}");
    result.content[0].as_text().expect("a text").to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_signs_in_at_the_provider_and_the_client_registers_itself() {
    let provider = Provider::start();
    let server = protected(&provider);
    let oauth = OAuth::authorization_code(LoginScript {
        login: "bob",
        deny: false,
    });
    let client = connect(&server, oauth).await.expect("connect with OAuth");
    // The user's token: bob's, for a client registered on the fly, with
    // the scope the server's challenge named.
    let who = whoami_of(&client).await;
    let (subject, rest) = who.split_once(' ').unwrap();
    let (client_id, scopes) = rest.split_once(' ').unwrap();
    assert_eq!(subject, "bob");
    assert!(
        !client_id.is_empty() && client_id != "-" && client_id != NATIVE_CLIENT,
        "{who}"
    );
    assert!(scopes.contains("weather:read"), "{who}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pre_registered_public_client_signs_in_without_registering() {
    let provider = Provider::start();
    let server = protected(&provider);
    let oauth = OAuth::authorization_code(LoginScript {
        login: "carol",
        deny: false,
    })
    .client_id(NATIVE_CLIENT);
    let client = connect(&server, oauth).await.expect("connect with OAuth");
    let who = whoami_of(&client).await;
    assert!(
        who.starts_with(&format!("carol {NATIVE_CLIENT} [")),
        "{who}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_who_denies_consent_gets_a_clear_error() {
    let provider = Provider::start();
    let server = protected(&provider);
    let oauth = OAuth::authorization_code(LoginScript {
        login: "dave",
        deny: true,
    })
    .client_id(NATIVE_CLIENT);
    match connect(&server, oauth).await {
        Err(ClientError::OAuth(OAuthError::Denied { error, .. })) => {
            assert_eq!(error, "access_denied");
        }
        Err(other) => panic!("expected the provider's access_denied, got {other}"),
        Ok(_) => panic!("expected the provider's access_denied, got a session"),
    }
}
