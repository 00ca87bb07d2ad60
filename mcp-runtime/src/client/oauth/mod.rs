//! OAuth 2.1 for the client: reaching MCP servers that are protected
//! resources (the specification's authorization section, 2025-11-25 and
//! 2026-07-28).
//!
//! Give an [`OAuth`] to [`HttpOptions::oauth`](crate::client::HttpOptions::oauth)
//! (or [`Upstream::oauth`](crate::Upstream::oauth) for a mount) and the
//! client obtains, sends, refreshes and steps up its tokens itself:
//!
//! 1. A request answered 401 carries a `WWW-Authenticate` challenge: its
//!    `resource_metadata` names the protected resource metadata (RFC
//!    9728); without it, the well-known addresses are tried, the one with
//!    the server's path first. The document's `resource` must be this
//!    server, or nothing is authorized.
//! 2. The authorization server's metadata is fetched from the addresses RFC
//!    8414 and OpenID Connect discovery give, in the specification's
//!    order; its `issuer` must be the one asked for, character for
//!    character, and it must offer PKCE with S256.
//! 3. The client is registered: a pre-registered client first
//!    ([`OAuth::client_id`]), else a client ID metadata document where the
//!    server supports them ([`OAuth::metadata_document`]), else dynamic
//!    client registration (RFC 7591). That is the specification's order,
//!    which puts pre-registered credentials before metadata documents (the
//!    issue that asked for this listed metadata documents first).
//!    Registrations are kept per authorization server: one never sees
//!    another's credentials. A dynamic registration is kept in the
//!    [`TokenStore`] too, so that a new run reuses it and its tokens.
//! 4. A token is obtained: the authorization code flow with PKCE (S256),
//!    `state`, the server's canonical URI as `resource` (RFC 8707) and the
//!    authorization response's `iss` checked (RFC 9207); or client
//!    credentials. Scopes are the challenge's, else the resource's
//!    `scopes_supported`, else none; `offline_access` is added where the
//!    authorization server lists it, for a refresh token.
//! 5. The request is sent again with `Authorization: Bearer` (and the
//!    store notes which token this server was sent: the first request of
//!    a later run carries it at once). Every later
//!    request (POST, the GET stream, the DELETE that ends the session)
//!    carries the token; an expired one is refreshed; a 403
//!    `insufficient_scope` asks again for the union of the scopes
//!    challenged and granted, at most a few times
//!    ([`OAuth::step_up_limit`]).
//!
//! Failures are [`OAuthError`]s inside
//! [`ClientError::OAuth`](crate::client::ClientError::OAuth). No token,
//! secret or code is ever logged or shown by `Debug`.

mod authorization;
mod authorizer;
mod challenge;
mod config;
mod discovery;
#[cfg(feature = "client-jwt")]
mod dpop;
mod error;
mod file_store;
mod flow;
mod loopback;
mod pkce;
mod registration;
mod retry;
mod settings;
mod store;
mod token;

pub use self::authorizer::{AssertionRequest, Authorizer, BoxFuture};
pub use self::config::OAuth;
pub use self::error::OAuthError;
pub use self::file_store::FileTokenStore;
pub use self::loopback::LoopbackAuthorizer;
pub use self::store::{
    MemoryTokenStore, RegistrationKey, StoredRegistration, StoredToken, TokenKey, TokenStore,
};
/// The algorithm of [`OAuth::private_key_jwt`]'s client assertions
/// (jsonwebtoken's: `ES256`, `RS256`…).
#[cfg(feature = "client-jwt")]
#[cfg_attr(docsrs, doc(cfg(feature = "client-jwt")))]
pub use jsonwebtoken::Algorithm as SigningAlgorithm;
/// URLs as [`Authorizer`] takes and returns them (the `url` crate's).
pub use url::Url;

pub(crate) use self::retry::{Attempts, Credentials};
