//! Progressive discovery, for servers with many tools: `tools/list` shows
//! a small set (the pinned tools) plus a search tool that returns the
//! definitions of matching tools, and a proxy that calls any of them.
//! Every tool stays callable by name, listed or not.
//!
//! What clients see is documented on [`ToolSearch`].

mod index;
mod install;
mod synthetic;

use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

pub(crate) use index::Index;

use crate::dispatch::Live;
use crate::tools::def::Tool;

/// Progressive discovery, for [`Server::tool_search`](crate::Server::tool_search).
///
/// For servers with many tools: `tools/list` shows a small set (the pinned
/// tools) plus a search tool that returns the definitions of matching
/// tools, and a proxy that calls any of them. Every tool stays callable
/// by name, listed or not.
///
/// ```standalone_crate
/// use mcp_runtime::{DynamicTool, Server, ToolSearch, serde_json::json, testing::TestClient};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let tool = |name: &str, description: &str| {
///     DynamicTool::new(name, description, json!({"type": "object"}), |_, _| async { "ok" })
/// };
/// let server = Server::new("github", "1.0.0")
///     .tool(tool("get_me", "Who the token belongs to."))
///     .tool(tool("issues_create", "Opens an issue.").tags(["issues"]))
///     .tool(tool("pulls_list", "Lists pull requests.").tags(["pulls"]))
///     .tool_search(ToolSearch::new().pin(["get_me"]));
///
/// let mut client = TestClient::connect(server).await.unwrap();
/// let listed: Vec<_> = client.list_tools().await.unwrap();
/// let names: Vec<&str> = listed.iter().map(|t| t["name"].as_str().unwrap()).collect();
/// assert_eq!(names, ["call_tool", "get_me", "search_tools"]);
///
/// let found = client.call_tool("search_tools", json!({"query": "pull requests"})).await.unwrap();
/// let first = &found["structuredContent"]["tools"][0];
/// assert_eq!(first["name"], "pulls_list");
/// assert_eq!(first["tags"], json!(["pulls"]));
///
/// // Unlisted, and callable all the same: by name, or through the proxy.
/// let called = client
///     .call_tool("call_tool", json!({"name": "pulls_list", "arguments": {}}))
///     .await
///     .unwrap();
/// assert_eq!(called["content"][0]["text"], "ok");
/// # }
/// ```
///
/// **The listed view.** The registry keeps every tool (the catalog); a
/// client's `tools/list` (every protocol version, every page, and the
/// per-caller page of [`Server::list_only_permitted`](crate::Server::list_only_permitted))
/// shows only the pinned tools ([`ToolSearch::pin`], [`ToolSearch::pin_tags`])
/// and the two synthetic tools. With [`ToolSearch::threshold`], a catalog
/// of at most that many tools is listed whole, without the synthetic tools.
/// `--list-tools` prints this view too.
///
/// **`search_tools`** takes `{"query": string, "tags"?: [string],
/// "limit"?: integer}` and answers `structuredContent` `{"tools": [..],
/// "total": n}`, with the same JSON as its text: each entry is exactly the
/// tool's `tools/list` entry for the caller's protocol version, plus
/// `"tags"` when it has any; `total` counts every match before `limit`.
/// It ranks with BM25 over the name (split on `_ - . /` and camelCase),
/// tags, title, description and top-level arguments, in that order of
/// weight; every tag in `tags` must be one of a tool's. An empty query
/// lists the (tagged) tools by name. With `list_only_permitted`, a caller
/// finds only the tools its scopes grant.
///
/// **`call_tool`** takes `{"name": string, "arguments"?: object}` and
/// calls that tool as `tools/call` would (the same argument validation,
/// timeout and result), for hosts that let a model call only listed tools.
/// Policies see through it: [`McpRequest::tool`](crate::middleware::McpRequest::tool)
/// is the target, the HTTP scope check asks for the target's scopes, and a
/// caller without them is refused. It never calls itself or the search
/// tool. A proxied call runs plainly, never as a task: a tool that runs
/// only as a task is refused to clients that know tasks (2025-11-25 and
/// 2026-07-28), which call it with `tools/call`.
///
/// **`list_changed`.** A [`ServerHandle`](crate::ServerHandle) (or a
/// mount following its upstream) announces `notifications/tools/list_changed`
/// only when the listed view changed: a pinned tool added, removed or
/// replaced, or the threshold crossed; a change to the rest of the
/// catalog is found by the next search. 2026-07-28 clients get the usual
/// cache hints on `tools/list` (`private` when `list_only_permitted`
/// filters); since the view rarely changes, a longer
/// [`CacheHints`](crate::CacheHints) `lists` hint suits a discovery server.
///
/// **Order of operations.** `include_tools`/`exclude_tools` choose tools by
/// their original names; transforms then rename or hide them (by original
/// names); pins name tools as served, after both.
#[derive(Clone, Debug)]
pub struct ToolSearch {
    pins: Vec<String>,
    pin_tags: Vec<String>,
    threshold: Option<usize>,
    name: String,
    call_proxy: bool,
    proxy_name: String,
    max_results: usize,
    instructions: bool,
}

impl Default for ToolSearch {
    fn default() -> Self {
        ToolSearch::new()
    }
}

/// The results a search returns unless its `limit` says otherwise.
const DEFAULT_LIMIT: usize = 10;

impl ToolSearch {
    /// `tools/list` shows `search_tools` and `call_tool` only, until pins
    /// are added; a search returns 10 results unless asked for more (at
    /// most 50); the instructions say so.
    pub fn new() -> Self {
        ToolSearch {
            pins: Vec::new(),
            pin_tags: Vec::new(),
            threshold: None,
            name: "search_tools".to_owned(),
            call_proxy: true,
            proxy_name: "call_tool".to_owned(),
            max_results: 50,
            instructions: true,
        }
    }

    /// Lists these tools (by the names they are served under) beside the
    /// synthetic ones. A name no tool has yet is listed when such a tool
    /// is added.
    pub fn pin<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.pins.extend(names.into_iter().map(Into::into));
        self
    }

    /// Lists every tool that has one of these tags.
    pub fn pin_tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.pin_tags.extend(tags.into_iter().map(Into::into));
        self
    }

    /// Lists the whole catalog, without the synthetic tools, while it has
    /// at most `tools` tools (the synthetic tools are served, and callable,
    /// all the same).
    pub fn threshold(mut self, tools: usize) -> Self {
        self.threshold = Some(tools);
        self
    }

    /// The search tool's name (default `search_tools`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Whether to serve the proxy that calls any tool (default `true`);
    /// most hosts let a model call only the tools `tools/list` showed.
    pub fn call_proxy(mut self, on: bool) -> Self {
        self.call_proxy = on;
        self
    }

    /// The proxy's name (default `call_tool`).
    pub fn proxy_name(mut self, name: impl Into<String>) -> Self {
        self.proxy_name = name.into();
        self
    }

    /// The most results one search returns, whatever its `limit` (default
    /// 50, at least 1); a search without `limit` returns up to 10.
    pub fn max_results(mut self, results: usize) -> Self {
        self.max_results = results.max(1);
        self
    }

    /// Whether to add a sentence to the server's instructions saying that
    /// `tools/list` is partial and how to find the rest (default `true`).
    pub fn instructions(mut self, on: bool) -> Self {
        self.instructions = on;
        self
    }

    /// The sentence added to the instructions, if any.
    pub(crate) fn instructions_sentence(&self) -> Option<String> {
        if !self.instructions {
            return None;
        }
        let call = if self.call_proxy {
            format!(", then call them by name or with `{}`", self.proxy_name)
        } else {
            ", then call them by name".to_owned()
        };
        Some(format!(
            "The tool list may show only some of this server's tools: use `{}` to find the \
             others by what they do{call}.",
            self.name
        ))
    }
}

/// Progressive discovery as a registry carries it: what is listed, and
/// what the synthetic tools need to answer.
pub(crate) struct Discovery {
    pins: Vec<String>,
    pin_tags: Vec<String>,
    threshold: Option<usize>,
    search_name: String,
    /// `None` without the proxy.
    proxy_name: Option<String>,
    max_results: usize,
    /// Set when the server starts serving.
    serving: OnceLock<Serving>,
}

/// What the synthetic tools need from the running server.
struct Serving {
    live: Weak<Live>,
    list_only_permitted: bool,
    default_timeout: Option<Duration>,
}

impl Discovery {
    /// Connects the synthetic tools to the server that serves them (once).
    pub(crate) fn serve(
        &self,
        live: &Arc<Live>,
        list_only_permitted: bool,
        default_timeout: Option<Duration>,
    ) {
        let _ = self.serving.set(Serving {
            live: Arc::downgrade(live),
            list_only_permitted,
            default_timeout,
        });
    }

    /// Whether `name` is one of the synthetic tools.
    pub(crate) fn is_synthetic(&self, name: &str) -> bool {
        name == self.search_name || self.proxy_name.as_deref() == Some(name)
    }

    /// The proxy's name, if it is served.
    pub(crate) fn proxy_name(&self) -> Option<&str> {
        self.proxy_name.as_deref()
    }

    /// What `tools/list` shows of `tools` (the registry's, sorted by name).
    pub(crate) fn listed(&self, tools: &[Arc<Tool>]) -> Vec<Arc<Tool>> {
        let catalog = tools.iter().filter(|t| !self.is_synthetic(t.name()));
        if self
            .threshold
            .is_some_and(|most| catalog.clone().count() <= most)
        {
            return catalog.cloned().collect();
        }
        tools
            .iter()
            .filter(|tool| {
                self.is_synthetic(tool.name())
                    || self.pins.iter().any(|pin| pin == tool.name())
                    || tool.tags().iter().any(|tag| self.pin_tags.contains(tag))
            })
            .cloned()
            .collect()
    }

    /// The index of the catalog of `tools` (every tool but the synthetic
    /// ones).
    pub(crate) fn index(&self, tools: &[Arc<Tool>]) -> Index {
        Index::new(
            tools
                .iter()
                .filter(|t| !self.is_synthetic(t.name()))
                .cloned()
                .collect(),
        )
    }
}
