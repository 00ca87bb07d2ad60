//! A tool whose argument has a pattern the built-in validator does not run
//! (a look-ahead, which `regex-lite` lacks): the server must stop with a
//! sentence naming the tool before it answers anything, however many tools
//! it builds at once (`tests/startup.rs`).

use mcp_runtime::{Server, tool};

/// Checks a code.
#[tool]
async fn check_code(
    /// A code that starts with `x`.
    #[schemars(regex(pattern = r"^(?=x)\w+$"))]
    code: String,
) -> String {
    code
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new("bad-pattern", env!("CARGO_PKG_VERSION"))
        .run()
        .await
}
