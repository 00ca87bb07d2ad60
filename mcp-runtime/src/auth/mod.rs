//! Authentication and authorization: who is calling ([`Identity`]) and,
//! with the `auth` feature on the HTTP transport, an OAuth 2.1 resource
//! server that establishes it from bearer tokens.

mod identity;

pub use identity::Identity;
