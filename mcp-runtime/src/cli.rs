//! The command line of a server binary: [`Server::run`] reads it, then
//! serves on stdio or over HTTP, or prints the tools, the usage or the
//! version.

mod args;
mod lease;
#[cfg(feature = "stderr-log")]
pub(crate) mod log;
mod state_key;

use std::ffi::OsString;
use std::io::Write;

use self::args::{Command, TaskArgs, UsageError};
use crate::dispatch::{Limits, ServerCore};
use crate::protocol::version::ProtocolVersion;
use crate::registry::error::RegistryError;
use crate::server::{INSPECTOR, Server, shell_word};

/// The exit status of a command line that cannot be obeyed.
const USAGE_ERROR: i32 = 2;
/// The exit status of a server that could not start, or failed.
const FAILURE: i32 = 1;

impl Server {
    /// The whole `main` of a server binary: reads the command line, then
    /// serves.
    ///
    /// ```no_run
    /// use mcp_runtime::Server;
    ///
    /// #[tokio::main]
    /// async fn main() -> std::io::Result<()> {
    ///     Server::new("weather", env!("CARGO_PKG_VERSION")).run().await
    /// }
    /// ```
    ///
    /// | Arguments | What it does |
    /// | --- | --- |
    /// | none | serves on stdin and stdout ([`Server::serve_stdio`]) |
    /// | `--http ADDR` | serves Streamable HTTP at `http://ADDR/mcp` (`Server::serve_http`); `ADDR` is `HOST:PORT` (`0.0.0.0:8080`, `[::1]:8080`, `localhost:8080`), or a port alone (`8080`, `:8080`) for `127.0.0.1:PORT` |
    /// | `--http ADDR --stateless` | the same, without sessions (`Server::stateless`) |
    /// | `--sessions-redis URL` | with `--http`: keeps the sessions of protocol 2025-11-25 and earlier in the Redis server at `URL` (`redis://HOST:PORT/`), shared by every instance of a fleet, so that a load balancer needs no stickiness (`Server::sessions(RedisSessions::new(URL)?)`); checked before the server listens; with `--tasks-redis` naming the same Redis, one connection serves both; needs the `sessions-redis` cargo feature |
    /// | `--tasks-redis URL` | keeps tasks in the Redis server at `URL` (`redis://HOST:PORT/`), shared by every instance of a fleet (`Server::tasks(RedisTasks::new(URL)?)`); with stdio or `--http`; needs the `tasks-redis` cargo feature |
    /// | `--task-lease DURATION` | how long this instance's claim on a task it runs lasts unrenewed ([`Server::task_lease`]): `500ms`, `30s`, `2m`, `1h`; once an instance dies, its tasks fail after it |
    /// | `--list-tools` | prints the `tools/list` result, `{"tools": [...]}`, as a client of the newest protocol version gets it (every tool, in one page; with [`Server::tool_search`], what clients are shown: the pinned tools and the search and proxy tools, the rest being found by searching), and exits |
    /// | `-h`, `--help` | prints the usage: the server's name and version, the options, examples, how to connect the MCP Inspector |
    /// | `-V`, `--version` | prints `NAME VERSION` |
    ///
    /// `--http=ADDR` works too. Without the `http` cargo feature (on by
    /// default), `--http` says the binary was built without HTTP support;
    /// without `tasks-redis`, `--tasks-redis` says so too, and without
    /// `sessions-redis`, `--sessions-redis`.
    ///
    /// Instances of a fleet behind one load balancer must share the key
    /// that signs the `requestState` of 2026-07-28 `input_required`
    /// answers (see [`StateKeys`](crate::StateKeys)); `run` reads it from
    /// the environment, so that an operator gives it without code:
    ///
    /// | Variable | What it does |
    /// | --- | --- |
    /// | `MCP_STATE_KEY` | the key that signs and checks `requestState`: 32 bytes or more (`openssl rand -hex 32` makes one), whitespace at either end left out; it replaces the random key a server makes at start-up, and the keys of [`Server::request_state_keys`] too (their `ttl` stays) |
    /// | `MCP_STATE_KEY_PREVIOUS` | a key being retired: states it signed are still accepted, new ones are signed with `MCP_STATE_KEY`; needs `MCP_STATE_KEY` |
    ///
    /// Unless `main` installed a `tracing` subscriber first, `run` installs
    /// one that writes to stderr, filtered by `RUST_LOG` (default `info`;
    /// a level, and `target=level` pairs such as `mcp_runtime=debug,info`).
    /// That needs the `stderr-log` cargo feature, on by default; without it
    /// `run` installs nothing. With the `otel` feature and
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` set, that subscriber also exports every
    /// request's span and the MCP metrics over OTLP, as the service named
    /// after the server unless `OTEL_SERVICE_NAME` says otherwise (see the
    /// `otel` module), and flushes them before `run` returns.
    ///
    /// # Exits
    ///
    /// `run` is meant to be all of `main`, so it ends the process itself
    /// when something goes wrong:
    ///
    /// - arguments it does not accept: one line on stderr naming the
    ///   problem and pointing to `--help`; exit status 2;
    /// - a server that cannot start (a tool set that cannot be served, see
    ///   [`RegistryError`]; an address that cannot be bound; a key in
    ///   `MCP_STATE_KEY` or `MCP_STATE_KEY_PREVIOUS` that is shorter than
    ///   32 bytes, or `MCP_STATE_KEY_PREVIOUS` alone; a `--tasks-redis`
    ///   that is not a Redis URL; a `--sessions-redis` that is not one, or
    ///   whose server does not answer) or fails while
    ///   serving: `error: ` and the sentence on stderr; exit status 1.
    ///
    /// Otherwise it returns `Ok(())` once the client has gone (stdio) or
    /// the server was stopped (HTTP), or after printing what was asked.
    pub async fn run(self) -> std::io::Result<()> {
        self.run_with_args(std::env::args_os().skip(1)).await
    }

    /// [`Server::run`] with these arguments (those after the program name)
    /// instead of the process's: for a binary with options of its own,
    /// which takes them out and passes the rest on.
    ///
    /// ```no_run
    /// use mcp_runtime::Server;
    ///
    /// struct Notebook;
    ///
    /// impl Notebook {
    ///     fn open(path: &str) -> Notebook {
    ///         # let _ = path;
    ///         Notebook
    ///     }
    /// }
    ///
    /// #[tokio::main]
    /// async fn main() -> std::io::Result<()> {
    ///     // `--notes PATH` is this binary's; `--http 8080` and the others
    ///     // are the server's.
    ///     let mut notes = String::from("notes.db");
    ///     let mut rest = Vec::new();
    ///     let mut args = std::env::args().skip(1);
    ///     while let Some(arg) = args.next() {
    ///         match arg.as_str() {
    ///             "--notes" => notes = args.next().unwrap_or(notes),
    ///             _ => rest.push(arg),
    ///         }
    ///     }
    ///     Server::new("notes", env!("CARGO_PKG_VERSION"))
    ///         .state(Notebook::open(&notes))
    ///         .run_with_args(rest)
    ///         .await
    /// }
    /// ```
    ///
    /// Any argument parser that leaves what it does not know can feed it.
    /// `--help` describes only the server's options; a binary whose own
    /// command line is richer parses all of it and calls
    /// [`Server::serve_stdio`] or `Server::serve_http` itself.
    pub async fn run_with_args<I, T>(mut self, args: I) -> std::io::Result<()>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString>,
    {
        let (command, tasks) = args::parse_all(args).unwrap_or_else(|error| usage_error(&error));
        match command {
            Command::Help => print(&usage(self.name(), self.version(), &program(self.name()))),
            Command::Version => print(&format!("{} {}\n", self.name(), self.version())),
            Command::ListTools => {
                let _log = install_log(&mut self);
                match tools_list_json(&self) {
                    Ok(json) => print(&json),
                    Err(error) => fail(&error),
                }
            }
            Command::Stdio => {
                let _log = install_log(&mut self);
                let server = with_stores(keys_from_env(self), tasks, None);
                if let Err(error) = server.serve_stdio().await {
                    fail_unless_said(&error);
                }
                Ok(())
            }
            #[cfg(feature = "http")]
            Command::Http {
                addr,
                stateless,
                auth,
                sessions,
            } => {
                let _log = install_log(&mut self);
                let server = with_stores(keys_from_env(self), tasks, sessions);
                let server = if stateless {
                    server.stateless()
                } else {
                    server
                };
                #[cfg(feature = "auth")]
                let server = match auth {
                    Some(args) => {
                        server.auth(crate::auth::Auth::issuer(args.issuer).audience(args.audience))
                    }
                    None => server,
                };
                #[cfg(not(feature = "auth"))]
                let _ = auth;
                if let Err(error) = server.serve_http(addr.clone()).await {
                    if crate::startup::already_said(&error) {
                        std::process::exit(FAILURE);
                    }
                    // An I/O error while serving needs to say what it was
                    // doing.
                    fail(&format!("cannot serve HTTP at {addr}: {error}"));
                }
                Ok(())
            }
        }
    }
}

impl Server {
    /// Sets up now the log [`Server::run`] sets up when it starts (stderr,
    /// filtered by `RUST_LOG`; with the `otel` feature, the OTLP export),
    /// so that what happens before `run` is logged too: mounting upstreams
    /// (the mounts' own lines and each upstream's stderr as it starts).
    /// `run` then keeps using it. Does nothing if `main` installed a
    /// `tracing` subscriber first. Needs the `stderr-log` feature (on by
    /// default).
    ///
    #[cfg_attr(feature = "client", doc = "```no_run")]
    #[cfg_attr(not(feature = "client"), doc = "```ignore")]
    /// use mcp_runtime::{Server, Upstream};
    ///
    /// # async fn run() -> std::io::Result<()> {
    /// Server::new("front", "1.0.0")
    ///     .log_to_stderr()
    ///     .mount("w", Upstream::command("weather-server", ["--stdio"]))
    ///     .await?
    ///     .run()
    ///     .await
    /// # }
    /// ```
    #[cfg(feature = "stderr-log")]
    pub fn log_to_stderr(mut self) -> Self {
        if self.log.is_none() {
            self.log = Some(log::install(self.name(), self.version()));
        }
        self
    }
}

/// Installs the stderr log (and, with the `otel` feature, the OTLP
/// export), unless [`Server::log_to_stderr`] did; what it returns is kept
/// while serving.
#[cfg(feature = "stderr-log")]
fn install_log(server: &mut Server) -> log::Guard {
    match server.log.take() {
        Some(guard) => guard,
        None => log::install(server.name(), server.version()),
    }
}

#[cfg(not(feature = "stderr-log"))]
fn install_log(_: &mut Server) -> impl Sized + use<> {}

/// The server with the `requestState` keys of `MCP_STATE_KEY` and
/// `MCP_STATE_KEY_PREVIOUS`, when they are set; exits 1 when they cannot
/// be used.
fn keys_from_env(server: Server) -> Server {
    match state_key::from_env(|name| std::env::var_os(name)) {
        Ok(None) => server,
        Ok(Some(keys)) => {
            tracing::info!(
                previous = keys.previous.is_some(),
                "requestState is signed with the key in {}",
                state_key::CURRENT
            );
            let keys = server
                .limits
                .state_keys
                .rekeyed(keys.current, keys.previous);
            server.request_state_keys(keys)
        }
        Err(error) => fail(&error),
    }
}

/// The server with the task store and lease of `--tasks-redis` and
/// `--task-lease`, and the session store of `--sessions-redis` (`sessions`,
/// HTTP only), when given; one connection for both stores when they name
/// the same Redis. Exits 1 when a URL is not one (whether the sessions'
/// server answers is checked when serving starts).
fn with_stores(server: Server, tasks: TaskArgs, sessions: Option<String>) -> Server {
    let server = match tasks.lease {
        Some(lease) => server.task_lease(lease),
        None => server,
    };
    #[cfg(feature = "tasks-redis")]
    let task_store = tasks.redis.map(|url| {
        crate::tasks::RedisTasks::new(&url).unwrap_or_else(|error| {
            // Never the URL itself: it may hold a password.
            fail(&format!(
                "cannot start the MCP server: --tasks-redis: {}",
                error.0
            ))
        })
    });
    #[cfg(not(feature = "tasks-redis"))]
    let _ = tasks.redis;
    #[cfg(all(feature = "http", feature = "sessions-redis"))]
    let server = match sessions {
        Some(url) => {
            let store = crate::sessions::RedisSessions::new(&url).unwrap_or_else(|error| {
                fail(&format!(
                    "cannot start the MCP server: --sessions-redis: {error}"
                ))
            });
            #[cfg(feature = "tasks-redis")]
            let store = match &task_store {
                Some(tasks) => store.share_connection(tasks),
                None => store,
            };
            tracing::info!(redis = ?store, "legacy sessions are kept in Redis");
            let mut server = server.sessions(store);
            if let Some(store) = server.http.sessions.as_mut() {
                store.named_by = "--sessions-redis";
            }
            server
        }
        None => server,
    };
    #[cfg(not(all(feature = "http", feature = "sessions-redis")))]
    let _ = sessions;
    #[cfg(feature = "tasks-redis")]
    if let Some(store) = task_store {
        tracing::info!(redis = ?store, "tasks are kept in Redis");
        return server.tasks(store);
    }
    server
}

/// Reports a command line that cannot be obeyed, and exits 2.
fn usage_error(error: &UsageError) -> ! {
    eprintln!("error: {error}; try --help");
    std::process::exit(USAGE_ERROR)
}

/// Reports why the server cannot go on, and exits 1.
fn fail(error: &dyn std::fmt::Display) -> ! {
    eprintln!("error: {error}");
    std::process::exit(FAILURE)
}

/// Exits with `error`, written on stderr unless `serve_*` wrote it there
/// already (a server that could not start).
fn fail_unless_said(error: &std::io::Error) -> ! {
    if crate::startup::already_said(error) {
        std::process::exit(FAILURE);
    }
    fail(error)
}

/// Writes `text` to stdout. A reader that went away (`| head`) is not an
/// error of ours.
fn print(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            fail(&format!("cannot write to stdout: {error}"))
        }
        _ => Ok(()),
    }
}

/// The `tools/list` result a client of the newest protocol version gets,
/// with every tool whatever the page size, pretty-printed.
fn tools_list_json(server: &Server) -> Result<String, RegistryError> {
    // The pages the server serializes when it starts, made the same way,
    // so the tools are the same bytes a client receives.
    let core = ServerCore::new(
        crate::protocol::info::ServerInfo::default(),
        None,
        server.registry()?,
        Default::default(),
        Limits::default(),
        None,
    );
    let snapshot = core.live.load();
    let page = snapshot
        .page("tools/list", None, ProtocolVersion::LATEST)
        .expect("the first page needs no cursor");
    // serde_json wrote these bytes (with `preserve_order`): read back and
    // laid out, every key, string and number comes out as it went in.
    let tools: serde_json::Value =
        serde_json::from_str(page.get()).expect("the server's own tools/list page is JSON");
    let mut text = serde_json::to_string_pretty(&tools).expect("a Value always serializes");
    text.push('\n');
    Ok(text)
}

/// The program's name as the user typed it (its file name), for the usage.
fn program(server_name: &str) -> String {
    std::env::args_os()
        .next()
        .as_deref()
        .and_then(|arg0| std::path::Path::new(arg0).file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| server_name.to_owned())
}

/// The usage, for `--help`.
fn usage(name: &str, version: &str, program: &str) -> String {
    let exe = std::env::current_exe()
        .map(|path| shell_word(&path.display().to_string()))
        .unwrap_or_else(|_| "/path/to/".to_owned() + &shell_word(program));
    usage_text(name, version, program, &exe)
}

fn usage_text(name: &str, version: &str, program: &str, exe: &str) -> String {
    let mut options = vec![
        (
            "    --tasks-redis URL",
            "Keep tasks in Redis (redis://HOST:PORT/), shared\n\
             by every instance of a fleet",
        ),
        (
            "    --task-lease DURATION",
            "How long this instance's claim on a task it runs\n\
             lasts unrenewed (500ms, 30s, 2m; default 30s):\n\
             the tasks of an instance that died fail after it",
        ),
        (
            "    --list-tools",
            "Print the tools as JSON (a tools/list result)\n\
             and exit",
        ),
        ("-h, --help", "Print this help and exit"),
        ("-V, --version", "Print the name and version and exit"),
    ];
    if cfg!(not(feature = "tasks-redis")) {
        options.remove(0);
    }
    let mut examples = vec![
        (String::new(), "Serve on stdin and stdout"),
        (
            "--list-tools".to_owned(),
            "Print the tools and their schemas",
        ),
    ];
    if cfg!(feature = "http") {
        options.splice(
            0..0,
            [
                (
                    "    --http ADDR",
                    "Serve Streamable HTTP at http://ADDR/mcp instead\n\
                     of stdio; ADDR is HOST:PORT, or a port alone\n\
                     for 127.0.0.1:PORT",
                ),
                (
                    "    --stateless",
                    "With --http: no sessions, each request stands\n\
                     alone",
                ),
            ],
        );
        if cfg!(feature = "auth") {
            options.splice(
                2..2,
                [
                    (
                        "    --auth-issuer URL",
                        "With --http: require OAuth access tokens issued\n\
                         by this authorization server",
                    ),
                    (
                        "    --auth-audience URI",
                        "With --auth-issuer: this server's URL, which\n\
                         tokens must name as their audience",
                    ),
                ],
            );
        }
        if cfg!(feature = "sessions-redis") {
            options.insert(
                2,
                (
                    "    --sessions-redis URL",
                    "With --http: keep sessions in Redis\n\
                     (redis://HOST:PORT/), shared by every instance\n\
                     of a fleet, so no balancer stickiness is needed",
                ),
            );
        }
        examples.splice(
            1..1,
            [
                ("--http 8080".to_owned(), "Serve http://127.0.0.1:8080/mcp"),
                (
                    "--http 0.0.0.0:8080 --stateless".to_owned(),
                    "Serve all interfaces, no sessions",
                ),
            ],
        );
    }
    let column = |rows: Vec<(String, &str)>| {
        let width = rows.iter().map(|(left, _)| left.len()).max().unwrap_or(0) + 3;
        rows.into_iter()
            .map(|(left, right)| {
                let right = right.replace('\n', &format!("\n  {:width$}", ""));
                format!("  {left:width$}{right}\n")
            })
            .collect::<String>()
    };
    let options = column(
        options
            .into_iter()
            .map(|(left, right)| (left.to_owned(), right))
            .collect(),
    );
    let environment = column(vec![
        (
            state_key::CURRENT.to_owned(),
            "The key that signs the requestState of answers\n\
             that ask the client, 32 bytes or more (make one\n\
             with `openssl rand -hex 32`); give every instance\n\
             behind one load balancer the same. Default: a\n\
             random key, which only this process accepts",
        ),
        (
            state_key::PREVIOUS.to_owned(),
            "While rotating: the key being retired, whose\n\
             states are still accepted",
        ),
    ]);
    let examples = column(
        examples
            .into_iter()
            .map(|(args, right)| (format!("{program} {args}").trim_end().to_owned(), right))
            .collect(),
    );
    let mut text = format!(
        "{name} {version}, an MCP (Model Context Protocol) server\n\n\
         Usage: {program} [OPTIONS]\n\n\
         With no option it serves MCP on stdin and stdout, to a client that starts it\n\
         (Claude Desktop, an IDE, the MCP Inspector).\n\n\
         Options:\n{options}\n\
         Environment:\n{environment}\n\
         Examples:\n{examples}\n\
         Connect the MCP Inspector (npx brings the Node 22 it needs):\n  \
         {INSPECTOR} --cli --method tools/list -- {exe}\n"
    );
    if cfg!(feature = "http") {
        text += &format!(
            "  {INSPECTOR} --cli --method tools/list http://127.0.0.1:8080/mcp\n\
             The second is for `{program} --http 8080`. "
        );
    }
    text += "Without `--cli --method tools/list`,\nthe Inspector opens its web UI.\n";
    if cfg!(not(feature = "http")) {
        text +=
            "\nThis binary was built without HTTP support (the `http` feature of mcp-runtime).\n";
    }
    if cfg!(feature = "stderr-log") {
        text += "\nLogs go to stderr; RUST_LOG sets what they show (default: info).\n";
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestClient;
    use crate::tool;
    use serde_json::{Value, json};

    /// Count the words of a text.
    #[tool(read_only)]
    async fn cli_count(
        /// The text, at most 100 characters: "quoted", \escaped\, é.
        #[schemars(length(max = 100))]
        text: String,
        /// A weight between 0.1 and 1e300.
        #[schemars(range(min = 0.1, max = 1e300))]
        weight: Option<f64>,
    ) -> usize {
        let _ = weight;
        text.split_whitespace().count()
    }

    #[tokio::test]
    async fn list_tools_prints_the_tools_a_client_gets() {
        let server = || {
            let dynamic = crate::DynamicTool::new(
                "cli_dynamic",
                "A tool defined at run time.",
                json!({"type": "object", "properties": {
                    "n": {"type": "number", "maximum": 0.30000000000000004}
                }}),
                |_arguments, _ctx| async { "ok" },
            )
            .title("Dynamic")
            .read_only(true);
            Server::new("cli", "1.2.3")
                .include_tools(["cli_count", "cli_dynamic"])
                .tool(dynamic)
                // Paging is for clients; the listing has every tool.
                .page_size(1)
        };
        let printed = tools_list_json(&server()).unwrap();
        assert!(printed.ends_with("}\n"), "{printed}");
        let listed: Value = serde_json::from_str(&printed).unwrap();

        let mut client = TestClient::connect(server()).await.unwrap();
        let mut wire = Vec::new();
        let mut cursor = Value::Null;
        loop {
            let params = if cursor.is_null() {
                json!({})
            } else {
                json!({"cursor": cursor})
            };
            let page = client.request("tools/list", params).await.unwrap();
            wire.extend(page["tools"].as_array().unwrap().iter().cloned());
            cursor = page.get("nextCursor").cloned().unwrap_or(Value::Null);
            if cursor.is_null() {
                break;
            }
        }
        assert_eq!(wire.len(), 2);
        // Compared as text: the order of fields matters too.
        assert_eq!(
            serde_json::to_string(&listed).unwrap(),
            serde_json::to_string(&json!({"tools": wire})).unwrap()
        );
        assert_eq!(listed["tools"][0]["name"], "cli_count");
        assert_eq!(listed["tools"][0]["annotations"]["readOnlyHint"], true);
    }

    #[test]
    fn list_tools_prints_the_listed_view_of_a_discovery_server() {
        let dynamic = crate::DynamicTool::new(
            "cli_pinned",
            "Pinned.",
            json!({"type": "object"}),
            |_arguments, _ctx| async { "ok" },
        );
        let server = Server::new("cli", "1.2.3")
            .tool(dynamic)
            .tool_search(crate::ToolSearch::new().pin(["cli_pinned"]));
        let listed: Value = serde_json::from_str(&tools_list_json(&server).unwrap()).unwrap();
        let names: Vec<&str> = listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["call_tool", "cli_pinned", "search_tools"]);
    }

    #[test]
    fn list_tools_reports_a_tool_set_that_cannot_be_served() {
        let error =
            tools_list_json(&Server::new("cli", "1").include_tools(["no_such_tool"])).unwrap_err();
        assert!(error.to_string().contains("no_such_tool"), "{error}");
    }

    #[test]
    fn usage_says_what_the_binary_is_and_how_to_use_it() {
        let text = usage_text("weather", "1.2.3", "weather", "/opt/bin/weather");
        assert!(
            text.starts_with(
                "weather 1.2.3, an MCP (Model Context Protocol) server\n\nUsage: weather [OPTIONS]\n"
            ),
            "{text}"
        );
        for option in ["    --list-tools", "-h, --help", "-V, --version"] {
            assert!(
                text.contains(&format!("\n  {option}   ")),
                "{option}\n{text}"
            );
        }
        for variable in ["MCP_STATE_KEY", "MCP_STATE_KEY_PREVIOUS"] {
            assert!(
                text.contains(&format!("\n  {variable}   ")),
                "{variable}\n{text}"
            );
        }
        assert!(text.contains("\nEnvironment:\n  MCP_STATE_KEY "), "{text}");
        assert!(text.contains("\n  weather   "), "{text}");
        assert!(text.contains("\n  weather --list-tools "), "{text}");
        assert!(
            text.contains(&format!(
                "\n  {INSPECTOR} --cli --method tools/list -- /opt/bin/weather\n"
            )),
            "{text}"
        );
        #[cfg(feature = "http")]
        for line in [
            "\n      --http ADDR ",
            "\n      --stateless ",
            "\n  weather --http 8080 ",
            "\n  weather --http 0.0.0.0:8080 --stateless ",
            "--cli --method tools/list http://127.0.0.1:8080/mcp\n",
        ] {
            assert!(text.contains(line), "{line:?}\n{text}");
        }
        #[cfg(not(feature = "http"))]
        assert!(
            text.contains("built without HTTP support") && !text.contains("--http"),
            "{text}"
        );
        assert!(text.contains("\n      --task-lease DURATION   "), "{text}");
        assert_eq!(
            text.contains("\n      --tasks-redis URL "),
            cfg!(feature = "tasks-redis"),
            "{text}"
        );
        // Columns line up, and nothing is wider than a terminal.
        assert!(
            text.lines()
                .all(|line| line.len() <= 80 || line.contains(INSPECTOR)),
            "{text}"
        );
    }
}
