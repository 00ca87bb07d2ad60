//! The two tools progressive discovery adds: the search tool, which
//! answers tool definitions, and the proxy, which calls any tool. Both
//! read the snapshot being served when they run, so they see every change
//! a [`ServerHandle`](crate::ServerHandle) made.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{DEFAULT_LIMIT, Discovery, Index};
use crate::context::Context;
use crate::dispatch::Snapshot;
use crate::location::Location;
use crate::protocol::shape::tool_json;
use crate::protocol::version::ProtocolVersion;
use crate::tools::def::TaskSupport;
use crate::tools::dynamic::DynamicTool;
use crate::tools::output::CallToolResult;

/// The search tool, named and limited as `discovery` says.
pub(super) fn search_tool(discovery: &Arc<Discovery>, location: Location) -> DynamicTool {
    let max = discovery.max_results;
    let input = json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "Words describing what the tool should do, or part of its name; \
                                empty to list the tools that have all of `tags`."
            },
            "tags": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Only tools that have every one of these tags."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": max,
                "default": DEFAULT_LIMIT.min(max),
                "description": "The most tools to return."
            }
        },
        "required": ["query"],
        "additionalProperties": false
    });
    let output = json!({
        "type": "object",
        "properties": {
            "tools": {
                "type": "array",
                "items": {"type": "object"},
                "description": "The matching tools' definitions, best match first, as \
                                tools/list gives them (with `tags` when they have any)."
            },
            "total": {
                "type": "integer",
                "description": "How many tools matched, before `limit`."
            }
        },
        "required": ["tools", "total"]
    });
    let description = "Searches this server's tools, including those the tool list does not \
                       show, by name, description, tags and arguments; returns the definitions \
                       of the best matches, to call by name.";
    let shared = Arc::clone(discovery);
    let mut tool = DynamicTool::new(
        discovery.search_name.clone(),
        description,
        input,
        move |arguments, ctx| {
            let shared = Arc::clone(&shared);
            async move { search(&shared, &arguments, &ctx) }
        },
    )
    .title("Search tools")
    .read_only(true)
    .idempotent(true)
    .open_world(false)
    .output_schema(output);
    tool.location = location;
    tool
}

/// The proxy tool that calls any tool by name.
pub(super) fn proxy_tool(discovery: &Arc<Discovery>, location: Location) -> DynamicTool {
    let input = json!({
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "description": "The name of the tool to call, as the search returned it."
            },
            "arguments": {
                "type": "object",
                "description": "The arguments of that tool, as its inputSchema describes them."
            }
        },
        "required": ["name"],
        "additionalProperties": false
    });
    let description = format!(
        "Calls one of this server's tools by name, including those the tool list does not \
         show (find them with `{}`), and returns its result.",
        discovery.search_name
    );
    let shared = Arc::clone(discovery);
    let mut tool = DynamicTool::new(
        discovery.proxy_name.clone().unwrap_or_default(),
        description,
        input,
        move |arguments, ctx| {
            let shared = Arc::clone(&shared);
            async move { proxy(&shared, arguments, ctx).await }
        },
    )
    .title("Call a tool");
    tool.location = location;
    tool
}

/// The snapshot being served, or the error result saying there is none
/// (the server stopped; `Registry::call` answers without this).
fn served(discovery: &Discovery) -> Result<Arc<Snapshot>, CallToolResult> {
    discovery
        .serving
        .get()
        .and_then(|serving| serving.live.upgrade())
        .map(|live| live.load())
        .ok_or_else(|| CallToolResult::error("the server is not serving"))
}

/// Whether the caller of `ctx` may see and call `scopes`' tool (always,
/// unless authenticated and lacking one).
fn permits(ctx: &Context, scopes: &[String]) -> bool {
    ctx.auth()
        .is_none_or(|caller| caller.missing(scopes).is_empty())
}

fn search(discovery: &Discovery, arguments: &Value, ctx: &Context) -> CallToolResult {
    match served(discovery) {
        Ok(snapshot) => answer(discovery, snapshot.search_index(), arguments, ctx),
        Err(error) => error,
    }
}

/// The search's answer from `index`.
pub(super) fn answer(
    discovery: &Discovery,
    index: &Index,
    arguments: &Value,
    ctx: &Context,
) -> CallToolResult {
    let query = arguments["query"].as_str().unwrap_or_default();
    let tags: Vec<String> = arguments["tags"]
        .as_array()
        .map(|tags| {
            tags.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let limit = arguments["limit"]
        .as_u64()
        .and_then(|limit| usize::try_from(limit).ok())
        .unwrap_or(DEFAULT_LIMIT)
        .clamp(1, discovery.max_results);
    let only_permitted = discovery
        .serving
        .get()
        .is_some_and(|serving| serving.list_only_permitted);
    let found = index.search(query, &tags, |tool| {
        !only_permitted || permits(ctx, tool.scopes())
    });
    let version = ctx.protocol_version().unwrap_or(ProtocolVersion::LATEST);
    let tools: Vec<Value> = found
        .iter()
        .take(limit)
        .map(|tool| {
            let mut entry = tool_json(tool, version);
            if !tool.tags().is_empty()
                && let Value::Object(map) = &mut entry
            {
                map.insert("tags".to_owned(), json!(tool.tags()));
            }
            entry
        })
        .collect();
    CallToolResult::structured(json!({"tools": tools, "total": found.len()}))
}

/// Why the proxy does not call `name`: a synthetic tool, or no tool.
pub(super) fn refusal(
    discovery: &Discovery,
    name: &str,
    registry: &crate::registry::Registry,
) -> Option<CallToolResult> {
    let own = discovery.proxy_name.as_deref().unwrap_or_default();
    if discovery.is_synthetic(name) {
        return Some(CallToolResult::error(format!(
            "`{own}` does not call `{name}`: call `{name}` directly"
        )));
    }
    registry.get(name).is_none().then(|| {
        CallToolResult::error(format!(
            "Unknown tool: {name}. Find the tools this server has with `{}`.",
            discovery.search_name
        ))
    })
}

async fn proxy(discovery: &Discovery, arguments: Value, ctx: Context) -> CallToolResult {
    let snapshot = match served(discovery) {
        Ok(snapshot) => snapshot,
        Err(error) => return error,
    };
    let Value::Object(mut arguments) = arguments else {
        return CallToolResult::error("the arguments must be an object");
    };
    let name = match arguments.remove("name") {
        Some(Value::String(name)) => name,
        _ => return CallToolResult::error("`name` must be the name of a tool"),
    };
    if let Some(refusal) = refusal(discovery, &name, &snapshot.registry) {
        return refusal;
    }
    // Found: `refusal` looked in the same snapshot.
    let Some(tool) = snapshot.registry.get(&name).map(Arc::clone) else {
        return CallToolResult::error(format!("Unknown tool: {name}"));
    };
    let missing = ctx
        .auth()
        .map(|caller| caller.missing(tool.scopes()))
        .unwrap_or_default();
    if !missing.is_empty() {
        return CallToolResult::error(format!(
            "the tool `{name}` needs the scope(s) {}, which this caller's token lacks",
            missing.join(", ")
        ));
    }
    // A client that knows tasks must run this one as a task, which the
    // proxy cannot: `tools/call` with `task` can.
    let knows_tasks = ctx
        .protocol_version()
        .is_some_and(|v| v == ProtocolVersion::V2025_11_25 || v.is_modern());
    if tool.task_support() == TaskSupport::Required && knows_tasks {
        return CallToolResult::error(format!(
            "the tool `{name}` runs only as a task, which `{}` cannot start: call it with \
             tools/call and `task`",
            discovery.proxy_name.as_deref().unwrap_or_default()
        ));
    }
    let arguments = match arguments.remove("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(arguments) => arguments,
    };
    let timeout = discovery
        .serving
        .get()
        .and_then(|serving| serving.default_timeout);
    let ctx = ctx.for_tool(Arc::clone(&tool.name));
    tool.call(arguments, ctx, timeout).await.into_result()
}
