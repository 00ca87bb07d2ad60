//! A JSON-RPC error as the test client receives it.

use std::fmt;

use serde_json::Value;

/// A JSON-RPC error answered by the server.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    /// The error code, for example -32602.
    pub code: i64,
    /// The message.
    pub message: String,
    /// Optional data.
    pub data: Option<Value>,
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON-RPC error {}: {}", self.code, self.message)
    }
}

impl std::error::Error for RpcError {}

/// The `result` of a response, or its `error`.
pub(super) fn into_result(mut message: Value) -> Result<Value, RpcError> {
    if let Some(error) = message.get_mut("error") {
        return Err(RpcError {
            code: error["code"].as_i64().unwrap_or_default(),
            message: error["message"].as_str().unwrap_or_default().to_owned(),
            data: error.get("data").cloned(),
        });
    }
    Ok(message
        .get_mut("result")
        .map(Value::take)
        .unwrap_or_default())
}
