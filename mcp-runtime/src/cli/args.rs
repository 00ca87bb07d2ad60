//! The arguments a server binary accepts, parsed by hand: a handful of
//! options do not pay for an argument-parsing crate's build time.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::time::Duration;

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Command {
    /// Serve on stdin and stdout (no option).
    Stdio,
    /// Serve Streamable HTTP at `addr` (`HOST:PORT`, as given or completed).
    #[cfg(feature = "http")]
    Http {
        addr: String,
        stateless: bool,
        /// `--auth-issuer` and `--auth-audience`.
        auth: Option<AuthArgs>,
        /// `--sessions-redis`: the Redis server's URL, as given (checked
        /// when the store is made, at start-up).
        sessions: Option<String>,
    },
    /// Print the `tools/list` result and exit.
    ListTools,
    /// Print the usage and exit.
    Help,
    /// Print `NAME VERSION` and exit.
    Version,
}

/// `--auth-issuer URL --auth-audience URI`: the authorization server
/// whose metadata and keys are discovered, and this server's canonical URI.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct AuthArgs {
    pub(crate) issuer: String,
    pub(crate) audience: String,
}

/// Where and how the served tasks are kept: `--tasks-redis URL` and
/// `--task-lease DURATION`, for stdio and HTTP alike.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct TaskArgs {
    /// `--tasks-redis`: the Redis server's URL, as given (checked when the
    /// store is made, at start-up).
    pub(crate) redis: Option<String>,
    /// `--task-lease`.
    pub(crate) lease: Option<Duration>,
}

/// A command line that cannot be obeyed: the one-line reason, without the
/// `error: ` before it or the hint after it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct UsageError(pub(crate) String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Every option, for suggestions.
const OPTIONS: [&str; 12] = [
    "--http",
    "--auth-issuer",
    "--auth-audience",
    "--stateless",
    "--sessions-redis",
    "--tasks-redis",
    "--task-lease",
    "--list-tools",
    "--help",
    "-h",
    "--version",
    "-V",
];

/// [`parse_all`] without the task options.
#[cfg(test)]
pub(crate) fn parse<I, T>(args: I) -> Result<Command, UsageError>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    parse_all(args).map(|(command, _)| command)
}

/// Parses the arguments after the program name: what to do, and where to
/// keep tasks while doing it. `--help` and `--version` win over whatever
/// follows them; anything else is read to the end, so a mistake anywhere
/// is reported.
pub(crate) fn parse_all<I, T>(args: I) -> Result<(Command, TaskArgs), UsageError>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let mut args = args.into_iter().map(Into::into);
    let mut tasks = TaskArgs::default();
    let mut http: Option<String> = None;
    let mut stateless = false;
    let mut list_tools = false;
    let mut issuer: Option<String> = None;
    let mut audience: Option<String> = None;
    let mut sessions: Option<String> = None;
    while let Some(arg) = args.next() {
        let arg = utf8(arg)?;
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value.to_owned())),
            _ => (arg.as_str(), None),
        };
        let takes_value = matches!(
            name,
            "--http"
                | "--auth-issuer"
                | "--auth-audience"
                | "--tasks-redis"
                | "--task-lease"
                | "--sessions-redis"
        );
        if inline.is_some() && !takes_value && OPTIONS.contains(&name) {
            return Err(UsageError(format!("`{name}` takes no value")));
        }
        match name {
            "-h" | "--help" => return Ok((Command::Help, TaskArgs::default())),
            "-V" | "--version" => return Ok((Command::Version, TaskArgs::default())),
            "--tasks-redis" | "--task-lease" => {
                let value = match inline {
                    Some(value) => Some(value),
                    // Not `--tasks-redis --http 8080`: an option is not a
                    // value.
                    None => match args.next().map(utf8).transpose()? {
                        Some(next) if !next.starts_with('-') => Some(next),
                        _ => None,
                    },
                };
                let given_twice = || UsageError(format!("`{name}` is given twice"));
                if name == "--tasks-redis" {
                    let url = value.filter(|v| !v.is_empty()).ok_or_else(|| {
                        UsageError(
                            "`--tasks-redis` needs a URL, such as \
                             `--tasks-redis redis://127.0.0.1:6379/`"
                                .into(),
                        )
                    })?;
                    if cfg!(not(feature = "tasks-redis")) {
                        return Err(UsageError(
                            "this binary was built without Redis support for tasks: build it \
                             with the `tasks-redis` feature of mcp-runtime \
                             (`features = [\"tasks-redis\"]`) to use `--tasks-redis`"
                                .into(),
                        ));
                    }
                    if tasks.redis.replace(url).is_some() {
                        return Err(given_twice());
                    }
                } else {
                    let value = value.filter(|v| !v.is_empty()).ok_or_else(|| {
                        UsageError(
                            "`--task-lease` needs a duration, such as `--task-lease 30s`".into(),
                        )
                    })?;
                    let lease = super::lease::lease(&value)?;
                    if tasks.lease.replace(lease).is_some() {
                        return Err(given_twice());
                    }
                }
            }
            "--sessions-redis" => {
                let value = match inline {
                    Some(value) => Some(value),
                    // Not `--sessions-redis --http 8080`: an option is not
                    // a value.
                    None => match args.next().map(utf8).transpose()? {
                        Some(next) if !next.starts_with('-') => Some(next),
                        _ => None,
                    },
                };
                let url = value.filter(|v| !v.is_empty()).ok_or_else(|| {
                    UsageError(
                        "`--sessions-redis` needs a URL, such as \
                         `--sessions-redis redis://127.0.0.1:6379/`"
                            .into(),
                    )
                })?;
                if cfg!(not(feature = "sessions-redis")) {
                    return Err(UsageError(
                        "this binary was built without Redis support for sessions: build it \
                         with the `sessions-redis` feature of mcp-runtime \
                         (`features = [\"sessions-redis\"]`) to use `--sessions-redis`"
                            .into(),
                    ));
                }
                if sessions.replace(url).is_some() {
                    return Err(UsageError("`--sessions-redis` is given twice".into()));
                }
            }
            "--list-tools" => list_tools = true,
            "--stateless" => stateless = true,
            "--http" => {
                let value = match inline {
                    Some(value) => Some(value),
                    // Not `--http --stateless`: an option is not an address.
                    None => match args.next().map(utf8).transpose()? {
                        Some(next) if !next.starts_with('-') => Some(next),
                        _ => None,
                    },
                };
                let value = value.filter(|v| !v.is_empty()).ok_or_else(|| {
                    UsageError(
                        "`--http` needs an address, such as `--http 127.0.0.1:8080` or \
                         `--http 8080`"
                            .into(),
                    )
                })?;
                if http.is_some() {
                    return Err(UsageError("`--http` is given twice".into()));
                }
                http = Some(http_addr(&value)?);
            }
            "--auth-issuer" | "--auth-audience" => {
                let value = match inline {
                    Some(value) => Some(value),
                    None => args.next().map(utf8).transpose()?,
                };
                let example = if name == "--auth-issuer" {
                    "`--auth-issuer https://login.example.com`"
                } else {
                    "`--auth-audience https://mcp.example.com/mcp`"
                };
                let value = value
                    .filter(|v| v.starts_with("http://") || v.starts_with("https://"))
                    .ok_or_else(|| {
                        UsageError(format!("`{name}` needs an http(s) URL, such as {example}"))
                    })?;
                let slot = if name == "--auth-issuer" {
                    &mut issuer
                } else {
                    &mut audience
                };
                if slot.replace(value).is_some() {
                    return Err(UsageError(format!("`{name}` is given twice")));
                }
            }
            _ if name.starts_with('-') && name.len() > 1 => {
                let hint = suggestion(name)
                    .map(|known| format!(" (did you mean `{known}`?)"))
                    .unwrap_or_default();
                return Err(UsageError(format!("unknown option `{name}`{hint}")));
            }
            _ => {
                return Err(UsageError(format!(
                    "unexpected argument `{arg}`: this server takes options only"
                )));
            }
        }
    }
    let auth = match (issuer, audience) {
        (Some(issuer), Some(audience)) => Some(AuthArgs { issuer, audience }),
        (None, None) => None,
        (Some(_), None) => {
            return Err(UsageError(
                "`--auth-issuer` needs `--auth-audience URI` too: the URL clients reach this \
                 server at, such as `https://mcp.example.com/mcp`"
                    .into(),
            ));
        }
        (None, Some(_)) => {
            return Err(UsageError(
                "`--auth-audience` needs `--auth-issuer URL` too: the authorization server \
                 that issues the tokens"
                    .into(),
            ));
        }
    };
    if auth.is_some() && http.is_none() {
        return Err(UsageError(
            "`--auth-issuer` and `--auth-audience` apply to HTTP: use them with `--http`".into(),
        ));
    }
    if sessions.is_some() && http.is_none() {
        return Err(UsageError(
            "`--sessions-redis` applies to HTTP sessions: use it with `--http`, as in \
             `--http 0.0.0.0:8080 --sessions-redis redis://127.0.0.1:6379/`"
                .into(),
        ));
    }
    if sessions.is_some() && stateless {
        return Err(UsageError(
            "`--sessions-redis` and `--stateless` cannot be used together: a stateless server \
             has no sessions to share"
                .into(),
        ));
    }
    if list_tools && (tasks.redis.is_some() || tasks.lease.is_some()) {
        return Err(UsageError(
            "`--tasks-redis` and `--task-lease` apply to serving: `--list-tools` serves nothing"
                .into(),
        ));
    }
    let command = match (http, list_tools) {
        (Some(addr), list_tools) => {
            let command = http_command(addr, stateless, auth, sessions)?;
            if list_tools {
                return Err(UsageError(
                    "`--list-tools` and `--http` cannot be used together".into(),
                ));
            }
            command
        }
        (None, _) if stateless => {
            return Err(UsageError(
                "`--stateless` only applies to HTTP: use it with `--http`, as in \
                 `--http 127.0.0.1:8080 --stateless`"
                    .into(),
            ));
        }
        (None, true) => Command::ListTools,
        (None, false) => Command::Stdio,
    };
    Ok((command, tasks))
}

#[cfg(feature = "http")]
fn http_command(
    addr: String,
    stateless: bool,
    auth: Option<AuthArgs>,
    sessions: Option<String>,
) -> Result<Command, UsageError> {
    if auth.is_some() && cfg!(not(feature = "auth")) {
        return Err(UsageError(
            "this binary was built without OAuth support: build it with the `auth` feature \
             of mcp-runtime (`features = [\"auth\"]`) to use `--auth-issuer`"
                .into(),
        ));
    }
    Ok(Command::Http {
        addr,
        stateless,
        auth,
        sessions,
    })
}

#[cfg(not(feature = "http"))]
fn http_command(
    _: String,
    _: bool,
    _: Option<AuthArgs>,
    _: Option<String>,
) -> Result<Command, UsageError> {
    Err(UsageError(
        "this binary was built without HTTP support: build it with the `http` feature of \
         mcp-runtime (on by default; `default-features = false` turns it off)"
            .into(),
    ))
}

fn utf8(arg: OsString) -> Result<String, UsageError> {
    arg.into_string().map_err(|arg| {
        UsageError(format!(
            "argument `{}` is not valid UTF-8",
            arg.to_string_lossy()
        ))
    })
}

/// The address `--http` names: `PORT` and `:PORT` mean `127.0.0.1:PORT`;
/// `HOST:PORT` (an IP address, `[IPv6]` or a host name) stays as given and
/// is resolved when bound.
pub(crate) fn http_addr(text: &str) -> Result<String, UsageError> {
    let bad = |why: &str| {
        UsageError(format!(
            "bad address `{text}` for `--http`: {why}; write HOST:PORT (`127.0.0.1:8080`, \
             `[::1]:8080`, `localhost:8080`) or a port alone (`8080`, for 127.0.0.1:8080)"
        ))
    };
    let port = |digits: &str| {
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad("the port is not a number"));
        }
        digits
            .parse::<u16>()
            .map_err(|_| bad("the port is above 65535"))
    };
    if let Some(digits) = text.strip_prefix(':').filter(|rest| !rest.contains(':')) {
        return Ok(format!("127.0.0.1:{}", port(digits)?));
    }
    if text.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(format!("127.0.0.1:{}", port(text)?));
    }
    if text.parse::<SocketAddr>().is_ok() {
        return Ok(text.to_owned());
    }
    let Some((host, digits)) = text.rsplit_once(':') else {
        return Err(bad("no port"));
    };
    port(digits)?;
    if host.contains(':') || host.starts_with('[') {
        return Err(bad("an IPv6 address goes in brackets"));
    }
    let name = host
        .split('.')
        .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
    if !name {
        return Err(bad("not a host name or IP address"));
    }
    Ok(text.to_owned())
}

/// The known option closest to `unknown`, if it is close: a typo (two
/// edits) or a prefix (`--list`).
fn suggestion(unknown: &str) -> Option<&'static str> {
    let unknown = unknown.to_ascii_lowercase();
    OPTIONS
        .iter()
        .copied()
        .filter(|o| o.len() > 2)
        .map(|known| {
            let prefix = unknown.len() >= 4 && known.starts_with(&unknown);
            (if prefix { 0 } else { edits(&unknown, known) }, known)
        })
        .filter(|&(distance, _)| distance <= 2)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, known)| known)
}

/// Levenshtein distance, by bytes (options are ASCII).
fn edits(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            let next = (diagonal + usize::from(x != y))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
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
}
