//! The weather prompt: a trip plan for one city. `#[prompt]` turns the
//! parameters into the prompt's arguments (their `///` docs describe them;
//! an `Option` is not required) and `#[complete]` makes clients offer the
//! city names as the user types.

use mcp_runtime::{Content, PromptMessage, State, prompt, serde_json};

use crate::data::WeatherDb;
use crate::resources::{city_uri, report};
use crate::tools::WeatherError;

/// Days in a trip when the user gives none, and at most (the forecast's
/// length).
const DEFAULT_DAYS: u8 = 3;
const MAX_DAYS: u8 = 7;

/// Plan a trip to a city around its weather forecast.
///
/// The city's data comes as an embedded resource, followed by the request.
#[prompt(title = "Plan a trip", scopes = ["weather:read"])]
async fn plan_trip(
    /// The city to visit, for example "Lisbon".
    #[complete(crate::resources::city_names)]
    city: String,
    /// The length of the trip in days, 1 to 7 (default 3).
    days: Option<u8>,
    db: State<WeatherDb>,
) -> Result<Vec<PromptMessage>, WeatherError> {
    let city = db.lookup(&city)?;
    let days = days.unwrap_or(DEFAULT_DAYS).clamp(1, MAX_DAYS);
    let data =
        serde_json::to_string_pretty(&report(&db, city)).expect("a city report serializes to JSON");
    let ask = format!(
        "I am planning a {days}-day trip to {name}, {country}, starting today. Using the \
         weather data for {name} above, suggest what to pack, which days suit plans \
         outdoors, and what to do indoors on the others.",
        name = city.name,
        country = city.country,
    );
    Ok(vec![
        PromptMessage::user(Content::embedded_text(
            city_uri(city),
            Some("application/json"),
            data,
        )),
        PromptMessage::user(ask),
    ])
}
