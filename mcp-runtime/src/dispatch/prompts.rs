//! `prompts/get` and `completion/complete`. (The list is pages served by
//! the connection.)

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::frame::Frame;
use super::job::{Job, request_context};
use super::reply::{Answer, JsonAnswer, json_result};
use super::resources::progress_token;
use super::state::Connection;
use crate::completion::complete::{Completion, Param};
use crate::completion::def::Arguments;
use crate::context::{Context, SessionShared};
use crate::jsonrpc::{ErrorObject, INTERNAL_ERROR, INVALID_PARAMS};
use crate::prompts::build::{GetResult, Prompt};
use crate::protocol::messages::ShapedPromptResult;
use crate::protocol::version::ProtocolVersion;
use crate::registry::Registry;
use crate::unwind::CatchUnwind;

fn invalid(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(INVALID_PARAMS, message)
}

/// A string member of `params`, or -32602 saying what is expected.
fn string<'p>(
    params: &'p Map<String, Value>,
    key: &str,
    what: &str,
) -> Result<&'p str, ErrorObject> {
    params
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(format!("{what} needs `{key}`, a string")))
}

/// An `arguments` object of strings (absent: none).
fn string_arguments(value: Option<&Value>, what: &str) -> Result<Arguments, ErrorObject> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(Arguments::default());
    };
    let Some(map) = value.as_object() else {
        return Err(invalid(format!("{what}: `arguments` must be an object")));
    };
    map.iter()
        .map(|(name, value)| match value {
            Value::String(text) => Ok((name.clone(), text.clone())),
            _ => Err(invalid(format!(
                "{what}: the argument `{name}` must be a string (prompt arguments arrive as text)"
            ))),
        })
        .collect()
}

impl Connection {
    /// `prompts/get`: the prompt's messages for the arguments given, got as
    /// a call of its own (concurrent, cancellable).
    pub(super) async fn get_prompt(
        &mut self,
        params: Map<String, Value>,
        session: Arc<SessionShared>,
        frame: &mut Frame<'_>,
    ) -> Result<Answer, ErrorObject> {
        let id = frame.id;
        let snapshot = Arc::clone(self.core.live.refresh(&mut self.held));
        let (prompt, arguments) = prompt_request(&snapshot.registry, &params)?;
        self.calls.check_unused(id)?;
        let ctx = request_context(
            &session,
            Arc::clone(&prompt.name),
            id,
            progress_token(&params),
            frame.out,
            self.identity.as_ref(),
        );
        let getting = CatchUnwind::new(prompt.get(arguments, ctx.clone()));
        let (name, version) = (Arc::clone(&prompt.name), session.version);
        let call = async move { get_answer(&name, getting.await, version) };
        let job = Job::json("prompts/get", &session, &self.core);
        self.calls.run(ctx, Box::pin(call), job, frame).await
    }

    /// `completion/complete`: the values of the named argument of a prompt
    /// or resource template that begin with what was typed.
    pub(super) async fn complete(
        &mut self,
        params: Map<String, Value>,
        session: Arc<SessionShared>,
        frame: &mut Frame<'_>,
    ) -> Result<Answer, ErrorObject> {
        let id = frame.id;
        let snapshot = Arc::clone(self.core.live.refresh(&mut self.held));
        let Target {
            owner,
            param,
            prefix,
            given,
        } = completion_target(&snapshot.registry, &params)?;
        self.calls.check_unused(id)?;
        let ctx = request_context(&session, owner, id, None, frame.out, self.identity.as_ref());
        let call = async move { complete_answer(&param, prefix, given).await };
        let job = Job::json("completion/complete", &session, &self.core);
        self.calls.run(ctx, Box::pin(call), job, frame).await
    }
}

/// The prompt `params` of `prompts/get` names, and the arguments for it,
/// checked.
fn prompt_request<'r>(
    registry: &'r Registry,
    params: &Map<String, Value>,
) -> Result<(&'r Arc<Prompt>, Arguments), ErrorObject> {
    let name = string(params, "name", "prompts/get")?;
    let Some(prompt) = registry.prompt(name) else {
        return Err(invalid(format!("Unknown prompt: {name}")).with_data(json!({ "name": name })));
    };
    let arguments = string_arguments(params.get("arguments"), "prompts/get")?;
    check_known(prompt, &arguments)?;
    Ok((prompt, arguments))
}

/// `prompts/get` through the layers (see `dispatch::layered`): the same
/// answer as [`Connection::get_prompt`], with `ctx` made beforehand.
pub(super) async fn get(
    registry: &Registry,
    params: &Map<String, Value>,
    ctx: Context,
    version: ProtocolVersion,
) -> JsonAnswer {
    let (prompt, arguments) = prompt_request(registry, params)?;
    let got = CatchUnwind::new(prompt.get(arguments, ctx)).await;
    get_answer(&prompt.name, got, version)
}

/// What `completion/complete` completes: an argument of a prompt or a
/// variable of a resource template (`owner`), and what was given.
struct Target {
    owner: Arc<str>,
    param: Param,
    prefix: String,
    given: Arguments,
}

fn completion_target(
    registry: &Registry,
    params: &Map<String, Value>,
) -> Result<Target, ErrorObject> {
    const WHAT: &str = "completion/complete";
    let reference = params
        .get("ref")
        .and_then(Value::as_object)
        .ok_or_else(|| invalid("completion/complete needs `ref`, an object"))?;
    let argument = params
        .get("argument")
        .and_then(Value::as_object)
        .ok_or_else(|| invalid("completion/complete needs `argument`, an object"))?;
    let argument_name = string(argument, "name", "`argument`")?;
    let prefix = string(argument, "value", "`argument`")?.to_owned();
    let context = params.get("context").and_then(|c| c.get("arguments"));
    let given = string_arguments(context, WHAT)?;
    let (owner, param) = match string(reference, "type", "`ref`")? {
        "ref/prompt" => {
            let name = string(reference, "name", "a `ref/prompt`")?;
            let prompt = registry
                .prompt(name)
                .ok_or_else(|| invalid(format!("Unknown prompt: {name}")))?;
            let param = prompt.argument(argument_name).ok_or_else(|| {
                invalid(format!(
                    "the prompt `{name}` has no argument `{argument_name}`"
                ))
            })?;
            (Arc::clone(&prompt.name), param.clone())
        }
        "ref/resource" => {
            let uri = string(reference, "uri", "a `ref/resource`")?;
            let template = registry.template(uri).ok_or_else(|| {
                invalid(format!("no resource template has the URI template `{uri}`"))
            })?;
            let param = template.param(argument_name).ok_or_else(|| {
                invalid(format!(
                    "the resource template `{uri}` has no variable `{argument_name}`"
                ))
            })?;
            (Arc::clone(&template.name), param.clone())
        }
        other => {
            return Err(invalid(format!(
                "unknown `ref` type {other:?}; expected \"ref/prompt\" or \"ref/resource\""
            )));
        }
    };
    Ok(Target {
        owner,
        param,
        prefix,
        given,
    })
}

/// `completion/complete` through the layers (see `dispatch::layered`).
pub(super) async fn complete(registry: &Registry, params: &Map<String, Value>) -> JsonAnswer {
    let Target {
        param,
        prefix,
        given,
        ..
    } = completion_target(registry, params)?;
    complete_answer(&param, prefix, given).await
}

/// Refuses an argument the prompt does not have, naming the ones it has.
fn check_known(prompt: &Prompt, arguments: &Arguments) -> Result<(), ErrorObject> {
    let Some((unknown, _)) = arguments
        .iter()
        .find(|(name, _)| prompt.argument(name).is_none())
    else {
        return Ok(());
    };
    let known: Vec<&str> = prompt.arguments.iter().map(|p| p.name.as_str()).collect();
    let known = if known.is_empty() {
        "it takes none".to_owned()
    } else {
        format!("its arguments are: {}", known.join(", "))
    };
    Err(invalid(format!(
        "the prompt `{}` has no argument `{unknown}`; {known}",
        prompt.name
    )))
}

fn get_answer(name: &str, got: Result<GetResult, String>, version: ProtocolVersion) -> JsonAnswer {
    match got {
        Ok(Ok(result)) => json_result(&ShapedPromptResult {
            result: &result,
            version,
        }),
        Ok(Err(error)) => Err(invalid(error.0)),
        Err(panic) => {
            tracing::error!(prompt = %name, %panic, "prompt handler panicked");
            Err(ErrorObject::new(
                INTERNAL_ERROR,
                format!("the prompt `{name}` failed with an internal error"),
            ))
        }
    }
}

async fn complete_answer(param: &Param, prefix: String, given: Arguments) -> JsonAnswer {
    let completing = CatchUnwind::new(Box::pin(param.complete(prefix, given)));
    let completion: Completion = match completing.await {
        Ok(completion) => completion,
        Err(panic) => {
            tracing::error!(argument = %param.name, %panic, "completion handler panicked");
            return Err(ErrorObject::new(
                INTERNAL_ERROR,
                format!("completing `{}` failed with an internal error", param.name),
            ));
        }
    };
    json_result(&json!({ "completion": completion }))
}
