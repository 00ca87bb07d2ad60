//! Source text of servers with many tools, for each framework: the 200-tool
//! servers (written by their `build.rs`) and the build-cost fixtures (written
//! by `driver buildcost`). Every framework gets the same tools: the same
//! names, descriptions, parameter names, types and docs, and the same body.
//!
//! Tool `i` is `tool_{i:03}(key: String, limit: Option<u32>) -> String`.
//! `edit` changes the body of tool 0 only, as a developer editing one tool
//! would; `edit == 0` is the unedited text.

use std::fmt::Write;

/// The number of tools of the "many" servers.
pub const MANY: usize = 200;

/// The name of tool `i`.
pub fn tool_name(i: usize) -> String {
    format!("tool_{i:03}")
}

/// The description of tool `i`.
pub fn description(i: usize) -> String {
    format!(
        "Looks up a key in catalog section {i} and returns the matching entry, \
         or a note that nothing matched."
    )
}

/// The doc of the `key` parameter.
pub const KEY_DOC: &str = "The key to look up, for example \"k-17\".";
/// The doc of the `limit` parameter.
pub const LIMIT_DOC: &str = "The maximum number of matches (default 10).";

/// The text tool `i` answers for `key` and `limit`.
pub fn answer(i: usize, key: &str, limit: Option<u32>) -> String {
    format!("{}: {key} (limit {})", tool_name(i), limit.unwrap_or(10))
}

fn body(i: usize, edit: u32) -> String {
    let tag = if i == 0 && edit > 0 {
        format!(" r{edit}")
    } else {
        String::new()
    };
    format!(
        "format!(\"{name}{tag}: {{key}} (limit {{}})\", limit.unwrap_or(10))",
        name = tool_name(i)
    )
}

fn doc_lines(out: &mut String, indent: &str, text: &str) {
    for line in text.lines() {
        let _ = writeln!(out, "{indent}/// {line}");
    }
}

/// `#[tool]` fns for mcp-runtime (`use mcp_runtime::tool;` in scope).
pub fn ours_tools(n: usize, edit: u32) -> String {
    let mut out = String::new();
    for i in 0..n {
        doc_lines(&mut out, "", &description(i));
        let _ = writeln!(out, "#[tool(read_only)]");
        let _ = writeln!(out, "async fn {}(", tool_name(i));
        doc_lines(&mut out, "    ", KEY_DOC);
        let _ = writeln!(out, "    key: String,");
        doc_lines(&mut out, "    ", LIMIT_DOC);
        let _ = writeln!(out, "    limit: Option<u32>,");
        let _ = writeln!(out, ") -> String {{");
        let _ = writeln!(out, "    {}", body(i, edit));
        let _ = writeln!(out, "}}\n");
    }
    out
}

/// `n` `#[resource]` fns (the first half fixed URIs, the second half URI
/// templates with one variable) and `n` `#[prompt]` fns with a required
/// and an optional argument, for mcp-runtime (`use mcp_runtime::{prompt,
/// resource};` in scope): what `ours-many` serves beside its tools, so its
/// start-up figure includes building them.
pub fn ours_resources_and_prompts(n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        if i < n / 2 {
            let _ = writeln!(out, "/// Catalog section {i}, as text.");
            let _ = writeln!(out, "#[resource(\"bench://sections/{i:03}\")]");
            let _ = writeln!(out, "fn section_{i:03}() -> String {{");
            let _ = writeln!(out, "    \"section {i}\".to_owned()");
        } else {
            let _ = writeln!(out, "/// One entry of catalog section {i}.");
            let _ = writeln!(out, "#[resource(\"bench://sections/{i:03}/{{key}}\")]");
            let _ = writeln!(out, "fn entry_{i:03}(key: String) -> String {{");
            let _ = writeln!(out, "    format!(\"section {i}: {{key}}\")");
        }
        let _ = writeln!(out, "}}\n");
        let _ = writeln!(out, "/// Asks about catalog section {i}.");
        let _ = writeln!(out, "#[prompt]");
        let _ = writeln!(out, "fn prompt_{i:03}(");
        let _ = writeln!(out, "    /// What to ask about.");
        let _ = writeln!(out, "    topic: String,");
        let _ = writeln!(out, "    /// How much detail to give.");
        let _ = writeln!(out, "    detail: Option<String>,");
        let _ = writeln!(out, ") -> String {{");
        let _ = writeln!(
            out,
            "    format!(\"Section {i}: {{topic}} ({{}})\", detail.as_deref().unwrap_or(\"brief\"))"
        );
        let _ = writeln!(out, "}}\n");
    }
    out
}

/// One parameter struct per tool and a `#[tool_router]` impl on `server`
/// (a struct with a `tool_router: ToolRouter<Self>` field, defined by the
/// including file), for rmcp. Needs `Parameters`, `tool`, `tool_router`,
/// `Deserialize` and `JsonSchema` in scope.
pub fn rmcp_tools(n: usize, edit: u32, server: &str) -> String {
    let mut out = String::new();
    for i in 0..n {
        let _ = writeln!(out, "#[derive(Debug, Deserialize, JsonSchema)]");
        let _ = writeln!(out, "pub struct Tool{i:03}Args {{");
        doc_lines(&mut out, "    ", KEY_DOC);
        let _ = writeln!(out, "    pub key: String,");
        doc_lines(&mut out, "    ", LIMIT_DOC);
        let _ = writeln!(out, "    pub limit: Option<u32>,");
        let _ = writeln!(out, "}}\n");
    }
    let _ = writeln!(out, "#[tool_router]");
    let _ = writeln!(out, "impl {server} {{");
    for i in 0..n {
        doc_lines(&mut out, "    ", &description(i));
        let _ = writeln!(out, "    #[tool(annotations(read_only_hint = true))]");
        let _ = writeln!(
            out,
            "    async fn {name}(&self, Parameters(Tool{i:03}Args {{ key, limit }}): Parameters<Tool{i:03}Args>) -> String {{",
            name = tool_name(i)
        );
        let _ = writeln!(out, "        {}", body(i, edit));
        let _ = writeln!(out, "    }}\n");
    }
    let _ = writeln!(out, "}}");
    out
}

/// `#[tool]` fns for flymcprust, plus `fn with_tools(ServerBuilder) ->
/// ServerBuilder` registering them all (`use flymcprust::prelude::*;` and
/// `flymcprust::ServerBuilder` in scope).
pub fn flymcp_tools(n: usize, edit: u32) -> String {
    let mut out = String::new();
    for i in 0..n {
        doc_lines(&mut out, "", &description(i));
        let _ = writeln!(out, "#[tool(read_only)]");
        let _ = writeln!(out, "async fn {}(", tool_name(i));
        doc_lines(&mut out, "    ", KEY_DOC);
        let _ = writeln!(out, "    key: String,");
        doc_lines(&mut out, "    ", LIMIT_DOC);
        let _ = writeln!(out, "    limit: Option<u32>,");
        let _ = writeln!(out, ") -> String {{");
        let _ = writeln!(out, "    {}", body(i, edit));
        let _ = writeln!(out, "}}\n");
    }
    let _ = writeln!(
        out,
        "fn with_tools(builder: ServerBuilder) -> ServerBuilder {{"
    );
    let _ = writeln!(out, "    builder");
    for i in 0..n {
        let _ = writeln!(out, "        .tool::<{}>()", tool_name(i));
    }
    let _ = writeln!(out, "}}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_changes_only_tool_zero() {
        let a = ours_tools(3, 0);
        let b = ours_tools(3, 1);
        assert_ne!(a, b);
        let changed: Vec<_> = a.lines().zip(b.lines()).filter(|(x, y)| x != y).collect();
        assert_eq!(changed.len(), 1, "{changed:?}");
        assert!(changed[0].1.contains("tool_000 r1"));
    }
}
