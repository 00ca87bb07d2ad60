//! The sample data set behind the weather example.
//!
//! The cities are real: their names, countries, coordinates and elevations.
//! The weather is **invented**. Each day's numbers are derived from the
//! city's latitude and elevation (warmer near the equator, cooler up high)
//! plus a hash of the city's name and the day offset, so every run on every
//! machine gives the same answers, which is what the tests need. Nothing
//! here reads the clock, draws random numbers or touches the network; days
//! are offsets from "today" (0), not dates.
//!
//! Only the current conditions change while the server runs: each refresh
//! (`refresh.rs` counts them in [`WeatherDb::refreshes`]) moves them a
//! little, within the day's range, as deterministically as the rest.

use std::sync::atomic::{AtomicU64, Ordering};

use schemars::JsonSchema;
use serde::Serialize;

/// A city the example knows about.
#[derive(Debug)]
pub struct City {
    pub name: &'static str,
    pub country: &'static str,
    pub latitude: f64,
    pub longitude: f64,
    pub elevation_m: i32,
}

/// The state of the sky.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    Sunny,
    PartlyCloudy,
    Cloudy,
    Fog,
    Rain,
    Thunderstorm,
    Snow,
}

/// One day of (invented) weather at a city, in metric units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DailyWeather {
    pub high_c: f64,
    pub low_c: f64,
    pub condition: Condition,
    pub precipitation_chance: u8,
    pub humidity_percent: u8,
    pub wind_kmh: u8,
}

/// The weather at a city right now, in metric units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurrentWeather {
    pub temperature_c: f64,
    pub condition: Condition,
    pub humidity_percent: u8,
    pub wind_kmh: u8,
}

/// The cities, registered once as shared state and injected into the tools
/// with `State<WeatherDb>`.
#[derive(Debug)]
pub struct WeatherDb {
    cities: &'static [City],
    /// How many times the current conditions were refreshed since start-up.
    /// The refresh task adds one; [`WeatherDb::current`] reads it.
    pub refreshes: AtomicU64,
}

impl WeatherDb {
    /// The embedded sample data set.
    pub fn sample() -> Self {
        WeatherDb {
            cities: &CITIES,
            refreshes: AtomicU64::new(0),
        }
    }

    /// Every city, in alphabetical order.
    pub fn cities(&self) -> &'static [City] {
        self.cities
    }

    /// The city with this name, ignoring case, accents and punctuation
    /// ("sao paulo" finds São Paulo).
    pub fn city(&self, name: &str) -> Option<&'static City> {
        let wanted = normalize(name);
        self.cities().iter().find(|c| normalize(c.name) == wanted)
    }

    /// The weather at `city` now: early afternoon of today, moved a little
    /// by each refresh, never outside today's low and high.
    pub fn current(&self, city: &City) -> CurrentWeather {
        let today = city.weather(0);
        let refresh = self.refreshes.load(Ordering::Relaxed);
        // Until the first refresh: three quarters of the way from the low
        // to the high, and the day's humidity and wind.
        let (mut position, mut humidity, mut wind) = (0.75, 0.0, 0.0);
        if refresh > 0 {
            let mut noise = Noise::seeded(city.name.bytes().chain(refresh.to_le_bytes()));
            position = noise.between(0.55, 0.95);
            humidity = noise.between(-5.0, 5.0);
            wind = noise.between(-4.0, 4.0);
        }
        let nudge = |value: u8, by: f64, max: f64| (f64::from(value) + by).clamp(0.0, max) as u8;
        CurrentWeather {
            temperature_c: today.low_c + position * (today.high_c - today.low_c),
            condition: today.condition,
            humidity_percent: nudge(today.humidity_percent, humidity, 100.0),
            wind_kmh: nudge(today.wind_kmh, wind, 255.0),
        }
    }

    /// Cities whose name or country matches `query`, best matches first:
    /// exact names, then names starting with the query, then names with a
    /// word starting with it, then names containing it, then countries.
    pub fn search(&self, query: &str) -> Vec<&'static City> {
        let query = normalize(query);
        let mut ranked: Vec<(u8, &'static City)> = self
            .cities()
            .iter()
            .filter_map(|city| search_rank(&query, city).map(|rank| (rank, city)))
            .collect();
        ranked.sort_by_cached_key(|(rank, city)| (*rank, normalize(city.name)));
        ranked.into_iter().map(|(_, city)| city).collect()
    }

    /// Up to three known city names close to `name`, for an "unknown city"
    /// message: names it is a prefix of (or that are a prefix of it, as in
    /// "Paris, France"), names a few typos away, and the cities of a country
    /// given instead of a city.
    pub fn suggestions(&self, name: &str) -> Vec<&'static str> {
        let wanted = normalize(name);
        if wanted.is_empty() {
            return Vec::new();
        }
        let mut close: Vec<(usize, &'static str)> = self
            .cities()
            .iter()
            .filter_map(|city| {
                let known = normalize(city.name);
                let distance = edit_distance(&wanted, &known);
                let prefix =
                    wanted.len() >= 3 && (known.starts_with(&wanted) || wanted.starts_with(&known));
                let country = normalize(city.country) == wanted;
                let typo = distance <= (known.chars().count() / 3).max(1);
                (prefix || country || typo).then_some((distance, city.name))
            })
            .collect();
        close.sort();
        close.into_iter().take(3).map(|(_, name)| name).collect()
    }
}

impl City {
    /// The weather `day` days from today (0 is today).
    pub fn weather(&self, day: u8) -> DailyWeather {
        let mut noise = Noise::new(self.name, day);
        // A rough annual mean: about 27 °C at the equator, colder towards
        // the poles and by 4.5 °C per kilometre of elevation.
        let climate = 27.0
            - 0.0055 * self.latitude * self.latitude
            - 4.5 * f64::from(self.elevation_m) / 1000.0;
        let mean = climate + noise.between(-4.0, 4.0);
        let half_range = noise.between(3.0, 6.0);
        let (high_c, low_c) = (round1(mean + half_range), round1(mean - half_range));

        let mut condition = match noise.between(0.0, 100.0) {
            x if x < 30.0 => Condition::Sunny,
            x if x < 55.0 => Condition::PartlyCloudy,
            x if x < 75.0 => Condition::Cloudy,
            x if x < 80.0 => Condition::Fog,
            x if x < 95.0 => Condition::Rain,
            _ => Condition::Thunderstorm,
        };
        if mean < 2.0 && matches!(condition, Condition::Rain | Condition::Thunderstorm) {
            condition = Condition::Snow;
        }
        let (precipitation, humidity) = match condition {
            Condition::Sunny => ((0.0, 10.0), (30.0, 55.0)),
            Condition::PartlyCloudy => ((5.0, 25.0), (40.0, 65.0)),
            Condition::Cloudy => ((20.0, 45.0), (55.0, 80.0)),
            Condition::Fog => ((10.0, 30.0), (85.0, 100.0)),
            Condition::Rain | Condition::Snow => ((60.0, 95.0), (75.0, 95.0)),
            Condition::Thunderstorm => ((70.0, 100.0), (70.0, 95.0)),
        };
        let calm = matches!(condition, Condition::Fog);
        let stormy = matches!(condition, Condition::Thunderstorm);
        let wind =
            noise.between(5.0, if calm { 12.0 } else { 35.0 }) + if stormy { 20.0 } else { 0.0 };

        DailyWeather {
            high_c,
            low_c,
            condition,
            precipitation_chance: noise.between(precipitation.0, precipitation.1) as u8,
            humidity_percent: noise.between(humidity.0, humidity.1) as u8,
            wind_kmh: wind as u8,
        }
    }
}

/// Rounds to one decimal place.
pub fn round1(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

/// A deterministic stream of numbers for one city and day: FNV-1a of the
/// name and day as the seed, SplitMix64 as the generator. Written out here
/// rather than using `std`'s hasher, whose output may change between Rust
/// releases.
struct Noise(u64);

impl Noise {
    fn new(city: &str, day: u8) -> Self {
        Noise::seeded(city.bytes().chain([0xff, day]))
    }

    /// A stream seeded with FNV-1a of `bytes`.
    fn seeded(bytes: impl IntoIterator<Item = u8>) -> Self {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in bytes {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        Noise(hash)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `low..high`.
    fn between(&mut self, low: f64, high: f64) -> f64 {
        // The top 53 bits make an evenly spread f64 in 0..1.
        let unit = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        low + unit * (high - low)
    }
}

/// How well `city` matches a normalized search query; lower is better.
fn search_rank(query: &str, city: &City) -> Option<u8> {
    let name = normalize(city.name);
    if name == query {
        Some(0)
    } else if name.starts_with(query) {
        Some(1)
    } else if name.split(' ').any(|word| word.starts_with(query)) {
        Some(2)
    } else if name.contains(query) {
        Some(3)
    } else if normalize(city.country).contains(query) {
        Some(4)
    } else {
        None
    }
}

/// Lowercase, without the accents used in the data set, and with runs of
/// spaces, hyphens, dots and commas turned into single spaces: "SAO-PAULO"
/// and "São Paulo" are the same, "Paris, France" is "paris france".
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.trim().chars().flat_map(char::to_lowercase) {
        let c = match c {
            'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' => 'a',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'ó' | 'ò' | 'ô' | 'ö' | 'õ' => 'o',
            'ú' | 'ù' | 'û' | 'ü' => 'u',
            'ç' => 'c',
            'ñ' => 'n',
            c if c.is_whitespace() || matches!(c, '-' | '.' | ',') => ' ',
            c => c,
        };
        if c != ' ' || !out.ends_with(' ') {
            out.push(c);
        }
    }
    out.trim_end().to_owned()
}

/// The Levenshtein distance between two strings, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        current[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

macro_rules! cities {
    ($($name:literal, $country:literal, $lat:literal, $lon:literal, $elevation:literal;)*) => {
        [$(City {
            name: $name,
            country: $country,
            latitude: $lat,
            longitude: $lon,
            elevation_m: $elevation,
        }),*]
    };
}

/// Name, country, latitude, longitude (degrees) and elevation (metres).
static CITIES: [City; 36] = cities![
    "Amsterdam", "Netherlands", 52.3676, 4.9041, -2;
    "Athens", "Greece", 37.9838, 23.7275, 70;
    "Auckland", "New Zealand", -36.8485, 174.7633, 26;
    "Bangkok", "Thailand", 13.7563, 100.5018, 2;
    "Beijing", "China", 39.9042, 116.4074, 44;
    "Berlin", "Germany", 52.5200, 13.4050, 34;
    "Bogotá", "Colombia", 4.7110, -74.0721, 2640;
    "Buenos Aires", "Argentina", -34.6037, -58.3816, 25;
    "Cairo", "Egypt", 30.0444, 31.2357, 23;
    "Cape Town", "South Africa", -33.9249, 18.4241, 25;
    "Chicago", "United States", 41.8781, -87.6298, 181;
    "Dubai", "United Arab Emirates", 25.2048, 55.2708, 5;
    "Helsinki", "Finland", 60.1699, 24.9384, 17;
    "Istanbul", "Türkiye", 41.0082, 28.9784, 39;
    "Jakarta", "Indonesia", -6.2088, 106.8456, 8;
    "Lagos", "Nigeria", 6.5244, 3.3792, 41;
    "Lima", "Peru", -12.0464, -77.0428, 154;
    "Lisbon", "Portugal", 38.7223, -9.1393, 50;
    "London", "United Kingdom", 51.5072, -0.1276, 11;
    "Madrid", "Spain", 40.4168, -3.7038, 667;
    "Mexico City", "Mexico", 19.4326, -99.1332, 2240;
    "Moscow", "Russia", 55.7558, 37.6173, 156;
    "Mumbai", "India", 19.0760, 72.8777, 14;
    "Nairobi", "Kenya", -1.2921, 36.8219, 1795;
    "New York", "United States", 40.7128, -74.0060, 10;
    "Paris", "France", 48.8566, 2.3522, 35;
    "Reykjavík", "Iceland", 64.1466, -21.9426, 15;
    "Rome", "Italy", 41.9028, 12.4964, 21;
    "San Francisco", "United States", 37.7749, -122.4194, 16;
    "Santiago", "Chile", -33.4489, -70.6693, 570;
    "São Paulo", "Brazil", -23.5505, -46.6333, 760;
    "Seoul", "South Korea", 37.5665, 126.9780, 38;
    "Singapore", "Singapore", 1.3521, 103.8198, 15;
    "Sydney", "Australia", -33.8688, 151.2093, 58;
    "Tokyo", "Japan", 35.6762, 139.6503, 40;
    "Zürich", "Switzerland", 47.3769, 8.5417, 408;
];
