//! [`OAuth`]: how a client obtains its access tokens, as the application
//! configures it.

use std::fmt;
use std::sync::Arc;

use super::flow::Shared;
use super::settings::{Config, Grant};
use super::{Authorizer, TokenStore};

/// OAuth 2.1 for a client of a protected MCP server, given to
/// [`HttpOptions::oauth`](crate::client::HttpOptions::oauth) or
/// [`Upstream::oauth`](crate::Upstream::oauth).
///
/// When the server answers 401, the client reads its challenge, discovers
/// the server's authorization server (RFC 9728, then RFC 8414 or OpenID
/// Connect discovery, in the order the MCP specification gives), checks
/// that both documents are what they claim, registers (a pre-registered
/// client, else a client ID metadata document, else dynamic client
/// registration), obtains a token (authorization code with PKCE, or client
/// credentials) for the server's canonical URI (RFC 8707 `resource`), and
/// sends the request again with it. A 403 `insufficient_scope` asks the
/// user again for the union of the scopes challenged and those granted,
/// at most [`step_up_limit`](OAuth::step_up_limit) times. Tokens are refreshed
/// when a refresh token was issued; they are kept in a [`TokenStore`]
/// under the issuer, the resource and the client id, and never sent to
/// another server.
///
/// ```no_run
/// use mcp_runtime::client::oauth::{FileTokenStore, LoopbackAuthorizer, OAuth};
/// use mcp_runtime::client::{Client, HttpOptions};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// // An application with a user: the browser, and a redirect to 127.0.0.1.
/// let oauth = OAuth::authorization_code(LoopbackAuthorizer::bind("127.0.0.1:0").await?)
///     .client_name("My app")
///     .token_store(FileTokenStore::new("/home/me/.config/my-app/tokens.json"));
/// let client = Client::connect_http(HttpOptions::new("https://mcp.example.com/mcp").oauth(oauth)).await?;
///
/// // A service without a user: client credentials.
/// let service = OAuth::client_credentials("reporting", "secret").scopes(["weather:read"]);
/// let weather = Client::connect_http(HttpOptions::new("https://weather.example.com/mcp").oauth(service)).await?;
/// # let _ = (client, weather);
/// # Ok(())
/// # }
/// ```
///
/// Clones share their tokens and registrations: the sessions of a
/// `per_session` mount authorize once, not once each. `Debug` shows no
/// secret.
#[derive(Clone)]
pub struct OAuth {
    pub(crate) config: Arc<Config>,
    pub(crate) shared: Arc<Shared>,
}

impl OAuth {
    fn with(grant: Grant) -> OAuth {
        OAuth {
            config: Arc::new(Config::new(grant)),
            shared: Arc::new(Shared::default()),
        }
    }

    fn config(&mut self) -> &mut Config {
        Arc::make_mut(&mut self.config)
    }

    /// The authorization code flow with PKCE (S256): `authorizer` takes the
    /// user to the authorization server and brings the redirect back
    /// ([`LoopbackAuthorizer`](super::LoopbackAuthorizer) for a desktop
    /// or command-line application).
    pub fn authorization_code(authorizer: impl Authorizer) -> OAuth {
        OAuth::with(Grant::AuthorizationCode(Arc::new(authorizer)))
    }

    /// The client credentials grant (machine to machine, no user): the
    /// client authenticates at the token endpoint with `client_id` and
    /// `client_secret` (HTTP Basic, or in the form when the server takes
    /// only that).
    pub fn client_credentials(
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> OAuth {
        OAuth::with(Grant::ClientCredentials)
            .client_id(client_id)
            .client_secret(client_secret)
    }

    /// The client credentials grant, the client authenticating with a JWT
    /// it signs with `private_key_pem` (RFC 7523 `private_key_jwt`, with
    /// `iss` = `sub` = the client id and `aud` = the authorization server's
    /// issuer; ES256 for an EC P-256 key, RS256 for an RSA key:
    /// `algorithm`).
    #[cfg(feature = "client-jwt")]
    #[cfg_attr(docsrs, doc(cfg(feature = "client-jwt")))]
    pub fn private_key_jwt(
        client_id: impl Into<String>,
        private_key_pem: impl Into<String>,
        algorithm: super::SigningAlgorithm,
    ) -> OAuth {
        let key_pem: String = private_key_pem.into();
        OAuth::with(Grant::PrivateKeyJwt {
            key_pem: key_pem.into(),
            algorithm,
        })
        .client_id(client_id)
    }

    /// The JWT bearer grant (RFC 7523 section 2.1), as workload identity
    /// federation uses it: `assertion` returns a JWT the authorization
    /// server trusts (a Kubernetes service account token, a cloud
    /// provider's identity token), read again for each token request; the
    /// client is `client_id`, a public client. A refused assertion is an
    /// error at once: the client neither retries nor tries another grant.
    ///
    /// ```no_run
    /// use mcp_runtime::client::oauth::OAuth;
    ///
    /// let oauth = OAuth::jwt_bearer("reporting-workload", || {
    ///     std::fs::read_to_string("/var/run/secrets/tokens/mcp").map(|t| t.trim().to_owned())
    /// });
    /// # let _ = oauth;
    /// ```
    pub fn jwt_bearer<F>(client_id: impl Into<String>, assertion: F) -> OAuth
    where
        F: Fn() -> std::io::Result<String> + Send + Sync + 'static,
    {
        OAuth::with(Grant::JwtBearer(Arc::new(assertion))).client_id(client_id)
    }

    /// The client's name, shown by the authorization server on its consent
    /// page: sent in dynamic client registration ("mcp-runtime" unless set).
    pub fn client_name(mut self, name: impl Into<String>) -> OAuth {
        self.config().client_name = name.into();
        self
    }

    /// A client registered beforehand with the authorization server: used
    /// first, before a client ID metadata document or dynamic registration,
    /// as the MCP specification orders them. It is bound to the first
    /// authorization server it is used with: should the server move to
    /// another one, the client registers anew there (never presenting
    /// these credentials to it).
    pub fn client_id(mut self, client_id: impl Into<String>) -> OAuth {
        self.config().client_id = Some(client_id.into());
        self
    }

    /// The secret of the pre-registered [`client_id`](OAuth::client_id)
    /// (a confidential client).
    pub fn client_secret(mut self, secret: impl Into<String>) -> OAuth {
        self.config().client_secret = Some(secret.into());
        self
    }

    /// The HTTPS URL of this client's metadata document (the OAuth client
    /// ID metadata document draft): the client id at every authorization
    /// server that advertises `client_id_metadata_document_supported`,
    /// without registering. The document itself is the application's to
    /// publish; its `redirect_uris` must hold the authorizer's.
    pub fn metadata_document(mut self, url: impl Into<String>) -> OAuth {
        self.config().metadata_document = Some(url.into());
        self
    }

    /// The scopes to ask for, instead of the specification's choice (the
    /// server's challenge, else its `scopes_supported`, else none). A
    /// step-up still adds what a 403 asks for.
    pub fn scopes<I, S>(mut self, scopes: I) -> OAuth
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.config().scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Where tokens are kept ([`MemoryTokenStore`](super::MemoryTokenStore) unless set).
    pub fn token_store(mut self, store: impl TokenStore) -> OAuth {
        self.config().store = Arc::new(store);
        self
    }

    /// How many times one request may be authorized (after a 401, or a 403
    /// `insufficient_scope` asking for more scopes) before it fails with
    /// [`OAuthError::StepUpLimit`](super::OAuthError::StepUpLimit): 3 unless
    /// set, at least 1.
    pub fn step_up_limit(mut self, attempts: u32) -> OAuth {
        self.config().step_up_limit = attempts.max(1);
        self
    }

    /// Lets metadata, registration and token requests go over plain http
    /// to hosts that are not loopback (for tests on a trusted network);
    /// https is required otherwise.
    pub fn allow_insecure_http(mut self) -> OAuth {
        self.config().allow_insecure_http = true;
        self
    }
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let config = &self.config;
        let grant = match &config.grant {
            Grant::AuthorizationCode(_) => "authorization_code",
            Grant::ClientCredentials => "client_credentials",
            Grant::JwtBearer(_) => "jwt-bearer",
            #[cfg(feature = "client-jwt")]
            Grant::PrivateKeyJwt { .. } => "client_credentials (private_key_jwt)",
        };
        f.debug_struct("OAuth")
            .field("grant", &grant)
            .field("client_name", &config.client_name)
            .field("client_id", &config.client_id)
            .field(
                "client_secret",
                &config.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("metadata_document", &config.metadata_document)
            .field("scopes", &config.scopes)
            .field("step_up_limit", &config.step_up_limit)
            .field("allow_insecure_http", &config.allow_insecure_http)
            .finish_non_exhaustive()
    }
}
