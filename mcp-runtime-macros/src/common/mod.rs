//! What the attributes share: error accumulation, doc comments, the
//! reading of the annotated function and its parameters, attribute keys,
//! lists of strings, type-syntax checks, URI and scope checks, what MCP Apps' `ui` and `view`
//! keys share and pieces of the generated code.

pub mod call;
pub mod docs;
pub mod errors;
pub mod header;
pub mod keys;
pub mod lists;
pub mod params;
pub mod scopes;
pub mod text_args;
pub mod types;
pub mod ui;
pub mod uri;
