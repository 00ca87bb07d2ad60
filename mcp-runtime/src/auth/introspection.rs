//! Opaque access tokens, checked by token introspection (RFC 7662); the
//! answers are cached briefly, by a hash of the token.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::config::Credentials;
use super::discovery;
use super::fetch::Fetcher;
use super::{Identity, Rejection, claims};

/// Cached answers beyond this many are dropped (the oldest first).
const MAX_CACHED: usize = 10_000;

/// Verdicts by token hash, each good until its instant.
type Verdicts = HashMap<[u8; 32], (Instant, Result<Identity, Rejection>)>;

/// Where the introspection endpoint is.
pub(crate) enum EndpointAt {
    Url(String),
    Discover(String),
}

pub(crate) struct Introspector {
    pub(crate) at: EndpointAt,
    pub(crate) credentials: Credentials,
    pub(crate) fetcher: Fetcher,
    pub(crate) issuer: String,
    pub(crate) audience: Option<String>,
    pub(crate) cache_for: Duration,
    pub(crate) leeway: Duration,
    endpoint: Mutex<Option<String>>,
    cache: Mutex<Verdicts>,
}

impl Introspector {
    pub(crate) fn new(
        at: EndpointAt,
        credentials: Credentials,
        fetcher: Fetcher,
        issuer: String,
        audience: Option<String>,
        cache_for: Duration,
        leeway: Duration,
    ) -> Introspector {
        Introspector {
            at,
            credentials,
            fetcher,
            issuer,
            audience,
            cache_for,
            leeway,
            endpoint: Mutex::new(None),
            cache: Mutex::default(),
        }
    }

    pub(crate) async fn verify(&self, token: &str) -> Result<Identity, Rejection> {
        let key = super::hash(token);
        if let Some((until, verdict)) = self.lock_cache().get(&key)
            && Instant::now() < *until
        {
            return verdict.clone();
        }
        let verdict = self.ask(token).await;
        let until = match &verdict {
            // Never past the token's own expiry.
            Ok(identity) => Instant::now() + self.cache_for.min(time_left(identity)),
            Err(Rejection::Invalid(_)) => Instant::now() + self.cache_for,
            // Not cached: the next request asks again.
            Err(_) => return verdict,
        };
        let mut cache = self.lock_cache();
        if cache.len() >= MAX_CACHED {
            let now = Instant::now();
            cache.retain(|_, (until, _)| *until > now);
            if cache.len() >= MAX_CACHED {
                cache.clear();
            }
        }
        cache.insert(key, (until, verdict.clone()));
        verdict
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, Verdicts> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn endpoint(&self) -> Result<String, Rejection> {
        if let Some(known) = self
            .endpoint
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        {
            return Ok(known);
        }
        let url = match &self.at {
            EndpointAt::Url(url) => url.clone(),
            EndpointAt::Discover(issuer) => discovery::discover(&self.fetcher, issuer)
                .await
                .map_err(|e| Rejection::Unavailable(e.0))?
                .introspection_endpoint
                .ok_or_else(|| {
                    Rejection::Unavailable(format!(
                        "the metadata of {issuer} names no introspection_endpoint"
                    ))
                })?,
        };
        *self.endpoint.lock().unwrap_or_else(|e| e.into_inner()) = Some(url.clone());
        Ok(url)
    }

    async fn ask(&self, token: &str) -> Result<Identity, Rejection> {
        let endpoint = self.endpoint().await?;
        let answer = self
            .fetcher
            .post_form(
                &endpoint,
                &self.credentials.client_id,
                &self.credentials.client_secret,
                &[("token", token), ("token_type_hint", "access_token")],
            )
            .await
            .map_err(|e| Rejection::Unavailable(e.0))?;
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err(Rejection::invalid(
                "the token is not active (expired, revoked or unknown)",
            ));
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let leeway = self.leeway.as_secs();
        if let Some(exp) = answer.get("exp").and_then(Value::as_u64)
            && exp.saturating_add(leeway) < now
        {
            return Err(Rejection::invalid("the token has expired"));
        }
        if let Some(nbf) = answer.get("nbf").and_then(Value::as_u64)
            && nbf > now.saturating_add(leeway)
        {
            return Err(Rejection::invalid("the token is not valid yet (nbf)"));
        }
        if let Some(iss) = answer.get("iss").and_then(Value::as_str)
            && iss.trim_end_matches('/') != self.issuer.trim_end_matches('/')
        {
            return Err(Rejection::invalid(
                "the token was issued by an untrusted issuer (iss)",
            ));
        }
        if let Some(audience) = &self.audience {
            let names = |aud: &Value| match aud {
                Value::String(one) => one == audience,
                Value::Array(many) => many.iter().any(|a| a.as_str() == Some(audience)),
                _ => false,
            };
            // RFC 7662 makes `aud` optional; when it is there, it must
            // name this server.
            if answer.get("aud").is_some_and(|aud| !names(aud)) {
                return Err(Rejection::invalid(
                    "the token was issued for another resource (aud does not name this server)",
                ));
            }
        }
        claims::identity(answer)
    }
}

/// How long until the token the identity came from expires.
fn time_left(identity: &Identity) -> Duration {
    let Some(exp) = identity.claim("exp").and_then(Value::as_u64) else {
        return Duration::MAX;
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    Duration::from_secs(exp.saturating_sub(now))
}
