//! Who called a tool, in words a test can compare.

use mcp_runtime::Context;

/// The token behind the call as `subject client [scopes]` (`-` for a token
/// that names no client), or `nobody` for a call without one: the answer
/// of the `whoami` tools of the OAuth tests.
pub fn caller(ctx: &Context) -> String {
    match ctx.auth() {
        Some(who) => format!(
            "{} {} [{}]",
            who.subject(),
            who.client_id().unwrap_or("-"),
            who.scopes().join(" ")
        ),
        None => "nobody".to_owned(),
    }
}
