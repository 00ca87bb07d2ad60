//! JSON-RPC 2.0 framing: classifying incoming messages (`parse`, borrowing
//! from the line, with the params of `tools/call` read in the same pass by
//! `call_params`; ids kept as their raw JSON text so they are echoed
//! exactly, in `id`) and writing responses and notifications (`write`), and
//! the client's requests.

pub(crate) mod call_params;
pub(crate) mod error;
mod id;
mod parse;
pub(crate) mod text;
mod write;

#[cfg(any(feature = "http", feature = "client"))]
pub(crate) use self::error::HEADER_MISMATCH;
#[cfg(feature = "client")]
pub(crate) use self::error::MISSING_CLIENT_CAPABILITY;
pub(crate) use self::error::{
    ErrorObject, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
    RESOURCE_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION,
};
pub use self::id::RequestId;
pub(crate) use self::id::{InstanceTag, canonical_id};
pub(crate) use self::parse::{Failed, Line, Message, classify, outcome, parse_line};
#[cfg(feature = "client")]
pub(crate) use self::parse::{MAX_DEPTH, nesting_exceeds};
#[cfg(feature = "http")]
pub(crate) use self::write::{is_response, is_unaddressed_error};
pub(crate) use self::write::{result_offset, write_request};
pub(crate) use self::write::{write_error, write_notification, write_result, write_result_with};
