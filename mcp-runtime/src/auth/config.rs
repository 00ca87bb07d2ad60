//! [`Auth`]: how the HTTP transport authenticates callers, set with
//! [`Server::auth`](crate::Server::auth).

use std::collections::HashMap;
use std::time::Duration;

use super::Identity;

/// How bearer tokens are checked: an OAuth 2.1 resource server, per the
/// MCP authorization specification (2025-06-18 and later).
///
/// ```no_run
/// use mcp_runtime::Server;
/// use mcp_runtime::auth::Auth;
///
/// # async fn run() -> std::io::Result<()> {
/// Server::new("weather", "1.0.0")
///     .auth(Auth::issuer("https://login.example.com").audience("https://mcp.example.com/mcp"))
///     .serve_http("0.0.0.0:8080")
///     .await
/// # }
/// ```
///
/// Every request to the endpoint must then carry `Authorization: Bearer
/// <token>`. A request without one, or with one that fails a check, gets
/// 401 with a `WWW-Authenticate` header naming the Protected Resource
/// Metadata (RFC 9728), which the server publishes at
/// `/.well-known/oauth-protected-resource` (and that path followed by the
/// audience's path, `/mcp`). A call of a tool, resource or prompt that
/// declares `scopes` the token lacks gets 403 `insufficient_scope`. A
/// session belongs to the subject that created it.
#[derive(Clone, Debug)]
pub struct Auth {
    pub(crate) source: Source,
    pub(crate) audience: Option<String>,
    pub(crate) scopes_supported: Option<Vec<String>>,
    pub(crate) required_scopes: Vec<String>,
    pub(crate) leeway: Duration,
    pub(crate) algorithms: Vec<String>,
    pub(crate) authorization_servers: Vec<String>,
    pub(crate) introspection_cache: Duration,
    pub(crate) allow_http: bool,
}

/// Where the keys, or the verdicts, come from.
#[derive(Clone)]
pub(crate) enum Source {
    /// The issuer's metadata (RFC 8414, or OpenID Connect discovery) names
    /// its JWKS, or its introspection endpoint when `introspect` is given.
    Discover {
        issuer: String,
        introspect: Option<Credentials>,
    },
    /// A JWKS at a known address.
    Jwks { issuer: String, url: String },
    /// One key given in code.
    Key { issuer: String, key: StaticKey },
    /// Token introspection (RFC 7662) at a known endpoint.
    Introspection {
        issuer: String,
        endpoint: String,
        credentials: Credentials,
    },
    /// Fixed tokens, by the SHA-256 of each.
    Tokens(HashMap<[u8; 32], Identity>),
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Secrets and tokens stay out of `Debug`.
        match self {
            Source::Discover { issuer, introspect } => f
                .debug_struct("Discover")
                .field("issuer", issuer)
                .field("introspect", &introspect.is_some())
                .finish(),
            Source::Jwks { issuer, url } => f
                .debug_struct("Jwks")
                .field("issuer", issuer)
                .field("url", url)
                .finish(),
            Source::Key { issuer, .. } => f.debug_struct("Key").field("issuer", issuer).finish(),
            Source::Introspection {
                issuer, endpoint, ..
            } => f
                .debug_struct("Introspection")
                .field("issuer", issuer)
                .field("endpoint", endpoint)
                .finish(),
            Source::Tokens(tokens) => f
                .debug_struct("Tokens")
                .field("count", &tokens.len())
                .finish(),
        }
    }
}

/// The resource server's own client credentials, for introspection.
#[derive(Clone)]
pub(crate) struct Credentials {
    pub(crate) client_id: String,
    pub(crate) client_secret: String,
}

/// A verification key given in code.
#[derive(Clone)]
pub(crate) enum StaticKey {
    /// A shared secret (HS256, HS384, HS512).
    Hmac(Vec<u8>),
    /// An RSA public key in PEM (RS*, PS*).
    RsaPem(Vec<u8>),
    /// An EC public key in PEM (ES256, ES384).
    EcPem(Vec<u8>),
    /// A JSON Web Key.
    Jwk(String),
}

/// The signing algorithms accepted unless [`Auth::algorithms`] says
/// otherwise: every asymmetric one `jsonwebtoken` verifies. `none` is
/// never accepted, whatever the list says.
const ASYMMETRIC: [&str; 9] = [
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA",
];

impl Auth {
    fn with(source: Source, issuer: Option<&str>, algorithms: &[&str]) -> Auth {
        Auth {
            source,
            audience: None,
            scopes_supported: None,
            required_scopes: Vec::new(),
            leeway: Duration::from_secs(60),
            algorithms: algorithms.iter().map(|a| (*a).to_owned()).collect(),
            authorization_servers: issuer.map(|i| vec![i.to_owned()]).unwrap_or_default(),
            introspection_cache: Duration::from_secs(30),
            allow_http: false,
        }
    }

    /// JWT access tokens from the authorization server `issuer`: its
    /// metadata (`/.well-known/oauth-authorization-server`, or
    /// `/.well-known/openid-configuration`) names the JWKS, fetched when
    /// first needed, cached, and fetched again when a token names a key it
    /// does not have (so keys can rotate without a restart). Tokens must
    /// name `issuer` as `iss`, and the [`audience`](Auth::audience).
    pub fn issuer(issuer: impl Into<String>) -> Auth {
        let issuer = issuer.into();
        Auth::with(
            Source::Discover {
                issuer: issuer.clone(),
                introspect: None,
            },
            Some(&issuer),
            &ASYMMETRIC,
        )
    }

    /// JWT access tokens from `issuer`, whose keys are the JWKS at
    /// `jwks_url` (no metadata discovery).
    pub fn jwks(issuer: impl Into<String>, jwks_url: impl Into<String>) -> Auth {
        let issuer = issuer.into();
        Auth::with(
            Source::Jwks {
                issuer: issuer.clone(),
                url: jwks_url.into(),
            },
            Some(&issuer),
            &ASYMMETRIC,
        )
    }

    /// JWT access tokens from `issuer` signed with a shared secret (HS256,
    /// HS384 or HS512).
    pub fn hmac(issuer: impl Into<String>, secret: impl Into<Vec<u8>>) -> Auth {
        let issuer = issuer.into();
        Auth::with(
            Source::Key {
                issuer: issuer.clone(),
                key: StaticKey::Hmac(secret.into()),
            },
            Some(&issuer),
            &["HS256", "HS384", "HS512"],
        )
    }

    /// JWT access tokens from `issuer` signed with the RSA key whose public
    /// half is `pem` (RS256 to PS512).
    pub fn rsa_pem(issuer: impl Into<String>, pem: impl Into<Vec<u8>>) -> Auth {
        let issuer = issuer.into();
        Auth::with(
            Source::Key {
                issuer: issuer.clone(),
                key: StaticKey::RsaPem(pem.into()),
            },
            Some(&issuer),
            &["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"],
        )
    }

    /// JWT access tokens from `issuer` signed with the EC key whose public
    /// half is `pem` (ES256, ES384).
    pub fn ec_pem(issuer: impl Into<String>, pem: impl Into<Vec<u8>>) -> Auth {
        let issuer = issuer.into();
        Auth::with(
            Source::Key {
                issuer: issuer.clone(),
                key: StaticKey::EcPem(pem.into()),
            },
            Some(&issuer),
            &["ES256", "ES384"],
        )
    }

    /// JWT access tokens from `issuer` signed with one JSON Web Key (its
    /// JSON text).
    pub fn jwk(issuer: impl Into<String>, jwk: impl Into<String>) -> Auth {
        let issuer = issuer.into();
        Auth::with(
            Source::Key {
                issuer: issuer.clone(),
                key: StaticKey::Jwk(jwk.into()),
            },
            Some(&issuer),
            &ASYMMETRIC,
        )
    }

    /// Opaque tokens instead of JWTs: each is checked by token
    /// introspection (RFC 7662) at the endpoint the issuer's metadata
    /// names, as the client `client_id`; answers are cached briefly
    /// ([`Auth::introspection_cache`]). Only after [`Auth::issuer`].
    pub fn introspect(
        mut self,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Auth {
        if let Source::Discover { introspect, .. } = &mut self.source {
            *introspect = Some(Credentials {
                client_id: client_id.into(),
                client_secret: client_secret.into(),
            });
        }
        self
    }

    /// Opaque tokens checked by token introspection (RFC 7662) at
    /// `endpoint`, without metadata discovery.
    pub fn introspection(
        issuer: impl Into<String>,
        endpoint: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Auth {
        let issuer = issuer.into();
        Auth::with(
            Source::Introspection {
                issuer: issuer.clone(),
                endpoint: endpoint.into(),
                credentials: Credentials {
                    client_id: client_id.into(),
                    client_secret: client_secret.into(),
                },
            },
            Some(&issuer),
            &[],
        )
    }

    /// Fixed tokens, each standing for one caller: for a server behind a
    /// gateway that authenticated the caller already and passes a shared
    /// token on. Only a hash of each token is kept.
    pub fn static_tokens<T: AsRef<str>>(tokens: impl IntoIterator<Item = (T, Identity)>) -> Auth {
        let tokens = tokens
            .into_iter()
            .map(|(token, identity)| (super::hash(token.as_ref()), identity))
            .collect();
        Auth::with(Source::Tokens(tokens), None, &[])
    }

    /// This server's canonical URI, which tokens must name as their
    /// audience (RFC 8707), such as `https://mcp.example.com/mcp`. Required
    /// for every kind but static tokens; it is also the `resource` of the
    /// Protected Resource Metadata.
    pub fn audience(mut self, uri: impl Into<String>) -> Auth {
        self.audience = Some(uri.into());
        self
    }

    /// The scopes the Protected Resource Metadata lists and a 401 asks
    /// for. Default: every scope a tool, resource or prompt declares.
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Auth {
        self.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Scopes every request needs, beyond those of what it calls.
    pub fn required_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Auth {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// How far `exp` and `nbf` may be off (clock skew); default 60 s.
    pub fn leeway(mut self, leeway: Duration) -> Auth {
        self.leeway = leeway;
        self
    }

    /// The JWT signing algorithms accepted (`"RS256"`, `"ES256"`, ...).
    /// Default: every asymmetric one for keys from a JWKS; the HMAC ones
    /// for [`Auth::hmac`]. An algorithm this crate does not know stops the
    /// server at start-up; `none` is never accepted.
    pub fn algorithms<S: Into<String>>(mut self, algorithms: impl IntoIterator<Item = S>) -> Auth {
        self.algorithms = algorithms.into_iter().map(Into::into).collect();
        self
    }

    /// The authorization servers the Protected Resource Metadata names.
    /// Default: the issuer.
    pub fn authorization_servers<S: Into<String>>(
        mut self,
        servers: impl IntoIterator<Item = S>,
    ) -> Auth {
        self.authorization_servers = servers.into_iter().map(Into::into).collect();
        self
    }

    /// How long an introspection answer is reused (default 30 s; never
    /// past the token's `exp`).
    pub fn introspection_cache(mut self, duration: Duration) -> Auth {
        self.introspection_cache = duration;
        self
    }

    /// Allows the issuer's metadata, JWKS and introspection endpoint to be
    /// fetched over plain `http://` from hosts other than loopback (they
    /// are refused by default: keys fetched in the clear can be forged).
    pub fn allow_insecure_http(mut self) -> Auth {
        self.allow_http = true;
        self
    }

    /// The issuer, when tokens name one.
    pub(crate) fn issuer_name(&self) -> Option<&str> {
        match &self.source {
            Source::Discover { issuer, .. }
            | Source::Jwks { issuer, .. }
            | Source::Key { issuer, .. }
            | Source::Introspection { issuer, .. } => Some(issuer),
            Source::Tokens(_) => None,
        }
    }
}
