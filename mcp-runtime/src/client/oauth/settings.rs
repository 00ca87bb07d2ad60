//! What the application configured for OAuth ([`OAuth`](super::OAuth)'s
//! settings), as the flow reads them.

use std::sync::Arc;

use super::{Authorizer, MemoryTokenStore, TokenStore};

/// The authorization attempts one request may make (on 401, or on 403
/// `insufficient_scope`) before it fails: the conformance suite's limit.
pub(crate) const DEFAULT_STEP_UP_LIMIT: u32 = 3;

/// What the application configured.
#[derive(Clone)]
pub(crate) struct Config {
    pub(crate) grant: Grant,
    pub(crate) client_name: String,
    pub(crate) client_id: Option<String>,
    pub(crate) client_secret: Option<String>,
    pub(crate) metadata_document: Option<String>,
    pub(crate) scopes: Option<Vec<String>>,
    pub(crate) store: Arc<dyn TokenStore>,
    pub(crate) step_up_limit: u32,
    pub(crate) allow_insecure_http: bool,
}

/// How tokens are obtained.
#[derive(Clone)]
pub(crate) enum Grant {
    /// The authorization code flow, with the application's interactive step.
    AuthorizationCode(Arc<dyn Authorizer>),
    /// Client credentials (machine to machine): the id and secret are in
    /// the config.
    ClientCredentials,
    /// Client credentials authenticated with a signed JWT (RFC 7523,
    /// `private_key_jwt`): the PEM key and the algorithm.
    #[cfg(feature = "client-jwt")]
    PrivateKeyJwt {
        key_pem: Arc<str>,
        algorithm: jsonwebtoken::Algorithm,
    },
    /// The JWT bearer grant (RFC 7523 section 2.1): an assertion the
    /// application obtains (a workload identity token), asked for each
    /// token request.
    JwtBearer(Assertion),
}

/// Where a [`Grant::JwtBearer`] gets its assertion.
pub(crate) type Assertion = Arc<dyn Fn() -> std::io::Result<String> + Send + Sync>;

impl Config {
    /// The defaults, for `grant`.
    pub(crate) fn new(grant: Grant) -> Config {
        Config {
            grant,
            client_name: "mcp-runtime".into(),
            client_id: None,
            client_secret: None,
            metadata_document: None,
            scopes: None,
            store: Arc::new(MemoryTokenStore::new()),
            step_up_limit: DEFAULT_STEP_UP_LIMIT,
            allow_insecure_http: false,
        }
    }
}
