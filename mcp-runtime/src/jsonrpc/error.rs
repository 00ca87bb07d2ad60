//! JSON-RPC error codes and error objects.

use serde::{Deserialize, Serialize};

pub(crate) const PARSE_ERROR: i32 = -32700;
pub(crate) const INVALID_REQUEST: i32 = -32600;
pub(crate) const METHOD_NOT_FOUND: i32 = -32601;
pub(crate) const INVALID_PARAMS: i32 = -32602;
pub(crate) const INTERNAL_ERROR: i32 = -32603;
/// The legacy era's "Resource not found" (MCP, not JSON-RPC).
pub(crate) const RESOURCE_NOT_FOUND: i32 = -32002;

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ErrorObject {
    pub code: i32,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl ErrorObject {
    pub(crate) fn new(code: i32, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub(crate) fn with_data(mut self, data: serde_json::Value) -> Self {
        self.data = Some(data);
        self
    }

    /// -32021 (2026-07-28): the request needs `capability` (dotted, as
    /// `sampling.tools`), which its client did not declare;
    /// `data.requiredCapabilities` is a `ClientCapabilities` object naming
    /// it (`{"sampling": {"tools": {}}}`).
    pub(crate) fn missing_capability(capability: &str) -> Self {
        let path: Vec<&str> = capability.split('.').collect();
        ErrorObject::missing_capability_at(
            &path,
            format!(
                "Missing required client capability: this request needs `{capability}`, which \
                 its client did not declare in \"io.modelcontextprotocol/clientCapabilities\""
            ),
        )
    }

    /// -32021 with `message`, for the capability at `path` in a
    /// `ClientCapabilities` object (each part a key as it is, dots
    /// included: `["extensions", "io.modelcontextprotocol/tasks"]`).
    pub(crate) fn missing_capability_at(path: &[&str], message: String) -> Self {
        let mut required = serde_json::json!({});
        let mut at = &mut required;
        for part in path {
            at = &mut at[*part];
            *at = serde_json::json!({});
        }
        ErrorObject::new(MISSING_CLIENT_CAPABILITY, message)
            .with_data(serde_json::json!({ "requiredCapabilities": required }))
    }

    /// A message over the size limit (a line on stdio, a body on HTTP).
    pub(crate) fn too_large(limit_bytes: usize) -> Self {
        ErrorObject::new(INVALID_REQUEST, "message too large")
            .with_data(serde_json::json!({ "limitBytes": limit_bytes }))
    }
}

/// 2026-07-28: an HTTP header does not match the body it came with.
#[cfg(any(feature = "http", feature = "client"))]
pub(crate) const HEADER_MISMATCH: i32 = -32020;
/// 2026-07-28: the request needs a capability its client did not declare.
pub(crate) const MISSING_CLIENT_CAPABILITY: i32 = -32021;
/// 2026-07-28: the request names a protocol version the server does not
/// serve.
pub(crate) const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
