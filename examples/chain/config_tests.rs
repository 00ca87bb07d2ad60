//! The config parser's tests: the transform and discovery keys, and the
//! sentences it refuses mistakes with.

use std::path::Path;

use super::*;

/// A TOML config with one command server `everything` and `rest` after it.
fn toml_config(before: &str, rest: &str) -> Result<Config, String> {
    let text =
        format!("{before}\n[[servers]]\nname = \"everything\"\ncommand = [\"node\"]\n{rest}");
    parse(&text, "chain.toml", false, Path::new("/")).map_err(|error| error.to_string())
}

fn refusal(before: &str, rest: &str) -> String {
    toml_config(before, rest).expect_err("refused")
}

#[test]
fn every_transform_and_discovery_key_is_read() {
    let config = toml_config(
        "blocked_tools = [\"everything_get-env\"]\n\
         [tool_search]\npin = [\"say\"]\npin_tags = [\"core\"]\nmax_results = 5\nthreshold = 3\n\
         name = \"find\"\ncall_proxy = true\nproxy_name = \"run\"\ninstructions = false\n",
        "tags = [\"demo\"]\n\
         [servers.tools.echo]\nname = \"say\"\ntitle = \"Say\"\ndescription = \"Repeats.\"\ntags = [\"core\"]\n\
         [servers.tools.echo.arguments.message]\nname = \"text\"\ndescription = \"What to repeat.\"\n\
         [servers.tools.get-sum.arguments.b]\nvalue = 1\n\
         [servers.tools.get-sum.arguments.a]\nhidden = true\n\
         [servers.tools.toggle-logging]\nhidden = true\n",
    )
    .unwrap();
    assert!(config.tool_search.is_some());
    assert_eq!(config.blocked_tools, ["everything_get-env"]);
    let server = &config.servers[0];
    assert_eq!(server.tags, ["demo"]);
    let keys: Vec<&str> = server.tools.keys().map(String::as_str).collect();
    assert_eq!(keys, ["echo", "get-sum", "toggle-logging"]);
    assert_eq!(server.served("echo"), "everything_echo");
    let transform = server.tools["echo"].transform(&server.served("echo"), &server.tags);
    assert_eq!(transform.name(), "everything_echo");
}

#[test]
fn a_json_config_takes_the_same_keys() {
    let text = r#"{
        "tool_search": {"pin": ["say"]},
        "servers": [{
            "name": "everything", "command": ["node"], "tags": ["demo"],
            "tools": {"echo": {"name": "say", "arguments": {"message": {"name": "text"}}}}
        }]
    }"#;
    let config = parse(text, "chain.json", true, Path::new("/")).unwrap();
    assert!(config.tool_search.is_some());
    assert_eq!(config.servers[0].tools.len(), 1);
    let error = parse(
        r#"{"servers": [{"name": "a", "command": "x", "tools": {"echo": {"rename": "say"}}}]}"#,
        "chain.json",
        true,
        Path::new("/"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.starts_with("chain.json line 1, column") && error.contains("unknown field `rename`"),
        "{error}"
    );
}

#[test]
fn a_bad_tool_name_is_refused_naming_the_server_and_the_table() {
    let error = refusal("", "[servers.tools.echo]\nname = \"say it\"\n");
    assert_eq!(
        error,
        "chain.toml line 2 (server `everything`): `tools.echo.name = \"say it\"` is not a tool name: use 1 to 64 letters, digits, `_`, `-` or `.`"
    );
}

#[test]
fn an_empty_argument_table_is_refused() {
    let error = refusal("", "[servers.tools.echo.arguments.message]\n");
    assert!(
        error.contains("`tools.echo.arguments.message` is empty: give it `name`, `description`, `value` or `hidden = true`"),
        "{error}"
    );
}

#[test]
fn a_fixed_value_with_a_name_is_refused() {
    let error = refusal(
        "",
        "[servers.tools.get-sum.arguments.b]\nvalue = 1\nname = \"bee\"\n",
    );
    assert!(
        error.contains("`tools.get-sum.arguments.b` has both `value` and `name`: a fixed argument is not shown, so it has no name"),
        "{error}"
    );
}

#[test]
fn unknown_keys_are_refused_with_their_line() {
    let error = refusal("", "[servers.tools.echo]\nrename = \"say\"\n");
    assert!(
        error.starts_with("chain.toml line 6, column 1: unknown field `rename`"),
        "{error}"
    );
    let error = refusal("", "[servers.tools.echo.arguments.message]\nfixed = 1\n");
    assert!(
        error.contains("line 6") && error.contains("unknown field `fixed`"),
        "{error}"
    );
    let error = refusal("[tool_search]\npins = [\"say\"]\n", "");
    assert!(
        error.contains("line 2") && error.contains("unknown field `pins`"),
        "{error}"
    );
}

#[test]
fn tool_search_mistakes_are_refused() {
    let error = refusal("[tool_search]\nmax_results = 0\n", "");
    assert_eq!(
        error,
        "chain.toml, [tool_search]: `max_results = 0` would find nothing: give 1 or more"
    );
    let error = refusal("[tool_search]\nname = \"find tools\"\n", "");
    assert!(
        error.contains("`name = \"find tools\"` is not a tool name"),
        "{error}"
    );
    let error = refusal("[tool_search]\nname = \"x\"\nproxy_name = \"x\"\n", "");
    assert!(
        error.contains("`name` and `proxy_name` are the same"),
        "{error}"
    );
    let error = refusal("[tool_search]\npin = [\"\"]\n", "");
    assert!(error.contains("`pin[0]` is empty"), "{error}");
}

#[test]
fn an_empty_server_tag_is_refused() {
    let error = refusal("", "tags = [\"\"]\n");
    assert!(
        error.contains("(server `everything`): `tags` has an empty tag"),
        "{error}"
    );
}
