//! A long-running tool: `weather_report` goes over every city, one at a
//! time, and takes a few seconds. `task = "optional"` lets a client that
//! knows tasks start it as one: the call is answered at once with a task
//! id, and the client polls the task, fetches its result or cancels it.
//! Without a task it is an ordinary (slow) call. The body is the same
//! either way: progress, cancellation and errors work as in any tool.

use std::time::Duration;

use mcp_runtime::{Context, State, tool};
use schemars::JsonSchema;
use serde::Serialize;

use crate::data::{Condition, WeatherDb};
use crate::tools::{DEFAULT_DAYS, MAX_DAYS};

/// The time one city takes: a stand-in for a slow backend.
const PER_CITY: Duration = Duration::from_millis(100);

/// The outlook of every city over the next days.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Report {
    /// Days covered, starting today.
    #[schemars(range(min = 1, max = MAX_DAYS))]
    pub days: u8,
    /// One entry per city, in alphabetical order.
    pub cities: Vec<Outlook>,
    /// The city with the highest temperature of the period.
    pub warmest: String,
    /// The city with the lowest temperature of the period.
    pub coldest: String,
}

/// One city's outlook, in °C.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Outlook {
    /// The city, as spelled in the data set.
    pub city: String,
    /// The highest temperature of the period.
    pub high: f64,
    /// The lowest temperature of the period.
    pub low: f64,
    /// Days with rain, snow or a thunderstorm.
    pub wet_days: u8,
}

/// Report on the weather of every city over the next days: each city's
/// highest and lowest temperature and its wet days, and the warmest and
/// coldest city.
///
/// Slow (a few seconds): clients that support tasks may run it as one.
#[tool(title = "Weather report", read_only, idempotent, task = "optional", scopes = ["weather:read"])]
async fn weather_report(
    /// Number of days, 1 to 7 (default 3).
    #[schemars(range(min = 1, max = 7))]
    days: Option<u8>,
    db: State<WeatherDb>,
    ctx: Context,
) -> Report {
    let days = days.unwrap_or(DEFAULT_DAYS).clamp(1, MAX_DAYS);
    let cities = db.cities();
    let mut outlooks = Vec::with_capacity(cities.len());
    for (done, city) in cities.iter().enumerate() {
        // A cancelled call or task is dropped at an await such as this one:
        // nothing more to do to stop when the client cancels.
        tokio::time::sleep(PER_CITY).await;
        let weather: Vec<_> = (0..days).map(|day| city.weather(day)).collect();
        outlooks.push(Outlook {
            city: city.name.to_owned(),
            high: weather.iter().map(|w| w.high_c).fold(f64::MIN, f64::max),
            low: weather.iter().map(|w| w.low_c).fold(f64::MAX, f64::min),
            wet_days: weather.iter().filter(|w| is_wet(w.condition)).count() as u8,
        });
        ctx.progress(
            (done + 1) as f64,
            Some(cities.len() as f64),
            Some(city.name),
        );
    }
    let warmest = outlooks.iter().max_by(|a, b| a.high.total_cmp(&b.high));
    let coldest = outlooks.iter().min_by(|a, b| a.low.total_cmp(&b.low));
    let name = |outlook: Option<&Outlook>| outlook.map(|o| o.city.clone()).unwrap_or_default();
    Report {
        days,
        warmest: name(warmest),
        coldest: name(coldest),
        cities: outlooks,
    }
}

fn is_wet(condition: Condition) -> bool {
    matches!(
        condition,
        Condition::Rain | Condition::Snow | Condition::Thunderstorm
    )
}
