//! The weather resources: the list of cities, each city's data through the
//! template `weather://cities/{name}`, and `ui://weather/forecast`, the HTML
//! view that draws `get_forecast`'s result (`forecast.html`). Like the
//! tools, each is an ordinary async fn: `#[resource]` lists it, its doc
//! comment describes it, and a `Serialize` return value is served as JSON,
//! a string as text.
//!
//! A city's URI is the template with the city's exact name put in as RFC
//! 6570 does (percent-encoded UTF-8: `weather://cities/S%C3%A3o%20Paulo`);
//! the city list gives it, and the refresh task announces changes under it.

use std::sync::atomic::Ordering;

use mcp_runtime::apps::Html;
use mcp_runtime::{State, resource, view_file};
use serde::Serialize;

use crate::data::{City, Condition, WeatherDb, normalize, round1};

/// Days in a city's forecast.
const FORECAST_DAYS: u8 = 7;

/// A city in the list.
#[derive(Debug, Serialize)]
pub struct CityEntry {
    name: &'static str,
    country: &'static str,
    latitude: f64,
    longitude: f64,
    /// The URI of the city's data: read it, or subscribe to it.
    uri: String,
}

/// One city's data, in metric units.
#[derive(Debug, Serialize)]
pub struct CityReport {
    name: &'static str,
    country: &'static str,
    latitude: f64,
    longitude: f64,
    elevation_m: i32,
    current: Current,
    forecast: Vec<Day>,
}

/// The weather now.
#[derive(Debug, Serialize)]
struct Current {
    temperature_c: f64,
    condition: Condition,
    humidity_percent: u8,
    wind_kmh: u8,
    /// How many refreshes since the server started: it grows with each one.
    refresh: u64,
}

/// One day of the forecast.
#[derive(Debug, Serialize)]
struct Day {
    /// Days from today: 0 is today.
    day: u8,
    high_c: f64,
    low_c: f64,
    condition: Condition,
    precipitation_chance: u8,
    wind_kmh: u8,
}

/// The cities this server has weather for: name, country, coordinates and
/// the URI of each city's data, in alphabetical order.
#[resource("weather://cities", title = "Cities", scopes = ["weather:read"])]
async fn cities(db: State<WeatherDb>) -> Vec<CityEntry> {
    db.cities()
        .iter()
        .map(|city| CityEntry {
            name: city.name,
            country: city.country,
            latitude: city.latitude,
            longitude: city.longitude,
            uri: city_uri(city),
        })
        .collect()
}

/// A city's weather: its current conditions, refreshed every few seconds
/// (subscribe to be told), and a seven-day forecast.
#[resource("weather://cities/{name}", title = "City weather", scopes = ["weather:read"])]
async fn city(#[complete(city_names)] name: String, db: State<WeatherDb>) -> Option<CityReport> {
    // `None` answers "resource not found", naming the URI.
    let city = db.city(&name)?;
    Some(report(&db, city))
}

/// A chart of a city's forecast: the view of `get_forecast` for hosts with
/// MCP Apps, which render it next to the tool's result and let it ask for
/// other cities and days.
// `view`: the MCP Apps MIME type, and the default content security policy
// (no network; inline scripts and styles). `view_file!` embeds the file, and
// in debug builds reads it again on every read, so a reload shows an edit.
#[resource(
    "ui://weather/forecast",
    name = "forecast_view",
    title = "Forecast chart",
    view,
    scopes = ["weather:read"]
)]
fn forecast_view() -> Html {
    view_file!("forecast.html")
}

/// What `weather://cities/{name}` gives for `city`.
pub fn report(db: &WeatherDb, city: &'static City) -> CityReport {
    let now = db.current(city);
    let forecast = (0..FORECAST_DAYS)
        .map(|day| {
            let weather = city.weather(day);
            Day {
                day,
                high_c: weather.high_c,
                low_c: weather.low_c,
                condition: weather.condition,
                precipitation_chance: weather.precipitation_chance,
                wind_kmh: weather.wind_kmh,
            }
        })
        .collect();
    CityReport {
        name: city.name,
        country: city.country,
        latitude: city.latitude,
        longitude: city.longitude,
        elevation_m: city.elevation_m,
        current: Current {
            temperature_c: round1(now.temperature_c),
            condition: now.condition,
            humidity_percent: now.humidity_percent,
            wind_kmh: now.wind_kmh,
            refresh: db.refreshes.load(Ordering::Relaxed),
        },
        forecast,
    }
}

/// The names of the cities that start with `prefix`, ignoring case and
/// accents ("sao" gives São Paulo), in alphabetical order: the completions
/// of a city name, here and in the `plan_trip` prompt. A completion
/// function gets no `State`, so it reads the sample data set directly.
pub fn city_names(prefix: String) -> Vec<&'static str> {
    let prefix = normalize(&prefix);
    WeatherDb::sample()
        .cities()
        .iter()
        .map(|city| city.name)
        .filter(|name| normalize(name).starts_with(&prefix))
        .collect()
}

/// The URI of a city's data: its name in the template, percent-encoded
/// except for RFC 3986's unreserved characters.
pub fn city_uri(city: &City) -> String {
    let mut uri = String::from("weather://cities/");
    for byte in city.name.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}
