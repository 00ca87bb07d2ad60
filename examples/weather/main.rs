//! A weather server: forecasts, current conditions and city search for 36
//! cities, from an embedded sample data set (invented weather, no network).
//!
//! Run it with `cargo run --example weather` (stdio), `cargo run --example
//! weather -- --http 127.0.0.1:8080` (Streamable HTTP at /mcp) or `cargo run
//! --example weather -- --help`; `RUST_LOG=debug` shows every request on stderr.

mod data;
mod tools;

use mcp_runtime::Server;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new("weather", env!("CARGO_PKG_VERSION"))
        .instructions(
            "Weather for 36 large cities (sample data). Use search_cities to find a city's \
             exact name, then get_forecast or current_conditions.",
        )
        .state(data::WeatherDb::sample())
        .run()
        .await
}
