//! OAuth for a protected Streamable HTTP upstream, as the gateway's flags
//! and the chain's config file describe it, made into the
//! [`OAuth`] that `Upstream::oauth` takes (shared by examples/gateway and
//! examples/chain).
//!
//! The front authorizes with its own identity: the client it is registered
//! as (or registers as), and the token it obtains for that upstream alone.
//! Its own clients' tokens are never passed on (`Upstream::http` sends only
//! the tokens of the `OAuth` it is given).

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use mcp_runtime::client::oauth::{FileTokenStore, LoopbackAuthorizer, OAuth, OAuthError};

/// How the front obtains its tokens for one upstream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grant {
    /// A user signs in once, in a browser: the front prints the
    /// authorization URL on stderr (and opens a browser where it can) and
    /// waits for the redirect on a loopback port.
    AuthorizationCode,
    /// No user: the front's own client id and secret (a service).
    ClientCredentials,
}

impl Grant {
    /// The grant named as OAuth names it: `authorization_code` or
    /// `client_credentials`.
    pub fn parse(name: &str) -> Result<Grant, String> {
        match name {
            "authorization_code" => Ok(Grant::AuthorizationCode),
            "client_credentials" => Ok(Grant::ClientCredentials),
            other => Err(format!(
                "`{other}` is not a grant: use authorization_code (a user signs in, in a browser) or client_credentials (a service with a client id and secret)"
            )),
        }
    }
}

/// Where the client secret comes from.
#[derive(Clone)]
pub enum Secret {
    /// Written in the config file (the chain's; the gateway takes secrets
    /// from the environment only).
    #[allow(dead_code)]
    Literal(String),
    /// In this environment variable (read when the upstream is mounted).
    Env(String),
}

/// The OAuth settings of one upstream, checked.
#[derive(Clone)]
pub struct OAuthSettings {
    /// `None`: client credentials when a secret is given, else the
    /// authorization code flow.
    pub grant: Option<Grant>,
    /// A client registered beforehand; without one, the front registers
    /// itself (client ID metadata document, else dynamic registration).
    pub client_id: Option<String>,
    /// The secret of `client_id` (a confidential client).
    pub client_secret: Option<Secret>,
    /// The scopes to ask for; without them, what the upstream's challenge
    /// or metadata says.
    pub scopes: Option<Vec<String>>,
    /// This client's metadata document URL (the client id at authorization
    /// servers that support them).
    pub metadata_document: Option<String>,
    /// A file keeping the tokens across restarts (mode 0600); without one,
    /// tokens are kept in memory.
    pub token_store: Option<PathBuf>,
    /// The loopback redirect URI to listen on (a pre-registered client's);
    /// without one, `http://127.0.0.1:<any free port>/callback`.
    pub redirect_uri: Option<String>,
    /// Whether to try opening a browser for the authorization code flow.
    pub open_browser: bool,
}

impl Default for OAuthSettings {
    /// Settings with nothing given: the authorization code flow, with
    /// dynamic registration and the scopes the upstream asks for.
    fn default() -> OAuthSettings {
        OAuthSettings {
            grant: None,
            client_id: None,
            client_secret: None,
            scopes: None,
            metadata_document: None,
            token_store: None,
            redirect_uri: None,
            open_browser: true,
        }
    }
}

impl OAuthSettings {
    /// The grant, given or implied.
    pub fn grant(&self) -> Grant {
        self.grant.unwrap_or(if self.client_secret.is_some() {
            Grant::ClientCredentials
        } else {
            Grant::AuthorizationCode
        })
    }

    /// What cannot work, as a sentence naming the setting (`spelling`
    /// says how a setting is written: `--oauth-client-id` or
    /// `` `oauth.client_id` ``).
    pub fn check(&self, spelling: impl Fn(&str) -> String) -> Result<(), String> {
        match self.grant() {
            Grant::ClientCredentials => {
                if self.client_id.is_none() || self.client_secret.is_none() {
                    return Err(format!(
                        "the client_credentials grant needs {} and {}: the client the authorization server knows this front as",
                        spelling("client_id"),
                        spelling("client_secret")
                    ));
                }
                if self.redirect_uri.is_some() {
                    return Err(format!(
                        "{} applies to the authorization_code grant, not to client_credentials: remove it",
                        spelling("redirect_uri")
                    ));
                }
            }
            Grant::AuthorizationCode => {
                if self.client_secret.is_some() && self.client_id.is_none() {
                    return Err(format!(
                        "{} goes with {}: give the id of the client it is the secret of",
                        spelling("client_secret"),
                        spelling("client_id")
                    ));
                }
            }
        }
        if let Some(url) = &self.metadata_document
            && !url.starts_with("https://")
        {
            return Err(format!(
                "{} must be an https:// URL (it is this client's id), not `{url}`",
                spelling("metadata_document")
            ));
        }
        Ok(())
    }

    /// The [`OAuth`] these settings describe, for the upstream called
    /// `name` (in messages). For the authorization code flow this binds the
    /// loopback listener of the redirect URI.
    pub async fn build(&self, name: &str) -> Result<OAuth, String> {
        let fail = |error: OAuthError| format!("OAuth for `{name}`: {error}");
        let mut oauth = match self.grant() {
            Grant::ClientCredentials => {
                let id = self.client_id.clone().unwrap_or_default();
                OAuth::client_credentials(id, self.secret(name)?.unwrap_or_default())
            }
            Grant::AuthorizationCode => {
                let authorizer = match &self.redirect_uri {
                    Some(uri) => LoopbackAuthorizer::redirect_to(uri).await,
                    None => LoopbackAuthorizer::bind("127.0.0.1:0").await,
                }
                .map_err(fail)?
                .open_browser(self.open_browser);
                let mut oauth = OAuth::authorization_code(authorizer);
                if let Some(id) = &self.client_id {
                    oauth = oauth.client_id(id.clone());
                }
                if let Some(secret) = self.secret(name)? {
                    oauth = oauth.client_secret(secret);
                }
                oauth
            }
        };
        oauth = oauth.client_name(format!("mcp-runtime front for {name}"));
        if let Some(scopes) = &self.scopes {
            oauth = oauth.scopes(scopes.clone());
        }
        if let Some(url) = &self.metadata_document {
            oauth = oauth.metadata_document(url.clone());
        }
        if let Some(path) = &self.token_store {
            oauth = oauth.token_store(shared_file(path));
        }
        Ok(oauth)
    }

    fn secret(&self, name: &str) -> Result<Option<String>, String> {
        match &self.client_secret {
            None => Ok(None),
            Some(Secret::Literal(secret)) => Ok(Some(secret.clone())),
            Some(Secret::Env(variable)) => match std::env::var(variable) {
                Ok(secret) if !secret.is_empty() => Ok(Some(secret)),
                _ => Err(format!(
                    "OAuth for `{name}`: the client secret is to be in the environment variable {variable}, which is not set (or empty)"
                )),
            },
        }
    }
}

impl fmt::Debug for OAuthSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secret = self.client_secret.as_ref().map(|secret| match secret {
            Secret::Literal(_) => "<redacted>".to_owned(),
            Secret::Env(variable) => format!("${variable}"),
        });
        f.debug_struct("OAuthSettings")
            .field("grant", &self.grant())
            .field("client_id", &self.client_id)
            .field("client_secret", &secret)
            .field("scopes", &self.scopes)
            .field("metadata_document", &self.metadata_document)
            .field("token_store", &self.token_store)
            .field("redirect_uri", &self.redirect_uri)
            .field("open_browser", &self.open_browser)
            .finish()
    }
}

/// One [`FileTokenStore`] per file in this process, shared by every
/// upstream that names it (an `Arc` of a store is a store), so that their
/// writes (each a read, a change and a rename) never overlap.
fn shared_file(path: &Path) -> Arc<FileTokenStore> {
    static STORES: OnceLock<Mutex<HashMap<PathBuf, Arc<FileTokenStore>>>> = OnceLock::new();
    let mut stores = STORES.get_or_init(Default::default).lock().unwrap();
    let store = stores
        .entry(path.to_owned())
        .or_insert_with(|| Arc::new(FileTokenStore::new(path)));
    Arc::clone(store)
}
