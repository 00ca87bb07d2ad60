//! The JSON-RPC error a layer answers with, and how any error a layer
//! returns becomes the error the client is sent.

use std::error::Error as StdError;
use std::fmt;

use serde_json::Value;
use tower::BoxError;

use crate::jsonrpc::{self, ErrorObject, RequestId};

/// A JSON-RPC error: what the client receives when a layer (or the request
/// itself) fails with it.
///
/// Return it boxed as the error of a layer's service (`Err(McpError::..
/// .into())`): the client is sent its code, message and data as they are.
/// Any other error is answered `-32603 "internal error"` and logged, never
/// sent, except tower's own: `Elapsed` (from `TimeoutLayer`) is answered
/// [`McpError::REQUEST_TIMEOUT`], `Overloaded` (from `LoadShedLayer`)
/// [`McpError::SERVER_OVERLOADED`].
///
/// ```
/// use mcp_runtime::middleware::McpError;
/// use mcp_runtime::serde_json::json;
///
/// let refused = McpError::invalid_params("`city` must not be empty")
///     .with_data(json!({ "argument": "city" }));
/// assert_eq!(refused.code(), -32602);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct McpError {
    code: i32,
    message: String,
    data: Option<Value>,
}

impl McpError {
    /// -32600: the request is not acceptable as sent.
    pub const INVALID_REQUEST: i32 = jsonrpc::INVALID_REQUEST;
    /// -32601: the method does not exist.
    pub const METHOD_NOT_FOUND: i32 = jsonrpc::METHOD_NOT_FOUND;
    /// -32602: the params are invalid.
    pub const INVALID_PARAMS: i32 = jsonrpc::INVALID_PARAMS;
    /// -32603: the server failed.
    pub const INTERNAL_ERROR: i32 = jsonrpc::INTERNAL_ERROR;
    /// -32002: the resource does not exist.
    pub const RESOURCE_NOT_FOUND: i32 = jsonrpc::RESOURCE_NOT_FOUND;
    /// -32001: the request took longer than a layer allowed (the code the
    /// MCP SDKs use for a request timeout).
    pub const REQUEST_TIMEOUT: i32 = -32001;
    /// -32000: the server refused the request for lack of capacity.
    pub const SERVER_OVERLOADED: i32 = -32000;

    /// An error with this code and message.
    pub fn new(code: i32, message: impl Into<String>) -> McpError {
        McpError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// -32602, invalid params.
    pub fn invalid_params(message: impl Into<String>) -> McpError {
        McpError::new(Self::INVALID_PARAMS, message)
    }

    /// -32600, invalid request: also what to refuse a request with that the
    /// caller may not make (a policy, a rate limit).
    pub fn invalid_request(message: impl Into<String>) -> McpError {
        McpError::new(Self::INVALID_REQUEST, message)
    }

    /// -32603, with a message of your own (unlike an error that is not an
    /// `McpError`, whose text is never sent).
    pub fn internal(message: impl Into<String>) -> McpError {
        McpError::new(Self::INTERNAL_ERROR, message)
    }

    /// The same error, with `data`.
    pub fn with_data(mut self, data: Value) -> McpError {
        self.data = Some(data);
        self
    }

    /// The code.
    pub fn code(&self) -> i32 {
        self.code
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The data, if any.
    pub fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON-RPC error {}: {}", self.code, self.message)
    }
}

impl StdError for McpError {}

impl From<ErrorObject> for McpError {
    fn from(error: ErrorObject) -> McpError {
        McpError {
            code: error.code,
            message: error.message,
            data: error.data,
        }
    }
}

impl From<McpError> for ErrorObject {
    fn from(error: McpError) -> ErrorObject {
        ErrorObject {
            code: error.code,
            message: error.message,
            data: error.data,
        }
    }
}

/// What the client is sent for the error a request's layers returned: an
/// [`McpError`] as it is (wrapped in other errors too), tower's timeout
/// and overload as such, anything else as "internal error", logged.
pub(crate) fn error_object(error: BoxError, method: &str, id: &RequestId) -> ErrorObject {
    let mut cause: Option<&(dyn StdError + 'static)> = Some(&*error);
    while let Some(current) = cause {
        if let Some(error) = current.downcast_ref::<McpError>() {
            return error.clone().into();
        }
        if current.is::<tower::timeout::error::Elapsed>() {
            return ErrorObject::new(McpError::REQUEST_TIMEOUT, "request timed out");
        }
        if current.is::<tower::load_shed::error::Overloaded>() {
            return ErrorObject::new(
                McpError::SERVER_OVERLOADED,
                "server overloaded; try again later",
            );
        }
        cause = current.source();
    }
    tracing::error!(%method, %id, %error, "a middleware layer failed; answered \"internal error\"");
    ErrorObject::new(jsonrpc::INTERNAL_ERROR, "internal error")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id() -> RequestId {
        RequestId::parse(&serde_json::value::RawValue::from_string("7".into()).unwrap()).unwrap()
    }

    #[test]
    fn errors_become_what_the_client_is_sent() {
        let mine = McpError::invalid_params("no").with_data(serde_json::json!({"a": 1}));
        assert_eq!(
            error_object(mine.clone().into(), "tools/call", &id()),
            ErrorObject::from(mine)
        );
        let elapsed: BoxError = tower::timeout::error::Elapsed::new().into();
        let answer = error_object(elapsed, "tools/call", &id());
        assert_eq!(
            (answer.code, answer.message.as_str()),
            (-32001, "request timed out")
        );
        let overloaded: BoxError = tower::load_shed::error::Overloaded::new().into();
        assert_eq!(error_object(overloaded, "ping", &id()).code, -32000);
        // Anything else is never sent as it is.
        let secret: BoxError = "database password is hunter2".into();
        let answer = error_object(secret, "ping", &id());
        assert_eq!(
            (answer.code, answer.message.as_str()),
            (-32603, "internal error")
        );
    }

    #[test]
    fn an_mcp_error_wrapped_in_another_is_found() {
        #[derive(Debug)]
        struct Wrapper(McpError);
        impl fmt::Display for Wrapper {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("wrapped")
            }
        }
        impl StdError for Wrapper {
            fn source(&self) -> Option<&(dyn StdError + 'static)> {
                Some(&self.0)
            }
        }
        let wrapped = Wrapper(McpError::new(-32050, "slow down"));
        let answer = error_object(Box::new(wrapped), "ping", &id());
        assert_eq!(
            (answer.code, answer.message.as_str()),
            (-32050, "slow down")
        );
    }
}
