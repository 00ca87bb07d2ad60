//! The command line's parsing, option by option.

use super::*;

fn parsed(args: &[&str]) -> Result<Command, UsageError> {
    parse(args.iter().copied())
}

fn error(args: &[&str]) -> String {
    match parsed(args) {
        Err(UsageError(message)) => message,
        Ok(command) => panic!("{args:?} parsed as {command:?}"),
    }
}

#[cfg(feature = "http")]
fn http(addr: &str, stateless: bool) -> Command {
    Command::Http {
        addr: addr.into(),
        stateless,
        auth: None,
        sessions: None,
    }
}

#[test]
fn no_argument_serves_stdio() {
    assert_eq!(parsed(&[]), Ok(Command::Stdio));
    assert_eq!(parse(Vec::<OsString>::new()), Ok(Command::Stdio));
}

#[test]
fn help_version_and_list_tools() {
    for args in [
        &["--help"][..],
        &["-h"],
        &["--list-tools", "--help"],
        &["--help", "--nope"],
    ] {
        assert_eq!(parsed(args), Ok(Command::Help), "{args:?}");
    }
    for args in [&["--version"][..], &["-V"], &["-V", "--nope"]] {
        assert_eq!(parsed(args), Ok(Command::Version), "{args:?}");
    }
    assert_eq!(parsed(&["--list-tools"]), Ok(Command::ListTools));
    // An error before `--help` is still an error.
    assert_eq!(error(&["--nope", "--help"]), "unknown option `--nope`");
}

#[cfg(feature = "http")]
#[test]
fn http_addresses() {
    for (given, addr) in [
        ("8080", "127.0.0.1:8080"),
        (":8080", "127.0.0.1:8080"),
        ("0", "127.0.0.1:0"),
        ("0.0.0.0:8080", "0.0.0.0:8080"),
        ("127.0.0.1:8080", "127.0.0.1:8080"),
        ("[::1]:8080", "[::1]:8080"),
        ("[::]:80", "[::]:80"),
        ("localhost:8080", "localhost:8080"),
        ("my-host.example:443", "my-host.example:443"),
    ] {
        assert_eq!(parsed(&["--http", given]), Ok(http(addr, false)), "{given}");
        let inline = format!("--http={given}");
        assert_eq!(parsed(&[&inline]), Ok(http(addr, false)), "{given}");
    }
    assert_eq!(
        parsed(&["--http", "8080", "--stateless"]),
        Ok(http("127.0.0.1:8080", true))
    );
    assert_eq!(
        parsed(&["--stateless", "--http=[::1]:9000"]),
        Ok(http("[::1]:9000", true))
    );
}

#[test]
fn bad_addresses_say_what_is_wrong_and_what_to_write() {
    for (given, why) in [
        ("localhost", "no port"),
        ("8080x", "no port"),
        ("99999", "the port is above 65535"),
        (":", "the port is not a number"),
        ("localhost:http", "the port is not a number"),
        ("127.0.0.1:", "the port is not a number"),
        ("::1:8080", "an IPv6 address goes in brackets"),
        ("[::1:8080", "an IPv6 address goes in brackets"),
        ("a b:80", "not a host name or IP address"),
    ] {
        let message = http_addr(given).unwrap_err().0;
        assert!(
            message.starts_with(&format!("bad address `{given}` for `--http`: {why}; ")),
            "{given}: {message}"
        );
        assert!(message.contains("write HOST:PORT"), "{message}");
    }
}

#[test]
fn http_needs_an_address() {
    for args in [
        &["--http"][..],
        &["--http="],
        &["--http", ""],
        &["--http", "--stateless"],
    ] {
        assert!(
            error(args).starts_with("`--http` needs an address"),
            "{args:?}"
        );
    }
    #[cfg(feature = "http")]
    assert_eq!(
        error(&["--http", "1", "--http", "2"]),
        "`--http` is given twice"
    );
}

#[test]
fn stateless_needs_http() {
    for args in [&["--stateless"][..], &["--stateless", "--list-tools"]] {
        let message = error(args);
        assert!(
            message.starts_with("`--stateless` only applies to HTTP: use it with `--http`"),
            "{message}"
        );
    }
}

#[cfg(feature = "auth")]
#[test]
fn auth_issuer_and_audience_go_together_with_http() {
    let issuer = "http://127.0.0.1:4455";
    let audience = "http://127.0.0.1:8080/mcp";
    let expected = Ok(Command::Http {
        addr: "127.0.0.1:8080".into(),
        stateless: false,
        auth: Some(AuthArgs {
            issuer: issuer.into(),
            audience: audience.into(),
        }),
        sessions: None,
    });
    assert_eq!(
        parsed(&[
            "--http",
            "8080",
            "--auth-issuer",
            issuer,
            "--auth-audience",
            audience
        ]),
        expected
    );
    let inline_issuer = format!("--auth-issuer={issuer}");
    let inline_audience = format!("--auth-audience={audience}");
    assert_eq!(
        parsed(&[&inline_audience, "--http=8080", &inline_issuer]),
        expected
    );
    assert!(
        error(&["--http", "8080", "--auth-issuer", issuer])
            .starts_with("`--auth-issuer` needs `--auth-audience URI` too")
    );
    assert!(
        error(&["--http", "8080", "--auth-audience", audience])
            .starts_with("`--auth-audience` needs `--auth-issuer URL` too")
    );
    assert!(
        error(&["--auth-issuer", issuer, "--auth-audience", audience])
            .contains("use them with `--http`")
    );
    assert!(
        error(&["--http", "8080", "--auth-issuer", "login.example.com"])
            .starts_with("`--auth-issuer` needs an http(s) URL")
    );
    assert!(error(&["--http", "8080", "--auth-issuer"]).contains("needs an http(s) URL"));
    assert_eq!(
        error(&["--auth-issuer", issuer, "--auth-issuer", issuer]),
        "`--auth-issuer` is given twice"
    );
}

#[cfg(feature = "http")]
#[test]
fn list_tools_and_http_conflict() {
    assert_eq!(
        error(&["--list-tools", "--http", "8080"]),
        "`--list-tools` and `--http` cannot be used together"
    );
}

#[cfg(not(feature = "http"))]
#[test]
fn http_says_the_binary_lacks_it_and_how_to_add_it() {
    let message = error(&["--http", "8080"]);
    assert!(
        message.starts_with("this binary was built without HTTP support"),
        "{message}"
    );
    assert!(message.contains("`http` feature"), "{message}");
}

#[test]
fn unknown_options_and_arguments() {
    assert_eq!(
        error(&["--list"]),
        "unknown option `--list` (did you mean `--list-tools`?)"
    );
    assert_eq!(
        error(&["--htp", "8080"]),
        "unknown option `--htp` (did you mean `--http`?)"
    );
    assert_eq!(
        error(&["--stateles"]),
        "unknown option `--stateles` (did you mean `--stateless`?)"
    );
    assert_eq!(error(&["--port=80"]), "unknown option `--port`");
    assert_eq!(error(&["-x"]), "unknown option `-x`");
    assert_eq!(
        error(&["serve"]),
        "unexpected argument `serve`: this server takes options only"
    );
    assert_eq!(
        error(&["-"]),
        "unexpected argument `-`: this server takes options only"
    );
    assert_eq!(error(&["--help=yes"]), "`--help` takes no value");
    assert_eq!(error(&["--list-tools=1"]), "`--list-tools` takes no value");
}

#[cfg(unix)]
#[test]
fn arguments_that_are_not_utf8_are_refused() {
    use std::os::unix::ffi::OsStringExt;
    let arg = OsString::from_vec(vec![b'-', b'-', 0xff]);
    assert_eq!(
        parse([arg]),
        Err(UsageError(
            "argument `--\u{fffd}` is not valid UTF-8".into()
        ))
    );
}

fn tasks(args: &[&str]) -> Result<(Command, TaskArgs), UsageError> {
    parse_all(args.iter().copied())
}

#[test]
fn task_lease_takes_a_duration() {
    let expected = TaskArgs {
        redis: None,
        lease: Some(Duration::from_millis(500)),
    };
    assert_eq!(
        tasks(&["--task-lease", "500ms"]),
        Ok((Command::Stdio, expected))
    );
    assert_eq!(
        tasks(&["--task-lease=2m"]).unwrap().1.lease,
        Some(Duration::from_secs(120))
    );
    assert!(
        error(&["--task-lease", "30"])
            .starts_with("bad duration `30` for `--task-lease`: no unit; ")
    );
    for args in [
        &["--task-lease"][..],
        &["--task-lease="],
        &["--task-lease", "--stateless"],
    ] {
        assert_eq!(
            error(args),
            "`--task-lease` needs a duration, such as `--task-lease 30s`",
            "{args:?}"
        );
    }
    assert_eq!(
        error(&["--task-lease", "1s", "--task-lease=2s"]),
        "`--task-lease` is given twice"
    );
}

#[cfg(feature = "tasks-redis")]
#[test]
fn tasks_redis_is_kept_for_stdio_and_http() {
    let url = "redis://127.0.0.1:6379/";
    let expected = |lease: Option<u64>| TaskArgs {
        redis: Some(url.into()),
        lease: lease.map(Duration::from_secs),
    };
    assert_eq!(
        tasks(&["--tasks-redis", url]),
        Ok((Command::Stdio, expected(None)))
    );
    #[cfg(feature = "http")]
    assert_eq!(
        tasks(&[
            "--http",
            "8080",
            &format!("--tasks-redis={url}"),
            "--task-lease",
            "5s"
        ]),
        Ok((http("127.0.0.1:8080", false), expected(Some(5))))
    );
    // The URL is read when the store is made: anything but nothing
    // passes here.
    assert_eq!(
        tasks(&["--tasks-redis", "not a url"])
            .unwrap()
            .1
            .redis
            .as_deref(),
        Some("not a url")
    );
    assert_eq!(
        error(&["--tasks-redis", url, "--tasks-redis", url]),
        "`--tasks-redis` is given twice"
    );
}

#[cfg(not(feature = "tasks-redis"))]
#[test]
fn tasks_redis_says_the_binary_lacks_it_and_how_to_add_it() {
    let message = error(&["--tasks-redis", "redis://127.0.0.1:6379/"]);
    assert!(
        message.starts_with("this binary was built without Redis support for tasks"),
        "{message}"
    );
    assert!(message.contains("`tasks-redis` feature"), "{message}");
}

#[test]
fn tasks_redis_needs_a_url_and_task_options_need_serving() {
    for args in [
        &["--tasks-redis"][..],
        &["--tasks-redis="],
        &["--tasks-redis", "--http", "8080"],
    ] {
        assert_eq!(
            error(args),
            "`--tasks-redis` needs a URL, such as `--tasks-redis redis://127.0.0.1:6379/`",
            "{args:?}"
        );
    }
    assert!(
        error(&["--list-tools", "--task-lease", "5s"])
            .starts_with("`--tasks-redis` and `--task-lease` apply to serving"),
    );
    assert_eq!(
        error(&["--task-leas", "5s"]),
        "unknown option `--task-leas` (did you mean `--task-lease`?)"
    );
    // Help and version still win.
    assert_eq!(
        tasks(&["--task-lease", "5s", "--help"]),
        Ok((Command::Help, TaskArgs::default()))
    );
}

#[cfg(all(feature = "http", feature = "sessions-redis"))]
#[test]
fn sessions_redis_is_kept_for_http() {
    let url = "redis://127.0.0.1:6379/";
    let expected = Ok(Command::Http {
        addr: "127.0.0.1:8080".into(),
        stateless: false,
        auth: None,
        sessions: Some(url.into()),
    });
    assert_eq!(
        parsed(&["--http", "8080", "--sessions-redis", url]),
        expected
    );
    let inline = format!("--sessions-redis={url}");
    assert_eq!(parsed(&[&inline, "--http=8080"]), expected);
    assert_eq!(
        error(&["--http", "8080", "--sessions-redis", url, &inline]),
        "`--sessions-redis` is given twice"
    );
    assert!(
        error(&["--http", "8080", "--stateless", "--sessions-redis", url])
            .starts_with("`--sessions-redis` and `--stateless` cannot be used together")
    );
}

#[cfg(not(feature = "sessions-redis"))]
#[test]
fn sessions_redis_says_the_binary_lacks_it_and_how_to_add_it() {
    let message = error(&["--http", "8080", "--sessions-redis", "redis://127.0.0.1/"]);
    assert!(
        message.starts_with("this binary was built without Redis support for sessions"),
        "{message}"
    );
    assert!(message.contains("`sessions-redis` feature"), "{message}");
}

#[test]
fn sessions_redis_needs_a_url_and_http() {
    for args in [
        &["--http", "8080", "--sessions-redis"][..],
        &["--sessions-redis=", "--http", "8080"],
        &["--sessions-redis", "--http", "8080"],
    ] {
        assert_eq!(
            error(args),
            "`--sessions-redis` needs a URL, such as \
             `--sessions-redis redis://127.0.0.1:6379/`",
            "{args:?}"
        );
    }
    #[cfg(feature = "sessions-redis")]
    assert!(
        error(&["--sessions-redis", "redis://127.0.0.1:6379/"])
            .starts_with("`--sessions-redis` applies to HTTP sessions: use it with `--http`")
    );
}

#[test]
fn edit_distance() {
    assert_eq!(edits("", "abc"), 3);
    assert_eq!(edits("--htp", "--http"), 1);
    assert_eq!(edits("kitten", "sitting"), 3);
    assert_eq!(suggestion("--verison"), Some("--version"));
    assert_eq!(suggestion("--port"), None);
}
