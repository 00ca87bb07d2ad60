//! OpenAPI 3.0 and 3.1 documents served as tools (feature `openapi`).
//!
//! [`Server::openapi`](crate::Server::openapi) reads a document (JSON or
//! YAML) once and serves each of its operations as a tool whose call makes
//! the HTTP request:
//!
//! ```no_run
//! use mcp_runtime::Server;
//! use mcp_runtime::openapi::OpenApi;
//!
//! # fn main() -> std::io::Result<()> {
//! let api = OpenApi::from_file("petstore.json")
//!     .base_url("http://127.0.0.1:4010")
//!     .bearer(std::env::var("PETSTORE_TOKEN").unwrap_or_default())
//!     .include_tags(["pets"])
//!     .rename("getPet", "get_pet");
//! let server = Server::new("petstore", "1.0.0").openapi(api);
//! # let _ = server;
//! # Ok(())
//! # }
//! ```
//!
//! # What a tool looks like
//!
//! - **Name**: the `operationId`, every character outside `[A-Za-z0-9_.-]`
//!   replaced by `_` (`repos/get` → `repos_get`); without one,
//!   `{method}_{path}` (`GET /pets/{petId}` → `get_pets_petId`). A name
//!   over 64 characters keeps its first 55, then `_` and 8 hex digits of a
//!   hash of the whole. [`OpenApi::prefix`] puts `prefix_` before each,
//!   [`OpenApi::rename`] chooses one.
//! - **Description**: the summary, a blank line, the description, and
//!   "Deprecated." where the operation is; the title is the summary.
//! - **Arguments**: one object. Each parameter is a property under its
//!   name (path parameters are required); the same name in a later
//!   location gets `__query`, `__header` or `__cookie`. A request body
//!   that is a plain object (`properties`, no `oneOf`/`anyOf`/`allOf`) whose
//!   members collide with no parameter is merged in; any other body is one
//!   argument, `body`. Unknown arguments are refused.
//! - **Output schema**: the lowest `2xx` response's JSON schema (turn it
//!   off with [`OpenApi::output_schemas`]). One that is not an object is
//!   served as `#[tool]` serves such types: under `result` for clients
//!   before 2026-07-28, as it is for later ones.
//! - **Hints**: read-only for `GET` and `HEAD`, destructive for `DELETE`,
//!   idempotent for `GET`, `HEAD`, `PUT`, `DELETE` and `OPTIONS`, open-world
//!   for all; the operation's tags are the tool's [tags](crate::Tool::tags).
//!
//! Schemas are made client-safe: local `$ref`s are inlined (a component
//! that contains itself stays as `#/$defs/Name`), the 3.0 dialect becomes
//! JSON Schema 2020-12 (`nullable`, boolean `exclusiveMinimum`), OpenAPI's
//! own keywords and non-standard `format`s are dropped, `readOnly`
//! properties are left out of arguments and `writeOnly` ones out of
//! outputs.
//!
//! # What is refused
//!
//! An operation that cannot be expressed is refused with a sentence naming
//! it, the place in the document (a JSON pointer) and the fix: a reference
//! to another file, `matrix` or `label` path parameters, cookie arrays,
//! `deepObject` with nested objects, request bodies that are neither JSON
//! nor a flat `application/x-www-form-urlencoded` object (multipart,
//! binary, text), a `servers` entry on another origin unless allowed with
//! [`OpenApi::allow_origin`]. The server does not start while a refused
//! operation is chosen; leave it out with an OpenAPI filter
//! ([`OpenApi::exclude_operations`], tags, paths, methods) or
//! [`Server::exclude_tools`](crate::Server::exclude_tools), or serve the
//! rest with [`OpenApi::skip_unsupported`], which logs each refusal; a
//! [transform](crate::ToolTransform) that hides the tool leaves it out
//! too. A document that cannot be read, parsed or used at all (Swagger
//! 2.0, an unknown version, no base URL), an operation key that names no
//! operation, and a credential the document has no scheme for always stop
//! the start.
//!
//! # Credentials
//!
//! [`OpenApi::bearer`], [`OpenApi::api_key`] and [`OpenApi::basic`] are
//! sent where the document's security schemes say, per operation: the
//! first of its security requirements whose schemes are all configured. A
//! document without security schemes gets the bearer token (or basic
//! credentials) on every operation. They go only to the base URL's origin
//! (redirects are never followed), over plain `http` only to loopback
//! unless [`OpenApi::allow_insecure_http`] is called, and never appear in
//! messages or logs. A credential for a scheme the document lacks stops
//! the start. [`OpenApi::from_url`] fetches without any credential.

mod access;
mod arguments;
mod call;
#[cfg(all(test, feature = "http"))]
mod call_tests;
mod document;
mod names;
mod operation;
pub(crate) mod plan;
mod request;
mod response;
mod schema;
mod styles;
#[cfg(test)]
mod test_plan;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::location::Location;
use crate::tools::dynamic::DynamicTool;

/// The largest document [`OpenApi::from_url`] reads (GitHub's is 13 MB).
const MAX_DOCUMENT_BYTES: usize = 64 << 20;

/// An OpenAPI document and how to serve it; give it to
/// [`Server::openapi`](crate::Server::openapi). See the
/// [module docs](self) for what is served and refused.
pub struct OpenApi {
    source: Source,
    base_url: Option<String>,
    variables: Vec<(String, String)>,
    bearer: Option<Arc<str>>,
    api_key: Option<Arc<str>>,
    basic: Option<(Arc<str>, Arc<str>)>,
    include_tags: Option<Vec<String>>,
    exclude_tags: Vec<String>,
    include_paths: Option<Vec<String>>,
    include_methods: Option<Vec<String>>,
    include_operations: Option<Vec<String>>,
    exclude_operations: Vec<String>,
    renames: Vec<(String, String)>,
    descriptions: Vec<(String, String)>,
    prefix: Option<String>,
    timeout: Duration,
    max_response_bytes: usize,
    output_schemas: bool,
    allowed_origins: Vec<String>,
    allow_insecure_http: bool,
    skip_unsupported: bool,
}

enum Source {
    File(PathBuf),
    Text { name: String, text: String },
    Fetched { url: url::Url, text: String },
}

impl std::fmt::Debug for OpenApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the credentials.
        f.debug_struct("OpenApi")
            .field("document", &self.name())
            .field("base_url", &self.base_url)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// Why [`OpenApi::from_url`] could not fetch a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenApiError(String);

impl std::fmt::Display for OpenApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OpenApiError {}

/// One operation (or the whole document) that cannot be served, as data
/// until the registry is built.
#[derive(Debug, Clone)]
pub(crate) struct Refusal {
    /// The tool it would be served as; `None`: the document as a whole.
    pub(crate) tool: Option<String>,
    /// The clause after "cannot be served: ".
    pub(crate) reason: String,
}

/// What `Server::openapi` keeps of a refusal.
#[derive(Debug, Clone)]
pub(crate) struct KeptRefusal {
    pub(crate) tool: Option<String>,
    pub(crate) document: String,
    pub(crate) location: Location,
    pub(crate) reason: String,
}

impl OpenApi {
    fn new(source: Source) -> Self {
        OpenApi {
            source,
            base_url: None,
            variables: Vec::new(),
            bearer: None,
            api_key: None,
            basic: None,
            include_tags: None,
            exclude_tags: Vec::new(),
            include_paths: None,
            include_methods: None,
            include_operations: None,
            exclude_operations: Vec::new(),
            renames: Vec::new(),
            descriptions: Vec::new(),
            prefix: None,
            timeout: Duration::from_secs(30),
            max_response_bytes: 8 << 20,
            output_schemas: true,
            allowed_origins: Vec::new(),
            allow_insecure_http: false,
            skip_unsupported: false,
        }
    }

    /// The document in the file at `path`, JSON or YAML; read (once) by
    /// [`Server::openapi`](crate::Server::openapi), which refuses to start
    /// if it cannot be read or parsed.
    pub fn from_file(path: impl Into<PathBuf>) -> Self {
        OpenApi::new(Source::File(path.into()))
    }

    /// The document `text` (JSON or YAML), called `name` in messages (a
    /// name ending in `.json` is read as JSON, as is text starting with
    /// `{`).
    pub fn from_text(name: impl Into<String>, text: impl Into<String>) -> Self {
        OpenApi::new(Source::Text {
            name: name.into(),
            text: text.into(),
        })
    }

    /// Fetches the document at `url` (no credentials sent, no redirects
    /// followed, at most 64 MiB). Relative `servers` URLs resolve against
    /// it.
    pub async fn from_url(url: impl AsRef<str>) -> Result<Self, OpenApiError> {
        let given = url.as_ref();
        let url = url::Url::parse(given)
            .map_err(|e| OpenApiError(format!("`{given}` is not a URL: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(OpenApiError(format!("{url} is not an http or https URL")));
        }
        let client = plan::http_client().map_err(OpenApiError)?;
        let mut response = client
            .get(url.clone())
            .timeout(Duration::from_secs(60))
            .send()
            .await
            .map_err(|e| OpenApiError(format!("cannot fetch the OpenAPI document {url}: {e}")))?;
        let status = response.status();
        if !status.is_success() {
            return Err(OpenApiError(format!(
                "cannot fetch the OpenAPI document {url}: it answered {status}{}",
                if status.is_redirection() {
                    ", a redirect, which is not followed; give the final URL"
                } else {
                    ""
                }
            )));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| OpenApiError(format!("cannot read the OpenAPI document {url}: {e}")))?
        {
            if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                return Err(OpenApiError(format!(
                    "the OpenAPI document {url} is larger than {MAX_DOCUMENT_BYTES} bytes"
                )));
            }
            body.extend_from_slice(&chunk);
        }
        let text = String::from_utf8(body)
            .map_err(|_| OpenApiError(format!("the OpenAPI document {url} is not UTF-8")))?;
        Ok(OpenApi::new(Source::Fetched { url, text }))
    }

    /// Where the calls go (scheme, host, port and base path), instead of
    /// the document's first `servers` entry.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// A value for a variable of the first `servers` entry (checked
    /// against its `enum`); the others take their `default`.
    pub fn server_variable(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.variables.push((name.into(), value.into()));
        self
    }

    /// A bearer token, for http `bearer`, `oauth2` and `openIdConnect`
    /// schemes (or every operation of a document without schemes).
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(Arc::from(token.into()));
        self
    }

    /// An API key, sent where the document's `apiKey` scheme says (a
    /// header, the query or a cookie).
    pub fn api_key(mut self, value: impl Into<String>) -> Self {
        self.api_key = Some(Arc::from(value.into()));
        self
    }

    /// Basic credentials, for http `basic` schemes (or every operation of
    /// a document without schemes).
    pub fn basic(mut self, user: impl Into<String>, password: impl Into<String>) -> Self {
        self.basic = Some((Arc::from(user.into()), Arc::from(password.into())));
        self
    }

    /// Serves only operations with one of these tags.
    pub fn include_tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        extend(&mut self.include_tags, tags);
        self
    }

    /// Leaves out operations with any of these tags.
    pub fn exclude_tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.exclude_tags.extend(tags.into_iter().map(Into::into));
        self
    }

    /// Serves only operations on these path templates (`/pets/{petId}`);
    /// one ending in `*` matches every path that starts with the rest.
    pub fn include_paths<I, S>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        extend(&mut self.include_paths, paths);
        self
    }

    /// Serves only operations with these methods (`"GET"`, any case).
    pub fn include_methods<I, S>(mut self, methods: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        extend(&mut self.include_methods, methods);
        self
    }

    /// Serves only these operations, each named by its `operationId` or as
    /// `"METHOD /path"`; a key that names none stops the start.
    pub fn include_operations<I, S>(mut self, keys: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        extend(&mut self.include_operations, keys);
        self
    }

    /// Leaves out these operations (keys as for
    /// [`include_operations`](Self::include_operations)).
    pub fn exclude_operations<I, S>(mut self, keys: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.exclude_operations
            .extend(keys.into_iter().map(Into::into));
        self
    }

    /// Serves the operation `key` (an `operationId` or `"METHOD /path"`)
    /// as the tool `name` (behind the [prefix](Self::prefix), if any).
    pub fn rename(mut self, key: impl Into<String>, name: impl Into<String>) -> Self {
        self.renames.push((key.into(), name.into()));
        self
    }

    /// Gives the operation `key` this tool description instead of its
    /// summary and description.
    pub fn describe(mut self, key: impl Into<String>, description: impl Into<String>) -> Self {
        self.descriptions.push((key.into(), description.into()));
        self
    }

    /// Puts `prefix_` before every tool name.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// How long one request may take, answer included (30 s unless set).
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = limit;
        self
    }

    /// The largest response body read (8 MiB unless set); a larger one is
    /// an error result.
    pub fn max_response_bytes(mut self, limit: usize) -> Self {
        self.max_response_bytes = limit;
        self
    }

    /// Whether tools list the success response's schema as their output
    /// schema (yes unless set). Clients check structured results against
    /// it, so an API that drifts from its document needs `false`.
    pub fn output_schemas(mut self, enabled: bool) -> Self {
        self.output_schemas = enabled;
        self
    }

    /// Allows operations whose own `servers` entry is on this origin
    /// (`https://uploads.example.com`); their calls, credentials included,
    /// go there.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// Allows credentials over plain `http` to hosts other than loopback.
    pub fn allow_insecure_http(mut self) -> Self {
        self.allow_insecure_http = true;
        self
    }

    /// Serves the operations that can be served, and logs (a `tracing`
    /// warning) each one refused instead of refusing to start.
    pub fn skip_unsupported(mut self) -> Self {
        self.skip_unsupported = true;
        self
    }

    /// The document's name in messages: its path, URL or given name.
    fn name(&self) -> String {
        match &self.source {
            Source::File(path) => path.display().to_string(),
            Source::Text { name, .. } => name.clone(),
            Source::Fetched { url, .. } => url.to_string(),
        }
    }

    /// Reads and converts the document: its tools, and the refusals to
    /// keep (all of them, or with `skip_unsupported` only those about the
    /// whole document, the others logged).
    pub(crate) fn convert(&self, location: Location) -> (Vec<DynamicTool>, Vec<KeptRefusal>) {
        let document = self.name();
        let mut refusals = Vec::new();
        let tools = self.convert_inner(location, &mut refusals);
        let kept = refusals
            .into_iter()
            .filter(|refusal| {
                if self.skip_unsupported && refusal.tool.is_some() {
                    tracing::warn!(
                        document = %document,
                        "an OpenAPI operation is left out: {}",
                        refusal.reason
                    );
                    false
                } else {
                    true
                }
            })
            .map(|refusal| KeptRefusal {
                tool: refusal.tool,
                document: document.clone(),
                location,
                reason: refusal.reason,
            })
            .collect();
        (tools, kept)
    }

    fn convert_inner(&self, location: Location, refusals: &mut Vec<Refusal>) -> Vec<DynamicTool> {
        let mut fatal = |reason: String| {
            refusals.push(Refusal { tool: None, reason });
            Vec::new()
        };
        let (text, name, document_url) = match &self.source {
            Source::File(path) => match std::fs::read_to_string(path) {
                Ok(text) => (
                    std::borrow::Cow::Owned(text),
                    path.display().to_string(),
                    None,
                ),
                Err(e) => return fatal(format!("it cannot be read: {e}")),
            },
            Source::Text { name, text } => (
                std::borrow::Cow::Borrowed(text.as_str()),
                name.clone(),
                None,
            ),
            Source::Fetched { url, text } => (
                std::borrow::Cow::Borrowed(text.as_str()),
                url.path().to_owned(),
                Some(url),
            ),
        };
        let doc = match document::Document::parse(&name, &text) {
            Ok(doc) => doc,
            Err(reason) => return fatal(reason),
        };
        if let Err(reason) = access::check_configured(self, &doc) {
            return fatal(reason);
        }
        let base = match access::base_url(self, &doc, document_url) {
            Ok(base) => base,
            Err(reason) => return fatal(reason),
        };
        let client = match plan::http_client() {
            Ok(client) => client,
            Err(reason) => return fatal(reason),
        };
        let settings = Arc::new(plan::Settings {
            client,
            timeout: self.timeout,
            max_response_bytes: self.max_response_bytes,
        });
        let mut shared = operation::Shared {
            api: self,
            doc: &doc,
            schemas: schema::Schemas::new(&doc),
            base,
            settings,
            key_headers: access::key_headers(self, &doc),
            location,
        };
        operation::convert_all(&mut shared, refusals)
    }
}

fn extend<I, S>(list: &mut Option<Vec<String>>, items: I)
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    list.get_or_insert_with(Vec::new)
        .extend(items.into_iter().map(Into::into));
}
