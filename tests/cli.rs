//! The command line `Server::run()` gives a binary, through the weather
//! example as a user runs it: usage, version, the tool listing, and what a
//! wrong command line or a failed start says and exits with.
//!
//! A missing `State<T>` through `run()` is checked by the downstream crate
//! (`tests/downstream/tests/startup.rs`), whose `no_state` binary makes
//! that mistake.

mod common;

use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use common::Process;
use serde_json::{Value, json};

/// What a run of a binary left behind.
struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Runs `binary` with `args`, stdin closed; kills it and panics if it has
/// not exited within 20 s.
fn run_with_env(binary: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut child = Command::new(binary)
        .args(args)
        .env_remove("RUST_LOG")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
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
            panic!("{} {args:?} did not exit within 20 s", binary.display());
        }
        thread::sleep(Duration::from_millis(10));
    };
    Run {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

fn run(args: &[&str]) -> Run {
    run_with_env(&common::weather_binary(), args, &[])
}

/// A usage error: exit status 2, nothing on stdout, one line on stderr
/// that starts with `error: ` and ends by pointing to `--help`.
fn assert_usage_error(args: &[&str], message: &str) {
    let run = run(args);
    let stderr = &run.stderr;
    assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(run.stdout, "", "{args:?}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(
        stderr.starts_with(&format!("error: {message}")),
        "{args:?}: {stderr}"
    );
    assert!(stderr.ends_with("; try --help\n"), "{args:?}: {stderr}");
}

#[test]
fn help_says_what_the_binary_is_and_lists_every_option() {
    for flag in ["--help", "-h"] {
        let run = run(&[flag]);
        assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
        assert_eq!(run.stderr, "");
        let help = &run.stdout;
        assert!(
            help.starts_with(&format!(
                "weather {}, an MCP (Model Context Protocol) server\n\nUsage: weather [OPTIONS]\n",
                env!("CARGO_PKG_VERSION")
            )),
            "{help}"
        );
        for option in [
            "--http ADDR",
            "--stateless",
            "--sessions-redis URL",
            "--tasks-redis URL",
            "--task-lease DURATION",
            "--list-tools",
            "-h, --help",
            "-V, --version",
        ] {
            assert!(
                help.contains(&format!("  {option}   ")),
                "{option}:\n{help}"
            );
        }
        for example in [
            "weather --http 8080",
            "weather --http 0.0.0.0:8080 --stateless",
            "weather --list-tools",
        ] {
            assert!(
                help.lines()
                    .any(|l| l.starts_with(&format!("  {example}   "))),
                "{example}:\n{help}"
            );
        }
        // The Inspector line runs this very binary.
        let exe = common::weather_binary().canonicalize().unwrap();
        assert!(
            help.contains(&format!(
                " mcp-inspector --cli --method tools/list -- {}\n",
                exe.display()
            )),
            "{help}"
        );
    }
}

#[test]
fn version_is_the_name_and_version() {
    for flag in ["--version", "-V"] {
        let run = run(&[flag]);
        assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
        assert_eq!(
            run.stdout,
            format!("weather {}\n", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(run.stderr, "");
    }
}

/// `text` without the whitespace outside strings: JSON as serde_json
/// writes it compactly, byte for byte.
fn compact(text: &str) -> String {
    let (mut out, mut in_string, mut escaped) = (String::new(), false, false);
    for c in text.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c.is_ascii_whitespace() {
            continue;
        } else {
            in_string = c == '"';
        }
        out.push(c);
    }
    out
}

#[test]
fn list_tools_prints_exactly_what_a_client_gets() {
    let run = run(&["--list-tools"]);
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    let printed = &run.stdout;
    let listed: Value = serde_json::from_str(printed).expect("stdout is one JSON value");
    assert_eq!(
        serde_json::to_string_pretty(&listed).unwrap() + "\n",
        *printed,
        "pretty-printed, with a final newline"
    );

    // The same bytes as the result of `tools/list` over stdio, for a client
    // of the newest version.
    let mut server = Process::spawn(&common::weather_binary());
    server.initialize("2025-11-25");
    server.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    let line = server.recv_raw();
    let (code, _, stderr) = server.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let prefix = r#"{"jsonrpc":"2.0","id":1,"result":"#;
    let wire = line
        .strip_prefix(prefix)
        .and_then(|rest| rest.strip_suffix('}'))
        .unwrap_or_else(|| panic!("not a tools/list response: {line}"));
    assert_eq!(compact(printed), wire);

    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(names, common::WEATHER_TOOLS);
    assert!(listed["tools"][1].get("outputSchema").is_some());
}

#[test]
fn wrong_command_lines_are_usage_errors() {
    assert_usage_error(&["--bogus"], "unknown option `--bogus`");
    assert_usage_error(
        &["--list"],
        "unknown option `--list` (did you mean `--list-tools`?)",
    );
    assert_usage_error(&["serve"], "unexpected argument `serve`");
    assert_usage_error(
        &["--stateless"],
        "`--stateless` only applies to HTTP: use it with `--http`",
    );
    assert_usage_error(&["--http"], "`--http` needs an address");
    assert_usage_error(
        &["--http", "localhost"],
        "bad address `localhost` for `--http`: no port",
    );
    assert_usage_error(
        &["--http=70000"],
        "bad address `70000` for `--http`: the port is above 65535",
    );
    assert_usage_error(
        &["--list-tools", "--http", "8080"],
        "`--list-tools` and `--http` cannot be used together",
    );
    assert_usage_error(
        &["--http", "8080", "--task-lease", "30"],
        "bad duration `30` for `--task-lease`: no unit; write a whole number and a unit",
    );
    assert_usage_error(
        &["--tasks-redis", "--http", "8080"],
        "`--tasks-redis` needs a URL, such as `--tasks-redis redis://127.0.0.1:6379/`",
    );
}

#[test]
fn a_tasks_redis_that_is_not_a_redis_url_stops_the_server_with_exit_status_1() {
    // On stdio and over HTTP alike, before anything is served, and without
    // the URL, which may hold a password.
    for args in [
        &["--tasks-redis", "http://user:secret@example.com/"][..],
        &[
            "--http",
            "127.0.0.1:0",
            "--tasks-redis=http://user:secret@example.com/",
        ],
    ] {
        let run = run(args);
        assert_eq!(run.status.code(), Some(1), "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "");
        let line = run.stderr.lines().last().unwrap_or_default();
        assert!(
            line.starts_with(
                "error: cannot start the MCP server: --tasks-redis: not a Redis URL \
                 (redis://HOST:PORT/): "
            ),
            "{args:?}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("secret"), "{}", run.stderr);
        assert!(!run.stderr.contains("serving MCP"), "{}", run.stderr);
    }
}

#[test]
fn sessions_redis_needs_a_url_and_http() {
    assert_usage_error(
        &["--http", "8080", "--sessions-redis"],
        "`--sessions-redis` needs a URL, such as `--sessions-redis redis://127.0.0.1:6379/`",
    );
    assert_usage_error(
        &["--sessions-redis", "redis://127.0.0.1:6379/"],
        "`--sessions-redis` applies to HTTP sessions: use it with `--http`, as in \
         `--http 0.0.0.0:8080 --sessions-redis redis://127.0.0.1:6379/`",
    );
}

#[test]
fn a_sessions_redis_that_does_not_answer_stops_the_server_before_it_listens() {
    // A port nothing listens on: the connection is refused at once.
    let port = {
        let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        free.local_addr().unwrap().port()
    };
    for (url, said) in [
        (
            format!("redis://:secret@127.0.0.1:{port}/"),
            format!(
                "error: cannot start the MCP server: --sessions-redis: redis at 127.0.0.1:{port}: "
            ),
        ),
        (
            "http://user:secret@example.com/".to_owned(),
            "error: cannot start the MCP server: --sessions-redis: not a Redis URL".to_owned(),
        ),
    ] {
        let run = run(&["--http", "127.0.0.1:0", "--sessions-redis", &url]);
        assert_eq!(run.status.code(), Some(1), "{url}: {}", run.stderr);
        assert_eq!(run.stdout, "");
        let line = run.stderr.lines().last().unwrap_or_default();
        assert!(line.starts_with(&said), "{url}: {}", run.stderr);
        assert!(!run.stderr.contains("secret"), "{}", run.stderr);
        assert!(!run.stderr.contains("serving MCP"), "{}", run.stderr);
    }
}

#[test]
fn an_address_in_use_stops_the_server_with_exit_status_1() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    for arg in [
        port.clone(),
        format!(":{port}"),
        format!("127.0.0.1:{port}"),
    ] {
        let run = run(&["--http", &arg]);
        assert_eq!(run.status.code(), Some(1), "{arg}: {}", run.stderr);
        assert_eq!(run.stdout, "");
        // Once, with the fix: `serve_http` says it, and `run()` only exits.
        let line = format!("error: cannot serve HTTP at 127.0.0.1:{port}: ");
        let said: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.starts_with(&line))
            .collect();
        assert_eq!(said.len(), 1, "{arg}: {}", run.stderr);
        assert!(
            said[0]
                .ends_with("another program listens on that port: stop it, or choose another port"),
            "{arg}: {}",
            run.stderr
        );
    }
}

#[test]
fn the_log_goes_to_stderr_at_info_unless_rust_log_says_otherwise() {
    // stdin is closed at once: the server starts, reads EOF and exits 0.
    let run = run(&[]);
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains(" INFO ") && run.stderr.contains("MCP server ready"),
        "{}",
        run.stderr
    );

    let quiet = run_with_env(&common::weather_binary(), &[], &[("RUST_LOG", "off")]);
    assert_eq!(quiet.status.code(), Some(0), "{}", quiet.stderr);
    assert_eq!(quiet.stderr, "");
    assert_eq!(quiet.stdout, "");
}

/// Two keys of 32 bytes or more, as an operator would make them.
const KEY: &str = "8d0f6c1b2e9a47d3b5c4e1f0a9b8c7d6";
const NEW_KEY: &str = "f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6";

#[test]
fn a_state_key_that_cannot_be_used_stops_the_server_with_exit_status_1() {
    let binary = common::weather_binary();
    for (env, message) in [
        (
            vec![("MCP_STATE_KEY", "too short")],
            "error: cannot start the MCP server: MCP_STATE_KEY is 9 bytes long, and a key \
             that signs requestState needs at least 32; make one with `openssl rand -hex 32` \
             and give every instance the same\n",
        ),
        (
            vec![("MCP_STATE_KEY", "")],
            "error: cannot start the MCP server: MCP_STATE_KEY is 0 bytes long",
        ),
        (
            vec![("MCP_STATE_KEY", KEY), ("MCP_STATE_KEY_PREVIOUS", "old")],
            "error: cannot start the MCP server: MCP_STATE_KEY_PREVIOUS is 3 bytes long",
        ),
        (
            vec![("MCP_STATE_KEY_PREVIOUS", KEY)],
            "error: cannot start the MCP server: MCP_STATE_KEY_PREVIOUS is set but \
             MCP_STATE_KEY is not",
        ),
    ] {
        // On stdio and over HTTP alike, before anything is served.
        for args in [&[][..], &["--http", "127.0.0.1:0"][..]] {
            let run = run_with_env(&binary, args, &env);
            assert_eq!(
                run.status.code(),
                Some(1),
                "{env:?} {args:?}: {}",
                run.stderr
            );
            assert_eq!(run.stdout, "");
            // One line, and nothing served.
            assert!(
                run.stderr.starts_with(message) && run.stderr.lines().count() == 1,
                "{env:?} {args:?}: {}",
                run.stderr
            );
        }
    }
    // What only prints needs no key.
    let help = run_with_env(&binary, &["--help"], &[("MCP_STATE_KEY", "short")]);
    assert_eq!(help.status.code(), Some(0), "{}", help.stderr);
    assert!(
        help.stdout.contains("\n  MCP_STATE_KEY   "),
        "{}",
        help.stdout
    );
}

#[test]
fn instances_given_the_same_state_key_accept_each_others_request_state() {
    use common::fleet::{
        Instance, answer_subscribe, ask_to_subscribe, assert_state_refused, assert_subscribed,
    };

    let asking = Instance::start(&[("MCP_STATE_KEY", KEY)]);
    assert!(
        asking
            .log()
            .contains("requestState is signed with the key in MCP_STATE_KEY"),
        "{}",
        asking.log()
    );
    // The key is never logged.
    assert!(!asking.log().contains(KEY), "{}", asking.log());
    let same_key = Instance::start(&[("MCP_STATE_KEY", &format!("{KEY}\n"))]);
    let rotated = Instance::start(&[("MCP_STATE_KEY", NEW_KEY), ("MCP_STATE_KEY_PREVIOUS", KEY)]);
    let random_key = Instance::start(&[]);
    let other_key = Instance::start(&[("MCP_STATE_KEY", NEW_KEY)]);

    let (question, state) = ask_to_subscribe(asking.addr, "Paris", &[]);
    for (instance, accepts) in [
        (&same_key, true),
        (&rotated, true),
        (&random_key, false),
        (&other_key, false),
    ] {
        let (status, response) = answer_subscribe(instance.addr, "Paris", &question, &state, &[]);
        if accepts {
            assert_eq!(status, 200, "{response}");
            assert_subscribed(&response, "Paris");
        } else {
            assert_eq!(status, 400, "{response}");
            assert_state_refused(&response);
        }
    }
    // After the rotation, states are signed with the new key: an instance
    // that still has only the old one refuses them.
    let (question, state) = ask_to_subscribe(rotated.addr, "Tokyo", &[]);
    let (_, response) = answer_subscribe(other_key.addr, "Tokyo", &question, &state, &[]);
    assert_subscribed(&response, "Tokyo");
    let (_, response) = answer_subscribe(same_key.addr, "Tokyo", &question, &state, &[]);
    assert_state_refused(&response);
}
