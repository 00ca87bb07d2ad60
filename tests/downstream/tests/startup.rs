//! A newcomer's first run, through this crate's binaries as a user runs
//! them (`main` is `Server::run()`, which logs to stderr, or returns what
//! `serve_stdio` or `serve_http` returns): what stderr says when the tools
//! are not linked, when a `State<T>` is missing, and when the address is
//! taken.

use std::io::{Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use mcp_runtime::serde_json::{Value, json};

/// What a run of a binary left behind.
struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Runs `binary` with `args` and `input` on stdin, then closes stdin; kills
/// it and panics if it has not exited within 20 s.
fn run(binary: &str, args: &[&str], input: &str) -> Run {
    let mut child = Command::new(binary)
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    // A server that exits at once closes the pipe: a failed write is fine.
    let writer = thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let read = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{binary} did not exit within 20 s of its stdin closing");
        }
        thread::sleep(Duration::from_millis(10));
    };
    writer.join().unwrap();
    Run {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// Runs `binary`, which must refuse to start: exit status 1, nothing on
/// stdout; returns the sentence `run()` printed after `error: ` on a line
/// of its own, and the whole of stderr.
fn start_up_error(binary: &str, args: &[&str], input: &str) -> (String, String) {
    let run = run(binary, args, input);
    let stderr = run.stderr;
    assert_eq!(run.status.code(), Some(1), "{args:?}; stderr:\n{stderr}");
    assert_eq!(run.stdout, "", "{args:?}; stderr:\n{stderr}");
    let sentence = stderr
        .lines()
        .find_map(|line| line.strip_prefix("error: "))
        .unwrap_or_else(|| panic!("{args:?}: no `error: ` line in stderr:\n{stderr}"))
        .to_owned();
    (sentence, stderr)
}

fn lines(messages: &[Value]) -> String {
    messages.iter().map(|m| format!("{m}\n")).collect()
}

#[test]
fn tools_in_a_library_main_never_names_are_reported_on_the_first_run() {
    let run = run(
        env!("CARGO_BIN_EXE_unlinked"),
        &[],
        &lines(&[
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "newcomer", "version": "0"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        ]),
    );
    let stderr = &run.stderr;
    assert_eq!(run.status.code(), Some(0), "stderr:\n{stderr}");

    // It serves, and serves nothing: this package's library and `extra`
    // are dependencies, but the binary names neither.
    let replies: Vec<Value> = run
        .stdout
        .lines()
        .map(|line| mcp_runtime::serde_json::from_str(line).expect("stdout is JSON-RPC only"))
        .collect();
    assert_eq!(replies.len(), 2, "stdout:\n{}", run.stdout);
    assert_eq!(replies[1]["result"]["tools"], json!([]), "{}", replies[1]);

    // After the log's own line about it, the warning with the fix.
    let warning = format!(
        "\nwarning: the MCP server `weather` {} serves no tools: no #[tool] is linked into this \
         binary.\n",
        env!("CARGO_PKG_VERSION")
    );
    assert!(stderr.contains(&warning), "stderr:\n{stderr}");
    assert!(
        stderr.contains("add this line to the file with `fn main`"),
        "stderr:\n{stderr}"
    );
    assert!(
        stderr
            .lines()
            .any(|line| line == "    use your_tools_crate as _;"),
        "stderr:\n{stderr}"
    );
}

#[test]
fn the_unlinked_binary_is_the_readme_main() {
    // Compared without whitespace: rustfmt lays out this file's copy.
    let squeeze = |text: &str| text.split_whitespace().collect::<String>();
    let source = include_str!("../src/bin/unlinked.rs");
    let main = squeeze(&source[source.find("#[tokio::main]").unwrap()..]);
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("the repository's README");
    assert!(
        squeeze(&readme).contains(&main),
        "src/bin/unlinked.rs is no longer the README's `main`:\n{source}"
    );
}

#[test]
fn a_missing_state_stops_the_server_with_a_sentence_and_its_fix() {
    // Serving, and listing the tools, need every tool's state.
    for args in [&[][..], &["--list-tools"]] {
        let (sentence, stderr) = start_up_error(env!("CARGO_BIN_EXE_no_state"), args, "");
        let stderr = &stderr;
        assert!(
            sentence.starts_with(
                "cannot start the MCP server: the tool `save_note` (defined at src/notes.rs:"
            ),
            "{args:?}: {sentence}"
        );
        for part in [
            "takes `State<downstream::notes::Notebook>`, but no `downstream::notes::Notebook` \
             was registered",
            "; add one with `Server::new(..).state(value)`, where `value` is a \
             `downstream::notes::Notebook`",
        ] {
            assert!(
                sentence.contains(part),
                "{args:?}: no {part:?} in {sentence}"
            );
        }
        assert!(!stderr.contains("MissingState {"), "stderr:\n{stderr}");
        assert!(!stderr.contains("Custom {"), "stderr:\n{stderr}");
    }
}

#[test]
fn a_schema_that_cannot_be_built_stops_the_server_before_it_answers() {
    let request = |id: u32, method: &str| json!({"jsonrpc": "2.0", "id": id, "method": method});
    let input = lines(&[
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "newcomer", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        request(2, "tools/list"),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "check_code", "arguments": {"code": "xyz"}}}),
    ]);
    for args in [&[][..], &["--list-tools"]] {
        // Nothing was read or answered.
        let (sentence, _) = start_up_error(env!("CARGO_BIN_EXE_bad_pattern"), args, &input);
        assert!(
            sentence.starts_with(
                "cannot start the MCP server: the tool `check_code` (defined at \
                 src/bin/bad_pattern.rs:"
            ),
            "{args:?}: {sentence}"
        );
        assert!(
            sentence.contains("is not a valid regular expression"),
            "{args:?}: {sentence}"
        );
    }
}

#[test]
fn the_command_line_is_the_servers() {
    // The README's `main` gives a user's binary the options too.
    let version = run(env!("CARGO_BIN_EXE_unlinked"), &["--version"], "");
    assert_eq!(
        version.status.code(),
        Some(0),
        "stderr:\n{}",
        version.stderr
    );
    assert_eq!(
        version.stdout,
        format!("weather {}\n", env!("CARGO_PKG_VERSION"))
    );

    let listing = run(env!("CARGO_BIN_EXE_downstream"), &["--list-tools"], "");
    assert_eq!(
        listing.status.code(),
        Some(0),
        "stderr:\n{}",
        listing.stderr
    );
    let listed: Value = mcp_runtime::serde_json::from_str(&listing.stdout).expect("JSON");
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["about", "add", "count_words", "repeat", "save_note"]
    );

    let wrong = run(env!("CARGO_BIN_EXE_unlinked"), &["--no-such-option"], "");
    assert_eq!(wrong.status.code(), Some(2), "stderr:\n{}", wrong.stderr);
    assert_eq!(wrong.stdout, "");
    assert_eq!(
        wrong.stderr,
        "error: unknown option `--no-such-option`; try --help\n"
    );
}

#[test]
fn a_main_returning_the_error_of_serve_stdio_still_shows_the_sentence_first() {
    let run = run(env!("CARGO_BIN_EXE_own_main"), &[], "");
    let stderr = &run.stderr;
    assert_eq!(run.status.code(), Some(1), "stderr:\n{stderr}");
    assert_eq!(run.stdout, "", "stderr:\n{stderr}");
    // The runtime's own line, then the one `main` adds: `Error: ` and the
    // `Debug` of the `io::Error`, whose wrapped error prints the sentence
    // itself (no quotes, no escapes).
    let lines: Vec<&str> = stderr.lines().collect();
    let [said, returned] = lines[..] else {
        panic!("two lines expected on stderr:\n{stderr}");
    };
    let sentence = said.strip_prefix("error: ").expect("`error: ` first");
    assert!(
        sentence.starts_with(
            "cannot start the MCP server: the tool `save_note` (defined at src/notes.rs:"
        ),
        "{sentence}"
    );
    assert!(
        sentence.ends_with("where `value` is a `downstream::notes::Notebook`"),
        "{sentence}"
    );
    assert_eq!(
        returned,
        format!("Error: Custom {{ kind: Other, error: {sentence} }}")
    );
}

#[test]
fn a_main_returning_the_error_of_serve_http_says_which_address_is_taken() {
    // Held for the whole run, so the server cannot bind it.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let run = run(env!("CARGO_BIN_EXE_own_main"), &[&addr], "");
    let stderr = &run.stderr;
    assert_eq!(run.status.code(), Some(1), "stderr:\n{stderr}");
    let sentence = stderr
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("error: "))
        .unwrap_or_else(|| panic!("`error: ` first:\n{stderr}"));
    assert!(
        sentence.starts_with(&format!("cannot serve HTTP at {addr}: ")),
        "{sentence}"
    );
    assert!(
        sentence
            .ends_with("; another program listens on that port: stop it, or choose another port"),
        "{sentence}"
    );
    assert!(
        stderr.contains(&format!(
            "\nError: Custom {{ kind: AddrInUse, error: {sentence} }}\n"
        )),
        "stderr:\n{stderr}"
    );
}
