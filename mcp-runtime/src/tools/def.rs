//! Tool definitions: the static [`ToolDef`] each `#[tool]` submits, and the
//! [`Tool`] the registry builds from it (schemas generated, validator
//! compiled) and calls.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::context::{Context, Requirement};
pub use crate::location::Location;
use crate::meta::Metadata;
use crate::protocol::version::ProtocolVersion;
use crate::schema::arguments::ArgumentValidator;
use crate::tools::output::{CallToolResult, RawOutput};
use crate::unwind::CatchUnwind;

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Behaviour hints for clients (MCP tool `annotations`). `None` leaves a hint
/// unset, which clients read as the protocol's default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    /// The tool does not modify its environment.
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates.
    pub destructive: Option<bool>,
    /// Calling it again with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// The tool interacts with an open world of external entities.
    pub open_world: Option<bool>,
}

impl Hints {
    /// Whether no hint is set.
    pub fn is_empty(&self) -> bool {
        *self == Hints::default()
    }
}

/// Whether a client may run a tool as a task (MCP 2025-11-25,
/// `execution.taskSupport` in `tools/list`): a call that answers at once
/// with a task id, whose result the client fetches later. Set with
/// `#[tool(task = "optional")]` or [`DynamicTool::task`](crate::DynamicTool::task).
///
/// Only 2025-11-25 clients are told; a tool that forbids tasks is listed
/// without `execution`, which clients read as forbidden.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TaskSupport {
    /// The client must never ask to run the tool as a task: every call is
    /// answered with its result. The default.
    #[default]
    Forbidden,
    /// The client may ask to run the tool as a task, or call it plainly.
    Optional,
    /// The tool must run as a task: the client always asks for one.
    Required,
}

impl TaskSupport {
    /// The name on the wire: `"forbidden"`, `"optional"` or `"required"`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// The annotations object of a tool, as it appears in `tools/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A human-readable title (protocol 2025-03-26 put it here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `read_only`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// `destructive`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// `idempotent`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// `open_world`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// What `#[tool]` submits to the registry. Not public API: its fields may
/// change in any release.
#[doc(hidden)]
pub struct ToolDef {
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: &'static str,
    pub hints: Hints,
    pub timeout: Option<Duration>,
    /// `task = ".."`: whether a client may run it as a task.
    pub task: TaskSupport,
    /// `icons = [..]`: icon URLs.
    pub icons: &'static [&'static str],
    /// `meta = ".."`: JSON object text, checked by the runtime at start-up.
    pub meta: Option<&'static str>,
    /// `scopes = [..]`: OAuth scopes a caller needs (checked by the macro,
    /// and again at start-up).
    pub scopes: &'static [&'static str],
    /// `tags = [..]`: words that group it (checked by the macro).
    pub tags: &'static [&'static str],
    /// `ui = ".."` and `visibility = ..`: the view it links to.
    pub ui: Option<crate::apps::ToolUi>,
    pub input_schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
    pub output_schema: fn(&mut schemars::SchemaGenerator) -> Option<schemars::Schema>,
    pub requirements: &'static [fn() -> Option<Requirement>],
    pub call: fn(Value, Context) -> BoxFuture<RawOutput>,
    pub location: Location,
}

inventory::collect!(ToolDef);

pub(crate) type DynHandler = Arc<dyn Fn(Value, Context) -> BoxFuture<CallToolResult> + Send + Sync>;

pub(crate) enum Handler {
    Static(fn(Value, Context) -> BoxFuture<RawOutput>),
    Dynamic(DynHandler),
    /// A transformed tool: its arguments map back, then the tool it was
    /// made from runs (`tools::derived`).
    Derived(Arc<Derived>),
}

/// What a transformed tool runs: the tool it was made from, and how its
/// arguments map back.
pub(crate) struct Derived {
    pub(crate) inner: Arc<Tool>,
    pub(crate) args: crate::tools::argmap::ArgMap,
}

/// A tool as served: its metadata, schemas and compiled validator.
pub struct Tool {
    pub(crate) name: Arc<str>,
    pub(crate) title: Option<String>,
    pub(crate) description: String,
    pub(crate) hints: Hints,
    pub(crate) timeout: Option<Duration>,
    pub(crate) task: TaskSupport,
    pub(crate) input_schema: Map<String, Value>,
    pub(crate) output_schema: Option<Map<String, Value>>,
    /// The output type is not an object: structured values go under
    /// `result`, except in the 2026-07-28 era (any JSON value).
    pub(crate) wrap_output: bool,
    /// The output type's own schema when it is not an object: the
    /// `outputSchema` of the 2026-07-28 era.
    pub(crate) bare_output_schema: Option<Map<String, Value>>,
    pub(crate) validator: ArgumentValidator,
    /// Icons and `_meta`.
    pub(crate) metadata: Metadata,
    /// The `ui://` URI of its view (MCP Apps), if it links one; its
    /// `_meta` has the link already.
    pub(crate) ui: Option<Arc<str>>,
    /// Words that group it, for search and pinning (progressive
    /// discovery); never listed in `tools/list`, which has no such field.
    pub(crate) tags: Arc<[String]>,
    pub(crate) handler: Handler,
    pub(crate) location: Location,
}

impl Tool {
    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The human-readable title, if any.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// Its tags: words that group it, searched and pinned by progressive
    /// discovery. Clients never see them in `tools/list`.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// The description the model reads.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The behaviour hints.
    pub fn hints(&self) -> Hints {
        self.hints
    }

    /// The `annotations` object of `tools/list`, if any hint or title is set.
    pub fn annotations(&self) -> Option<ToolAnnotations> {
        if self.hints.is_empty() && self.title.is_none() {
            return None;
        }
        Some(ToolAnnotations {
            title: self.title.clone(),
            read_only_hint: self.hints.read_only,
            destructive_hint: self.hints.destructive,
            idempotent_hint: self.hints.idempotent,
            open_world_hint: self.hints.open_world,
        })
    }

    /// The time after which a call ends with `isError: true`, if set.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Whether a client may run it as a task (`task = ".."` on the
    /// attribute, or `.task(..)`).
    pub fn task_support(&self) -> TaskSupport {
        self.task
    }

    /// The JSON Schema of the arguments.
    pub fn input_schema(&self) -> &Map<String, Value> {
        &self.input_schema
    }

    /// The JSON Schema of `structuredContent`, for tools with structured output.
    pub fn output_schema(&self) -> Option<&Map<String, Value>> {
        self.output_schema.as_ref()
    }

    /// The OAuth scopes a caller's token must carry to call it (`scopes =
    /// [..]` on the attribute, or `.scopes(..)`); empty if none. Not shown to
    /// clients in `tools/list`; HTTP authorization refuses a `tools/call` whose token
    /// lacks one of them.
    pub fn scopes(&self) -> &[String] {
        &self.metadata.scopes
    }

    /// The `ui://` URI of the view it links to (`ui = ".."` on the
    /// attribute, or [`DynamicTool::ui`](crate::DynamicTool::ui)); see
    /// [`apps`](crate::apps).
    pub fn ui(&self) -> Option<&str> {
        self.ui.as_deref()
    }

    /// Where the tool was defined.
    pub fn location(&self) -> Location {
        self.location
    }

    /// Validates and runs one call. Never panics: a panicking tool, a timeout
    /// and invalid arguments all become `isError: true` results.
    pub(crate) async fn call(
        &self,
        arguments: Value,
        ctx: Context,
        default_timeout: Option<Duration>,
    ) -> Outcome {
        if let Err(text) = self.validator.validate(&self.name, &arguments) {
            return CallToolResult::error(text).into();
        }
        if let Handler::Derived(derived) = &self.handler {
            // Checked with the names the client sees; the tool checks its
            // own (and keeps its timeout, output and panic handling).
            let arguments = derived.args.map(arguments);
            return Box::pin(derived.inner.call(arguments, ctx, default_timeout)).await;
        }
        // Clients before 2026-07-28 need `structuredContent` to be an object.
        let legacy = !ctx
            .protocol_version()
            .is_some_and(ProtocolVersion::is_modern);
        let wrap = self.wrap_output && legacy;
        let future: BoxFuture<RawOutput> = match &self.handler {
            Handler::Static(call) => call(arguments, ctx),
            Handler::Dynamic(call) => {
                let future = call(arguments, ctx);
                let structured = self.wrap_output;
                Box::pin(async move { dynamic_output(future.await, structured, legacy) })
            }
            Handler::Derived(_) => unreachable!("a derived tool runs the tool it was made from"),
        };
        let guarded = CatchUnwind::new(future);
        let outcome = match self.timeout.or(default_timeout) {
            Some(limit) => match tokio::time::timeout(limit, guarded).await {
                Ok(outcome) => outcome,
                Err(_) => {
                    return CallToolResult::error(format!(
                        "timed out after {}",
                        format_duration(limit)
                    ))
                    .into();
                }
            },
            None => guarded.await,
        };
        match outcome {
            Ok(raw) => self.finish(raw, wrap),
            Err(panic) => {
                tracing::error!(tool = %self.name, panic = %panic, "tool panicked");
                CallToolResult::error(format!(
                    "the tool `{}` failed with an internal error",
                    self.name
                ))
                .into()
            }
        }
    }

    /// The outcome of `raw`; a structured value under `result` when `wrap`.
    fn finish(&self, raw: RawOutput, wrap: bool) -> Outcome {
        match raw {
            RawOutput::Done(result) => result.into(),
            RawOutput::Structured(Ok(json)) if wrap => {
                // `{"result": …}` around JSON text is JSON text.
                let wrapped = format!("{{\"result\":{}}}", json.get());
                match RawValue::from_string(wrapped) {
                    Ok(json) => Outcome::Structured(json),
                    Err(error) => self.unserializable(&error),
                }
            }
            RawOutput::Structured(Ok(json)) => Outcome::Structured(json),
            RawOutput::Structured(Err(error)) => self.unserializable(&error),
        }
    }

    fn unserializable(&self, error: &serde_json::Error) -> Outcome {
        tracing::error!(tool = %self.name, %error, "tool output could not be serialized");
        CallToolResult::error(format!(
            "the tool `{}` failed with an internal error",
            self.name
        ))
        .into()
    }
}

/// A dynamic tool's result; for one whose output is not an object
/// (`wrap_output`), a successful structured value is handed on as
/// `#[tool]`'s are, to be wrapped for the clients that need it. Any other
/// non-object structured value is put under `result` for `legacy`
/// clients (before 2026-07-28).
fn dynamic_output(result: CallToolResult, structured: bool, legacy: bool) -> RawOutput {
    match result {
        CallToolResult {
            structured_content: Some(value),
            is_error: false,
            ..
        } if structured => RawOutput::Structured(serde_json::value::to_raw_value(&value)),
        // A value the tool did not declare as non-object (no output schema,
        // a mounted server's answer, an API that drifted from its
        // document): clients before 2026-07-28 need an object there.
        result if legacy => RawOutput::Done(result.structured_as_object()),
        result => RawOutput::Done(result),
    }
}

/// What a call produced. Structured output stays the JSON text it was
/// serialized to, which is written as is.
pub(crate) enum Outcome {
    Result(CallToolResult),
    /// A successful structured result, already wrapped when it needs to be.
    Structured(Box<RawValue>),
    /// A JSON-RPC error instead of a result: the tool asked for one
    /// (`Context::url_elicitation_required`).
    Failed(crate::jsonrpc::ErrorObject),
}

impl crate::asking::rounds::Interim for Outcome {
    fn interim() -> Self {
        Outcome::Failed(crate::jsonrpc::ErrorObject::new(
            crate::jsonrpc::INTERNAL_ERROR,
            "input required",
        ))
    }
}

impl From<CallToolResult> for Outcome {
    fn from(result: CallToolResult) -> Self {
        Outcome::Result(result)
    }
}

impl Outcome {
    pub(crate) fn is_error(&self) -> bool {
        match self {
            Outcome::Result(result) => result.is_error,
            Outcome::Structured(_) => false,
            Outcome::Failed(_) => true,
        }
    }

    /// As a [`CallToolResult`]: the JSON text of structured output becomes
    /// the text block and, read back, `structuredContent`.
    pub(crate) fn into_result(self) -> CallToolResult {
        match self {
            Outcome::Result(result) => result,
            Outcome::Structured(json) => CallToolResult {
                content: vec![crate::content::Content::text(json.get())],
                structured_content: serde_json::from_str(json.get()).ok(),
                is_error: false,
            },
            // In process there is no client to send the error to: its text.
            Outcome::Failed(error) => CallToolResult::error(error.message),
        }
    }
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// Formats a duration the way `timeout = "..."` is written: `30s`, `1m30s`, `250ms`.
pub(crate) fn format_duration(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms == 0 || !ms.is_multiple_of(1000) {
        return format!("{ms}ms");
    }
    let mut secs = ms / 1000;
    let mut text = String::new();
    for (unit, size) in [("h", 3600), ("m", 60), ("s", 1)] {
        if secs >= size {
            text.push_str(&format!("{}{unit}", secs / size));
            secs %= size;
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(format_duration(Duration::from_secs(30)), "30s");
        assert_eq!(format_duration(Duration::from_secs(90)), "1m30s");
        assert_eq!(format_duration(Duration::from_secs(7200)), "2h");
        assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1500ms");
    }
}
