//! The weather tools. Each is an ordinary async fn: `#[tool]` turns its doc
//! comments into descriptions, its parameters into the input schema and its
//! return type into the output schema, and the server finds it on its own.

use std::fmt;

use mcp_runtime::{Context, State, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::data::{City, Condition, WeatherDb, round1};

/// Days in a forecast when the caller gives none, and at most.
pub const DEFAULT_DAYS: u8 = 3;
pub const MAX_DAYS: u8 = 7;
/// Cities `search_cities` returns when the caller gives no limit.
const DEFAULT_LIMIT: u8 = 10;

/// A temperature unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    #[default]
    Celsius,
    Fahrenheit,
}

impl Unit {
    /// A temperature given in °C, in this unit, to one decimal place.
    fn convert(self, celsius: f64) -> f64 {
        match self {
            Unit::Celsius => round1(celsius),
            Unit::Fahrenheit => round1(celsius * 9.0 / 5.0 + 32.0),
        }
    }
}

/// A forecast for one city.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Forecast {
    /// The city, as spelled in the data set.
    pub city: String,
    /// The city's country.
    pub country: String,
    /// The unit of every temperature in this forecast.
    pub unit: Unit,
    /// One entry per day, starting today.
    pub days: Vec<DayForecast>,
}

/// The forecast for one day.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DayForecast {
    /// Days from today: 0 is today, 1 tomorrow.
    #[schemars(range(max = MAX_DAYS - 1))]
    pub day: u8,
    /// The highest temperature of the day.
    pub high: f64,
    /// The lowest temperature of the day.
    pub low: f64,
    /// The sky for most of the day.
    pub condition: Condition,
    /// The chance of rain or snow, in percent.
    #[schemars(range(max = 100))]
    pub precipitation_chance: u8,
    /// The average wind speed, in km/h.
    pub wind_kmh: u8,
}

/// The weather at a city right now.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Conditions {
    /// The city, as spelled in the data set.
    pub city: String,
    /// The city's country.
    pub country: String,
    /// The air temperature.
    pub temperature: f64,
    /// The unit of `temperature`.
    pub unit: Unit,
    /// The sky.
    pub condition: Condition,
    /// The relative humidity, in percent.
    #[schemars(range(max = 100))]
    pub humidity_percent: u8,
    /// The wind speed, in km/h.
    pub wind_kmh: u8,
}

/// A city the server has weather for.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CityInfo {
    /// The name to pass to the other tools.
    pub name: String,
    /// The city's country.
    pub country: String,
    /// Degrees north (negative: south).
    pub latitude: f64,
    /// Degrees east (negative: west).
    pub longitude: f64,
}

/// Why a weather tool failed. The model reads the message, so it says what
/// to do next.
#[derive(Debug)]
pub enum WeatherError {
    /// No city has this name.
    UnknownCity {
        name: String,
        suggestions: Vec<&'static str>,
    },
}

impl fmt::Display for WeatherError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeatherError::UnknownCity { name, suggestions } => {
                write!(f, "Unknown city {name:?}.")?;
                match suggestions.as_slice() {
                    [] => {}
                    [only] => write!(f, " Did you mean {only}?")?,
                    [first @ .., last] => {
                        write!(f, " Did you mean {} or {last}?", first.join(", "))?
                    }
                }
                f.write_str(" Use search_cities to find the cities with weather data.")
            }
        }
    }
}

impl std::error::Error for WeatherError {}

impl WeatherDb {
    /// The city with this name, or an error suggesting close names.
    pub fn lookup(&self, name: &str) -> Result<&'static City, WeatherError> {
        self.city(name).ok_or_else(|| WeatherError::UnknownCity {
            name: name.to_owned(),
            suggestions: self.suggestions(name),
        })
    }
}

/// Get the weather forecast for a city.
///
/// Gives the high and low temperature, the sky, the chance of precipitation
/// and the wind for each day, starting today. Use `search_cities` to find
/// the cities covered.
// Hosts with MCP Apps show the result as a chart, the view
// `ui://weather/forecast` (`resources.rs`); every other client reads the
// forecast as JSON text next to the structured content.
#[tool(
    title = "Weather forecast",
    read_only,
    idempotent,
    scopes = ["weather:read"],
    ui = "ui://weather/forecast"
)]
async fn get_forecast(
    /// City name, for example "Paris".
    city: String,
    /// Number of days, 1 to 7 (default 3).
    #[schemars(range(min = 1, max = 7))]
    days: Option<u8>,
    /// Temperature unit (default celsius).
    unit: Option<Unit>,
    /// Injected by the server from `.state(...)`; not part of the input schema.
    db: State<WeatherDb>,
    /// Injected too: reports progress to clients that ask for it.
    ctx: Context,
) -> Result<Forecast, WeatherError> {
    let city = db.lookup(&city)?;
    let unit = unit.unwrap_or_default();
    let days = days.unwrap_or(DEFAULT_DAYS).clamp(1, MAX_DAYS);
    let mut forecast = Vec::with_capacity(usize::from(days));
    for day in 0..days {
        let weather = city.weather(day);
        forecast.push(DayForecast {
            day,
            high: unit.convert(weather.high_c),
            low: unit.convert(weather.low_c),
            condition: weather.condition,
            precipitation_chance: weather.precipitation_chance,
            wind_kmh: weather.wind_kmh,
        });
        let message = format!("day {} of {days} ready", day + 1);
        ctx.progress(f64::from(day + 1), Some(f64::from(days)), Some(&message));
        // A real forecast would wait on a backend here; let other calls run.
        tokio::task::yield_now().await;
    }
    Ok(Forecast {
        city: city.name.to_owned(),
        country: city.country.to_owned(),
        unit,
        days: forecast,
    })
}

/// Get the current weather in a city: temperature, sky, humidity and wind.
#[tool(title = "Current conditions", read_only, scopes = ["weather:read"])]
async fn current_conditions(
    /// City name, for example "Tokyo".
    city: String,
    /// Temperature unit (default celsius).
    unit: Option<Unit>,
    db: State<WeatherDb>,
) -> Result<Conditions, WeatherError> {
    let city = db.lookup(&city)?;
    let unit = unit.unwrap_or_default();
    let now = db.current(city);
    Ok(Conditions {
        city: city.name.to_owned(),
        country: city.country.to_owned(),
        temperature: unit.convert(now.temperature_c),
        unit,
        condition: now.condition,
        humidity_percent: now.humidity_percent,
        wind_kmh: now.wind_kmh,
    })
}

/// Find the cities this server has weather for, by name or country.
///
/// Best matches come first. An empty list means no city matched: try a
/// shorter query, or the country's name in English.
#[tool(title = "Search cities", read_only, scopes = ["weather:read"])]
async fn search_cities(
    /// Part of a city or country name, for example "san" or "japan".
    #[schemars(length(min = 1))]
    query: String,
    /// At most this many cities, 1 to 50 (default 10).
    #[schemars(range(min = 1, max = 50))]
    limit: Option<u8>,
    db: State<WeatherDb>,
) -> Vec<CityInfo> {
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    db.search(&query)
        .into_iter()
        .take(usize::from(limit))
        .map(|city| CityInfo {
            name: city.name.to_owned(),
            country: city.country.to_owned(),
            latitude: city.latitude,
            longitude: city.longitude,
        })
        .collect()
}
