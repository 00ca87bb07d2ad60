//! The path of a request through the layers of
//! [`Server::layer`](crate::Server::layer) (see [`crate::middleware`]):
//! the request is checked by the lifecycle gate as on the plain path, made
//! an [`McpRequest`] (its params a value the layers may rewrite), and sent
//! through the server's one layered service as a call of the connection
//! (cancellable, in a slot, with progress through its [`Context`]). At the
//! bottom, [`Bottom`] performs it with the same machinery as the plain
//! path, and its answer becomes a value shaped for the session's protocol
//! version. A server without layers never comes here.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tower::ServiceExt;

use super::frame::{Frame, Request, object};
use super::job::{Job, request_context};
use super::live::Snapshot;
use super::logging::set_level;
use super::reply::{Answer, JsonAnswer, method_not_found};
use super::resources::{progress_token, subscribe};
use super::state::Connection;
use super::task_calls::{self, Plan, Start};
use super::{prompts, resources};
use crate::context::{ClientInfo, Context, SessionShared};
use crate::jsonrpc::call_params::{CallParams, Checked};
use crate::jsonrpc::{self, ErrorObject, INTERNAL_ERROR, INVALID_PARAMS, RequestId};
use crate::middleware::{McpError, McpRequest, McpService, Perform, error_object};
use crate::protocol::shape;
use crate::protocol::version::ProtocolVersion;
use crate::registry::Registry;
use crate::tools::def::Tool;

/// The answer of a request served through the layers.
type LayeredAnswer = Result<Value, ErrorObject>;

impl Connection {
    /// Serves `request` through the layers: what `route` does instead of
    /// its plain path when the server has some.
    pub(super) async fn handle_layered(
        &mut self,
        request: Request<'_, '_>,
        frame: &mut Frame<'_>,
    ) -> Result<Answer, ErrorObject> {
        let Request {
            method,
            params,
            call,
        } = request;
        let id = frame.id;
        let Some(service) = self.core.service.clone() else {
            return Err(ErrorObject::new(INTERNAL_ERROR, "internal error"));
        };
        // Past the era's gate: a `ping` may come before `initialize`.
        let method = match method {
            "ping" => "ping",
            other => match served_method(other) {
                Some(method) if self.core.served.serves(method) => method,
                _ => return Err(method_not_found(other)),
            },
        };
        let params = params_value(params, call)?;
        self.calls.check_unused(id)?;
        let snapshot = Arc::clone(self.core.live.refresh(&mut self.held));
        let (session, version) = match &self.session {
            Some(session) => (Arc::clone(session), Some(session.version)),
            // A `ping` before `initialize`: its context needs a session.
            None => (
                Arc::new(SessionShared::new(
                    Arc::clone(&self.core.state),
                    ProtocolVersion::LATEST,
                    ClientInfo::default(),
                )),
                None,
            ),
        };
        let plan = self.layered_plan(method, &params, &snapshot, &session)?;
        // A 2025-11-25 task outlives its request's stream (over HTTP).
        let notices = matches!(plan, Plan::Legacy { .. })
            .then(|| session.notices.get().and_then(|out| out.upgrade()))
            .flatten();
        let name = handler_name(&snapshot.registry, method, &params);
        let ctx = request_context(
            &session,
            Arc::clone(&name),
            id,
            params.as_object().and_then(progress_token),
            notices.as_ref().unwrap_or(frame.out),
            self.identity.as_ref(),
        );
        let job = Job {
            method,
            version: session.version,
            write: write_answer,
            is_error: LayeredAnswer::is_err,
            tail: self.core.tail(&session, method),
            round: session.round.clone(),
        };
        let request = McpRequest {
            method,
            params,
            id: id.clone(),
            session_id: self.session_id.clone(),
            identity: self.identity.clone(),
            version,
            extensions: self.extensions.clone(),
            perform: Box::new(Bottom {
                snapshot,
                session: Arc::clone(&session),
                ctx: ctx.clone(),
                timeout: self.core.limits.default_timeout,
                list_only_permitted: self.core.limits.list_only_permitted,
            }),
        };
        let answer_id = id.clone();
        let call = async move {
            (service.oneshot(request).await)
                .map_err(|error| error_object(error, method, &answer_id))
        };
        if !matches!(plan, Plan::Plain) {
            // The task is the whole call through the layers.
            let start = Start {
                core: &self.core,
                session: &session,
                owner: self.identity.as_deref().map(|i| i.subject().to_owned()),
                ctx,
                job,
                settle: crate::tasks::runner::settle_json,
            };
            return Box::pin(task_calls::start(start, plan, Box::pin(call), frame)).await;
        }
        self.calls.run(ctx, Box::pin(call), job, frame).await
    }

    /// Whether a call through the layers runs as a task (see
    /// [`task_calls::plan`]).
    fn layered_plan(
        &self,
        method: &str,
        params: &Value,
        snapshot: &Snapshot,
        session: &SessionShared,
    ) -> Result<Plan, ErrorObject> {
        let tool = (method == "tools/call")
            .then(|| params.get("name").and_then(Value::as_str))
            .flatten()
            .and_then(|name| snapshot.registry.get(name));
        let Some(tool) = tool else {
            return Ok(Plan::Plain);
        };
        let task = params
            .get("task")
            .and_then(|task| RawValue::from_string(task.to_string()).ok());
        task_calls::plan(
            &self.core,
            tool.task_support(),
            session,
            task.as_deref(),
            &tool.name,
        )
    }

    /// `initialize` through the layers, with the `result` and `version`
    /// it negotiated: what they answer (see `connection`, where the session
    /// starts only if it is `Ok`).
    pub(super) async fn layered_initialize(
        &mut self,
        service: McpService,
        id: &RequestId,
        params: Option<&RawValue>,
        version: ProtocolVersion,
        result: Value,
    ) -> LayeredAnswer {
        let request = McpRequest {
            method: "initialize",
            params: params_value(params, None)?,
            id: id.clone(),
            session_id: self.session_id.clone(),
            identity: self.identity.clone(),
            version: Some(version),
            extensions: self.extensions.clone(),
            perform: Box::new(Ready(result)),
        };
        (service.oneshot(request).await).map_err(|error| error_object(error, "initialize", id))
    }
}

/// The methods that go through the layers after `initialize`, as static
/// names (for logs and for [`McpRequest::method`]).
fn served_method(method: &str) -> Option<&'static str> {
    Some(match method {
        "tools/call" => "tools/call",
        "tools/list" => "tools/list",
        "resources/list" => "resources/list",
        "resources/templates/list" => "resources/templates/list",
        "resources/read" => "resources/read",
        "resources/subscribe" => "resources/subscribe",
        "resources/unsubscribe" => "resources/unsubscribe",
        "prompts/list" => "prompts/list",
        "prompts/get" => "prompts/get",
        "completion/complete" => "completion/complete",
        "logging/setLevel" => "logging/setLevel",
        #[cfg(feature = "skills")]
        "skills/list" => "skills/list",
        #[cfg(feature = "skills")]
        "skills/get" => "skills/get",
        _ => return None,
    })
}

/// The params as a value: `{}` when absent or `null`. A `tools/call` read
/// with its envelope comes back as the object it was (`name`, `arguments`,
/// `_meta`); one whose params were malformed is refused here.
fn params_value(
    params: Option<&RawValue>,
    call: Option<Checked<'_>>,
) -> Result<Value, ErrorObject> {
    if let Some(call) = call {
        let CallParams {
            name,
            arguments,
            meta,
            task,
            ..
        } = *call.map_err(|error| *error)?;
        let mut object = Map::new();
        object.insert("name".into(), Value::String(name.into_owned()));
        object.insert("arguments".into(), arguments);
        if let Some(meta) = meta.and_then(|raw| serde_json::from_str(raw.get()).ok()) {
            object.insert("_meta".into(), meta);
        }
        if let Some(task) = task.and_then(|raw| serde_json::from_str(raw.get()).ok()) {
            object.insert("task".into(), task);
        }
        return Ok(Value::Object(object));
    }
    let Some(raw) = params else {
        return Ok(Value::Object(Map::new()));
    };
    match serde_json::from_str(raw.get()) {
        Ok(Value::Null) => Ok(Value::Object(Map::new())),
        Ok(value) => Ok(value),
        Err(_) => Err(ErrorObject::new(
            INVALID_PARAMS,
            "`params` is nested too deeply to be read",
        )),
    }
}

/// The name a request's [`Context`] carries: the tool, resource or prompt
/// it names, if that exists when it arrives; else the method.
fn handler_name(registry: &Registry, method: &'static str, params: &Value) -> Arc<str> {
    let text = |key: &str| params.get(key).and_then(Value::as_str);
    let found = match method {
        "tools/call" => text("name")
            .and_then(|name| registry.get(name))
            .map(|tool| Arc::clone(&tool.name)),
        "resources/read" => text("uri")
            .and_then(|uri| registry.find_resource(uri))
            .map(|(resource, _)| Arc::clone(&resource.name)),
        "prompts/get" => text("name")
            .and_then(|name| registry.prompt(name))
            .map(|prompt| Arc::clone(&prompt.name)),
        _ => None,
    };
    found.unwrap_or_else(|| Arc::from(method))
}

fn write_answer(reply: &mut Vec<u8>, id: &RequestId, answer: &LayeredAnswer, _: ProtocolVersion) {
    match answer {
        Ok(result) => jsonrpc::write_result(reply, id, result),
        Err(error) => jsonrpc::write_error(reply, Some(id), error),
    }
}

/// Performs a request at the bottom of the layers, with what the
/// connection had when it arrived.
struct Bottom {
    snapshot: Arc<Snapshot>,
    session: Arc<SessionShared>,
    /// The request's context: the one the connection cancels.
    ctx: Context,
    timeout: Option<Duration>,
    /// [`Server::list_only_permitted`](crate::Server::list_only_permitted).
    list_only_permitted: bool,
}

impl Perform for Bottom {
    fn tool(&self, name: &str, arguments: Option<&Value>) -> Option<&Tool> {
        self.snapshot
            .registry
            .called(name, arguments)
            .map(|tool| &**tool)
    }

    fn perform(
        self: Box<Self>,
        method: &'static str,
        params: Value,
    ) -> Pin<Box<dyn Future<Output = Result<Value, McpError>> + Send>> {
        Box::pin(async move { self.run(method, params).await.map_err(McpError::from) })
    }
}

impl Bottom {
    async fn run(self: Box<Self>, method: &'static str, params: Value) -> LayeredAnswer {
        let Bottom {
            snapshot,
            session,
            ctx,
            timeout,
            list_only_permitted,
        } = *self;
        let version = session.version;
        let registry = &snapshot.registry;
        match method {
            "ping" => Ok(json!({})),
            "tools/call" => {
                let (name, arguments) = call_of(params)?;
                let Some(tool) = registry.get(&name) else {
                    return Err(ErrorObject::new(
                        INVALID_PARAMS,
                        format!("Unknown tool: {name}"),
                    ));
                };
                let outcome = tool.call(arguments, ctx, timeout).await;
                let mut bytes = Vec::new();
                shape::write_outcome(&mut bytes, &outcome, version);
                parsed(&bytes)
            }
            "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" => {
                let params = object(params)?;
                let cursor = params.get("cursor");
                if list_only_permitted && let Some(caller) = ctx.auth() {
                    let page = snapshot.permitted_page(method, cursor, version, caller)?;
                    return parsed(page.get().as_bytes());
                }
                let page = snapshot.page(method, cursor, version)?;
                parsed(page.get().as_bytes())
            }
            "resources/read" => value_of(resources::read(registry, &object(params)?, ctx).await),
            "resources/subscribe" | "resources/unsubscribe" => {
                subscribe(registry, &object(params)?, &session, method)?;
                Ok(json!({}))
            }
            "prompts/get" => value_of(prompts::get(registry, &object(params)?, ctx, version).await),
            "completion/complete" => value_of(prompts::complete(registry, &object(params)?).await),
            "logging/setLevel" => {
                set_level(&object(params)?, &session)?;
                Ok(json!({}))
            }
            #[cfg(feature = "skills")]
            "skills/list" | "skills/get" => {
                let answer = super::skills::answer(&snapshot, method, &object(params)?, version)?;
                parsed(answer.get().as_bytes())
            }
            _ => Err(method_not_found(method)),
        }
    }
}

/// The tool a `tools/call`'s params name, and its arguments (`{}` when
/// absent or `null`).
fn call_of(params: Value) -> Result<(String, Value), ErrorObject> {
    let mut params = object(params)?;
    let Some(Value::String(name)) = params.remove("name") else {
        return Err(ErrorObject::new(
            INVALID_PARAMS,
            "tools/call needs `name`, the name of a tool (see tools/list)",
        ));
    };
    match params.remove("arguments") {
        None | Some(Value::Null) => Ok((name, Value::Object(Map::new()))),
        Some(arguments @ Value::Object(_)) => Ok((name, arguments)),
        Some(_) => Err(ErrorObject::new(
            INVALID_PARAMS,
            "`arguments` must be an object",
        )),
    }
}

fn value_of(answer: JsonAnswer) -> LayeredAnswer {
    parsed(answer?.get().as_bytes())
}

/// A result the runtime serialized, as a value.
fn parsed(json: &[u8]) -> LayeredAnswer {
    serde_json::from_slice(json).map_err(|error| {
        tracing::error!(%error, "a result could not be read back for the layers");
        ErrorObject::new(INTERNAL_ERROR, "internal error")
    })
}

/// The bottom of an `initialize`: its result, computed before the layers.
struct Ready(Value);

impl Perform for Ready {
    fn tool(&self, _: &str, _: Option<&Value>) -> Option<&Tool> {
        None
    }

    fn perform(
        self: Box<Self>,
        _: &'static str,
        _: Value,
    ) -> Pin<Box<dyn Future<Output = Result<Value, McpError>> + Send>> {
        Box::pin(std::future::ready(Ok(self.0)))
    }
}
