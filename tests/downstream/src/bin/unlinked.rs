//! A newcomer's first binary: the README's `main`, word for word, in a crate
//! whose tools are in a library it never names (this package's own, and
//! `extra`). Nothing links them, so the server has no tools and must say so
//! on stderr, with the fix, on its first run (`tests/startup.rs`).

use mcp_runtime::Server;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new("weather", env!("CARGO_PKG_VERSION"))
        .run()
        .await
}
