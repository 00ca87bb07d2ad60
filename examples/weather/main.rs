//! A weather server: forecasts, current conditions and city search for 36
//! cities, from an embedded sample data set (invented weather, no network).
//!
//! - tools (`tools.rs`): `get_forecast`, `current_conditions`, `search_cities`;
//! - a view (MCP Apps): `get_forecast` links `ui://weather/forecast`
//!   (`resources.rs`), the page `forecast.html`, which hosts that know the
//!   extension render next to the result: a chart of the highs and lows
//!   whose buttons call `get_forecast` again for another city or number of
//!   days; other clients read the forecast as JSON text;
//! - tools that ask the client (`asking.rs`): `subscribe_alerts` asks the
//!   user to confirm (elicitation), `summarize_forecast` asks the client's
//!   model (sampling);
//! - a slow tool (`report.rs`): `weather_report` goes over every city in a
//!   few seconds, with progress; clients that know tasks may run it as one
//!   (`task = "optional"`), then poll it, fetch its result or cancel it;
//! - resources (`resources.rs`): `weather://cities`, the city list as JSON,
//!   and the template `weather://cities/{name}`, one city's data, whose
//!   `name` completes from the city names;
//! - a prompt (`prompts.rs`): `plan_trip`, whose `city` argument completes
//!   from the city names;
//! - a skill (`skills/trip-briefing/`, SEP-2640): instructions that teach a
//!   model to brief a trip with these tools, served as the resources
//!   `skill://weather/trip-briefing/SKILL.md` and its reference file, and
//!   listed by `skills/list`;
//! - a refresh (`refresh.rs`): every 5 seconds (`WEATHER_REFRESH_SECS`
//!   sets another period, `0` turns it off) the current conditions drift,
//!   and clients subscribed to a city's URI get
//!   `notifications/resources/updated`.
//!
//! Run it with `cargo run --example weather` (stdio), `cargo run --example
//! weather -- --http 127.0.0.1:8080` (Streamable HTTP at /mcp) or `cargo run
//! --example weather -- --help`; `RUST_LOG=debug` shows every request on stderr.
//! Every tool, resource and prompt declares the scope `weather:read`, which
//! counts only with OAuth on (`cargo run --example weather --features auth --
//! --http ADDR --auth-issuer URL --auth-audience URI`; the README's "Securing
//! an HTTP server" walks through it).

mod asking;
mod data;
mod prompts;
mod refresh;
mod report;
mod resources;
mod tools;

use std::sync::Arc;

use mcp_runtime::Server;
use mcp_runtime::skills::Skill;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let db = Arc::new(data::WeatherDb::sample());
    let mut server = Server::new("weather", env!("CARGO_PKG_VERSION"))
        .instructions(
            "Weather for 36 large cities (sample data). Use search_cities to find a city's \
             exact name, then get_forecast or current_conditions. The resource \
             weather://cities lists the cities with the URI of each one's data \
             (weather://cities/{name}); current conditions are refreshed every few seconds, \
             and a subscription to a city's URI announces each refresh. get_forecast links \
             the view ui://weather/forecast, a chart that MCP Apps hosts show with its \
             result. The prompt plan_trip \
             plans a trip to a city around its forecast. subscribe_alerts asks the user to \
             confirm; summarize_forecast asks your model for a one-sentence summary. \
             weather_report covers every city and takes a few seconds: run it as a task \
             if you can. The skill skill://weather/trip-briefing/SKILL.md explains how to \
             brief a trip with these tools.",
        )
        .skill(Skill::from_files(
            "weather/trip-briefing",
            [
                ("SKILL.md", include_str!("skills/trip-briefing/SKILL.md")),
                (
                    "references/briefing-template.md",
                    include_str!("skills/trip-briefing/references/briefing-template.md"),
                ),
            ],
        ))
        .shared_state(Arc::clone(&db))
        .state(asking::Alerts::default());
    if let Some(period) = refresh::period()? {
        tokio::spawn(refresh::every(period, db, server.notifier()));
    }
    server.run().await
}
