//! The tools that ask the client: `subscribe_alerts` asks its user to
//! confirm (elicitation, a form from `#[derive(Elicit)]`), and
//! `summarize_forecast` asks its model for a summary (sampling).
//!
//! Both ask first and act after: in the 2026-07-28 protocol a call that
//! asks runs again from the start with the answers, so nothing before the
//! question may have an effect.

use std::collections::BTreeMap;
use std::sync::Mutex;

use mcp_runtime::{Context, Elicit, Elicited, SamplingRequest, State, tool};
use schemars::JsonSchema;
use serde::Serialize;

use crate::data::WeatherDb;

/// From which level on alerts are sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Elicit, Serialize, JsonSchema)]
#[elicit(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum Level {
    #[elicit(title = "Warnings and emergencies")]
    Warning,
    #[elicit(title = "Emergencies only")]
    Emergency,
}

/// The form `subscribe_alerts` asks the user to fill in.
#[derive(Elicit)]
struct Confirm {
    /// Send severe-weather alerts for this city?
    confirm: bool,
    /// From which level on.
    #[elicit(title = "Alert level", default = Level::Warning)]
    level: Level,
}

/// The alert subscriptions of this server: city to level.
#[derive(Default)]
pub struct Alerts(Mutex<BTreeMap<&'static str, Level>>);

/// What `subscribe_alerts` did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AlertSubscription {
    /// The city, as spelled in the data set.
    pub city: String,
    /// Whether the user confirmed and alerts will be sent.
    pub subscribed: bool,
    /// From which level on, when subscribed.
    pub level: Option<Level>,
}

/// Subscribe to severe-weather alerts for a city, once the user confirms.
///
/// Asks the user (the client must support elicitation); nothing is
/// subscribed if they decline.
#[tool(title = "Subscribe to alerts", idempotent, scopes = ["weather:read"])]
async fn subscribe_alerts(
    /// City name, for example "Paris".
    city: String,
    db: State<WeatherDb>,
    alerts: State<Alerts>,
    ctx: Context,
) -> Result<AlertSubscription, String> {
    let city = db.lookup(&city).map_err(|e| e.to_string())?;
    let question = format!(
        "Send severe-weather alerts for {}, {}?",
        city.name, city.country
    );
    let answer = ctx
        .elicit::<Confirm>(question)
        .await
        .map_err(|e| format!("Could not ask the user: {e}"))?;
    let level = match answer {
        Elicited::Accepted(Confirm {
            confirm: true,
            level,
        }) => Some(level),
        Elicited::Accepted(_) | Elicited::Declined | Elicited::Cancelled => None,
    };
    if let (Some(level), Ok(mut alerts)) = (level, alerts.0.lock()) {
        alerts.insert(city.name, level);
    }
    Ok(AlertSubscription {
        city: city.name.to_owned(),
        subscribed: level.is_some(),
        level,
    })
}

/// A forecast summarized by the client's model.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Summary {
    /// The city, as spelled in the data set.
    pub city: String,
    /// The summary, in the model's words.
    pub summary: String,
    /// The model that wrote it.
    pub model: String,
}

/// Summarize a city's forecast in one sentence, written by the client's
/// own model.
///
/// Asks the client's model (the client must support sampling).
#[tool(title = "Summarize a forecast", read_only, scopes = ["weather:read"])]
async fn summarize_forecast(
    /// City name, for example "Paris".
    city: String,
    /// Days to cover, 1 to 7 (default 3).
    #[schemars(range(min = 1, max = 7))]
    days: Option<u8>,
    db: State<WeatherDb>,
    ctx: Context,
) -> Result<Summary, String> {
    let city = db.lookup(&city).map_err(|e| e.to_string())?;
    let days = days.unwrap_or(3).clamp(1, 7);
    let lines: Vec<String> = (0..days)
        .map(|day| {
            let weather = city.weather(day);
            format!(
                "day {day}: {:?}, {} to {} °C, {}% chance of precipitation",
                weather.condition, weather.low_c, weather.high_c, weather.precipitation_chance
            )
        })
        .collect();
    let request = SamplingRequest::new(200)
        .system("You summarize weather forecasts in one short sentence.")
        .user(format!(
            "The forecast for {}, {}:\n{}",
            city.name,
            city.country,
            lines.join("\n")
        ))
        .temperature(0.2);
    let answer = ctx
        .sample(request)
        .await
        .map_err(|e| format!("Could not ask the client's model: {e}"))?;
    Ok(Summary {
        city: city.name.to_owned(),
        summary: answer.text().unwrap_or_default().trim().to_owned(),
        model: answer.model,
    })
}
