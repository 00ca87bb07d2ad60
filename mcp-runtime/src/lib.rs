//! Write Model Context Protocol servers by annotating ordinary functions.
//!
//! ```
//! use mcp_runtime::tool;
//!
//! /// Add two numbers.
//! #[tool(read_only)]
//! async fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//! ```
//!
//! Every `#[tool]` in every crate linked into the binary is served: there is
//! no router and no list of tools to maintain. See the README for the whole
//! picture.
#![warn(missing_docs)]

// Lets `#[tool]` expansions (which name `::mcp_runtime::...`) work inside
// this crate's own tests.
extern crate self as mcp_runtime;

mod cli;
mod completion;
mod content;
mod context;
mod dispatch;
mod jsonrpc;
mod location;
mod meta;
mod notify;
mod outbox;
mod prompts;
mod protocol;
mod registry;
mod resources;
mod schema;
mod server;
pub mod testing;
mod tools;
mod transport;
mod unwind;
mod wait;

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
pub use __private::{DeserializeAndJsonSchema, tool_future_must_be_send};
#[doc(hidden)]
pub use context::{Inject, SharedState};
#[doc(hidden)]
pub use tools::output::{
    DeriveJsonSchema, DeriveSerialize, ErrorWithoutDisplay, MissingJsonSchema, MissingSerialize,
    SerializeAndJsonSchema, ToolError, UnsupportedReturn,
};

pub use completion::def::Arguments;
pub use content::{
    Annotations, Content, EmbeddedResource, MediaContent, ResourceContents, ResourceLink, Role,
    TextContent,
};
pub use context::{ClientInfo, Context, LogLevel, State};
pub use jsonrpc::RequestId;
pub use location::Location;
pub use meta::Icon;
pub use notify::Notifier;
pub use prompts::build::Prompt;
pub use prompts::def::PromptError;
pub use prompts::dynamic::DynamicPrompt;
pub use prompts::message::{GetPromptResult, PromptMessage};
pub use protocol::version::ProtocolVersion;
pub use registry::error::{Primitive, RegistryError};
pub use registry::{CallError, Registry};
pub use resources::build::Resource;
pub use resources::def::ReadError;
pub use resources::dynamic::DynamicResource;
pub use server::Server;
pub use tools::def::{Hints, Tool, ToolAnnotations};
pub use tools::dynamic::DynamicTool;
pub use tools::output::{CallToolResult, IntoCallToolResult};

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
/// | `-> T` with `T: Serialize + JsonSchema` | `outputSchema` and `structuredContent` |
/// | `-> String`, `Content`, `Vec<Content>`, `CallToolResult`, `()` | content, no `outputSchema` |
/// | `-> Result<T, E>` with `E: Display` | `Err(e)` becomes `isError: true` with `e`'s text |
/// | `read_only`, `destructive`, `idempotent`, `open_world` (`= false` too) | `annotations` hints |
/// | `title = "..."` | `title` |
/// | `timeout = "30s"` | calls end with `isError: true` after 30 s |
///
/// A plain `fn` is accepted too and runs on Tokio's blocking pool.
pub use mcp_macros::tool;
