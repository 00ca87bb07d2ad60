//! This package's tools, linked, but served without the `Notebook` that
//! `save_note` takes as `State<Notebook>`: the server must refuse to start
//! with a sentence naming the tool and the fix, even though `main` returns
//! the error as `std::io::Result` (`tests/startup.rs`).

use downstream as _;
use mcp_runtime::Server;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new("downstream", env!("CARGO_PKG_VERSION"))
        .run()
        .await
}
