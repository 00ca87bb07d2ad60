//! The keys JWTs are checked against: one given in code, or the
//! authorization server's JWKS, fetched when first needed, cached, and
//! fetched again when a token names a key not in it (key rotation) or the
//! copy is old.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;
use serde_json::Value;

use super::discovery;
use super::fetch::{FetchError, Fetcher};

/// A JWKS is fetched at most this often: a flood of tokens naming keys
/// that do not exist costs the authorization server one request a second.
const MIN_REFRESH: Duration = Duration::from_secs(1);
/// A JWKS older than this is fetched again (so retired keys drop out).
const MAX_AGE: Duration = Duration::from_secs(60 * 60);

/// One verification key, and the algorithm it is bound to, if its JWK
/// names one.
#[derive(Clone)]
pub(crate) struct Key {
    pub(crate) key: DecodingKey,
    pub(crate) algorithm: Option<Algorithm>,
}

/// Where the JWKS is.
#[derive(Clone)]
pub(crate) enum JwksAt {
    /// At this address.
    Url(String),
    /// Where the issuer's metadata says.
    Discover(String),
}

/// A cached JWKS.
pub(crate) struct Jwks {
    at: JwksAt,
    fetcher: Fetcher,
    cache: Mutex<Cache>,
    /// One fetch at a time; the others wait for its result.
    fetching: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct Cache {
    keys: Arc<KeyMap>,
    fetched: Option<Instant>,
    jwks_url: Option<String>,
}

#[derive(Default)]
struct KeyMap {
    by_kid: HashMap<String, Key>,
    /// Keys without a `kid`, tried for tokens that name none.
    unnamed: Vec<Key>,
}

/// Why no key was found.
pub(crate) enum NoKey {
    /// The authorization server could not be asked.
    Unavailable(FetchError),
    /// It has no such key.
    Unknown,
}

impl Jwks {
    pub(crate) fn new(at: JwksAt, fetcher: Fetcher) -> Jwks {
        Jwks {
            at,
            fetcher,
            cache: Mutex::default(),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    /// The keys a token with this `kid` may be signed with.
    pub(crate) async fn keys_for(&self, kid: Option<&str>) -> Result<Vec<Key>, NoKey> {
        let (keys, fetched) = self.cached();
        let fresh = fetched.is_some_and(|at| at.elapsed() < MAX_AGE);
        if fresh && let Some(found) = find(&keys, kid) {
            return Ok(found);
        }
        // Unknown kid, or nothing (fresh) cached: fetch, then look again.
        let keys = self.refresh(fetched).await?;
        find(&keys, kid).ok_or(NoKey::Unknown)
    }

    fn cached(&self) -> (Arc<KeyMap>, Option<Instant>) {
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        (Arc::clone(&cache.keys), cache.fetched)
    }

    /// Fetches the JWKS unless another caller did since `seen`; waits
    /// out [`MIN_REFRESH`] rather than refusing a token signed with a key
    /// that has just been rotated in.
    async fn refresh(&self, seen: Option<Instant>) -> Result<Arc<KeyMap>, NoKey> {
        let _one = self.fetching.lock().await;
        let (keys, fetched) = self.cached();
        if fetched != seen && fetched.is_some() {
            // Someone fetched while this caller waited.
            return Ok(keys);
        }
        if let Some(at) = fetched {
            let since = at.elapsed();
            if since < MIN_REFRESH {
                tokio::time::sleep(MIN_REFRESH - since).await;
            }
        }
        match self.fetch().await {
            Ok((map, url)) => {
                let map = Arc::new(map);
                let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
                *cache = Cache {
                    keys: Arc::clone(&map),
                    fetched: Some(Instant::now()),
                    jwks_url: Some(url),
                };
                Ok(map)
            }
            Err(error) => {
                tracing::warn!(%error, "could not fetch the authorization server's keys");
                let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
                if cache.fetched.is_some() {
                    // Keep the old keys; count this as a fetch so a
                    // flood does not hammer a server that is down.
                    cache.fetched = Some(Instant::now());
                    return Ok(Arc::clone(&cache.keys));
                }
                Err(NoKey::Unavailable(error))
            }
        }
    }

    async fn fetch(&self) -> Result<(KeyMap, String), FetchError> {
        let known = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .jwks_url
            .clone();
        let url = match (&self.at, known) {
            (JwksAt::Url(url), _) => url.clone(),
            (JwksAt::Discover(_), Some(url)) => url,
            (JwksAt::Discover(issuer), None) => discovery::discover(&self.fetcher, issuer)
                .await?
                .jwks_uri
                .ok_or_else(|| FetchError(format!("the metadata of {issuer} names no jwks_uri")))?,
        };
        let document = self.fetcher.get_json(&url).await?;
        let Some(Value::Array(entries)) = document.get("keys") else {
            return Err(FetchError(format!(
                "{url} is not a JWK set: no `keys` array"
            )));
        };
        let mut map = KeyMap::default();
        // One by one: a key of a kind this crate does not parse must not
        // hide the others.
        for jwk in entries.iter().filter_map(|e| Jwk::deserialize(e).ok()) {
            // Encryption keys and keys of kinds this crate cannot use are
            // skipped, not fatal: one odd key must not hide the others.
            if jwk.common.public_key_use == Some(jsonwebtoken::jwk::PublicKeyUse::Encryption) {
                continue;
            }
            let Ok(key) = DecodingKey::from_jwk(&jwk) else {
                continue;
            };
            let algorithm = jwk
                .common
                .key_algorithm
                .and_then(|a| a.to_string().parse::<Algorithm>().ok());
            let key = Key { key, algorithm };
            match &jwk.common.key_id {
                Some(kid) => {
                    map.by_kid.insert(kid.clone(), key);
                }
                None => map.unnamed.push(key),
            }
        }
        tracing::debug!(url = %url, keys = map.by_kid.len() + map.unnamed.len(), "fetched the JWKS");
        Ok((map, url))
    }
}

fn find(keys: &KeyMap, kid: Option<&str>) -> Option<Vec<Key>> {
    match kid {
        Some(kid) => keys.by_kid.get(kid).map(|k| vec![k.clone()]),
        None if !keys.unnamed.is_empty() => Some(keys.unnamed.clone()),
        // A token without a kid, and a set that names all its keys: any
        // of them may have signed it.
        None if !keys.by_kid.is_empty() => Some(keys.by_kid.values().cloned().collect()),
        None => None,
    }
}
