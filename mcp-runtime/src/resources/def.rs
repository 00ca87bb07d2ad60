//! The static [`ResourceDef`] each `#[resource]` submits, and what its read
//! shim takes and may fail with.

use std::fmt;

use crate::completion::ParamDef;
use crate::content::ResourceContents;
use crate::context::{Context, Requirement};
use crate::location::Location;
use crate::tools::def::BoxFuture;

/// What `#[resource]` submits. Not public API: its fields may change in any
/// release.
#[doc(hidden)]
pub struct ResourceDef {
    /// A URI, or a template with `{var}` / `{+var}` (checked by the macro).
    pub uri: &'static str,
    /// `name = ".."`, else the fn name.
    pub name: &'static str,
    pub title: Option<&'static str>,
    /// `description = ".."`, else the doc comment; `None` if neither.
    pub description: Option<&'static str>,
    /// `mime_type = ".."`.
    pub mime_type: Option<&'static str>,
    /// The return type's MIME type, for the listing when `mime_type` is not
    /// set: `text/plain` for text, `application/json` for `Serialize`
    /// values, `None` for `Blob` and `ResourceContents` (known only once read).
    pub default_mime_type: fn() -> Option<&'static str>,
    /// `icons = [..]`: icon URLs.
    pub icons: &'static [&'static str],
    /// `meta = ".."`: JSON object text, checked by the runtime at start-up.
    pub meta: Option<&'static str>,
    /// `scopes = [..]`: OAuth scopes a caller needs (checked by the macro,
    /// and again at start-up).
    pub scopes: &'static [&'static str],
    /// `view` or `view(..)`: it is a view, served as
    /// [`MIME_TYPE`](crate::apps::MIME_TYPE) with this `_meta.ui`.
    pub view: Option<crate::apps::ViewDef>,
    /// One per template variable, in fn parameter order; empty for a plain URI.
    pub params: &'static [ParamDef],
    pub requirements: &'static [fn() -> Option<Requirement>],
    pub read: fn(ReadRequest, Context) -> BoxFuture<ReadResult>,
    pub location: Location,
}

inventory::collect!(ResourceDef);

/// What a read produces: the contents, or why there are none.
#[doc(hidden)]
pub type ReadResult = Result<Vec<ResourceContents>, ReadError>;

impl fmt::Debug for ResourceDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceDef")
            .field("uri", &self.uri)
            .field("name", &self.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// One `resources/read` of one resource: the URI the client asked for, and
/// the template's variables matched in it.
#[doc(hidden)]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadRequest {
    /// The URI as the client sent it.
    pub uri: String,
    /// Variable name -> decoded value; empty for a plain URI.
    pub vars: Vec<(String, String)>,
}

impl ReadRequest {
    /// The value of the variable `name`, if matched.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Why a read produced no contents.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// The function returned `None`, or a variable did not parse into its
    /// parameter's type: no such resource (the version's not-found error).
    NotFound,
    /// The function returned `Err(e)`: `e`'s text (`{e:#}`), for the client.
    Failed(String),
}

impl ReadError {
    /// An injected parameter could not be provided: the server's state
    /// lacks what the start-up check should have required.
    #[doc(hidden)]
    pub fn misconfigured() -> Self {
        ReadError::Failed("internal error: the server is misconfigured".into())
    }

    /// A plain fn could not run: the blocking pool is shutting down.
    #[doc(hidden)]
    pub fn shutting_down() -> Self {
        ReadError::Failed("the read was cancelled because the server is shutting down".into())
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotFound => f.write_str("resource not found"),
            ReadError::Failed(text) => f.write_str(text),
        }
    }
}

impl std::error::Error for ReadError {}
