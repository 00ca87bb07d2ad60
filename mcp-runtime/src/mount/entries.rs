//! An upstream's tools, resources, templates and prompts as entries of
//! ours: dynamic entries with what the upstream listed (schemas,
//! annotations, output schema, icons, `_meta`) whose handlers forward to
//! it through the mount's [`Link`].

use std::sync::Arc;

use serde_json::{Value, json};

use crate::client::{
    ClientError, CompletionRef, PromptInfo, ResourceInfo, ResourceTemplateInfo, ToolInfo,
};
use crate::completion::def::Arguments;
use crate::content::ResourceContents;
use crate::context::Context;
use crate::location::Location;
use crate::meta::Icon;
use crate::mount::link::{Link, describe};
use crate::prompts::GetPromptResult;
use crate::prompts::def::PromptError;
use crate::prompts::dynamic::DynamicPrompt;
use crate::resources::def::ReadError;
use crate::resources::dynamic::DynamicResource;
use crate::tools::dynamic::DynamicTool;
use crate::tools::output::CallToolResult;

/// MCP's "resource not found" error code.
const RESOURCE_NOT_FOUND: i32 = -32002;

/// The tool `info` as ours: `{prefix}_{name}`, calls forwarded.
pub(crate) fn tool(link: &Arc<Link>, info: &ToolInfo, location: Location) -> DynamicTool {
    let upstream = Arc::<str>::from(info.name());
    let schema = info
        .input_schema()
        .cloned()
        .unwrap_or_else(|| json!({ "type": "object" }));
    let forward = Arc::clone(link);
    let mut tool = DynamicTool::new(
        link.ours(&upstream),
        info.description().unwrap_or_default(),
        schema,
        move |arguments, ctx| call(Arc::clone(&forward), Arc::clone(&upstream), arguments, ctx),
    );
    tool.location = location;
    tool.checked_upstream = true;
    tool = tool.tags(link.upstream.tags.iter().cloned());
    let annotations = info.annotations();
    let title = info.title().or_else(|| {
        annotations
            .and_then(|a| a.get("title"))
            .and_then(Value::as_str)
    });
    if let Some(title) = title {
        tool = tool.title(title);
    }
    let hint = |key: &str| {
        annotations
            .and_then(|a| a.get(key))
            .and_then(Value::as_bool)
    };
    tool.hints.read_only = hint("readOnlyHint");
    tool.hints.destructive = hint("destructiveHint");
    tool.hints.idempotent = hint("idempotentHint");
    tool.hints.open_world = hint("openWorldHint");
    // The upstream's `execution.taskSupport` is not copied: tasks are not
    // forwarded, so the tool is served as one that forbids them.
    match info.output_schema() {
        Some(schema) if schema.get("type") == Some(&Value::from("object")) => {
            tool = tool.output_schema(schema.clone());
        }
        // Not one MCP allows: the tool is served without it, as unstructured.
        Some(_) => tracing::warn!(
            upstream = link.label(),
            tool = info.name(),
            "the upstream tool's outputSchema is not an object schema; it is left out"
        ),
        None => {}
    }
    tool.icons = icons(info.as_json());
    tool.meta = info.as_json().get("_meta").cloned();
    tool
}

async fn call(link: Arc<Link>, name: Arc<str>, arguments: Value, ctx: Context) -> CallToolResult {
    let client = match link.client_for(&ctx).await {
        Ok(client) => client,
        Err(sentence) => return CallToolResult::error(sentence),
    };
    let answer = if ctx.wants_progress() {
        let progress = ctx.clone();
        client
            .call_tool_with_progress(&name, arguments, move |done, total, message| {
                progress.progress(done, total, message);
            })
            .await
    } else {
        client.call_tool(&name, arguments).await
    };
    answer.unwrap_or_else(|error| {
        if is_lost(&error) {
            link.lost(&client);
        }
        CallToolResult::error(describe(&link, &error))
    })
}

/// The resource `info` as ours, at the same URI, reads forwarded.
pub(crate) fn resource(
    link: &Arc<Link>,
    info: &ResourceInfo,
    location: Location,
) -> DynamicResource {
    let resource = readable(link, info.uri(), info.name(), info.as_json(), location);
    match info.mime_type() {
        Some(mime_type) => resource.mime_type(mime_type),
        None => resource,
    }
}

/// The template `info` as ours, with the same URI template; reads
/// forwarded, and its variables completed by the upstream if it
/// completes.
pub(crate) fn template(
    link: &Arc<Link>,
    info: &ResourceTemplateInfo,
    variables: &[String],
    completes: bool,
    location: Location,
) -> DynamicResource {
    let template = info.uri_template();
    let mut resource = readable(link, template, info.name(), info.as_json(), location);
    if let Some(mime_type) = info.mime_type() {
        resource = resource.mime_type(mime_type);
    }
    if completes {
        let reference = CompletionRef::Resource(template.to_owned());
        for variable in variables {
            resource = resource.complete(variable.clone(), completer(link, &reference, variable));
        }
    }
    resource
}

fn readable(
    link: &Arc<Link>,
    uri: &str,
    name: &str,
    json: &Value,
    location: Location,
) -> DynamicResource {
    let forward = Arc::clone(link);
    let mut resource = DynamicResource::new(uri, name, move |uri, _variables, ctx| {
        read(Arc::clone(&forward), uri, ctx)
    });
    resource.location = location;
    let text = |key: &str| json.get(key).and_then(Value::as_str);
    if let Some(title) = text("title") {
        resource = resource.title(title);
    }
    if let Some(description) = text("description") {
        resource = resource.description(description);
    }
    resource.icons = icons(json);
    resource.meta = json.get("_meta").cloned();
    let subscriber = Arc::clone(link);
    resource.on_subscribe = Some(Arc::new(move |uri, subscribe| {
        subscriber.subscription(uri, subscribe);
    }));
    resource
}

async fn read(
    link: Arc<Link>,
    uri: String,
    ctx: Context,
) -> Result<Vec<ResourceContents>, ReadError> {
    let client = link.client_for(&ctx).await.map_err(ReadError::Failed)?;
    client
        .read_resource(&uri)
        .await
        .map_err(|error| match error {
            ClientError::Rpc { code, .. } if code == RESOURCE_NOT_FOUND => ReadError::NotFound,
            error => {
                if is_lost(&error) {
                    link.lost(&client);
                }
                ReadError::Failed(describe(&link, &error))
            }
        })
}

/// The prompt `info` as ours: `{prefix}_{name}`, gets forwarded, its
/// arguments completed by the upstream if it completes.
pub(crate) fn prompt(
    link: &Arc<Link>,
    info: &PromptInfo,
    completes: bool,
    location: Location,
) -> DynamicPrompt {
    let upstream = Arc::<str>::from(info.name());
    let forward = Arc::clone(link);
    let name = Arc::clone(&upstream);
    let mut prompt = DynamicPrompt::new(link.ours(&upstream), move |arguments, ctx| {
        get(Arc::clone(&forward), Arc::clone(&name), arguments, ctx)
    });
    prompt.location = location;
    let json = info.as_json();
    if let Some(title) = info.title() {
        prompt = prompt.title(title);
    }
    if let Some(description) = info.description() {
        prompt = prompt.description(description);
    }
    prompt.icons = icons(json);
    prompt.meta = json.get("_meta").cloned();
    let reference = CompletionRef::Prompt(upstream.to_string());
    let arguments = json.get("arguments").and_then(Value::as_array);
    for argument in arguments.into_iter().flatten() {
        let Some(name) = argument.get("name").and_then(Value::as_str) else {
            continue;
        };
        let description = argument.get("description").and_then(Value::as_str);
        let required = argument.get("required").and_then(Value::as_bool) == Some(true);
        prompt = prompt.argument(name, description.unwrap_or_default(), required);
        if description.is_none()
            && let Some(last) = prompt.arguments.last_mut()
        {
            last.description = None;
        }
        if completes {
            prompt = prompt.complete(name, completer(link, &reference, name));
        }
    }
    prompt
}

async fn get(
    link: Arc<Link>,
    name: Arc<str>,
    arguments: Arguments,
    ctx: Context,
) -> Result<GetPromptResult, PromptError> {
    let client = link.client_for(&ctx).await.map_err(PromptError)?;
    let arguments: Vec<(String, String)> = arguments
        .iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    client.get_prompt(&name, arguments).await.map_err(|error| {
        if is_lost(&error) {
            link.lost(&client);
        }
        PromptError(describe(&link, &error))
    })
}

/// A completer asking the upstream (over the shared connection) to
/// complete `argument` of `reference`, with the other arguments as context.
fn completer(
    link: &Arc<Link>,
    reference: &CompletionRef,
    argument: &str,
) -> impl Fn(String, Arguments) -> std::pin::Pin<Box<dyn Future<Output = Vec<String>> + Send>>
+ Send
+ Sync
+ 'static {
    let (link, reference, argument) = (Arc::clone(link), reference.clone(), argument.to_owned());
    move |prefix, others| {
        let (link, reference, argument) = (Arc::clone(&link), reference.clone(), argument.clone());
        Box::pin(async move {
            let Ok(client) = link.shared() else {
                return Vec::new();
            };
            let others: Vec<(String, String)> = others
                .iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect();
            match client
                .complete_with(&reference, &argument, &prefix, others)
                .await
            {
                Ok(completion) => completion.values,
                Err(error) => {
                    tracing::debug!(upstream = link.label(), %error, "the upstream did not complete");
                    Vec::new()
                }
            }
        })
    }
}

/// The `icons` of a listed entry, as ours.
fn icons(json: &Value) -> Vec<Icon> {
    let icons = json.get("icons").and_then(Value::as_array);
    icons
        .into_iter()
        .flatten()
        .filter_map(|icon| {
            let text = |key: &str| icon.get(key).and_then(Value::as_str);
            let mut ours = Icon::new(text("src")?);
            if let Some(mime_type) = text("mimeType") {
                ours = ours.mime_type(mime_type);
            }
            if let Some(sizes) = icon.get("sizes").and_then(Value::as_array) {
                ours = ours.sizes(sizes.iter().filter_map(Value::as_str));
            }
            if let Some(theme) = text("theme") {
                ours = ours.theme(theme);
            }
            Some(ours)
        })
        .collect()
}

/// Whether the connection the error came from is gone.
fn is_lost(error: &ClientError) -> bool {
    matches!(error, ClientError::Closed | ClientError::ConnectionLost(_))
}
