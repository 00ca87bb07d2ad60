//! What one operation's call needs, worked out once at start-up from the
//! document and the configuration: where each argument goes on the wire,
//! how the body is written, and which credentials go with it.
//!
//! The conversion (document → tools) fills these; the call (`call.rs`)
//! only reads them, so nothing about the document is looked at per call.

use std::sync::Arc;
use std::time::Duration;

/// Everything one tool's call needs.
#[derive(Debug)]
pub(crate) struct CallPlan {
    /// The operation for messages: `GET /pets/{petId} (getPet)`.
    pub(crate) label: String,
    pub(crate) method: reqwest::Method,
    /// The base URL: scheme, host, port and base path, without a trailing
    /// `/` (`http://127.0.0.1:4010/v1`). Credentials go to its origin only.
    pub(crate) base: url::Url,
    /// The operation's path template, appended to the base's path
    /// (`/pets/{petId}`): concatenated, never resolved as a reference.
    pub(crate) path: String,
    /// Each top-level argument of the tool's input, in schema order.
    pub(crate) arguments: Vec<ArgumentPlan>,
    /// The request body, when the operation has one.
    pub(crate) body: Option<BodyPlan>,
    /// The `Accept` header: the success response's JSON media type.
    pub(crate) accept: Option<String>,
    /// The credentials this operation sends, chosen at start-up from its
    /// security requirements and what was configured; sent only to the
    /// base URL's origin.
    pub(crate) credentials: Vec<Credential>,
    /// Shared by every tool of one document.
    pub(crate) settings: Arc<Settings>,
}

/// Where one argument of the tool goes.
#[derive(Debug)]
pub(crate) struct ArgumentPlan {
    /// Its name in the tool's arguments (after collisions are resolved:
    /// `id__query`).
    pub(crate) argument: String,
    pub(crate) wire: Wire,
}

/// A place in the HTTP request.
#[derive(Debug)]
pub(crate) enum Wire {
    /// A parameter (`in: path|query|header|cookie`).
    Parameter(Parameter),
    /// A member of a JSON (or form) object body, merged into the
    /// arguments: `name` is the member's name in the body.
    BodyMember { name: String },
    /// The whole body, given as one argument (`body`).
    Body,
}

/// A parameter and how it is written.
#[derive(Debug)]
pub(crate) struct Parameter {
    /// Its name on the wire (the `{name}` in the path, the query key, the
    /// header or cookie name).
    pub(crate) name: String,
    pub(crate) location: ParameterLocation,
    /// `explode` as the document says it, or its style's default.
    pub(crate) explode: bool,
    /// Query only: reserved characters are sent as they are.
    pub(crate) allow_reserved: bool,
    /// `content: application/json`: the value is written as JSON text,
    /// not by `style`.
    pub(crate) json: bool,
}

/// `in`, with the styles the conversion accepts there (others are
/// refused before a plan is made).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParameterLocation {
    /// `simple` style.
    Path,
    Query(QueryStyle),
    /// `simple` style.
    Header,
    /// `form` style, primitives only.
    Cookie,
}

/// The query styles written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QueryStyle {
    Form,
    SpaceDelimited,
    PipeDelimited,
    /// One level: `k[a]=1`.
    DeepObject,
}

/// The request body.
#[derive(Debug)]
pub(crate) struct BodyPlan {
    /// The `Content-Type` sent (`application/json`,
    /// `application/x-www-form-urlencoded`, a `*+json` type).
    pub(crate) media_type: String,
    pub(crate) encoding: BodyEncoding,
    /// A required body is sent even when every merged member is absent
    /// (as `{}`); an optional one is left out then.
    pub(crate) required: bool,
}

/// How the body is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyEncoding {
    Json,
    /// Flat objects only: primitive or array members.
    Form,
}

/// A credential sent with a request to the base URL's origin.
#[derive(Clone)]
pub(crate) enum Credential {
    /// `Authorization: Bearer ..` (http bearer, oauth2, openIdConnect).
    Bearer(Arc<str>),
    /// `Authorization: Basic ..`.
    Basic { user: Arc<str>, password: Arc<str> },
    /// An API key, where the `apiKey` scheme puts it.
    ApiKey {
        name: String,
        location: KeyLocation,
        value: Arc<str>,
    },
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never a secret, not even in a debug print.
        match self {
            Credential::Bearer(_) => f.write_str("Bearer(..)"),
            Credential::Basic { user, .. } => write!(f, "Basic({user}, ..)"),
            Credential::ApiKey { name, location, .. } => {
                write!(f, "ApiKey({name} in {location:?}, ..)")
            }
        }
    }
}

/// Where an API key goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyLocation {
    Header,
    Query,
    Cookie,
}

/// What every tool of one document shares.
#[derive(Debug)]
pub(crate) struct Settings {
    /// Never follows redirects (a redirect could carry credentials to
    /// another host); built by [`http_client`].
    pub(crate) client: reqwest::Client,
    /// How long one request may take, answer included (default 30 s).
    pub(crate) timeout: Duration,
    /// The largest response body read (default 8 MiB); a larger one is an
    /// error result.
    pub(crate) max_response_bytes: usize,
}

/// The HTTP client of one document's tools: rustls on ring, no redirects.
pub(crate) fn http_client() -> Result<reqwest::Client, String> {
    // reqwest is built without a crypto provider of its own; ring is
    // installed unless the application installed one first.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}
