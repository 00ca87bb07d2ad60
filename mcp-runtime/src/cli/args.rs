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
mod tests;
