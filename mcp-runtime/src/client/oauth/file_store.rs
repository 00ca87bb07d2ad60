//! [`FileTokenStore`]: tokens, dynamic registrations and the last key
//! used per server, kept in one private JSON file.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Deserialize;

use super::OAuthError;
use super::store::{
    Contents, Entry, RegistrationKey, StoredRegistration, StoredToken, TokenKey, TokenStore,
};

/// Tokens (and dynamic registrations) kept in one JSON file, readable and
/// writable by its owner only (mode 0600 on Unix), rewritten whole and
/// atomically (a temporary file renamed over it) on every change. A file
/// written before registrations were kept (a bare list of tokens) is read
/// as it is.
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

/// The token file as read: today's, or the bare list of tokens of the
/// first release.
#[derive(Deserialize)]
#[serde(untagged)]
enum FileFormat {
    Contents(Contents),
    Tokens(Vec<Entry>),
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

    fn read(&self) -> Result<Contents, OAuthError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => match serde_json::from_slice(&bytes) {
                Ok(FileFormat::Contents(contents)) => Ok(contents),
                Ok(FileFormat::Tokens(tokens)) => Ok(Contents::of_tokens(tokens)),
                Err(e) => Err(OAuthError::Store(format!(
                    "{} is not a token file: {e}",
                    self.path.display()
                ))),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Contents::default()),
            Err(e) => Err(self.failed("reading", &e)),
        }
    }

    /// Reads the file, applies `change` and writes it back if `change`
    /// says it changed anything.
    fn change(&self, change: impl FnOnce(&mut Contents) -> bool) -> Result<(), OAuthError> {
        let _one = self.lock();
        let mut contents = self.read()?;
        if change(&mut contents) {
            self.write(&contents)?;
        }
        Ok(())
    }

    /// Reads the file and looks in it.
    fn look<T>(&self, look: impl FnOnce(&Contents) -> T) -> Result<T, OAuthError> {
        let _one = self.lock();
        Ok(look(&self.read()?))
    }

    fn write(&self, contents: &Contents) -> Result<(), OAuthError> {
        let json = serde_json::to_vec_pretty(contents)
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

impl TokenStore for FileTokenStore {
    fn load(&self, key: &TokenKey) -> Result<Option<StoredToken>, OAuthError> {
        self.look(|contents| contents.token(key))
    }

    fn save(&self, key: &TokenKey, token: &StoredToken) -> Result<(), OAuthError> {
        self.change(|contents| contents.save_token(key, token))
    }

    fn remove(&self, key: &TokenKey) -> Result<(), OAuthError> {
        self.change(|contents| contents.remove_token(key))
    }

    fn load_registration(
        &self,
        key: &RegistrationKey,
    ) -> Result<Option<StoredRegistration>, OAuthError> {
        self.look(|contents| contents.registration(key))
    }

    fn save_registration(
        &self,
        key: &RegistrationKey,
        registration: &StoredRegistration,
    ) -> Result<(), OAuthError> {
        self.change(|contents| contents.save_registration(key, registration))
    }

    fn remove_registration(&self, key: &RegistrationKey) -> Result<(), OAuthError> {
        self.change(|contents| contents.remove_registration(key))
    }

    fn load_last_used(&self, server: &str) -> Result<Option<TokenKey>, OAuthError> {
        self.look(|contents| contents.last_used(server))
    }

    fn save_last_used(&self, server: &str, key: &TokenKey) -> Result<(), OAuthError> {
        self.change(|contents| contents.save_last_used(server, key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::oauth::store::tests::{key, token};

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
    fn a_file_of_the_first_release_is_read_and_kept_private() {
        // A bare list of tokens, as the first release wrote it.
        let path = std::env::temp_dir().join(format!("mcp-oauth-old-{}.json", std::process::id()));
        let old = serde_json::json!([{
            "key": {"issuer": "https://as.example", "resource": "https://a/mcp", "client_id": "app"},
            "token": {"access_token": "one", "scopes": ["a"]},
        }]);
        std::fs::write(&path, old.to_string()).unwrap();
        let store = FileTokenStore::new(&path);
        let kept = store.load(&key("https://a/mcp")).unwrap().unwrap();
        assert_eq!(kept, StoredToken::bearer("one").with_scopes(["a"]));
        // Written back in today's format, with the token still there.
        let registration_key = RegistrationKey::new("https://as.example", "My app");
        let registration = StoredRegistration::new("dyn-1", "client_secret_basic")
            .with_client_secret("registration-secret")
            .with_redirect_uri("http://127.0.0.1:3000/cb");
        store
            .save_registration(&registration_key, &registration)
            .unwrap();
        store
            .save_last_used("https://a/mcp", &key("https://a/mcp"))
            .unwrap();
        let again = FileTokenStore::new(&path);
        assert_eq!(again.load(&key("https://a/mcp")).unwrap(), Some(kept));
        assert_eq!(
            again.load_registration(&registration_key).unwrap(),
            Some(registration.clone())
        );
        let other = RegistrationKey::new("https://as.example", "Another app");
        assert_eq!(again.load_registration(&other).unwrap(), None);
        assert_eq!(
            again.load_last_used("https://a/mcp").unwrap(),
            Some(key("https://a/mcp"))
        );
        assert_eq!(again.load_last_used("https://b/mcp").unwrap(), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");
        }
        let shown = format!("{registration:?}");
        assert!(!shown.contains("registration-secret"), "{shown}");
        again.remove_registration(&registration_key).unwrap();
        assert_eq!(store.load_registration(&registration_key).unwrap(), None);
        std::fs::remove_file(&path).unwrap();
    }
}
