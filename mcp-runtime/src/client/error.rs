//! What a client call can fail with.

use serde_json::Value;

/// Why a client call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("the server answered error {code}: {message}")]
    Rpc {
        /// The error code (-32601: method not found, -32602: invalid params…).
        code: i32,
        /// The server's message.
        message: String,
        /// The error's `data`, if any.
        data: Option<Value>,
    },
    /// The connection is closed (the server exited, or [`Client::close`]
    /// was called) before an answer came.
    ///
    /// [`Client::close`]: crate::client::Client::close
    #[error("the connection to the server is closed")]
    Closed,
    /// No answer within the request timeout; the request was cancelled.
    #[error("the server did not answer within the timeout")]
    Timeout,
    /// The server answered `initialize` with a protocol version this client
    /// does not know.
    #[error("the server speaks protocol version {0:?}, which this client does not know")]
    UnsupportedVersion(String),
    /// The server's answer does not have the shape the protocol gives it.
    #[error("the server's answer to {method} is malformed: {reason}")]
    InvalidResponse {
        /// The method whose answer it was.
        method: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The arguments given could not be serialized to JSON.
    #[error("the arguments could not be serialized: {0}")]
    InvalidArguments(serde_json::Error),
    /// The HTTP server refused a message with this status (401 or 403:
    /// missing or insufficient credentials, with the server's
    /// `WWW-Authenticate` challenge).
    #[error("the HTTP server answered {status}: {message}")]
    Http {
        /// The HTTP status code.
        status: u16,
        /// What the server said (its JSON-RPC error message, or its body).
        message: String,
        /// The `WWW-Authenticate` header of a 401 or 403.
        www_authenticate: Option<String>,
    },
    /// OAuth could not obtain a token the server accepts (discovery,
    /// registration, authorization or the token request failed, a check
    /// refused a document, or step-up reached its limit).
    #[error(transparent)]
    OAuth(#[from] crate::client::oauth::OAuthError),
    /// The answer to this call was lost on the way: an HTTP answer stream
    /// dropped and could not be resumed, or the server answered the
    /// request's POST without a response. The server may have run the call.
    #[error("the connection to the server was lost before the answer came: {0}")]
    ConnectionLost(String),
    /// The server could not be started, or writing to it failed.
    #[error("transport error: {0}")]
    Io(#[from] std::io::Error),
}

impl ClientError {
    /// The JSON-RPC error code, for [`ClientError::Rpc`].
    pub fn code(&self) -> Option<i32> {
        match self {
            ClientError::Rpc { code, .. } => Some(*code),
            _ => None,
        }
    }
}
