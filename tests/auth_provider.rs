//! The OAuth resource server against a real authorization server: the npm
//! package `oidc-provider` (tests/oidc/provider.mjs, installed by
//! tests/oidc/install; .ci/run installs it before `cargo test --workspace`),
//! started on loopback by each test. Without that install every test here
//! fails and says how to make it.

mod common;

use common::oidc::{self, CLIENT, OTHER_CLIENT, Provider};

/// The provider issues what the failure table assumes: RS256 JWTs typed
/// `at+jwt` with the subject, scope, client, issuer and audience asked for,
/// signed with a published key; the forgeries differ from it as intended.
#[test]
fn the_provider_issues_jwt_access_tokens_for_a_resource() {
    let provider = Provider::start();
    let resource = "http://127.0.0.1:1/mcp";
    let token = provider.token(CLIENT, "weather:read", resource);
    let header = oidc::header(&token);
    assert_eq!(header["alg"], "RS256", "{header}");
    assert_eq!(header["typ"], "at+jwt", "{header}");
    let claims = oidc::claims(&token);
    assert_eq!(claims["sub"], CLIENT, "{claims}");
    assert_eq!(claims["client_id"], CLIENT, "{claims}");
    assert_eq!(claims["scope"], "weather:read", "{claims}");
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
    assert_eq!((status, &refused["error"]), (400, &"invalid_target".into()));

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
    let expired = oidc::claims(&provider.expired_token(CLIENT, "weather:read", resource));
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
    let token = provider.token(CLIENT, "weather:read", resource);
    assert_eq!(token.split('.').count(), 1, "not a JWT: {token}");
    let answer = provider.introspect(&token);
    assert_eq!(answer["active"], true, "{answer}");
    assert_eq!(answer["client_id"], CLIENT, "{answer}");
    assert_eq!(answer["aud"], resource, "{answer}");
    assert_eq!(answer["scope"], "weather:read", "{answer}");
    provider.revoke(CLIENT, &token);
    assert_eq!(provider.introspect(&token)["active"], false);
    let expired = provider.expired_token(CLIENT, "weather:read", resource);
    assert_eq!(provider.introspect(&expired)["active"], false);
}
