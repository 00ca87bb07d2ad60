//! Source text of servers with many tools, for each framework: the 200-tool
//! servers (written by their `build.rs`), the build-cost fixtures (written
//! by `driver buildcost`) and the compile suite's fixtures (written by
//! `driver compile`). Every framework gets the same tools: the same names,
//! descriptions, parameter names, types and docs, and the same body.
//!
//! Tool `i` is `tool_{i:03}(key: String, limit: Option<u32>) -> String`;
//! in the structured variant (`*_tools_structured`, the compile suite's)
//! it is `tool_{i:03}(key: String, limit: Option<u32>, exact: Option<bool>)
//! -> Result<Tool{i:03}Out, String>`, with an output struct of its own.
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

/// The doc of the structured tools' `exact` parameter.
pub const EXACT_DOC: &str = "Only exact matches (default false).";

/// The description of structured tool `i`.
pub fn structured_description(i: usize) -> String {
    format!("Looks up a key in catalog section {i} and returns the matching entries.")
}

/// The text tool `i` answers for `key` and `limit`.
pub fn answer(i: usize, key: &str, limit: Option<u32>) -> String {
    format!("{}: {key} (limit {})", tool_name(i), limit.unwrap_or(10))
}

fn body(i: usize, edit: u32) -> String {
    let tag = edit_tag(i, edit);
    format!(
        "format!(\"{name}{tag}: {{key}} (limit {{}})\", limit.unwrap_or(10))",
        name = tool_name(i)
    )
}

/// The tag the edit puts in tool 0's body: the only text that changes.
fn edit_tag(i: usize, edit: u32) -> String {
    if i == 0 && edit > 0 {
        format!(" r{edit}")
    } else {
        String::new()
    }
}

/// The body of structured tool `i`, one statement a line: up to three
/// matches built from `key`, the output struct filled in. `wrap` wraps the
/// struct (rmcp's `Json`), or is empty.
fn structured_body(i: usize, edit: u32, wrap: &str) -> [String; 3] {
    let (open, close) = if wrap.is_empty() {
        (String::new(), "")
    } else {
        (format!("{wrap}("), ")")
    };
    [
        "let n = limit.unwrap_or(10);".to_string(),
        format!(
            "let matches: Vec<String> = (0..n.min(3)).map(|j| format!(\"{name}{tag}: {{key}}-{{j}}\")).collect();",
            name = tool_name(i),
            tag = edit_tag(i, edit)
        ),
        format!(
            "Ok({open}Tool{i:03}Out {{ key, exact: exact.unwrap_or(false), total: matches.len() as u32, matches }}{close})"
        ),
    ]
}

/// Tool `i`'s output struct (`Serialize` and `JsonSchema` in scope).
fn output_struct(out: &mut String, i: usize) {
    let _ = writeln!(out, "#[derive(Serialize, JsonSchema)]");
    let _ = writeln!(out, "pub struct Tool{i:03}Out {{");
    for (doc, field) in [
        ("The key looked up.", "key: String"),
        ("Whether only exact matches were asked for.", "exact: bool"),
        ("The matching entries.", "matches: Vec<String>"),
        ("How many entries matched.", "total: u32"),
    ] {
        doc_lines(out, "    ", doc);
        let _ = writeln!(out, "    pub {field},");
    }
    let _ = writeln!(out, "}}\n");
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

/// The compile suite's tools for mcp-runtime: per tool an output struct
/// and a `#[tool(read_only)] async fn` of three documented parameters
/// returning `Result<Tool{i:03}Out, String>` (`use mcp_runtime::tool;`,
/// `schemars::JsonSchema` and `serde::Serialize` in scope).
pub fn ours_tools_structured(n: usize, edit: u32) -> String {
    let mut out = String::new();
    for i in 0..n {
        output_struct(&mut out, i);
        doc_lines(&mut out, "", &structured_description(i));
        let _ = writeln!(out, "#[tool(read_only)]");
        let _ = writeln!(out, "async fn {}(", tool_name(i));
        for (doc, param) in [
            (KEY_DOC, "key: String"),
            (LIMIT_DOC, "limit: Option<u32>"),
            (EXACT_DOC, "exact: Option<bool>"),
        ] {
            doc_lines(&mut out, "    ", doc);
            let _ = writeln!(out, "    {param},");
        }
        let _ = writeln!(out, ") -> Result<Tool{i:03}Out, String> {{");
        for line in structured_body(i, edit, "") {
            let _ = writeln!(out, "    {line}");
        }
        let _ = writeln!(out, "}}\n");
    }
    out
}

/// The same tools for rmcp: per tool the output struct and an arguments
/// struct (`Deserialize`, `JsonSchema`), then one `#[tool_router]` impl on
/// `server` (a struct with a `tool_router: ToolRouter<Self>` field, defined
/// by the including file) whose methods take `Parameters<Tool{i:03}Args>`
/// and return `Result<Json<Tool{i:03}Out>, String>`. Needs `Json`,
/// `Parameters`, `tool`, `tool_router`, `Deserialize`, `Serialize` and
/// `JsonSchema` in scope.
pub fn rmcp_tools_structured(n: usize, edit: u32, server: &str) -> String {
    let mut out = String::new();
    for i in 0..n {
        output_struct(&mut out, i);
        let _ = writeln!(out, "#[derive(Deserialize, JsonSchema)]");
        let _ = writeln!(out, "pub struct Tool{i:03}Args {{");
        for (doc, field) in [
            (KEY_DOC, "key: String"),
            (LIMIT_DOC, "limit: Option<u32>"),
            (EXACT_DOC, "exact: Option<bool>"),
        ] {
            doc_lines(&mut out, "    ", doc);
            let _ = writeln!(out, "    pub {field},");
        }
        let _ = writeln!(out, "}}\n");
    }
    let _ = writeln!(out, "#[tool_router]");
    let _ = writeln!(out, "impl {server} {{");
    for i in 0..n {
        doc_lines(&mut out, "    ", &structured_description(i));
        let _ = writeln!(out, "    #[tool(annotations(read_only_hint = true))]");
        let _ = writeln!(
            out,
            "    async fn {name}(&self, Parameters(Tool{i:03}Args {{ key, limit, exact }}): Parameters<Tool{i:03}Args>) -> Result<Json<Tool{i:03}Out>, String> {{",
            name = tool_name(i)
        );
        for line in structured_body(i, edit, "Json") {
            let _ = writeln!(out, "        {line}");
        }
        let _ = writeln!(out, "    }}\n");
    }
    let _ = writeln!(out, "}}");
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

    /// A generator as a function of (tools, edit).
    type Generator = Box<dyn Fn(usize, u32) -> String>;

    /// Every generator, by name.
    fn generators() -> Vec<(&'static str, Generator)> {
        vec![
            ("ours_tools", Box::new(ours_tools)),
            ("rmcp_tools", Box::new(|n, e| rmcp_tools(n, e, "S"))),
            ("flymcp_tools", Box::new(flymcp_tools)),
            ("ours_tools_structured", Box::new(ours_tools_structured)),
            (
                "rmcp_tools_structured",
                Box::new(|n, e| rmcp_tools_structured(n, e, "S")),
            ),
        ]
    }

    /// The lines of `b` that differ from `a` (same line count asserted).
    fn changed(a: &str, b: &str) -> Vec<String> {
        assert_eq!(a.lines().count(), b.lines().count());
        a.lines()
            .zip(b.lines())
            .filter(|(x, y)| x != y)
            .map(|(_, y)| y.to_string())
            .collect()
    }

    #[test]
    fn edit_changes_only_tool_zero() {
        for (name, generate) in generators() {
            let a = generate(3, 0);
            let b = generate(3, 1);
            let c = generate(3, 2);
            let first = changed(&a, &b);
            assert_eq!(first.len(), 1, "{name}: {first:?}");
            assert!(first[0].contains("tool_000 r1"), "{name}: {first:?}");
            // A second edit changes the same line again, nothing else.
            let second = changed(&b, &c);
            assert_eq!(second.len(), 1, "{name}: {second:?}");
            assert!(second[0].contains("tool_000 r2"), "{name}: {second:?}");
        }
    }

    #[test]
    fn structured_tools_are_the_same_tools_for_both_frameworks() {
        let ours = ours_tools_structured(2, 0);
        let rmcp = rmcp_tools_structured(2, 0, "S");
        for i in 0..2 {
            for text in [&ours, &rmcp] {
                let out = format!("pub struct Tool{i:03}Out {{");
                assert_eq!(text.matches(&out).count(), 1, "{text}");
                let doc = format!("/// {}", structured_description(i));
                assert_eq!(text.matches(&doc).count(), 1, "{text}");
            }
            let ours_sig = format!(") -> Result<Tool{i:03}Out, String> {{");
            assert!(ours.contains(&ours_sig), "{ours}");
            let rmcp_sig = format!(
                "Parameters(Tool{i:03}Args {{ key, limit, exact }}): Parameters<Tool{i:03}Args>) \
                 -> Result<Json<Tool{i:03}Out>, String> {{"
            );
            assert!(rmcp.contains(&rmcp_sig), "{rmcp}");
        }
        // Three documented parameters (fields of the arguments struct for
        // rmcp) per tool, and the same body but for rmcp's `Json`.
        for doc in [KEY_DOC, LIMIT_DOC, EXACT_DOC] {
            assert_eq!(ours.matches(doc).count(), 2);
            assert_eq!(rmcp.matches(doc).count(), 2);
        }
        assert_eq!(ours.matches("#[tool(read_only)]").count(), 2);
        assert_eq!(
            rmcp.matches("#[tool(annotations(read_only_hint = true))]")
                .count(),
            2
        );
        assert_eq!(rmcp.matches("#[tool_router]").count(), 1);
        let body = "(0..n.min(3)).map(|j| format!(\"tool_001: {key}-{j}\")).collect();";
        assert!(ours.contains(body) && rmcp.contains(body));
        assert!(rmcp.contains("Ok(Json(Tool001Out { key, exact: exact.unwrap_or(false)"));
        assert!(ours.contains("Ok(Tool001Out { key, exact: exact.unwrap_or(false)"));
    }
}
