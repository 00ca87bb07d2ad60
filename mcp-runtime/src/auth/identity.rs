//! Who is calling: the subject, scopes and claims of a validated access
//! token, as handlers and middleware see them.

use serde_json::{Map, Value};

/// The caller of a request, established by the HTTP transport's
/// authentication (`Server::auth`, feature `auth`). Handlers read
/// it with [`Context::auth`](crate::Context::auth); middleware finds it on
/// the request. The token itself is never kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Identity {
    subject: String,
    scopes: Vec<String>,
    client_id: Option<String>,
    claims: Map<String, Value>,
}

impl Identity {
    /// A caller known by `subject` (the token's `sub`), with no scopes.
    pub fn new(subject: impl Into<String>) -> Identity {
        Identity {
            subject: subject.into(),
            ..Identity::default()
        }
    }

    /// The same caller, granted `scopes`.
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Identity {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The same caller, acting through the OAuth client `client_id`.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Identity {
        self.client_id = Some(client_id.into());
        self
    }

    /// The same caller, with the token's claims (or the introspection
    /// answer's members).
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Identity {
        self.claims = claims;
        self
    }

    /// The subject: the user or client the token was issued to.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The scopes the token grants.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// Of `needed`, the scopes the token does not grant.
    pub fn missing<'a, S: AsRef<str>>(&self, needed: &'a [S]) -> Vec<&'a str> {
        needed
            .iter()
            .map(AsRef::as_ref)
            .filter(|scope| !self.has_scope(scope))
            .collect()
    }

    /// The OAuth client the token was issued to (`client_id`), if known.
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// Every claim of the token (or member of the introspection answer).
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }

    /// One claim, by name.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.claims.get(name)
    }
}
