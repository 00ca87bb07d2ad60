//! The chain's config file: the servers to mount, the tools to block or
//! change, and progressive discovery, in TOML (or JSON, for a file whose
//! name ends in `.json`).
//!
//! ```toml
//! blocked_tools = ["files_write_file"]   # names as the chain serves them
//!
//! [tool_search]                          # progressive discovery; off without this table
//! pin = ["weather_forecast", "say"]      # listed tools, by the names the chain serves
//! pin_tags = ["core"]                    # and every tool with one of these tags
//! # max_results = 50, threshold = 40, name = "search_tools", call_proxy = true,
//! # proxy_name = "call_tool", instructions = true
//!
//! [[servers]]
//! name = "weather"                       # also the prefix, unless `prefix` says otherwise
//! command = ["weather"]                  # the program and its arguments, or
//! # command = "weather"  with  args = [...]
//! env = { WEATHER_REFRESH_SECS = "60" }  # optional, commands only
//! cwd = "."                              # optional, relative to this file
//! # A program given as a relative path (with a `/`) is found from `cwd`,
//! # or from this file's folder; a bare name is looked up on PATH.
//! tags = ["weather"]                     # given to every tool of this server
//!
//! [servers.tools.forecast]               # its tool `forecast`, by the server's own name
//! name = "forecast"                      # served as `forecast` (no prefix on a new name)
//! title = "Forecast"
//! description = "The forecast for a city."
//! tags = ["core"]                        # added to the server's `tags`
//! [servers.tools.forecast.arguments.days]
//! name = "horizon"                       # renamed; also `description = "..."`
//! # value = 3                            # or: hidden, always 3 (no `name` then)
//! # hidden = true                        # or: hidden, never sent (an optional one)
//! # [servers.tools.alerts]
//! # hidden = true                        # not served at all
//!
//! [[servers]]
//! name = "remote"
//! url = "http://127.0.0.1:8000/mcp"      # Streamable HTTP
//! prefix = ""                            # its tools keep their names
//!
//! [[servers]]
//! name = "tracker"                       # an OAuth protected resource
//! url = "https://mcp.tracker.example/mcp"
//! oauth = { client_id = "chain", client_secret_env = "TRACKER_SECRET", scopes = ["issues:read"] }
//! ```
//!
//! `oauth` (URL servers only; `oauth = {}` for all defaults) takes:
//! `grant` (`"authorization_code"`: a user signs in, in a browser, when the
//! chain starts; `"client_credentials"`: the chain's own client id and
//! secret; default: client_credentials with a secret, else
//! authorization_code), `client_id` (registered beforehand; without one the
//! chain registers itself), `client_secret` or `client_secret_env` (the
//! name of an environment variable holding it), `scopes` (default: what
//! the server asks for), `metadata_document` (this client's https metadata
//! document URL, its client id where supported), `token_store` (a file
//! keeping the tokens, and a client registered on the fly, across
//! restarts, relative to this file; default: in memory), `redirect_uri` (the loopback redirect URI to listen on;
//! default: a free port of 127.0.0.1) and `open_browser` (default true).
//!
//! A `[servers.tools.NAME]` table that names no tool of its server is
//! only a warning (the server may add it later), as is a blocked tool that
//! no server serves.
//!
//! A mistake is one sentence naming the file, the line (TOML) or the
//! field, and the fix.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use mcp_runtime::{ToolSearch, serde_json};
use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

use crate::tool_tables::{ToolTable, line_column, valid_tool_name};
use crate::upstream_oauth::{Grant, OAuthSettings, Secret};

/// A config file, checked.
#[derive(Debug)]
pub struct Config {
    /// The servers to mount, in the file's order.
    pub servers: Vec<ServerConfig>,
    /// Tool names (as the chain serves them, prefix included) that the
    /// chain does not serve.
    pub blocked_tools: Vec<String>,
    /// Progressive discovery, when the file has a `[tool_search]` table.
    pub tool_search: Option<ToolSearch>,
}

/// One server to mount.
#[derive(Debug)]
pub struct ServerConfig {
    pub name: String,
    /// What its tools and prompts are prefixed with (`{prefix}_{name}`);
    /// empty: their own names.
    pub prefix: String,
    pub source: Source,
    /// Given to every tool of the server.
    pub tags: Vec<String>,
    /// What to change about its tools, by their names on the server.
    pub tools: BTreeMap<String, ToolTable>,
}

impl ServerConfig {
    /// The name its tool `tool` is served under.
    pub fn served(&self, tool: &str) -> String {
        if self.prefix.is_empty() {
            tool.to_owned()
        } else {
            format!("{}_{tool}", self.prefix)
        }
    }
}

/// Where a mounted server is.
#[derive(Debug)]
pub enum Source {
    /// A stdio server the chain spawns.
    Command {
        program: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        /// Where it runs (already resolved against the config file's
        /// folder); `None`: where the chain runs.
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint, an OAuth protected resource when
    /// `oauth` is set.
    Url {
        url: String,
        oauth: Option<OAuthSettings>,
    },
}

/// A config file that cannot be used: the sentence to show.
#[derive(Debug)]
pub struct ConfigError(String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// Where to look for the format, at the end of a parse error.
const SEE: &str = "see examples/chain/chain.toml for the format";

/// Reads and checks the config file at `path`.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let file = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|error| ConfigError(format!("cannot read the config file {file}: {error}")))?;
    let base = path.parent().unwrap_or(Path::new(""));
    parse(&text, &file.to_string(), json(path), base)
}

/// Whether `path` names a JSON file (by its extension).
fn json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("json"))
}

/// Parses `text`, the contents of the file called `file`; relative `cwd`s
/// are resolved against `base`.
pub fn parse(text: &str, file: &str, json: bool, base: &Path) -> Result<Config, ConfigError> {
    // Each server comes with where it is in the file, for the messages.
    let (raw, places): (RawConfig<RawServer>, Vec<String>) = if json {
        let raw: RawConfig<RawServer> = serde_json::from_str(text).map_err(|error| {
            let place = format!("{file} line {}, column {}", error.line(), error.column());
            ConfigError(format!("{place}: {}; {SEE}", json_message(&error)))
        })?;
        let places = (0..raw.servers.len())
            .map(|index| format!("{file}, servers[{index}]"))
            .collect();
        (raw, places)
    } else {
        let raw: RawConfig<toml::Spanned<RawServer>> = toml::from_str(text).map_err(|error| {
            let place = match error.span() {
                Some(span) => format!("{file} {}", line_column(text, span.start)),
                None => file.to_owned(),
            };
            ConfigError(format!("{place}: {}; {SEE}", error.message().trim_end()))
        })?;
        let places = raw
            .servers
            .iter()
            .map(|server| format!("{file} {}", line_of(text, server.span().start)))
            .collect();
        let servers = raw.servers.into_iter().map(toml::Spanned::into_inner);
        let raw = RawConfig {
            servers: servers.collect(),
            blocked_tools: raw.blocked_tools,
            tool_search: raw.tool_search,
        };
        (raw, places)
    };
    check(raw, &places, file, base)
}

/// The file as written: `servers`, `blocked_tools` and `tool_search`,
/// nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig<S> {
    #[serde(default = "Vec::new")]
    servers: Vec<S>,
    #[serde(default)]
    blocked_tools: Vec<String>,
    #[serde(default)]
    tool_search: Option<RawToolSearch>,
}

/// The `[tool_search]` table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawToolSearch {
    #[serde(default)]
    pin: Vec<String>,
    #[serde(default)]
    pin_tags: Vec<String>,
    #[serde(default)]
    max_results: Option<usize>,
    #[serde(default)]
    threshold: Option<usize>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    call_proxy: Option<bool>,
    #[serde(default)]
    proxy_name: Option<String>,
    #[serde(default)]
    instructions: Option<bool>,
}

impl RawToolSearch {
    /// The settings, checked.
    fn settings(self) -> Result<ToolSearch, String> {
        if let Some(index) = self.pin.iter().position(|name| name.is_empty()) {
            return Err(format!(
                "`pin[{index}]` is empty: name a tool as the chain serves it, or remove it"
            ));
        }
        if let Some(index) = self.pin_tags.iter().position(|tag| tag.trim().is_empty()) {
            return Err(format!(
                "`pin_tags[{index}]` is empty: write the tag, or remove it"
            ));
        }
        if self.max_results == Some(0) {
            return Err("`max_results = 0` would find nothing: give 1 or more".into());
        }
        for (key, name) in [("name", &self.name), ("proxy_name", &self.proxy_name)] {
            if let Some(name) = name
                && !valid_tool_name(name)
            {
                return Err(format!(
                    "`{key} = {name:?}` is not a tool name: use 1 to 64 letters, digits, `_`, `-` or `.`"
                ));
            }
        }
        if self.name.is_some() && self.name == self.proxy_name {
            return Err(
                "`name` and `proxy_name` are the same: the search tool and the proxy need names of their own"
                    .into(),
            );
        }
        let mut search = ToolSearch::new().pin(self.pin).pin_tags(self.pin_tags);
        if let Some(results) = self.max_results {
            search = search.max_results(results);
        }
        if let Some(tools) = self.threshold {
            search = search.threshold(tools);
        }
        if let Some(name) = self.name {
            search = search.name(name);
        }
        if let Some(on) = self.call_proxy {
            search = search.call_proxy(on);
        }
        if let Some(name) = self.proxy_name {
            search = search.proxy_name(name);
        }
        if let Some(on) = self.instructions {
            search = search.instructions(on);
        }
        Ok(search)
    }
}

/// One `[[servers]]` entry as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    name: String,
    #[serde(default)]
    command: Option<CommandLine>,
    #[serde(default)]
    args: Option<Vec<String>>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    prefix: Option<String>,
    #[serde(default)]
    env: Option<BTreeMap<String, String>>,
    #[serde(default)]
    cwd: Option<PathBuf>,
    #[serde(default)]
    oauth: Option<RawOAuth>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    tools: BTreeMap<String, ToolTable>,
}

/// A server's `oauth` table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOAuth {
    #[serde(default)]
    grant: Option<String>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    client_secret_env: Option<String>,
    #[serde(default)]
    scopes: Option<Vec<String>>,
    #[serde(default)]
    metadata_document: Option<String>,
    #[serde(default)]
    token_store: Option<PathBuf>,
    #[serde(default)]
    redirect_uri: Option<String>,
    #[serde(default)]
    open_browser: Option<bool>,
}

impl RawOAuth {
    /// The settings, checked; a relative `token_store` is taken from `base`.
    fn settings(self, base: &Path) -> Result<OAuthSettings, String> {
        let in_oauth = |setting: &str| format!("`oauth.{setting}`");
        let client_secret = match (self.client_secret, self.client_secret_env) {
            (Some(_), Some(_)) => {
                return Err(
                    "`oauth` has both `client_secret` and `client_secret_env`: keep one".into(),
                );
            }
            (Some(secret), None) => Some(Secret::Literal(secret)),
            (None, Some(variable)) => Some(Secret::Env(variable)),
            (None, None) => None,
        };
        if self.scopes.as_ref().is_some_and(|scopes| {
            scopes.is_empty()
                || scopes
                    .iter()
                    .any(|scope| scope.is_empty() || scope.contains(' '))
        }) {
            return Err(
                "`oauth.scopes` must list one scope or more, each a word: scopes = [\"issues:read\"]"
                    .into(),
            );
        }
        let settings = OAuthSettings {
            grant: self
                .grant
                .map(|grant| Grant::parse(&grant))
                .transpose()
                .map_err(|e| format!("`oauth.grant`: {e}"))?,
            client_id: self.client_id,
            client_secret,
            scopes: self.scopes,
            metadata_document: self.metadata_document,
            token_store: self.token_store.map(|path| absolute(&base.join(path))),
            redirect_uri: self.redirect_uri,
            open_browser: self.open_browser.unwrap_or(true),
        };
        settings.check(in_oauth)?;
        Ok(settings)
    }
}

/// `command`: a string (the program) or an array (the program and its
/// arguments).
enum CommandLine {
    Program(String),
    Words(Vec<String>),
}

impl<'de> Deserialize<'de> for CommandLine {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Expect;

        impl<'de> Visitor<'de> for Expect {
            type Value = CommandLine;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a string (the program) or an array of strings (the program and its arguments)",
                )
            }

            fn visit_str<E: de::Error>(self, program: &str) -> Result<CommandLine, E> {
                Ok(CommandLine::Program(program.to_owned()))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CommandLine, A::Error> {
                let mut words = Vec::new();
                while let Some(word) = seq.next_element::<String>()? {
                    words.push(word);
                }
                Ok(CommandLine::Words(words))
            }
        }

        deserializer.deserialize_any(Expect)
    }
}

/// The checks the format cannot make: each server has a command or a URL,
/// names are unique, prefixes can prefix a tool name.
fn check(
    raw: RawConfig<RawServer>,
    places: &[String],
    file: &str,
    base: &Path,
) -> Result<Config, ConfigError> {
    if raw.servers.is_empty() {
        return Err(ConfigError(format!(
            "{file} names no server: add a `[[servers]]` table with a `name` and a `command` or a `url` ({SEE})"
        )));
    }
    let mut servers: Vec<ServerConfig> = Vec::new();
    for (server, place) in raw.servers.into_iter().zip(places) {
        let name = server.name.clone();
        let fail = |problem: String| ConfigError(format!("{place} (server `{name}`): {problem}"));
        if !valid_prefix(&name) || name.is_empty() {
            return Err(fail(
                "`name` must be 1 to 32 letters, digits, `_`, `-` or `.`: rename it".into(),
            ));
        }
        if let Some(first) = servers.iter().find(|seen| seen.name == name) {
            return Err(fail(format!(
                "another server is called `{}` already: give each server its own `name`",
                first.name
            )));
        }
        let prefix = server.prefix.unwrap_or_else(|| name.clone());
        if !valid_prefix(&prefix) {
            return Err(fail(format!(
                "`prefix = {prefix:?}` cannot start a tool name: use at most 32 letters, digits, `_`, `-` or `.` (or \"\" for no prefix)"
            )));
        }
        if server.tags.iter().any(|tag| tag.trim().is_empty()) {
            return Err(fail(
                "`tags` has an empty tag: remove it, or write the tag".into(),
            ));
        }
        for (tool, table) in &server.tools {
            table.check(tool, &format!("tools.{tool}")).map_err(&fail)?;
        }
        let source = match (server.command, server.url) {
            (Some(_), Some(_)) => {
                return Err(fail(
                    "it has both `command` and `url`: keep the one that says where the server is"
                        .into(),
                ));
            }
            (None, None) => {
                return Err(fail(
                    "it has neither `command` (a stdio server to spawn) nor `url` (a Streamable HTTP endpoint): add one"
                        .into(),
                ));
            }
            (None, Some(url)) => {
                let oauth = server
                    .oauth
                    .map(|oauth| oauth.settings(base))
                    .transpose()
                    .map_err(&fail)?;
                if server.args.is_some() || server.env.is_some() || server.cwd.is_some() {
                    return Err(fail(
                        "`args`, `env` and `cwd` apply to a `command`, not to a `url`: remove them"
                            .into(),
                    ));
                }
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(fail(format!(
                        "`url = {url:?}` is not an http:// or https:// URL: give the server's MCP endpoint, such as \"http://127.0.0.1:8000/mcp\""
                    )));
                }
                Source::Url { url, oauth }
            }
            (Some(command), None) => {
                if server.oauth.is_some() {
                    return Err(fail(
                        "`oauth` applies to a `url` server (OAuth protects HTTP servers), not to a `command`: remove it".into(),
                    ));
                }
                let (program, mut args) = match command {
                    CommandLine::Program(program) => (program, Vec::new()),
                    CommandLine::Words(mut words) => {
                        if words.is_empty() {
                            (String::new(), words)
                        } else {
                            let program = words.remove(0);
                            (program, words)
                        }
                    }
                };
                if program.trim().is_empty() {
                    return Err(fail(
                        "`command` is empty: name the program to run, such as command = [\"python3\", \"server.py\"]".into(),
                    ));
                }
                args.extend(server.args.unwrap_or_default());
                let cwd = server.cwd.map(|cwd| absolute(&base.join(cwd)));
                // A relative path to the program is taken from where it
                // runs; a bare name is looked up on PATH.
                let program = if program.contains('/') && Path::new(&program).is_relative() {
                    let from = cwd.clone().unwrap_or_else(|| absolute(base));
                    from.join(&program).display().to_string()
                } else {
                    program
                };
                Source::Command {
                    program,
                    args,
                    env: server.env.unwrap_or_default(),
                    cwd,
                }
            }
        };
        servers.push(ServerConfig {
            name,
            prefix,
            source,
            tags: server.tags,
            tools: server.tools,
        });
    }
    if let Some(index) = raw.blocked_tools.iter().position(|tool| tool.is_empty()) {
        return Err(ConfigError(format!(
            "{file}, blocked_tools[{index}]: an empty tool name blocks nothing: remove it, or name a tool as the chain serves it (prefix included)"
        )));
    }
    let tool_search = raw
        .tool_search
        .map(RawToolSearch::settings)
        .transpose()
        .map_err(|problem| ConfigError(format!("{file}, [tool_search]: {problem}")))?;
    Ok(Config {
        servers,
        blocked_tools: raw.blocked_tools,
        tool_search,
    })
}

/// A prefix (or a name) that can start a tool name: the protocol allows
/// `[A-Za-z0-9_.-]`, and leaves room for the tool's own name.
fn valid_prefix(prefix: &str) -> bool {
    prefix.len() <= 32
        && prefix
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// `path` from the root, without `..` where it exists (relative paths
/// are taken from where the chain runs).
fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_owned())
}

/// "line L" of a byte offset in `text`.
fn line_of(text: &str, offset: usize) -> String {
    let before = &text[..offset.min(text.len())];
    format!("line {}", before.matches('\n').count() + 1)
}

/// serde_json's message without its " at line L column C" (said first).
fn json_message(error: &serde_json::Error) -> String {
    let message = error.to_string();
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message,
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
