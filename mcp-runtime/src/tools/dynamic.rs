//! Tools defined at run time, for proxies and generated tools.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::apps::Visibility;
use crate::context::Context;
use crate::meta::Icon;
use crate::tools::def::{DynHandler, Hints, Location, TaskSupport};
use crate::tools::output::IntoCallToolResult;

/// A tool defined at run time: a name, a description, a JSON input schema
/// and an async closure. Add it with [`Server::tool`](crate::Server::tool).
///
/// Arguments are validated against `input_schema` before the closure runs,
/// exactly as for `#[tool]` functions.
///
/// ```
/// use mcp_runtime::{DynamicTool, Server, serde_json::json};
///
/// let echo = DynamicTool::new(
///     "echo",
///     "Repeats the text it is given.",
///     json!({
///         "type": "object",
///         "properties": {"text": {"type": "string"}},
///         "required": ["text"]
///     }),
///     |arguments, _ctx| async move { arguments["text"].as_str().unwrap_or_default().to_owned() },
/// )
/// .read_only(true);
/// let server = Server::new("proxy", "1.0.0").tool(echo);
/// # let _ = server;
/// ```
pub struct DynamicTool {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: String,
    pub(crate) hints: Hints,
    pub(crate) timeout: Option<Duration>,
    pub(crate) task: TaskSupport,
    pub(crate) input_schema: Value,
    pub(crate) output_schema: Option<Value>,
    pub(crate) icons: Vec<Icon>,
    pub(crate) meta: Option<Value>,
    pub(crate) scopes: Vec<String>,
    /// `.ui(..)`: the view it links to.
    pub(crate) ui: Option<String>,
    /// `.visibility(..)`: who may call it.
    pub(crate) visibility: Option<Vec<Visibility>>,
    /// `.tags(..)`: words that group it.
    pub(crate) tags: Vec<String>,
    pub(crate) handler: DynHandler,
    pub(crate) location: Location,
    /// Forwarded to a server that checks the arguments itself (a mounted
    /// upstream's tool): a schema the validator cannot compile leaves the
    /// arguments unchecked here instead of refusing the tool.
    pub(crate) checked_upstream: bool,
    /// The output schema may be any schema, not only an object's: it is
    /// listed under `result` (and values wrapped) for clients before
    /// 2026-07-28, as `#[tool]` does for such types (OpenAPI responses).
    pub(crate) bare_output: bool,
}

impl DynamicTool {
    /// A tool named `name`. The closure receives the validated arguments
    /// object and the call's [`Context`], and returns anything that is
    /// [`IntoCallToolResult`] (text, content, a full result, or a `Result`
    /// of these).
    #[track_caller]
    pub fn new<F, Fut, R>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Self
    where
        F: Fn(Value, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoCallToolResult,
    {
        let handler: DynHandler = Arc::new(move |arguments, ctx| {
            let future = handler(arguments, ctx);
            Box::pin(async move { future.await.into_call_tool_result() })
        });
        DynamicTool {
            name: name.into(),
            title: None,
            description: description.into(),
            hints: Hints::default(),
            timeout: None,
            task: TaskSupport::Forbidden,
            input_schema,
            output_schema: None,
            icons: Vec::new(),
            meta: None,
            scopes: Vec::new(),
            ui: None,
            visibility: None,
            tags: Vec::new(),
            handler,
            location: Location::caller(),
            checked_upstream: false,
            bare_output: false,
        }
    }

    /// Sets the human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Declares an output schema; the closure must then return a
    /// [`CallToolResult`](crate::CallToolResult) whose `structured_content`
    /// conforms to it.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Sets the `readOnlyHint`.
    pub fn read_only(mut self, value: bool) -> Self {
        self.hints.read_only = Some(value);
        self
    }

    /// Sets the `destructiveHint`.
    pub fn destructive(mut self, value: bool) -> Self {
        self.hints.destructive = Some(value);
        self
    }

    /// Sets the `idempotentHint`.
    pub fn idempotent(mut self, value: bool) -> Self {
        self.hints.idempotent = Some(value);
        self
    }

    /// Sets the `openWorldHint`.
    pub fn open_world(mut self, value: bool) -> Self {
        self.hints.open_world = Some(value);
        self
    }

    /// Adds an icon (shown to 2025-11-25 clients).
    pub fn icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// Sets its `_meta` (shown to 2025-06-18 clients and later): a JSON
    /// object, or the server refuses to start.
    pub fn meta(mut self, meta: Value) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Links it to a view (MCP Apps, see [`apps`](crate::apps)): the `ui://`
    /// URI of a resource served with [`DynamicResource::view`](crate::DynamicResource::view)
    /// (or `#[resource("ui://..", view)]`). Listed as `_meta.ui.resourceUri`
    /// and `_meta["ui/resourceUri"]` (2025-06-18 clients and later), beside
    /// anything given to [`meta`](Self::meta), which must then have neither
    /// key. The server refuses to start if no such view is served.
    pub fn ui(mut self, uri: impl Into<String>) -> Self {
        self.ui = Some(uri.into());
        self
    }

    /// Says who may call it, a tool with a [`ui`](Self::ui): the model, the
    /// view (through the host), or both (the default when not set). A host
    /// shows a tool without [`Visibility::Model`] to no model.
    pub fn visibility<I>(mut self, visibility: I) -> Self
    where
        I: IntoIterator<Item = Visibility>,
    {
        self.visibility = Some(visibility.into_iter().collect());
        self
    }

    /// Adds tags: words that group the tool, searched and pinned by
    /// progressive discovery. Clients never see them in `tools/list`.
    pub fn tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags.extend(tags.into_iter().map(Into::into));
        self
    }

    /// Sets the OAuth scopes a caller's token must carry to call it (each
    /// an RFC 6749 scope token: printable ASCII without spaces, `"` or `\`;
    /// none twice, or the server refuses to start). Not shown to clients;
    /// HTTP authorization refuses a call whose token lacks one of them.
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Ends calls that run longer than `limit` with `isError: true`.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// Sets whether a client may run it as a task (told to 2025-11-25
    /// clients as `execution.taskSupport`); [`TaskSupport::Forbidden`]
    /// unless set.
    pub fn task(mut self, support: TaskSupport) -> Self {
        self.task = support;
        self
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::shape::tool_json;
    use crate::protocol::version::ProtocolVersion;
    use crate::tools::build::build_dynamic;

    fn echo() -> DynamicTool {
        DynamicTool::new(
            "echo",
            "Repeats its text.",
            json!({"type": "object"}),
            |_arguments, _ctx| async move { String::new() },
        )
    }

    #[test]
    fn task_support_is_forbidden_unless_set_and_listed_only_at_2025_11_25() {
        let plain = build_dynamic(&echo()).unwrap();
        assert_eq!(plain.task_support(), TaskSupport::Forbidden);
        for support in [TaskSupport::Optional, TaskSupport::Required] {
            let tool = build_dynamic(&echo().task(support)).unwrap();
            assert_eq!(tool.task_support(), support);
            for version in ProtocolVersion::ALL {
                let listed = tool_json(&tool, version);
                let expected = (version == ProtocolVersion::V2025_11_25)
                    .then(|| json!({"taskSupport": support.as_str()}));
                assert_eq!(listed.get("execution"), expected.as_ref(), "{version}");
            }
        }
        // The last call wins; forbidden is listed as nothing at all.
        let reset = echo()
            .task(TaskSupport::Required)
            .task(TaskSupport::Forbidden);
        let tool = build_dynamic(&reset).unwrap();
        assert_eq!(tool.task_support(), TaskSupport::Forbidden);
        for version in ProtocolVersion::ALL {
            assert!(tool_json(&tool, version).get("execution").is_none());
        }
        assert_eq!(
            [
                TaskSupport::Forbidden,
                TaskSupport::Optional,
                TaskSupport::Required
            ]
            .map(TaskSupport::as_str),
            ["forbidden", "optional", "required"]
        );
    }
}
