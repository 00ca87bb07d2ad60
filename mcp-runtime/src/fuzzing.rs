//! Not public API: hooks for the fuzz targets under `fuzz/`, which reach
//! the framing and parsing code that the public API only exposes through a
//! whole connection. May change or disappear in any release.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::dispatch::ServerCore;
use crate::jsonrpc::{self, Line, Message};
use crate::registry::error::RegistryError;
use crate::schema::arguments::ArgumentValidator;
use crate::server::Server;
use crate::testing::TestClient;

/// Splits `input` into lines exactly as the stdio transport does, reading it
/// through a buffer of `buffer` bytes (at least 1) with a size limit of
/// `max` bytes. `None` stands for a line that was over the limit (skipped).
#[doc(hidden)]
pub fn split_lines(input: &[u8], buffer: usize, max: usize) -> Vec<Option<Vec<u8>>> {
    let mut lines = Vec::new();
    crate::transport::stdio::read_blocks(input, buffer.max(1), max, |incoming| {
        crate::dispatch::for_each_line(&incoming, max, |line| {
            lines.push(line.map(<[u8]>::to_vec));
        });
        true
    });
    lines
}

/// How the server classifies one line, with ids as their raw JSON text.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Classified {
    /// Only whitespace: ignored.
    Blank,
    /// Answered -32700.
    ParseError,
    /// A request: answered once with this id.
    Request {
        /// The id, as sent.
        id: String,
        /// The method.
        method: String,
    },
    /// A notification: never answered.
    Notification {
        /// The method.
        method: String,
    },
    /// A response from the client: ignored.
    Response,
    /// Answered -32600 with this id (`None`: `null`).
    Invalid {
        /// The id, when it could be read.
        id: Option<String>,
    },
    /// A JSON array, its items classified one by one.
    Batch(Vec<Classified>),
}

/// Classifies one line (without its newline) as the connection does.
#[doc(hidden)]
pub fn classify_line(line: &[u8]) -> Classified {
    match jsonrpc::parse_line(line) {
        Line::Blank => Classified::Blank,
        Line::ParseError => Classified::ParseError,
        Line::Single(message) => summarize(message),
        Line::Batch(items) => Classified::Batch(
            items
                .into_iter()
                .map(|item| summarize(jsonrpc::classify(item)))
                .collect(),
        ),
    }
}

fn summarize(message: Message<'_>) -> Classified {
    match message {
        Message::Request { id, method, .. } => Classified::Request {
            id: id.as_json().to_owned(),
            method: method.into_owned(),
        },
        Message::Notification { method, .. } => Classified::Notification {
            method: method.into_owned(),
        },
        Message::Response { .. } => Classified::Response,
        Message::Invalid { id, .. } => Classified::Invalid {
            id: id.map(|id| id.as_json().to_owned()),
        },
    }
}

/// A tool input schema compiled as the registry compiles it.
#[doc(hidden)]
pub struct InputSchema(ArgumentValidator);

impl InputSchema {
    /// Compiles `schema`; `Err` says why it is not usable.
    pub fn compile(schema: &Map<String, Value>) -> Result<InputSchema, String> {
        ArgumentValidator::new(schema).map(InputSchema)
    }

    /// The validator's verdict on `arguments` for the tool named `tool`;
    /// `Err` holds the text of the `isError` result.
    pub fn validate(&self, tool: &str, arguments: &Value) -> Result<(), String> {
        self.0.validate(tool, arguments)
    }
}

/// A server built once (tools collected, schemas generated, validators
/// compiled), to connect to many times.
#[doc(hidden)]
pub struct Prepared(Arc<ServerCore>);

/// Builds `server` once.
#[doc(hidden)]
pub fn prepare(server: Server) -> Result<Prepared, RegistryError> {
    Ok(Prepared(Arc::new(server.into_core()?)))
}

/// A new connection to a prepared server, not initialized. Must be called
/// inside a Tokio runtime.
#[doc(hidden)]
pub fn connect(prepared: &Prepared) -> TestClient {
    TestClient::start_core(Arc::clone(&prepared.0))
}
