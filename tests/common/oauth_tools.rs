//! The tools of the protected server that tests/common/oauth_server.rs
//! starts for the client OAuth tests (tests/client_oauth.rs,
//! tests/client_oauth_refusals.rs): a read, an admin-only call, and one
//! that needs a scope nobody is granted.
//!
//! Not a module of `common/mod.rs`: a `#[tool]` is served by every binary
//! that compiles it, and most tests list their tools exactly. A test that
//! starts the protected server includes the file:
//! `#[path = "common/oauth_tools.rs"] mod oauth_tools;`.

use mcp_runtime::tool;

/// The weather in a city.
#[tool(read_only, scopes = ["weather:read"])]
async fn forecast(city: String) -> String {
    format!("sunny in {city}")
}

/// Wipes everything.
#[tool(destructive, scopes = ["admin"])]
async fn wipe() -> String {
    "wiped".into()
}

/// Needs a scope nobody is granted.
#[tool(scopes = ["never"])]
async fn forbidden() -> String {
    "unreachable".into()
}
