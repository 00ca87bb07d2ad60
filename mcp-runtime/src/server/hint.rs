//! What a server says on a terminal: the banner with the Inspector's
//! command, and the warning for a server with no tools.

use crate::dispatch::ServerCore;
use crate::registry::linked_tools;

/// The Inspector, as the README runs it: pinned, and on the Node 22 that npx
/// fetches as the npm package `node@22`, so it works from Node 20 on.
pub(crate) const INSPECTOR: &str =
    "npx -y -p node@22 -p @modelcontextprotocol/inspector@2.12.0 -- mcp-inspector";

/// What to tell the user when the server has no tools, if it has none.
pub(super) fn no_tools_warning(core: &ServerCore) -> Option<String> {
    core.live
        .load()
        .registry
        .is_empty()
        .then(|| no_tools_text(&core.info.name, &core.info.version, linked_tools()))
}

/// The warning for a server with no tools, `linked` being the number of
/// `#[tool]` functions in the binary before the filters.
fn no_tools_text(name: &str, version: &str, linked: usize) -> String {
    let head = format!("warning: the MCP server `{name}` {version} serves no tools");
    if linked > 0 {
        return format!(
            "{head}: `Server::include_tools` / `exclude_tools` leave out all {linked} tools \
             linked into this binary."
        );
    }
    format!(
        "{head}: no #[tool] is linked into this binary.\n\
         A crate of tools is linked only if the binary names it. If your tools are in a \
         library crate,\nadd this line to the file with `fn main`, with that crate's name \
         (`-` written `_`):\n\n    use your_tools_crate as _;"
    )
}

/// Someone ran the server by hand: say what it is and how to connect a
/// client, instead of sitting silent.
pub(super) fn print_terminal_hint(core: &ServerCore, warning: Option<&str>) {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "<path to this binary>".into());
    let args: Vec<String> = std::env::args().skip(1).collect();
    let snapshot = core.live.load();
    let names: Vec<&str> = snapshot.registry.tools().iter().map(|t| t.name()).collect();
    let config = serde_json::json!({
        "mcpServers": { core.info.name.clone(): { "command": exe, "args": args } }
    });
    let config = serde_json::to_string_pretty(&config).unwrap_or_default();
    let command = std::iter::once(exe.as_str())
        .chain(args.iter().map(String::as_str))
        .map(shell_word)
        .collect::<Vec<_>>()
        .join(" ");
    // stderr, never stdout: stdout is the protocol channel.
    eprintln!(
        "{}",
        terminal_hint(
            &core.info.name,
            &core.info.version,
            &names,
            warning,
            &command,
            &config
        )
    );
}

/// The text of the terminal banner.
fn terminal_hint(
    name: &str,
    version: &str,
    tools: &[&str],
    warning: Option<&str>,
    command: &str,
    config: &str,
) -> String {
    let tools = if tools.is_empty() {
        "(none)".to_owned()
    } else {
        tools.join(", ")
    };
    let warning = warning
        .map(|w| format!("\n{}\n", w.trim_end()))
        .unwrap_or_default();
    format!(
        "{name} {version} is an MCP server: it speaks JSON-RPC on stdin and stdout and is \
         waiting for a client.\n\
         Tools: {tools}\n{warning}\n\
         Try it with the MCP Inspector (npx brings the Node 22 it needs):\n    \
         {INSPECTOR} --cli --method tools/list -- {command}\n\
         (without `--cli --method tools/list`, the Inspector opens its web UI)\n\n\
         Or add it to Claude Desktop (claude_desktop_config.json):\n{config}\n\n\
         Press Ctrl-D to stop."
    )
}

/// `word` as a POSIX shell reads it back: quoted when it has to be.
pub(crate) fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./=:,@+%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_no_tools_warning_shows_the_fix() {
        let text = no_tools_text("weather", "1.0.0", 0);
        assert!(
            text.starts_with(
                "warning: the MCP server `weather` 1.0.0 serves no tools: no #[tool] is linked"
            ),
            "{text}"
        );
        assert!(
            text.lines()
                .any(|l| l.trim() == "use your_tools_crate as _;"),
            "{text}"
        );
        // Tools that are linked but filtered out need another fix.
        let text = no_tools_text("weather", "1.0.0", 3);
        assert!(text.contains("leave out all 3 tools"), "{text}");
        assert!(!text.contains("use your_tools_crate"), "{text}");
    }

    #[test]
    fn the_banner_says_what_to_do_about_no_tools() {
        let warning = no_tools_text("weather", "1.0.0", 0);
        let banner = terminal_hint("weather", "1.0.0", &[], Some(&warning), "w", "{}");
        assert!(banner.contains("Tools: (none)\n\nwarning: "), "{banner}");
        assert!(
            banner.contains("    use your_tools_crate as _;\n"),
            "{banner}"
        );

        let banner = terminal_hint("weather", "1.0.0", &["a", "b"], None, "w", "{}");
        assert!(banner.contains("Tools: a, b\n\nTry it"), "{banner}");
        assert!(!banner.contains("warning"), "{banner}");
    }

    #[test]
    fn the_banner_runs_the_inspector_the_readme_runs() {
        let banner = terminal_hint("w", "1", &["a"], None, "'/my dir/w' --x", "{}");
        let line = format!("    {INSPECTOR} --cli --method tools/list -- '/my dir/w' --x\n");
        assert!(banner.contains(&line), "{banner}");

        // The README's command lines, which tests/interop/run runs as
        // written with the versions pinned in tests/interop/inspector.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
        assert!(
            readme.contains(&format!("{INSPECTOR} --cli ")),
            "{INSPECTOR}"
        );
        let pins = std::fs::read_to_string(root.join("tests/interop/inspector/package.json"));
        let pins: serde_json::Value = serde_json::from_str(&pins.unwrap()).unwrap();
        let pins = &pins["dependencies"];
        let node = pins["node"].as_str().unwrap().split('.').next().unwrap();
        let inspector = pins["@modelcontextprotocol/inspector"].as_str().unwrap();
        assert!(
            INSPECTOR.starts_with(&format!(
                "npx -y -p node@{node} -p @modelcontextprotocol/inspector@{inspector} -- "
            )),
            "{INSPECTOR}"
        );
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("/a/b-c_d.e"), "/a/b-c_d.e");
        assert_eq!(shell_word("/my dir/w"), "'/my dir/w'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
