//! Where tokens are kept: [`TokenStore`], [`MemoryTokenStore`] and
//! [`FileTokenStore`](super::FileTokenStore). A token is kept under a [`TokenKey`]: the
//! authorization server that issued it, the resource it is for and the
//! client it was issued to, so that it is never sent anywhere else. A
//! persistent store also keeps the client's dynamic registrations (under a
//! [`RegistrationKey`]) and, per server, which token it used last, so that
//! a new run neither registers again nor sends its first request without
//! the token it holds.

use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::OAuthError;

/// What a token is bound to: the authorization server that issued it (its
/// issuer identifier), the resource it was issued for (the MCP server's
/// canonical URI) and the client id it was issued to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TokenKey {
    /// The authorization server's issuer, as its metadata names it.
    pub issuer: String,
    /// The protected resource (RFC 8707 `resource`).
    pub resource: String,
    /// The OAuth client id.
    pub client_id: String,
}

/// A token as kept: the access token, a refresh token if one was issued,
/// when the access token expires, and the scopes granted.
///
/// Made with [`StoredToken::bearer`] and the `with_` setters; its fields
/// are public to read (and to change), and new ones may come in a minor
/// release (it is `#[non_exhaustive]`). `Debug` shows neither token.
///
/// ```
/// use mcp_runtime::client::oauth::StoredToken;
///
/// let token = StoredToken::bearer("eyJ…")
///     .with_refresh_token("r-1")
///     .with_expires_at(4_000_000_000)
///     .with_scopes(["weather:read"]);
/// assert_eq!(token.token_type, "Bearer");
/// assert_eq!(token.scopes, ["weather:read"]);
/// ```
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StoredToken {
    /// The access token sent as `Authorization: Bearer`.
    pub access_token: String,
    /// The refresh token, if the authorization server issued one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch
    /// (`None`: the server did not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted (those the server said it granted, or else those
    /// asked for).
    #[serde(default)]
    pub scopes: Vec<String>,
    /// How the access token is presented: `Bearer`, or `DPoP` for a token
    /// bound to the client's DPoP key (which lives as long as the
    /// [`OAuth`](super::OAuth): a stored DPoP token is of no use to
    /// another process, which obtains a new one).
    #[serde(default = "bearer")]
    pub token_type: String,
}

fn bearer() -> String {
    "Bearer".into()
}

impl StoredToken {
    /// A bearer token: no refresh token, no known expiry, no scopes.
    pub fn bearer(access_token: impl Into<String>) -> StoredToken {
        StoredToken {
            access_token: access_token.into(),
            refresh_token: None,
            expires_at: None,
            scopes: Vec::new(),
            token_type: bearer(),
        }
    }

    /// With this refresh token.
    pub fn with_refresh_token(mut self, refresh_token: impl Into<String>) -> StoredToken {
        self.refresh_token = Some(refresh_token.into());
        self
    }

    /// Expiring at `at`, in seconds since the Unix epoch.
    pub fn with_expires_at(mut self, at: u64) -> StoredToken {
        self.expires_at = Some(at);
        self
    }

    /// With these scopes granted.
    pub fn with_scopes<I, S>(mut self, scopes: I) -> StoredToken
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Presented as `token_type` (`Bearer` or `DPoP`).
    pub fn with_token_type(mut self, token_type: impl Into<String>) -> StoredToken {
        self.token_type = token_type.into();
        self
    }

    /// Whether the access token has expired, or will within `margin`.
    pub fn expires_within(&self, margin: Duration) -> bool {
        let Some(at) = self.expires_at else {
            return false;
        };
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        now + margin >= Duration::from_secs(at)
    }
}

impl fmt::Debug for StoredToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredToken")
            .field("access_token", &"<redacted>")
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .field("token_type", &self.token_type)
            .finish()
    }
}

/// What a dynamic client registration is kept under: the authorization
/// server's issuer and the client's name
/// ([`OAuth::client_name`](super::OAuth::client_name)), so that two
/// applications sharing a store keep their own registrations. The redirect
/// URI registered is kept with the registration
/// ([`StoredRegistration::redirect_uri`]): a run whose redirect URI differs
/// uses the registration for its stored tokens and registers anew only when
/// it must send the user to the authorization server.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RegistrationKey {
    /// The authorization server's issuer, as its metadata names it.
    pub issuer: String,
    /// The client name sent in the registration.
    pub client_name: String,
}

impl RegistrationKey {
    /// The key of `client_name`'s registration at `issuer`.
    pub fn new(issuer: impl Into<String>, client_name: impl Into<String>) -> RegistrationKey {
        RegistrationKey {
            issuer: issuer.into(),
            client_name: client_name.into(),
        }
    }
}

/// A client registered dynamically (RFC 7591), as kept: what the
/// authorization server answered. `Debug` does not show the secret.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StoredRegistration {
    /// The client id the server gave.
    pub client_id: String,
    /// The client secret, for a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How the client authenticates at the token endpoint
    /// (`client_secret_basic`, `client_secret_post` or `none`).
    pub token_endpoint_auth_method: String,
    /// The redirect URI registered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
}

impl StoredRegistration {
    /// The registration of `client_id`, authenticating with `method` at
    /// the token endpoint.
    pub fn new(client_id: impl Into<String>, method: impl Into<String>) -> StoredRegistration {
        StoredRegistration {
            client_id: client_id.into(),
            client_secret: None,
            token_endpoint_auth_method: method.into(),
            redirect_uri: None,
        }
    }

    /// With this client secret.
    pub fn with_client_secret(mut self, secret: impl Into<String>) -> StoredRegistration {
        self.client_secret = Some(secret.into());
        self
    }

    /// With this redirect URI registered.
    pub fn with_redirect_uri(mut self, uri: impl Into<String>) -> StoredRegistration {
        self.redirect_uri = Some(uri.into());
        self
    }
}

impl fmt::Debug for StoredRegistration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredRegistration")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field(
                "token_endpoint_auth_method",
                &self.token_endpoint_auth_method,
            )
            .field("redirect_uri", &self.redirect_uri)
            .finish()
    }
}

/// Where the client keeps its tokens between requests and, for a
/// persistent store, between runs.
///
/// Implement it for a keyring or a database; [`MemoryTokenStore`] (the
/// default) and [`FileTokenStore`](super::FileTokenStore) are ready. Calls are short and
/// synchronous; an implementation must never log a token or a secret.
///
/// Only the three token methods are required. A store that keeps the
/// registrations too ([`load_registration`](TokenStore::load_registration),
/// [`save_registration`](TokenStore::save_registration)) spares a new run
/// a dynamic registration (and with it a new sign-in, its tokens being the
/// registered client's); one that keeps the last key per server
/// ([`load_last_used`](TokenStore::load_last_used),
/// [`save_last_used`](TokenStore::save_last_used)) lets a new run's first
/// request carry the stored token instead of waiting for the server's
/// 401. A store that wraps another must forward them all.
pub trait TokenStore: Send + Sync + 'static {
    /// The token kept under `key`, if any.
    fn load(&self, key: &TokenKey) -> Result<Option<StoredToken>, OAuthError>;
    /// Keeps `token` under `key`, replacing what was there.
    fn save(&self, key: &TokenKey, token: &StoredToken) -> Result<(), OAuthError>;
    /// Forgets the token under `key` (it was refused, or revoked).
    fn remove(&self, key: &TokenKey) -> Result<(), OAuthError>;

    /// The dynamic registration kept under `key`, if any (none kept
    /// unless implemented).
    fn load_registration(
        &self,
        key: &RegistrationKey,
    ) -> Result<Option<StoredRegistration>, OAuthError> {
        let _ = key;
        Ok(None)
    }
    /// Keeps `registration` under `key`, replacing what was there.
    fn save_registration(
        &self,
        key: &RegistrationKey,
        registration: &StoredRegistration,
    ) -> Result<(), OAuthError> {
        let _ = (key, registration);
        Ok(())
    }
    /// Forgets the registration under `key`.
    fn remove_registration(&self, key: &RegistrationKey) -> Result<(), OAuthError> {
        let _ = key;
        Ok(())
    }

    /// The key of the token last used with the server at `server` (its
    /// URL, as the client was given it), if any.
    fn load_last_used(&self, server: &str) -> Result<Option<TokenKey>, OAuthError> {
        let _ = server;
        Ok(None)
    }
    /// Notes that the token under `key` is the one used with `server`.
    fn save_last_used(&self, server: &str, key: &TokenKey) -> Result<(), OAuthError> {
        let _ = (server, key);
        Ok(())
    }
}

/// One store shared: by several [`OAuth`](super::OAuth)s (upstreams that
/// name the same token file), or with the application. Every call goes to
/// the store behind the `Arc`.
impl<T: TokenStore + ?Sized> TokenStore for std::sync::Arc<T> {
    fn load(&self, key: &TokenKey) -> Result<Option<StoredToken>, OAuthError> {
        (**self).load(key)
    }
    fn save(&self, key: &TokenKey, token: &StoredToken) -> Result<(), OAuthError> {
        (**self).save(key, token)
    }
    fn remove(&self, key: &TokenKey) -> Result<(), OAuthError> {
        (**self).remove(key)
    }
    fn load_registration(
        &self,
        key: &RegistrationKey,
    ) -> Result<Option<StoredRegistration>, OAuthError> {
        (**self).load_registration(key)
    }
    fn save_registration(
        &self,
        key: &RegistrationKey,
        registration: &StoredRegistration,
    ) -> Result<(), OAuthError> {
        (**self).save_registration(key, registration)
    }
    fn remove_registration(&self, key: &RegistrationKey) -> Result<(), OAuthError> {
        (**self).remove_registration(key)
    }
    fn load_last_used(&self, server: &str) -> Result<Option<TokenKey>, OAuthError> {
        (**self).load_last_used(server)
    }
    fn save_last_used(&self, server: &str, key: &TokenKey) -> Result<(), OAuthError> {
        (**self).save_last_used(server, key)
    }
}

/// Everything a store keeps (the token file's format).
#[derive(Default, Serialize, Deserialize)]
pub(super) struct Contents {
    #[serde(default)]
    tokens: Vec<Entry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    registrations: Vec<RegistrationEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    last_used: Vec<LastUsed>,
}

/// One token.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Entry {
    key: TokenKey,
    token: StoredToken,
}

/// One registration.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
struct RegistrationEntry {
    key: RegistrationKey,
    registration: StoredRegistration,
}

/// The token last used with one server.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
struct LastUsed {
    server: String,
    key: TokenKey,
}

/// Replaces (or adds) the entry whose key `is` says; `true` if anything
/// changed.
fn put<T: PartialEq>(entries: &mut Vec<T>, is: impl Fn(&T) -> bool, entry: T) -> bool {
    match entries.iter_mut().find(|e| is(e)) {
        Some(existing) if *existing == entry => false,
        Some(existing) => {
            *existing = entry;
            true
        }
        None => {
            entries.push(entry);
            true
        }
    }
}

/// Removes the entries `is` says; `true` if any was there.
fn take<T>(entries: &mut Vec<T>, is: impl Fn(&T) -> bool) -> bool {
    let before = entries.len();
    entries.retain(|e| !is(e));
    entries.len() != before
}

impl Contents {
    /// A store holding these tokens alone.
    pub(super) fn of_tokens(tokens: Vec<Entry>) -> Contents {
        Contents {
            tokens,
            ..Contents::default()
        }
    }

    pub(super) fn token(&self, key: &TokenKey) -> Option<StoredToken> {
        let found = self.tokens.iter().find(|e| &e.key == key);
        found.map(|e| e.token.clone())
    }

    pub(super) fn save_token(&mut self, key: &TokenKey, token: &StoredToken) -> bool {
        let entry = Entry {
            key: key.clone(),
            token: token.clone(),
        };
        put(&mut self.tokens, |e| &e.key == key, entry)
    }

    pub(super) fn remove_token(&mut self, key: &TokenKey) -> bool {
        take(&mut self.tokens, |e| &e.key == key)
    }

    pub(super) fn registration(&self, key: &RegistrationKey) -> Option<StoredRegistration> {
        let found = self.registrations.iter().find(|e| &e.key == key);
        found.map(|e| e.registration.clone())
    }

    pub(super) fn save_registration(
        &mut self,
        key: &RegistrationKey,
        r: &StoredRegistration,
    ) -> bool {
        let entry = RegistrationEntry {
            key: key.clone(),
            registration: r.clone(),
        };
        put(&mut self.registrations, |e| &e.key == key, entry)
    }

    pub(super) fn remove_registration(&mut self, key: &RegistrationKey) -> bool {
        take(&mut self.registrations, |e| &e.key == key)
    }

    pub(super) fn last_used(&self, server: &str) -> Option<TokenKey> {
        let found = self.last_used.iter().find(|e| e.server == server);
        found.map(|e| e.key.clone())
    }

    pub(super) fn save_last_used(&mut self, server: &str, key: &TokenKey) -> bool {
        let entry = LastUsed {
            server: server.to_owned(),
            key: key.clone(),
        };
        put(&mut self.last_used, |e| e.server == server, entry)
    }
}

/// Tokens kept in memory, for the life of the process (the default).
#[derive(Default)]
pub struct MemoryTokenStore {
    contents: Mutex<Contents>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> MemoryTokenStore {
        MemoryTokenStore::default()
    }

    fn contents(&self) -> std::sync::MutexGuard<'_, Contents> {
        self.contents.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl fmt::Debug for MemoryTokenStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let contents = self.contents();
        f.debug_struct("MemoryTokenStore")
            .field("tokens", &contents.tokens.len())
            .field("registrations", &contents.registrations.len())
            .finish()
    }
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, key: &TokenKey) -> Result<Option<StoredToken>, OAuthError> {
        Ok(self.contents().token(key))
    }

    fn save(&self, key: &TokenKey, token: &StoredToken) -> Result<(), OAuthError> {
        self.contents().save_token(key, token);
        Ok(())
    }

    fn remove(&self, key: &TokenKey) -> Result<(), OAuthError> {
        self.contents().remove_token(key);
        Ok(())
    }

    fn load_registration(
        &self,
        key: &RegistrationKey,
    ) -> Result<Option<StoredRegistration>, OAuthError> {
        Ok(self.contents().registration(key))
    }

    fn save_registration(
        &self,
        key: &RegistrationKey,
        registration: &StoredRegistration,
    ) -> Result<(), OAuthError> {
        self.contents().save_registration(key, registration);
        Ok(())
    }

    fn remove_registration(&self, key: &RegistrationKey) -> Result<(), OAuthError> {
        self.contents().remove_registration(key);
        Ok(())
    }

    fn load_last_used(&self, server: &str) -> Result<Option<TokenKey>, OAuthError> {
        Ok(self.contents().last_used(server))
    }

    fn save_last_used(&self, server: &str, key: &TokenKey) -> Result<(), OAuthError> {
        self.contents().save_last_used(server, key);
        Ok(())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A key of the test authorization server's, for `resource`.
    pub(in crate::client::oauth) fn key(resource: &str) -> TokenKey {
        TokenKey {
            issuer: "https://as.example".into(),
            resource: resource.into(),
            client_id: "app".into(),
        }
    }

    /// A token with a refresh token, an expiry and a scope.
    pub(in crate::client::oauth) fn token(access: &str) -> StoredToken {
        StoredToken::bearer(access)
            .with_refresh_token("refresh-secret")
            .with_expires_at(4_000_000_000)
            .with_scopes(["a"])
    }

    #[test]
    fn debug_never_shows_a_token() {
        let shown = format!("{:?}", token("access-secret"));
        assert!(!shown.contains("access-secret"), "{shown}");
        assert!(!shown.contains("refresh-secret"), "{shown}");
        assert!(shown.contains("redacted"), "{shown}");
    }

    #[test]
    fn an_arc_of_a_store_is_the_store() {
        let store = std::sync::Arc::new(MemoryTokenStore::new());
        let shared: &dyn TokenStore = &store;
        shared.save(&key("https://a/mcp"), &token("one")).unwrap();
        assert_eq!(
            store.load(&key("https://a/mcp")).unwrap(),
            Some(token("one"))
        );
    }

    #[test]
    fn tokens_are_kept_per_key() {
        let store = MemoryTokenStore::new();
        store.save(&key("https://a/mcp"), &token("one")).unwrap();
        assert_eq!(
            store.load(&key("https://a/mcp")).unwrap(),
            Some(token("one"))
        );
        assert_eq!(store.load(&key("https://b/mcp")).unwrap(), None);
        store.remove(&key("https://a/mcp")).unwrap();
        assert_eq!(store.load(&key("https://a/mcp")).unwrap(), None);
    }

    #[test]
    fn the_memory_store_keeps_registrations_and_last_keys() {
        let store = MemoryTokenStore::new();
        let registration_key = RegistrationKey::new("https://as.example", "My app");
        let registration = StoredRegistration::new("dyn-1", "none");
        store
            .save_registration(&registration_key, &registration)
            .unwrap();
        assert_eq!(
            store.load_registration(&registration_key).unwrap(),
            Some(registration)
        );
        store.save_last_used("https://a/mcp", &key("x")).unwrap();
        assert_eq!(
            store.load_last_used("https://a/mcp").unwrap(),
            Some(key("x"))
        );
    }

    #[test]
    fn expiry_with_a_margin() {
        let mut t = token("x");
        assert!(!t.expires_within(Duration::from_secs(60)));
        t.expires_at = Some(1);
        assert!(t.expires_within(Duration::ZERO));
        t.expires_at = None;
        assert!(!t.expires_within(Duration::from_secs(1_000_000)));
    }
}
