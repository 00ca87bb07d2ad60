//! Write [Model Context Protocol](https://modelcontextprotocol.io) servers in
//! Rust by annotating ordinary functions. No router, no handler trait, no list
//! of tools.
//!
//! ```toml
//! [dependencies]
//! mcp-runtime = "0.1"    # or { path = "..." }: the `mcp-runtime` folder of a checkout
//! tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
//! serde = { version = "1", features = ["derive"] }
//! schemars = "1"         # or `use mcp_runtime::schemars`
//! ```
//!
//! ```rust,no_run
//! use mcp_runtime::{tool, Server};
//! use schemars::JsonSchema;
//! use serde::Serialize;
//!
//! #[derive(Serialize, JsonSchema)]
//! struct Forecast {
//!     city: String,
//!     high_c: f64,
//! }
//!
//! /// Get the weather forecast for a city.
//! #[tool(title = "Weather forecast", read_only, idempotent)]
//! async fn get_forecast(
//!     /// City name, for example "Paris".
//!     city: String,
//!     /// Number of days, 1 to 7 (default 3).
//!     #[schemars(range(min = 1, max = 7))]
//!     days: Option<u8>,
//! ) -> Result<Forecast, String> {
//!     let _ = days;
//!     Ok(Forecast { city, high_c: 21.5 })
//! }
//!
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     Server::new("weather", env!("CARGO_PKG_VERSION")).run().await
//! }
//! ```
//!
//! That is the whole server. Every [`#[tool]`](tool) in every crate linked
//! into the binary is served, on stdio or over HTTP, as its
//! [command line](_guide::command_line) says; so is every
//! [`#[resource]`](resource) and [`#[prompt]`](prompt). Any MCP client that
//! starts servers over stdio can run the binary; for example the MCP
//! Inspector's command line (it needs Node 20 or later), for a binary built
//! at `target/debug/weather` (started from a terminal, a server prints the
//! first line for its own path):
//!
//! ```sh
//! npx -y -p node@22 -p @modelcontextprotocol/inspector@2.12.0 -- mcp-inspector --cli --method tools/list -- target/debug/weather
//! npx -y -p node@22 -p @modelcontextprotocol/inspector@2.12.0 -- mcp-inspector --cli --method tools/call --tool-name get_forecast --tool-args-json '{"city": "Paris"}' -- target/debug/weather
//! ```
//!
//! In a checkout of the repository, `cargo run --example weather` runs a
//! complete server (tools that ask the client, resources, a prompt,
//! completions, notifications) on sample weather data.
//!
//! # The guide
//!
//! | Chapter | What it covers |
//! | --- | --- |
//! | [The command line](_guide::command_line) | `--http`, `--stateless`, `--auth-issuer`, `--list-tools`; logging; cargo features |
//! | [What it serves](_guide::serves) | each protocol version from 2024-11-05 to 2026-07-28, what it gets |
//! | [What `#[tool]` derives](_guide::tools) | names, schemas, output, errors, validation, state |
//! | [What `#[resource]` derives](_guide::resources) | resources, templates, subscriptions, changes while running |
//! | [What `#[prompt]` and `#[complete]` derive](_guide::prompts) | prompts, argument completion, the linking caveat |
//! | [Protocol versions](_guide::eras) | the legacy and 2026-07-28 eras; concurrency, backlog, shutdown |
//! | [Testing your tools](_guide::testing) | [`testing::TestClient`], [`Server::registry`] |
//! | [Serving over HTTP](_guide::http) | Streamable HTTP, axum, sessions, stateless mode, parameters in headers |
//! | [Securing an HTTP server](_guide::auth) | OAuth 2.1 resource server, scopes, tokens (feature `auth`) |
//! | [Scaling out](_guide::scaling) | a fleet behind a round-robin load balancer, `MCP_STATE_KEY` |
//! | [Middleware](_guide::middleware) | tower layers around every request; HTTP layers |
//! | [Telemetry](_guide::telemetry) | tracing spans after the OpenTelemetry conventions, OTLP export (feature `otel`) |
//! | [Asking the client](_guide::asking) | elicitation, sampling, roots, and the rule of the 2026-07-28 era |
//! | [Calling other servers](_guide::client) | an MCP client over stdio and HTTP (feature `client`) |
//! | [Gateways and chains](_guide::gateways) | `Server::mount`: other servers served as part of ours |
//! | [Reliability](_guide::reliability) | property tests, a hostile client, fuzzing, soak |
//! | [Performance](_guide::performance) | against rmcp, flymcprust and a hand-written floor; compile time with many tools |
//! | [The repository's tests](_guide::tests) | what `cargo test --workspace`, the interop and conformance suites check |
//!
//! # Cargo features
//!
//! | Feature | Default | What it adds |
//! | --- | --- | --- |
//! | `http` | yes | Streamable HTTP: `Server::serve_http`, `Server::into_router`, `--http` |
//! | `stderr-log` | yes | `Server::run` logs to stderr (`RUST_LOG`) unless `main` set up `tracing` |
//! | `auth` | no | an OAuth 2.1 resource server: `Server::auth`, `--auth-issuer`, `--auth-audience` |
//! | `client` | no | an MCP client (`client`, with OAuth 2.1: `client::oauth`), and `Server::mount` |
//! | `client-jwt` | no | the client's `private_key_jwt` authentication (`OAuth::private_key_jwt`) |
//! | `otel` | no | OpenTelemetry export of traces and metrics over OTLP/HTTP |
//! | `skills` | no | Skills (SEP-2640): `Server::skill` serves folders of instructions as `skill://` resources, with `skills/list` and `skills/get` (module `skills`) |
#![warn(missing_docs)]
// On docs.rs (`--cfg docsrs`, see Cargo.toml), each item says which cargo
// feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

// Lets `#[tool]` expansions (which name `::mcp_runtime::...`) work inside
// this crate's own tests.
extern crate self as mcp_runtime;

pub mod _guide;
pub mod apps;
mod asking;
pub mod auth;
mod cli;
#[cfg(feature = "client")]
pub mod client;
mod completion;
mod content;
mod context;
mod dispatch;
mod handle;
mod jsonrpc;
mod location;
mod meta;
pub mod middleware;
#[cfg(feature = "client")]
pub mod mount;
mod notify;
#[cfg(feature = "openapi")]
pub mod openapi;
mod outbox;
mod prompts;
mod protocol;
#[cfg(any(feature = "tasks-redis", feature = "sessions-redis"))]
mod redis;
mod registry;
mod resources;
mod schema;
mod server;
pub mod sessions;
#[cfg(feature = "skills")]
pub mod skills;
mod startup;
pub mod tasks;
mod telemetry;
pub mod testing;
mod text_param;
mod tools;
mod transport;
mod unwind;
mod wait;

#[cfg(feature = "otel")]
pub use telemetry::otel;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

#[doc(hidden)]
#[path = "fuzzing.rs"]
pub mod __fuzz;

// Compile errors about a misused `#[tool]` name these items. Re-exported
// here (hidden) so that rustc names them by their bare names, not by a path
// into a private or hidden module; the generated code still goes through
// `__private`.
#[doc(hidden)]
pub use __private::{DeserializeAndJsonSchema, HeaderParam, tool_future_must_be_send};
#[doc(hidden)]
pub use context::{Inject, SharedState};
#[doc(hidden)]
pub use tools::output::{
    DeriveJsonSchema, DeriveSerialize, ErrorWithoutDisplay, MissingJsonSchema, MissingSerialize,
    SerializeAndJsonSchema, ToolError, UnsupportedReturn,
};
// The same for `#[resource]`, `#[prompt]` and `#[complete]`.
#[doc(hidden)]
pub use __private::future_must_be_send;
#[doc(hidden)]
pub use completion::Completer;
#[doc(hidden)]
pub use prompts::{
    PromptErrorWithoutDisplay, PromptFnError, PromptFnReturn, UnsupportedPromptReturn,
};
#[doc(hidden)]
pub use resources::{
    ResourceErrorWithoutDisplay, ResourceFnError, ResourceFnReturn, UnsupportedResourceReturn,
};
#[doc(hidden)]
pub use text_param::{PromptArgument, TemplateVariable, UnparseableText};

pub use asking::ask::{ClientRequestError, Root};
pub use asking::elicit::{
    Asking, Elicit, ElicitEnum, ElicitField, ElicitationComplete, ElicitationId, Elicited,
    UrlElicitation,
};
pub use asking::request_state::StateKeys;
pub use asking::sampling::{
    Sampled, SamplingContent, SamplingMessage, SamplingRequest, SamplingTool, StopReason,
    ToolChoice, ToolResult, ToolUse,
};
pub use completion::Arguments;
pub use content::{
    Annotations, Content, EmbeddedResource, MediaContent, ResourceContents, ResourceLink, Role,
    TextContent,
};
pub use context::{ClientInfo, Context, LogLevel, State};
pub use handle::ServerHandle;
pub use jsonrpc::RequestId;
pub use location::Location;
pub use meta::Icon;
#[cfg(feature = "client")]
pub use mount::{MountError, Upstream};
pub use notify::Notifier;
pub use prompts::PromptError;
pub use prompts::build::Prompt;
pub use prompts::dynamic::DynamicPrompt;
pub use prompts::{GetPromptResult, PromptMessage};
pub use protocol::cache::{CacheHint, CacheHints, CacheScope};
pub use protocol::version::ProtocolVersion;
pub use registry::error::{Primitive, RegistryError};
pub use registry::{CallError, Registry};
pub use resources::Blob;
pub use resources::ReadError;
pub use resources::build::Resource;
pub use resources::dynamic::DynamicResource;
pub use server::Server;
pub use tools::def::{Hints, TaskSupport, Tool, ToolAnnotations};
pub use tools::dynamic::DynamicTool;
pub use tools::output::{CallToolResult, IntoCallToolResult};
pub use tools::search::ToolSearch;
pub use tools::transform::ToolTransform;

pub use schemars;
pub use serde;
pub use serde_json;

/// Turns a function into an MCP tool, served by every [`Server`] in a binary
/// that links the crate defining it.
///
/// ```
/// use mcp_runtime::{tool, schemars::JsonSchema};
/// use serde::Serialize;
///
/// #[derive(Serialize, JsonSchema)]
/// struct Forecast { city: String, high_c: f64 }
///
/// /// Get the weather forecast for a city.
/// #[tool(title = "Weather forecast", read_only, idempotent, timeout = "10s")]
/// async fn get_forecast(
///     /// City name, for example "Paris".
///     city: String,
///     /// Number of days, 1 to 7 (default 3).
///     #[schemars(range(min = 1, max = 7))]
///     days: Option<u8>,
/// ) -> Result<Forecast, String> {
///     let _ = days;
///     Ok(Forecast { city, high_c: 21.5 })
/// }
/// ```
///
/// | You write | The client sees |
/// | --- | --- |
/// | fn name or `name = "..."` | the tool's `name` (checked against `^[A-Za-z0-9_.-]{1,64}$`) |
/// | doc comment or `description = "..."` | `description` (required) |
/// | `///` on a parameter, or a `# Arguments` list | the property's `description` |
/// | parameters | `inputSchema`, with `additionalProperties: false` |
/// | `Option<T>` or `#[serde(default)]` | an optional property |
/// | `#[serde(..)]`, `#[schemars(..)]` on a parameter | forwarded (rename, default, range, length, pattern, flatten) |
/// | `ctx: Context`, `db: State<Db>` | nothing: injected |
/// | `#[header("Region")]` on a parameter | `"x-mcp-header": "Region"` on its property: over HTTP (2026-07-28), a call repeats the value in `Mcp-Param-Region` |
/// | `-> T` with `T: Serialize + JsonSchema` | `outputSchema` and `structuredContent` |
/// | `-> String`, `Content`, `Vec<Content>`, `CallToolResult`, `()` | content, no `outputSchema` |
/// | `-> Result<T, E>` with `E: Display` | `Err(e)` becomes `isError: true` with `e`'s text |
/// | `read_only`, `destructive`, `idempotent`, `open_world` (`= false` too) | `annotations` hints |
/// | `title = "..."` | `title` |
/// | `timeout = "30s"` | calls end with `isError: true` after 30 s |
/// | `task = "optional"` or `"required"` (`"forbidden"`, the default) | `execution.taskSupport` (2025-11-25 clients only): whether the client may, or must, run it as a task |
/// | `icons = ["https://..."]`, `meta = r#"{..}"#` | `icons`, `_meta` |
/// | `scopes = ["weather:read"]` | nothing in the listing; with `Server::auth`, a call without those scopes is refused with 403 `insufficient_scope` |
/// | `tags = ["repos", "read"]` | nothing in the listing (MCP has no tag field): [`Tool::tags`] gives them, for grouping, search and pinning; each not empty, none listed twice |
/// | `ui = "ui://weather/forecast"` | `_meta.ui.resourceUri` and `_meta["ui/resourceUri"]`: an MCP Apps host renders that view resource with the result (see [`apps`]) |
/// | `visibility = "app"`, `"model"` or `["model", "app"]` (with `ui`) | `_meta.ui.visibility`: only the view, only the model, or both (the default) may call the tool |
///
/// Each of `scopes` is checked at compile time: an RFC 6749 scope token
/// (printable ASCII without spaces, `"` or `\`), none listed twice; at run
/// time [`Tool::scopes`] gives them. The same key works on [`resource`] and
/// [`prompt`].
///
/// `#[header("Name")]` mirrors a parameter into the HTTP header
/// `Mcp-Param-Name` (MCP 2026-07-28, `x-mcp-header`), so that load
/// balancers and gateways can route on it without reading the body:
///
/// ```
/// # use mcp_runtime::tool;
/// /// Execute SQL in a region.
/// #[tool]
/// async fn execute_sql(#[header("Region")] region: String, query: String) -> String {
///     format!("{query} in {region}")
/// }
/// ```
///
/// The client sends `Mcp-Param-Region: us-west1` (or `=?base64?…?=` for a
/// value a header cannot carry as it is) with each 2026-07-28 `tools/call`
/// over HTTP; the server refuses one whose header is missing or differs
/// from the argument with 400 and -32020 (an argument left out, or `None`,
/// needs no header). Checked at compile time: the name is an HTTP token
/// (letters, digits, ``!#$%&'*+-.^_`|~``), no two parameters share one
/// (ignoring case), and the parameter is a `String`, an integer, a `bool`,
/// or an `Option` of one (not a float, a list or a struct). An integer
/// parameter is listed, and checked, within ±(2^53 − 1), the range the
/// specification allows in a header. Other transports and earlier protocol
/// versions ignore the header.
///
/// A plain `fn` is accepted too and runs on Tokio's blocking pool.
pub use mcp_runtime_macros::tool;

/// Turns a function into an MCP resource (or resource template), served by
/// every [`Server`] in a binary that links the crate defining it.
///
/// ```
/// use mcp_runtime::{resource, Blob};
/// use serde::Serialize;
///
/// #[derive(Serialize)]
/// struct Settings { theme: String }
///
/// /// The application's settings.
/// #[resource("config://app")]
/// async fn settings() -> Settings {
///     Settings { theme: "dark".into() }
/// }
///
/// /// A user's profile.
/// #[resource("users://{id}/profile", mime_type = "text/markdown")]
/// async fn profile(id: u64) -> Option<String> {
///     (id == 1).then(|| "# Ada".to_owned())
/// }
///
/// /// The logo.
/// #[resource("assets://logo.png", mime_type = "image/png")]
/// fn logo() -> Blob {
///     Blob::new(vec![0x89, b'P', b'N', b'G'])
/// }
/// ```
///
/// | You write | The client sees |
/// | --- | --- |
/// | `#[resource("uri")]` on an async or plain fn | an entry in `resources/list`, read with `resources/read` |
/// | a URI with `{var}` (one path segment) or `{+var}` (may contain `/`) | an entry in `resources/templates/list`; each variable is bound to the parameter of its name, parsed with `FromStr` (a value that does not parse is "not found") |
/// | fn name or `name = "..."`, `title = "..."` | the resource's `name` and `title` |
/// | doc comment or `description = "..."` | `description` |
/// | `mime_type = "..."` | `mimeType`, else the return type's (`text/plain` for text, `application/json` for `Serialize` values) |
/// | `icons = ["https://..."]`, `meta = r#"{..}"#` | `icons`, `_meta` |
/// | `scopes = ["weather:read"]` | nothing in the listing; with `Server::auth`, a read without those scopes is refused with 403 `insufficient_scope` |
/// | `-> String` / `&'static str` | `text` contents |
/// | `-> T` with `T: Serialize` | JSON text |
/// | `-> Blob` | base64 `blob` contents |
/// | `-> ResourceContents` / `Vec<ResourceContents>` | passed through |
/// | `-> Html` ([`apps::Html`], such as `view_file!("page.html")`) | `text` contents, `text/html` |
/// | `-> Option<T>` returning `None` | "resource not found" |
/// | `-> Result<T, E>` with `E: Display` returning `Err(e)` | an error with `e`'s text |
/// | `ctx: Context`, `db: State<Db>` | nothing: injected |
/// | `#[complete(path)]` on a template variable | `completion/complete` for it (see [`prompt`]) |
/// | `view` on a `ui://` URI | an MCP Apps view (see [`apps`]): `mimeType` `text/html;profile=mcp-app` and, when `view(..)` says any, `_meta.ui` on the listing and on the read contents |
/// | `view(csp(connect = [..], resources = [..], frames = [..], base_uri = [..]))` | `_meta.ui.csp`: `connectDomains`, `resourceDomains`, `frameDomains`, `baseUriDomains`; each an origin such as `"https://api.example.com"` or `"https://*.example.com"` |
/// | `view(permissions = [camera, microphone, geolocation, clipboard_write])` | `_meta.ui.permissions`: `{"camera": {}, ..}` |
/// | `view(prefers_border = true, domain = "..")` | `_meta.ui.prefersBorder`, `_meta.ui.domain` |
///
/// Every parameter other than `Context` and `State<T>` must be a variable
/// of the URI template, and every variable a parameter: a mismatch, an
/// invalid URI or template, and a return type that is none of the above
/// are compile errors. A plain `fn` runs on Tokio's blocking pool, as a
/// tool's does.
///
/// A `view` needs a `ui://` URI without variables, and is always served as
/// `text/html;profile=mcp-app` (another `mime_type` is a compile error);
/// a domain that is not an origin (`scheme://host[:port]` with `https`,
/// `http`, `wss` or `ws`; `*.` only as the host's first label; no path),
/// an unknown `csp` key or permission, anything listed twice, and a `meta`
/// that sets `ui` itself are compile errors too.
pub use mcp_runtime_macros::resource;

/// The HTML of an MCP Apps view from a file, as an [`apps::Html`]; the
/// path is relative to the source file that calls it, as with
/// `include_str!`.
///
/// ```ignore
/// use mcp_runtime::{resource, view_file};
/// use mcp_runtime::apps::Html;
///
/// /// The forecast chart.
/// #[resource("ui://weather/forecast", view)]
/// fn forecast_view() -> Html {
///     view_file!("forecast.html")
/// }
/// ```
///
/// The file is embedded at compile time (a change to it rebuilds the
/// crate). A debug build reads it from disk on every call instead, so a
/// reload of the view shows an edit without a rebuild; it falls back to the
/// embedded text, with a warning, when the file is gone. A release build
/// serves the embedded text.
pub use mcp_runtime_macros::view_file;

/// Turns a function into an MCP prompt, served by every [`Server`] in a
/// binary that links the crate defining it.
///
/// ```
/// use mcp_runtime::{prompt, PromptMessage};
///
/// /// Review code for best practices.
/// #[prompt(title = "Code review")]
/// async fn code_review(
///     /// Programming language.
///     #[complete(languages)]
///     language: String,
///     /// What to focus on.
///     focus: Option<String>,
/// ) -> Vec<PromptMessage> {
///     let focus = focus.unwrap_or_else(|| "anything".into());
///     vec![PromptMessage::user(format!("Review this {language} code, focusing on {focus}."))]
/// }
///
/// /// The languages starting with the prefix, for completion.
/// async fn languages(prefix: String) -> Vec<&'static str> {
///     ["python", "rust", "ruby"].into_iter().filter(|l| l.starts_with(&prefix)).collect()
/// }
/// ```
///
/// | You write | The client sees |
/// | --- | --- |
/// | `#[prompt]` on an async or plain fn | an entry in `prompts/list`, got with `prompts/get` |
/// | fn name or `name = "..."`, `title = "..."` | the prompt's `name` and `title` |
/// | doc comment or `description = "..."` | `description` |
/// | `icons = ["https://..."]`, `meta = r#"{..}"#` | `icons`, `_meta` |
/// | `scopes = ["weather:read"]` | nothing in the listing; with `Server::auth`, a get without those scopes is refused with 403 `insufficient_scope` |
/// | parameters: `String`, any `T: FromStr`, or a unit-only enum deriving `Deserialize` (by its serde names) | the prompt's `arguments`, `required: true` |
/// | `Option<T>` of those | an optional argument |
/// | `///` on a parameter | the argument's `description` |
/// | `ctx: Context`, `db: State<Db>` | nothing: injected |
/// | `-> String` / `&'static str` | one `user` text message |
/// | `-> PromptMessage` / `Vec<PromptMessage>` / `GetPromptResult` | the messages |
/// | `-> Result<T, E>` with `E: Display` returning `Err(e)`; a missing or invalid argument | an invalid-params error with the text, naming the argument |
/// | `#[complete(path)]` on a parameter | `completion/complete` for it: `path` is an async or plain fn taking `prefix: String` (and optionally [`Arguments`], the other arguments given) returning an iterator of strings, in the order to show |
/// | a unit-only enum parameter | completes from its serde names, with no code |
///
/// A plain `fn` runs on Tokio's blocking pool, as a tool's does; a plain
/// completion function is called directly, so keep it quick.
pub use mcp_runtime_macros::prompt;

/// Derives [`Elicit`](trait@Elicit) for a struct with named fields: a form
/// a tool asks its client's user to fill in with [`Context::elicit`]. On a
/// unit-only enum, derives the choices a field of that type offers (one
/// with the enum, several with a `Vec` of it).
///
/// ```
/// use mcp_runtime::Elicit;
///
/// #[derive(Elicit)]
/// #[elicit(rename_all = "camelCase")]
/// enum Severity {
///     #[elicit(title = "Warnings and worse")]
///     Warning,
///     #[elicit(title = "Emergencies only")]
///     EmergencyOnly,
/// }
///
/// #[derive(Elicit)]
/// #[elicit(rename_all = "camelCase")]
/// struct Alerts {
///     /// Send severe-weather alerts?
///     confirm: bool,
///     /// From which level on.
///     #[elicit(title = "Severity", default = Severity::Warning)]
///     min_severity: Severity,
///     #[elicit(format = "email")]
///     also_email: Option<String>,
///     #[elicit(minimum = 1, maximum = 7, default = 3)]
///     days: u8,
/// }
/// ```
///
/// | You write | The requested schema has |
/// | --- | --- |
/// | a field `name: T` | the property `name`, required |
/// | `Option<T>`, or `default = ..` | an optional property |
/// | `///` on a field | its `description` |
/// | `String`, `bool`, integers, `f32`/`f64` | `"string"`, `"boolean"`, `"integer"` (bounded by the type), `"number"` |
/// | an enum with `#[derive(Elicit)]` | a single choice: `enum`, or `oneOf` of `const`/`title` when a variant has a `title` |
/// | `Vec<Enum>` | several choices: `type: array` with `items` (`enum`, or `anyOf` when titled) |
/// | `title = ".."` | `title` |
/// | `default = expr` (an `Into<T>`) | `default` (SEP-1034); an answer that leaves the field out gets it |
/// | `min_length`, `max_length`, `pattern`, `format` (`email`, `uri`, `date`, `date-time`) on text | the same keywords |
/// | `minimum`, `maximum` on numbers | the same keywords |
/// | `min_items`, `max_items` on `Vec` fields | `minItems`, `maxItems` |
/// | `rename = ".."`, or `rename_all = ".."` on the type | the property's (or value's) name |
/// | `enum_names` on an enum | a single choice as `enum` with the deprecated `enumNames` titles |
///
/// A client that speaks 2025-06-18 is sent titled single choices as
/// `enum`/`enumNames`, the form its version knows.
///
/// A field of another type, a keyword on a field it does not apply to, a
/// tuple struct, generics, or an enum variant with data, is a compile error
/// naming it: the 2025-11-25 protocol asks for flat forms only.
pub use mcp_runtime_macros::Elicit;

// The README's examples, compiled (and those not marked `no_run` or
// `ignore`, run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
