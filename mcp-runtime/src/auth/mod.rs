//! Authentication and authorization: who is calling ([`Identity`]) and,
//! with the `auth` feature, the OAuth 2.1 resource server of the HTTP
//! transport (`Auth`, set with `Server::auth`).
//!
//! - `config`: `Auth`, what the user configures;
//! - `jwt` and `keys`: JWT access tokens and the keys they are checked with;
//! - `introspection`: opaque tokens (RFC 7662);
//! - `discovery` and `fetch`: the authorization server's metadata, over HTTPS;
//! - `claims`: claims as an [`Identity`];
//! - `challenge`: the `WWW-Authenticate` answers and the Protected Resource
//!   Metadata (RFC 9728) this server publishes.

mod identity;

pub use identity::Identity;

#[cfg(feature = "auth")]
mod challenge;
#[cfg(feature = "auth")]
mod claims;
#[cfg(feature = "auth")]
mod config;
// Shared with the client's OAuth (`client::oauth`), which fetches the
// same documents from the other side.
#[cfg(any(feature = "auth", feature = "client"))]
pub(crate) mod discovery;
#[cfg(any(feature = "auth", feature = "client"))]
pub(crate) mod fetch;
#[cfg(feature = "auth")]
mod introspection;
#[cfg(feature = "auth")]
mod jwt;
#[cfg(feature = "auth")]
mod keys;
#[cfg(feature = "auth")]
mod verifier;

#[cfg(feature = "auth")]
pub(crate) use challenge::Challenge;
#[cfg(feature = "auth")]
pub use config::Auth;
#[cfg(feature = "auth")]
pub(crate) use verifier::Authenticator;

/// Why a request's token was not accepted.
#[cfg(feature = "auth")]
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Rejection {
    /// No `Authorization: Bearer` header.
    Missing,
    /// A token that fails a check; the reason is safe to send (it never
    /// holds the token).
    Invalid(String),
    /// The authorization server could not be asked (its keys or its
    /// introspection endpoint): not the client's fault.
    Unavailable(String),
}

#[cfg(feature = "auth")]
impl Rejection {
    pub(crate) fn invalid(reason: impl Into<String>) -> Rejection {
        Rejection::Invalid(reason.into())
    }
}

/// The SHA-256 of a token: what caches and the static-token table keep
/// instead of the token.
#[cfg(feature = "auth")]
pub(crate) fn hash(token: &str) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(token.as_bytes()).into()
}
