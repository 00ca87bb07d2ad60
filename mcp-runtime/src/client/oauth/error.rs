//! What obtaining a token can fail with.

/// Why the client could not obtain (or use) an OAuth access token.
///
/// Every message says what went wrong and, where it helps, what to do; none
/// holds a token, a secret or an authorization code.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// A metadata document (protected resource or authorization server)
    /// could not be fetched or read.
    #[error("OAuth discovery failed: {0}")]
    Discovery(String),
    /// The protected resource metadata names another resource than the
    /// server the client was given: it may belong to another server, whose
    /// tokens must not be sent here (RFC 9728 section 3.3).
    #[error(
        "the protected resource metadata is for {found:?}, not for this server ({expected:?}): refusing to authorize"
    )]
    ResourceMismatch {
        /// The server the client connects to.
        expected: String,
        /// The `resource` the metadata names.
        found: String,
    },
    /// The authorization server metadata names another issuer than the one
    /// it was fetched for (RFC 8414 section 3.3).
    #[error(
        "the metadata at {url} names the issuer {found:?}, not {expected:?}: refusing to use it"
    )]
    IssuerMismatch {
        /// The issuer the metadata was fetched for.
        expected: String,
        /// The issuer the document names (`None`: it names none).
        found: Option<String>,
        /// Where the document was fetched.
        url: String,
    },
    /// The authorization server does not advertise PKCE with `S256`
    /// (`code_challenge_methods_supported`), which MCP requires.
    #[error(
        "the authorization server {issuer} does not advertise PKCE with S256 (code_challenge_methods_supported): refusing to authorize"
    )]
    PkceUnsupported {
        /// The authorization server's issuer.
        issuer: String,
    },
    /// Registering the client failed, or there is no way to register with
    /// this authorization server.
    #[error("client registration failed: {0}")]
    Registration(String),
    /// The redirect URI is not acceptable (a loopback authorizer given a
    /// non-loopback URI), or the redirect the authorization server sent
    /// back cannot be read.
    #[error("bad redirect: {0}")]
    Redirect(String),
    /// The authorization response's `state` is not the one sent: it
    /// answers another request (or forges one).
    #[error("the authorization response's state does not match the request's: refusing it")]
    StateMismatch,
    /// The authorization response's `iss` is missing where the server
    /// promised it, or names another issuer (RFC 9207, mix-up defence).
    /// The code is not sent anywhere.
    #[error(
        "the authorization response comes from issuer {found:?}, not {expected:?} (RFC 9207): refusing it"
    )]
    IssuerParameter {
        /// The issuer the request was sent to.
        expected: String,
        /// The `iss` of the response (`None`: absent).
        found: Option<String>,
    },
    /// The authorization server answered the authorization request with
    /// an error (`access_denied`…).
    #[error("the authorization server refused: {error}{}", description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Denied {
        /// The OAuth error code.
        error: String,
        /// Its `error_description`, if any.
        description: Option<String>,
    },
    /// The token endpoint refused, or answered something that is not a
    /// token.
    #[error("the token request failed: {0}")]
    Token(String),
    /// The token endpoint answered with an OAuth error (RFC 6749 section
    /// 5.2), such as `invalid_grant` for a refresh token it no longer
    /// honours or `invalid_client` for a client it does not know.
    #[error(
        "the token request failed: {endpoint} answered {status}: {code}{}",
        description.as_ref().map(|d| format!(" ({d})")).unwrap_or_default()
    )]
    TokenRefused {
        /// The token endpoint.
        endpoint: String,
        /// The HTTP status of its answer.
        status: u16,
        /// Its `error` code (`"no error code"` when it gave none).
        code: String,
        /// Its `error_description`, if any.
        description: Option<String>,
    },
    /// The server kept refusing with 401 or 403 `insufficient_scope` after
    /// this many authorizations for one request.
    #[error(
        "the server still refuses after {attempts} authorizations (last challenge: {challenge}); giving up"
    )]
    StepUpLimit {
        /// How many times the request was authorized.
        attempts: u32,
        /// The server's last `WWW-Authenticate` (without secrets: it is the
        /// server's own text).
        challenge: String,
    },
    /// This flow cannot authorize interactively (client credentials) and
    /// the server asks for more than it can get.
    #[error("cannot authorize: {0}")]
    Unsupported(String),
    /// The token store failed.
    #[error("the token store failed: {0}")]
    Store(String),
    /// The interactive step failed or timed out (the loopback listener,
    /// the browser…).
    #[error("the authorization step failed: {0}")]
    Authorizer(String),
}
