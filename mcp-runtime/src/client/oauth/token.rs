//! The token endpoint: the authorization code, refresh token and client
//! credentials grants, each with the registered client authentication
//! (`client_secret_basic`, `client_secret_post`, `none`, or with the
//! `client-jwt` feature `private_key_jwt`) and the `resource` (RFC 8707).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};
use url::Url;

use super::OAuthError;
use super::discovery::ServerMetadata;
use super::registration::{AuthMethod, Registration};
use super::settings::Config;
use super::store::StoredToken;
use crate::auth::fetch::Fetcher;

/// One token request: its grant's parameters (without client
/// authentication) and the scopes asked for.
pub(crate) struct Grant<'a> {
    pub(crate) form: Vec<(&'static str, String)>,
    pub(crate) scopes: &'a [String],
}

impl<'a> Grant<'a> {
    /// The authorization code grant, with the PKCE verifier.
    pub(crate) fn code(
        code: String,
        verifier: String,
        redirect_uri: String,
        resource: &str,
        scopes: &'a [String],
    ) -> Grant<'a> {
        Grant {
            form: vec![
                ("grant_type", "authorization_code".into()),
                ("code", code),
                ("redirect_uri", redirect_uri),
                ("code_verifier", verifier),
                ("resource", resource.to_owned()),
            ],
            scopes,
        }
    }

    /// The refresh token grant (the scopes granted before are kept).
    pub(crate) fn refresh(
        refresh_token: String,
        resource: &str,
        scopes: &'a [String],
    ) -> Grant<'a> {
        Grant {
            form: vec![
                ("grant_type", "refresh_token".into()),
                ("refresh_token", refresh_token),
                ("resource", resource.to_owned()),
            ],
            scopes,
        }
    }

    /// The JWT bearer grant (RFC 7523 section 2.1).
    pub(crate) fn jwt_bearer(assertion: String, resource: &str, scopes: &'a [String]) -> Grant<'a> {
        let mut form = vec![
            (
                "grant_type",
                "urn:ietf:params:oauth:grant-type:jwt-bearer".into(),
            ),
            ("assertion", assertion),
            ("resource", resource.to_owned()),
        ];
        if !scopes.is_empty() {
            form.push(("scope", scopes.join(" ")));
        }
        Grant { form, scopes }
    }

    /// The client credentials grant.
    pub(crate) fn client_credentials(resource: &str, scopes: &'a [String]) -> Grant<'a> {
        let mut form = vec![
            ("grant_type", "client_credentials".into()),
            ("resource", resource.to_owned()),
        ];
        if !scopes.is_empty() {
            form.push(("scope", scopes.join(" ")));
        }
        Grant { form, scopes }
    }
}

/// DPoP at the token endpoint: how proofs are made, and the nonces
/// servers handed out (by origin).
pub(crate) struct Dpop<'a> {
    /// Makes a proof for (method, URL, access token, nonce).
    pub(crate) proof: &'a ProofFn,
    pub(crate) nonces: &'a Nonces,
}

/// Makes a DPoP proof for (method, URL, access token, nonce).
pub(crate) type ProofFn =
    dyn Fn(&str, &Url, Option<&str>, Option<&str>) -> Result<String, OAuthError> + Send + Sync;

/// The nonces servers gave for DPoP proofs (RFC 9449 section 8), by
/// origin: authorization servers' and resource servers' alike.
#[derive(Default)]
pub(crate) struct Nonces(Mutex<HashMap<String, String>>);

impl Nonces {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The nonce the server at `url` gave last.
    pub(crate) fn get(&self, url: &Url) -> Option<String> {
        self.map().get(&url.origin().ascii_serialization()).cloned()
    }

    /// Keeps the `DPoP-Nonce` of an answer from the server at `url`;
    /// `true` if there was one.
    pub(crate) fn note(&self, url: &Url, headers: &reqwest::header::HeaderMap) -> bool {
        let Some(nonce) = headers.get("dpop-nonce").and_then(|v| v.to_str().ok()) else {
            return false;
        };
        self.map()
            .insert(url.origin().ascii_serialization(), nonce.to_owned());
        true
    }
}

/// Asks `server`'s token endpoint for a token, authenticating as
/// `client`; with `dpop`, each request carries a proof (sent again once
/// with the server's nonce when it asks for one).
pub(crate) async fn request(
    fetcher: &Fetcher,
    config: &Config,
    server: &ServerMetadata,
    client: &Registration,
    grant: Grant<'_>,
    dpop: Option<&Dpop<'_>>,
) -> Result<StoredToken, OAuthError> {
    let mut form = grant.form;
    let mut basic = None;
    let secret = || {
        client.client_secret.clone().ok_or_else(|| {
            OAuthError::Token(format!(
                "the client {} has no secret to authenticate with",
                client.client_id
            ))
        })
    };
    match client.method {
        AuthMethod::Basic => basic = Some((client.client_id.clone(), secret()?)),
        AuthMethod::Post => {
            form.push(("client_id", client.client_id.clone()));
            form.push(("client_secret", secret()?));
        }
        AuthMethod::None => form.push(("client_id", client.client_id.clone())),
        AuthMethod::PrivateKeyJwt => {
            form.push(("client_id", client.client_id.clone()));
            form.push((
                "client_assertion_type",
                "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".into(),
            ));
            form.push(("client_assertion", assertion(config, server, client)?));
        }
    }
    let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let basic = basic
        .as_ref()
        .map(|(id, secret)| (id.as_str(), secret.as_str()));
    let endpoint = Url::parse(&server.token_endpoint).map_err(|e| {
        OAuthError::Token(format!(
            "bad token endpoint {:?}: {e}",
            server.token_endpoint
        ))
    })?;
    let mut asked_nonce = false;
    loop {
        let proof = match dpop {
            Some(dpop) => Some((dpop.proof)(
                "POST",
                &endpoint,
                None,
                dpop.nonces.get(&endpoint).as_deref(),
            )?),
            None => None,
        };
        let headers: Vec<(&str, &str)> = proof.iter().map(|p| ("DPoP", p.as_str())).collect();
        let (status, answer_headers, answer) = fetcher
            .post_form_raw(endpoint.as_str(), basic, &pairs, &headers)
            .await
            .map_err(|e| OAuthError::Token(e.0))?;
        if let Some(dpop) = dpop {
            dpop.nonces.note(&endpoint, &answer_headers);
        }
        if (200..300).contains(&status) {
            return read_token(&answer, grant.scopes, dpop.is_some());
        }
        let text = |key: &str| answer.get(key).and_then(Value::as_str);
        if text("error") == Some("use_dpop_nonce") && dpop.is_some() && !asked_nonce {
            asked_nonce = true;
            continue;
        }
        return Err(OAuthError::TokenRefused {
            endpoint: endpoint.to_string(),
            status,
            code: text("error").unwrap_or("no error code").to_owned(),
            description: text("error_description").map(str::to_owned),
        });
    }
}

/// Whether `error` is the token endpoint's `invalid_client` (RFC 6749
/// section 5.2: the client is unknown, or its authentication failed).
pub(crate) fn is_invalid_client(error: &OAuthError) -> bool {
    matches!(error, OAuthError::TokenRefused { code, .. } if code == "invalid_client")
}

/// A client assertion (RFC 7523 section 2.2): signed by the client's key,
/// `iss` = `sub` = the client id, `aud` = the authorization server.
#[cfg(feature = "client-jwt")]
fn assertion(
    config: &Config,
    server: &ServerMetadata,
    client: &Registration,
) -> Result<String, OAuthError> {
    use super::settings::Grant;
    let Grant::PrivateKeyJwt { key_pem, algorithm } = &config.grant else {
        return Err(OAuthError::Token(
            "private_key_jwt needs OAuth::private_key_jwt".into(),
        ));
    };
    let key = match algorithm {
        jsonwebtoken::Algorithm::ES256 | jsonwebtoken::Algorithm::ES384 => {
            jsonwebtoken::EncodingKey::from_ec_pem(key_pem.as_bytes())
        }
        jsonwebtoken::Algorithm::EdDSA => {
            jsonwebtoken::EncodingKey::from_ed_pem(key_pem.as_bytes())
        }
        _ => jsonwebtoken::EncodingKey::from_rsa_pem(key_pem.as_bytes()),
    }
    .map_err(|e| OAuthError::Token(format!("the private key cannot sign {algorithm:?}: {e}")))?;
    let now = now();
    let claims = serde_json::json!({
        "iss": client.client_id,
        "sub": client.client_id,
        "aud": server.issuer,
        "iat": now,
        "exp": now + 300,
        "jti": super::pkce::random(16)?,
    });
    jsonwebtoken::encode(&jsonwebtoken::Header::new(*algorithm), &claims, &key)
        .map_err(|e| OAuthError::Token(format!("signing the client assertion failed: {e}")))
}

#[cfg(not(feature = "client-jwt"))]
fn assertion(_: &Config, _: &ServerMetadata, _: &Registration) -> Result<String, OAuthError> {
    Err(OAuthError::Unsupported(
        "private_key_jwt needs mcp-runtime's client-jwt feature".into(),
    ))
}

/// Seconds since the Unix epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Reads a token response (RFC 6749 section 5.1): the scopes granted are
/// those it names, else those asked for.
pub(crate) fn read_token(
    answer: &Map<String, Value>,
    asked: &[String],
    dpop: bool,
) -> Result<StoredToken, OAuthError> {
    let access_token = answer
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            OAuthError::Token("the token endpoint answered without an access_token".into())
        })?;
    let token_type = match answer.get("token_type").and_then(Value::as_str) {
        None => "Bearer",
        Some(kind) if kind.eq_ignore_ascii_case("bearer") => "Bearer",
        Some(kind) if dpop && kind.eq_ignore_ascii_case("dpop") => "DPoP",
        Some(kind) => {
            return Err(OAuthError::Token(format!(
                "the token endpoint issued a {kind:?} token, which this client cannot present"
            )));
        }
    };
    let expires_at = answer.get("expires_in").and_then(|v| {
        v.as_u64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            .map(|seconds| now().saturating_add(seconds))
    });
    let scopes = match answer.get("scope").and_then(Value::as_str) {
        Some(scope) => scope.split_ascii_whitespace().map(str::to_owned).collect(),
        None => asked.to_vec(),
    };
    Ok(StoredToken {
        access_token: access_token.to_owned(),
        refresh_token: answer
            .get("refresh_token")
            .and_then(Value::as_str)
            .map(str::to_owned),
        expires_at,
        scopes,
        token_type: token_type.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn token_responses() {
        let asked = vec!["a".to_owned()];
        let answer = json!({"access_token": "t", "token_type": "bearer", "expires_in": 60, "refresh_token": "r", "scope": "a b"});
        let token = read_token(answer.as_object().unwrap(), &asked, false).unwrap();
        assert_eq!(token.access_token, "t");
        assert_eq!(token.refresh_token.as_deref(), Some("r"));
        assert_eq!(token.scopes, ["a", "b"]);
        assert!(token.expires_at.unwrap() >= now() + 59);
        let answer = json!({"access_token": "t"});
        let token = read_token(answer.as_object().unwrap(), &asked, false).unwrap();
        assert_eq!((token.scopes, token.expires_at), (asked.clone(), None));
        assert!(
            read_token(
                json!({"token_type": "Bearer"}).as_object().unwrap(),
                &asked,
                false
            )
            .is_err()
        );
        let dpop = json!({"access_token": "t", "token_type": "DPoP"});
        assert!(read_token(dpop.as_object().unwrap(), &asked, false).is_err());
        let bound = read_token(dpop.as_object().unwrap(), &asked, true).unwrap();
        assert_eq!(bound.token_type, "DPoP");
    }

    #[test]
    fn grants_carry_the_resource() {
        let scopes = vec!["s".to_owned()];
        for grant in [
            Grant::code(
                "c".into(),
                "v".into(),
                "http://127.0.0.1/cb".into(),
                "https://r",
                &scopes,
            ),
            Grant::refresh("rt".into(), "https://r", &scopes),
            Grant::client_credentials("https://r", &scopes),
        ] {
            assert!(grant.form.contains(&("resource", "https://r".to_owned())));
        }
        let code = Grant::code("c".into(), "v".into(), "u".into(), "r", &scopes);
        assert!(code.form.contains(&("code_verifier", "v".to_owned())));
        assert!(
            Grant::client_credentials("r", &scopes)
                .form
                .contains(&("scope", "s".to_owned()))
        );
    }
}
