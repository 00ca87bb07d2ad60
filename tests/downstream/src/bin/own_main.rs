//! A `main` that returns `std::io::Result<()>` from `serve_stdio` or
//! `serve_http` itself, without `Server::run`, as the README allows: a
//! server that cannot start must still say why, and the fix, in a sentence
//! on stderr (`tests/startup.rs`).
//!
//! `own_main` serves on stdio without the `Notebook` this package's
//! `save_note` takes as `State<Notebook>`; `own_main ADDR` serves HTTP at
//! `ADDR` with it.

use downstream::Notebook;
use mcp_runtime::Server;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let server = Server::new("downstream", env!("CARGO_PKG_VERSION"));
    match std::env::args().nth(1) {
        Some(addr) => server.state(Notebook::default()).serve_http(addr).await,
        None => server.serve_stdio().await,
    }
}
