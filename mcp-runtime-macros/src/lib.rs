//! Procedural macros for `mcp-runtime`.
//!
//! This crate is an implementation detail: depend on `mcp-runtime` and use
//! `mcp_runtime::{tool, resource, prompt}`. The generated code names runtime
//! items only through `::mcp_runtime::__private`, so it works wherever
//! `mcp-runtime` is a dependency, and nothing else of ours needs to be.
//!
//! Each attribute is one module with a parse and an expand half; what they
//! share (errors, doc comments, parameters, keys, type checks, generated
//! call code) is in `common`.
//!
//! Every attribute takes `scopes = ["weather:read", ...]`: the OAuth scopes
//! a caller's token must carry to call, read or get the item. Each is
//! checked here as an RFC 6749 scope token (not empty, printable ASCII
//! without spaces, `"` or `\`, none listed twice) and lands in the
//! definition's `scopes` field; nothing is listed to clients, and the
//! runtime's HTTP authorization is what refuses a token without them.
//!
//! A `#[tool]` parameter may carry `#[header("Name")]`: its property in
//! the input schema gets `"x-mcp-header": "Name"`, so 2026-07-28 clients
//! over HTTP mirror it into `Mcp-Param-Name`. The name is checked here as
//! an RFC 9110 token, unique among the tool's parameters ignoring case;
//! the parameter's type is checked with `HeaderParam` (a string, an integer,
//! a bool, or an `Option` of one). `#[resource]` and `#[prompt]` refuse it.
//!
//! MCP Apps: `#[tool(ui = "ui://..", visibility = ..)]` links a tool to its
//! view and `#[resource("ui://..", view(..))]` serves one; the URIs, the
//! visibility values, the CSP origins and the permissions are checked here,
//! and a `meta` that sets the `_meta` keys they write is refused.
//! `view_file!("page.html")` embeds a view's file and names it by its
//! absolute path, which debug builds read on every call.

mod common;
mod elicit;
mod prompt;
mod resource;
mod tool;
mod view_file;

use proc_macro::TokenStream;

/// Turns an `async fn` (or a plain `fn`) into a registered MCP tool.
///
/// Parameters may carry `///` docs, `#[serde(..)]`, `#[schemars(..)]` and
/// `#[header("Name")]` (mirrored into the HTTP header `Mcp-Param-Name`).
/// See the `mcp_runtime::tool` documentation for the full reference.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::tool(attr.into(), item.into()).into()
}

/// Turns an `async fn` (or a plain `fn`) into a registered MCP resource or
/// resource template.
///
/// See the `mcp_runtime::resource` documentation for the full reference.
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    resource::resource(attr.into(), item.into()).into()
}

/// Turns an `async fn` (or a plain `fn`) into a registered MCP prompt.
///
/// See the `mcp_runtime::prompt` documentation for the full reference.
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    prompt::prompt(attr.into(), item.into()).into()
}

/// Derives `mcp_runtime::Elicit` for a struct (a form a tool asks its
/// client's user to fill in), or the choices of a unit-only enum.
///
/// See the `mcp_runtime::Elicit` documentation for the full reference.
#[proc_macro_derive(Elicit, attributes(elicit))]
pub fn derive_elicit(item: TokenStream) -> TokenStream {
    elicit::derive(item.into()).into()
}

/// The HTML of an MCP Apps view from a file, its path relative to the
/// calling source file as with `include_str!`: embedded at compile time,
/// and in debug builds read from disk on every call.
///
/// See the `mcp_runtime::view_file` documentation for the full reference.
#[proc_macro]
pub fn view_file(input: TokenStream) -> TokenStream {
    let caller = proc_macro::Span::call_site().local_file();
    view_file::view_file(input.into(), caller).into()
}
