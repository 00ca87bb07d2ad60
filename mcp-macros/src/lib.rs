//! Procedural macros for `mcp-runtime`.
//!
//! This crate is an implementation detail: depend on `mcp-runtime` and use
//! `mcp_runtime::tool`. The generated code names runtime items only through
//! `::mcp_runtime::__private`, so it works wherever `mcp-runtime` is a
//! dependency, and nothing else of ours needs to be.

mod expand;
mod parse;

use proc_macro::TokenStream;

/// Turns an `async fn` (or a plain `fn`) into a registered MCP tool.
///
/// See the `mcp_runtime::tool` documentation for the full reference.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let attr = proc_macro2::TokenStream::from(attr);
    let item = proc_macro2::TokenStream::from(item);
    expand::tool(attr, item).into()
}
