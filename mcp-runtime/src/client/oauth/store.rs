//! Where tokens are kept: [`TokenStore`], [`MemoryTokenStore`] and
//! [`FileTokenStore`]. A token is kept under a [`TokenKey`]: the
//! authorization server that issued it, the resource it is for and the
//! client it was issued to, so that it is never sent anywhere else.

use std::collections::HashMap;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
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
/// `Debug` shows neither token.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
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
}

impl StoredToken {
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
            .finish()
    }
}

/// Where the client keeps its tokens between requests and, for a
/// persistent store, between runs.
///
/// Implement it for a keyring or a database; [`MemoryTokenStore`] (the
/// default) and [`FileTokenStore`] are ready. Calls are short and
/// synchronous; an implementation must never log a token.
pub trait TokenStore: Send + Sync + 'static {
    /// The token kept under `key`, if any.
    fn load(&self, key: &TokenKey) -> Result<Option<StoredToken>, OAuthError>;
    /// Keeps `token` under `key`, replacing what was there.
    fn save(&self, key: &TokenKey, token: &StoredToken) -> Result<(), OAuthError>;
    /// Forgets the token under `key` (it was refused, or revoked).
    fn remove(&self, key: &TokenKey) -> Result<(), OAuthError>;
}

/// Tokens kept in memory, for the life of the process (the default).
#[derive(Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<HashMap<TokenKey, StoredToken>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> MemoryTokenStore {
        MemoryTokenStore::default()
    }

    fn tokens(&self) -> std::sync::MutexGuard<'_, HashMap<TokenKey, StoredToken>> {
        self.tokens.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl fmt::Debug for MemoryTokenStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryTokenStore")
            .field("tokens", &self.tokens().len())
            .finish()
    }
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, key: &TokenKey) -> Result<Option<StoredToken>, OAuthError> {
        Ok(self.tokens().get(key).cloned())
    }

    fn save(&self, key: &TokenKey, token: &StoredToken) -> Result<(), OAuthError> {
        self.tokens().insert(key.clone(), token.clone());
        Ok(())
    }

    fn remove(&self, key: &TokenKey) -> Result<(), OAuthError> {
        self.tokens().remove(key);
        Ok(())
    }
}

/// Tokens kept in one JSON file, readable and writable by its owner only
/// (mode 0600 on Unix), rewritten whole and atomically (a temporary file
/// renamed over it) on every change.
///
/// ```no_run
/// use mcp_runtime::client::oauth::{FileTokenStore, LoopbackAuthorizer, OAuth};
///
/// # async fn run() -> Result<(), mcp_runtime::client::oauth::OAuthError> {
/// let oauth = OAuth::authorization_code(LoopbackAuthorizer::bind("127.0.0.1:0").await?)
///     .token_store(FileTokenStore::new("/home/me/.config/my-app/tokens.json"));
/// # let _ = oauth;
/// # Ok(())
/// # }
/// ```
pub struct FileTokenStore {
    path: PathBuf,
    /// One change at a time within this process.
    lock: Mutex<()>,
}

impl FileTokenStore {
    /// The store in the file at `path` (created on the first save, with
    /// its directory).
    pub fn new(path: impl Into<PathBuf>) -> FileTokenStore {
        FileTokenStore {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Result<Vec<Entry>, OAuthError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                OAuthError::Store(format!("{} is not a token file: {e}", self.path.display()))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(self.failed("reading", &e)),
        }
    }

    fn write(&self, entries: &[Entry]) -> Result<(), OAuthError> {
        let json = serde_json::to_vec_pretty(entries)
            .map_err(|e| OAuthError::Store(format!("cannot serialize the tokens: {e}")))?;
        let directory = match self.path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&directory)
            .map_err(|e| self.failed("creating the directory of", &e))?;
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "tokens".into());
        let temporary = directory.join(format!(".{name}.{}.tmp", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let written = (|| {
            let mut file = options.open(&temporary)?;
            #[cfg(unix)]
            {
                // A file left by an earlier run keeps its mode: set it.
                use std::os::unix::fs::PermissionsExt;
                file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
            }
            file.write_all(&json)?;
            file.sync_all()?;
            std::fs::rename(&temporary, &self.path)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temporary);
            return Err(self.failed("writing", &e));
        }
        Ok(())
    }

    fn failed(&self, doing: &str, error: &std::io::Error) -> OAuthError {
        OAuthError::Store(format!("{doing} {}: {error}", self.path.display()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.lock.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl fmt::Debug for FileTokenStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileTokenStore")
            .field("path", &self.path)
            .finish()
    }
}

/// One line of the token file.
#[derive(Serialize, Deserialize)]
struct Entry {
    key: TokenKey,
    token: StoredToken,
}

impl TokenStore for FileTokenStore {
    fn load(&self, key: &TokenKey) -> Result<Option<StoredToken>, OAuthError> {
        let _one = self.lock();
        Ok(self
            .read()?
            .into_iter()
            .find(|entry| &entry.key == key)
            .map(|entry| entry.token))
    }

    fn save(&self, key: &TokenKey, token: &StoredToken) -> Result<(), OAuthError> {
        let _one = self.lock();
        let mut entries = self.read()?;
        entries.retain(|entry| &entry.key != key);
        entries.push(Entry {
            key: key.clone(),
            token: token.clone(),
        });
        self.write(&entries)
    }

    fn remove(&self, key: &TokenKey) -> Result<(), OAuthError> {
        let _one = self.lock();
        let mut entries = self.read()?;
        let before = entries.len();
        entries.retain(|entry| &entry.key != key);
        if entries.len() == before {
            return Ok(());
        }
        self.write(&entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(resource: &str) -> TokenKey {
        TokenKey {
            issuer: "https://as.example".into(),
            resource: resource.into(),
            client_id: "app".into(),
        }
    }

    fn token(access: &str) -> StoredToken {
        StoredToken {
            access_token: access.into(),
            refresh_token: Some("refresh-secret".into()),
            expires_at: Some(4_000_000_000),
            scopes: vec!["a".into()],
        }
    }

    #[test]
    fn debug_never_shows_a_token() {
        let shown = format!("{:?}", token("access-secret"));
        assert!(!shown.contains("access-secret"), "{shown}");
        assert!(!shown.contains("refresh-secret"), "{shown}");
        assert!(shown.contains("redacted"), "{shown}");
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
    fn the_file_store_survives_a_new_instance_and_is_private() {
        let directory = std::env::temp_dir().join(format!(
            "mcp-oauth-store-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let path = directory.join("nested").join("tokens.json");
        let store = FileTokenStore::new(&path);
        assert_eq!(store.load(&key("https://a/mcp")).unwrap(), None);
        store.save(&key("https://a/mcp"), &token("one")).unwrap();
        store.save(&key("https://b/mcp"), &token("two")).unwrap();
        store.save(&key("https://a/mcp"), &token("three")).unwrap();
        let again = FileTokenStore::new(&path);
        assert_eq!(
            again.load(&key("https://a/mcp")).unwrap(),
            Some(token("three"))
        );
        assert_eq!(
            again.load(&key("https://b/mcp")).unwrap(),
            Some(token("two"))
        );
        again.remove(&key("https://b/mcp")).unwrap();
        assert_eq!(store.load(&key("https://b/mcp")).unwrap(), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");
        }
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["tokens.json"]);
        std::fs::remove_dir_all(&directory).unwrap();
    }

    #[test]
    fn a_corrupt_file_is_an_error_not_an_empty_store() {
        let path =
            std::env::temp_dir().join(format!("mcp-oauth-corrupt-{}.json", std::process::id()));
        std::fs::write(&path, "not json").unwrap();
        let error = FileTokenStore::new(&path).load(&key("x")).unwrap_err();
        assert!(error.to_string().contains("not a token file"), "{error}");
        std::fs::remove_file(&path).unwrap();
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
