//! The [`Authenticator`]: an [`Auth`] made ready to check tokens.

use std::sync::Arc;

use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;

use super::config::{Auth, Credentials, Source, StaticKey};
use super::fetch::Fetcher;
use super::introspection::{EndpointAt, Introspector};
use super::jwt::{JwtVerifier, Keys, parse_algorithms};
use super::keys::{Jwks, JwksAt, Key};
use super::{Challenge, Identity, Rejection};

/// Checks the bearer token of every request.
pub(crate) struct Authenticator {
    check: Check,
    pub(crate) challenge: Challenge,
    /// Scopes every request needs.
    pub(crate) required_scopes: Vec<String>,
    /// What is checked, in words, for the start-up log.
    pub(crate) summary: String,
}

impl std::fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Authenticator")
    }
}

enum Check {
    Jwt(JwtVerifier),
    Introspect(Introspector),
    Tokens(std::collections::HashMap<[u8; 32], Arc<Identity>>),
}

impl Authenticator {
    /// Makes `auth` ready; a setting that cannot work is an error saying
    /// which and how to fix it.
    pub(crate) fn new(auth: Auth) -> Result<Authenticator, String> {
        let issuer = auth.issuer_name().map(str::to_owned);
        let needs_audience = !matches!(auth.source, Source::Tokens(_));
        if needs_audience && auth.audience.is_none() {
            return Err(format!(
                "Auth for the issuer {} needs the server's canonical URI: add \
                 .audience(\"https://your.host/mcp\") (or --auth-audience URI), the address \
                 clients reach this endpoint at; tokens must name it as their audience",
                issuer.as_deref().unwrap_or_default()
            ));
        }
        let fetcher = || Fetcher::new(auth.allow_http);
        let jwt = |keys: Keys, issuer: &str| -> Result<Check, String> {
            Ok(Check::Jwt(JwtVerifier {
                keys,
                issuer: issuer.to_owned(),
                audience: auth.audience.clone().unwrap_or_default(),
                algorithms: parse_algorithms(&auth.algorithms)?,
                leeway_secs: auth.leeway.as_secs(),
            }))
        };
        let introspect = |issuer: &str, at: EndpointAt, credentials: &Credentials| {
            let fetcher = fetcher().map_err(|e| e.0)?;
            let url = match &at {
                EndpointAt::Url(url) | EndpointAt::Discover(url) => url,
            };
            fetcher.check_url(url).map_err(|e| e.0)?;
            Ok::<_, String>(Check::Introspect(Introspector::new(
                at,
                credentials.clone(),
                fetcher,
                issuer.to_owned(),
                auth.audience.clone(),
                auth.introspection_cache,
                auth.leeway,
            )))
        };
        let check = match &auth.source {
            Source::Discover {
                issuer,
                introspect: None,
            } => {
                let fetcher = fetcher().map_err(|e| e.0)?;
                fetcher.check_url(issuer).map_err(|e| e.0)?;
                jwt(
                    Keys::Jwks(Jwks::new(JwksAt::Discover(issuer.clone()), fetcher)),
                    issuer,
                )?
            }
            Source::Jwks { issuer, url } => {
                let fetcher = fetcher().map_err(|e| e.0)?;
                fetcher.check_url(url).map_err(|e| e.0)?;
                jwt(
                    Keys::Jwks(Jwks::new(JwksAt::Url(url.clone()), fetcher)),
                    issuer,
                )?
            }
            Source::Key { issuer, key } => {
                let key = static_key(key)?;
                jwt(Keys::Static(key), issuer)?
            }
            Source::Discover {
                issuer,
                introspect: Some(credentials),
            } => introspect(issuer, EndpointAt::Discover(issuer.clone()), credentials)?,
            Source::Introspection {
                issuer,
                endpoint,
                credentials,
            } => introspect(issuer, EndpointAt::Url(endpoint.clone()), credentials)?,
            Source::Tokens(tokens) => Check::Tokens(
                tokens
                    .iter()
                    .map(|(hash, who)| (*hash, Arc::new(who.clone())))
                    .collect(),
            ),
        };
        let audience = auth.audience.as_deref().unwrap_or("(none)");
        let summary = match &auth.source {
            Source::Discover {
                issuer,
                introspect: None,
            } => format!("JWTs from {issuer} (keys from its metadata) for {audience}"),
            Source::Jwks { issuer, url } => {
                format!("JWTs from {issuer} (keys at {url}) for {audience}")
            }
            Source::Key { issuer, .. } => {
                format!("JWTs from {issuer} (a fixed key) for {audience}")
            }
            Source::Discover { issuer, .. } | Source::Introspection { issuer, .. } => {
                format!("tokens introspected at {issuer} for {audience}")
            }
            Source::Tokens(tokens) => format!("{} static token(s)", tokens.len()),
        };
        Ok(Authenticator {
            summary,
            check,
            challenge: Challenge::new(&auth),
            required_scopes: auth.required_scopes,
        })
    }

    /// The caller a request's `Authorization` header proves, or why not.
    pub(crate) async fn authenticate(
        &self,
        headers: &HeaderMap,
    ) -> Result<Arc<Identity>, Rejection> {
        let token = bearer(headers)?;
        match &self.check {
            Check::Jwt(verifier) => verifier.verify(token).await.map(Arc::new),
            Check::Introspect(introspector) => introspector.verify(token).await.map(Arc::new),
            Check::Tokens(tokens) => tokens
                .get(&super::hash(token))
                .cloned()
                .ok_or_else(|| Rejection::invalid("unknown token")),
        }
    }
}

/// The token of `Authorization: Bearer <token>` (RFC 6750 section 2.1;
/// the scheme is case-insensitive). Tokens in the query string are not
/// read (OAuth 2.1 forbids them).
fn bearer(headers: &HeaderMap) -> Result<&str, Rejection> {
    let mut values = headers.get_all(AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Err(Rejection::Missing);
    };
    if values.next().is_some() {
        return Err(Rejection::invalid("more than one Authorization header"));
    }
    let value = value
        .to_str()
        .map_err(|_| Rejection::invalid("the Authorization header is not text"))?;
    let value = value.trim();
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        // Another scheme (Basic, ...) is as good as none.
        return Err(Rejection::Missing);
    }
    let token = token.trim();
    if token.is_empty() {
        return Err(Rejection::invalid("the bearer token is empty"));
    }
    Ok(token)
}

fn static_key(key: &StaticKey) -> Result<Key, String> {
    use jsonwebtoken::DecodingKey;
    let key = match key {
        StaticKey::Hmac(secret) => DecodingKey::from_secret(secret),
        StaticKey::RsaPem(pem) => DecodingKey::from_rsa_pem(pem)
            .map_err(|e| format!("Auth::rsa_pem: not an RSA public key in PEM: {e}"))?,
        StaticKey::EcPem(pem) => DecodingKey::from_ec_pem(pem)
            .map_err(|e| format!("Auth::ec_pem: not an EC public key in PEM: {e}"))?,
        StaticKey::Jwk(text) => {
            let jwk: jsonwebtoken::jwk::Jwk = serde_json::from_str(text)
                .map_err(|e| format!("Auth::jwk: not a JSON Web Key: {e}"))?;
            DecodingKey::from_jwk(&jwk).map_err(|e| format!("Auth::jwk: unusable key: {e}"))?
        }
    };
    Ok(Key {
        key,
        algorithm: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for value in values {
            map.append(AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn bearer_tokens_are_read_from_the_header_only() {
        assert_eq!(bearer(&headers(&["Bearer abc"])), Ok("abc"));
        assert_eq!(bearer(&headers(&["bearer  abc "])), Ok("abc"));
        assert_eq!(bearer(&headers(&[])), Err(Rejection::Missing));
        assert_eq!(
            bearer(&headers(&["Basic dXNlcg=="])),
            Err(Rejection::Missing)
        );
        assert!(matches!(
            bearer(&headers(&["Bearer "])),
            Err(Rejection::Invalid(_))
        ));
        assert!(matches!(
            bearer(&headers(&["Bearer a", "Bearer b"])),
            Err(Rejection::Invalid(_))
        ));
    }

    #[test]
    fn an_audience_is_required_except_for_static_tokens() {
        let error = Authenticator::new(Auth::issuer("https://login.example.com"))
            .err()
            .unwrap();
        assert!(error.contains(".audience("), "{error}");
        assert!(Authenticator::new(Auth::static_tokens([("t", Identity::new("a"))])).is_ok());
    }

    #[tokio::test]
    async fn static_tokens_name_their_caller() {
        let auth = Authenticator::new(Auth::static_tokens([(
            "secret-1",
            Identity::new("gateway").with_scopes(["a"]),
        )]))
        .unwrap();
        let who = auth
            .authenticate(&headers(&["Bearer secret-1"]))
            .await
            .unwrap();
        assert_eq!(who.subject(), "gateway");
        assert_eq!(
            auth.authenticate(&headers(&["Bearer secret-2"])).await,
            Err(Rejection::invalid("unknown token"))
        );
    }
}
