//! The periodic refresh of the sample data: every few seconds the current
//! conditions move a little, and the clients subscribed to a city's data
//! (`resources/subscribe` of its `weather://cities/...` URI) get
//! `notifications/resources/updated` for it.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use mcp_runtime::Notifier;

use crate::data::WeatherDb;
use crate::resources::city_uri;

/// The environment variable that sets the period, in seconds (`0.5` and
/// `0`, which turns refreshing off, too).
pub const PERIOD_VARIABLE: &str = "WEATHER_REFRESH_SECS";
/// The period when the variable is not set.
const DEFAULT_PERIOD: Duration = Duration::from_secs(5);

/// The refresh period from the environment: `None` if refreshing is off.
pub fn period() -> std::io::Result<Option<Duration>> {
    let Some(value) = std::env::var_os(PERIOD_VARIABLE) else {
        return Ok(Some(DEFAULT_PERIOD));
    };
    let seconds = value
        .to_str()
        .and_then(|text| text.trim().parse::<f64>().ok())
        .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{PERIOD_VARIABLE} is {value:?}: it takes a number of seconds, such as 5 or 0.5 (0 turns refreshing off)"),
            )
        })?;
    Ok((!seconds.is_zero()).then_some(seconds))
}

/// Refreshes the data every `period`, for as long as the server runs, and
/// tells the subscribers of each city's data.
pub async fn every(period: Duration, db: Arc<WeatherDb>, notifier: Notifier) {
    let mut ticks = tokio::time::interval(period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first tick completes at once: the data starts fresh.
    ticks.tick().await;
    loop {
        ticks.tick().await;
        db.refreshes.fetch_add(1, Ordering::Relaxed);
        // Only the sessions subscribed to a URI are told about it.
        for city in db.cities() {
            notifier.resource_updated(&city_uri(city));
        }
    }
}
