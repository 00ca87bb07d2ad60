//! JSON Schemas: generating them from Rust types and shaping them for real
//! clients (`generate`), and checking arguments against them (`validator`,
//! wrapped for tool calls by `arguments`).

pub(crate) mod arguments;
pub(crate) mod generate;
pub(crate) mod validator;
