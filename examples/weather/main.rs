//! A weather server: forecasts, current conditions and city search for 36
//! cities, from an embedded sample data set (invented weather, no network).
//!
//! Run it with `cargo run --example weather`; `RUST_LOG=debug` shows every request on stderr.

mod data;
mod tools;

use mcp_runtime::Server;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    // Logs go to stderr: stdout carries the protocol.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();

    Server::new("weather", env!("CARGO_PKG_VERSION"))
        .instructions(
            "Weather for 36 large cities (sample data). Use search_cities to find a city's \
             exact name, then get_forecast or current_conditions.",
        )
        .state(data::WeatherDb::sample())
        .serve_stdio()
        .await
}
