//! The weather example's tools, end to end: their `tools/list` entries
//! against golden snapshots in `tests/snapshots/`, and calls with real
//! arguments.
//!
//! After an intended change to a tool, refresh the snapshots with
//! `UPDATE_SNAPSHOTS=1 cargo test -p mcp-tests --test schemas` and review the diff.

#[path = "../examples/weather/data.rs"]
mod data;
#[path = "../examples/weather/report.rs"]
mod report;
#[path = "../examples/weather/tools.rs"]
mod tools;
// The view that get_forecast links: a registry refuses a tool whose view
// no resource serves. (Its other resources go unused here.)
#[allow(dead_code)]
#[path = "../examples/weather/resources.rs"]
mod resources;

use std::path::{Path, PathBuf};

use mcp_runtime::{CallToolResult, Registry, Server};
use serde_json::{Value, json};

const TOOLS: [&str; 4] = [
    "current_conditions",
    "get_forecast",
    "search_cities",
    "weather_report",
];

fn registry() -> Registry {
    Server::new("weather", env!("CARGO_PKG_VERSION"))
        .state(data::WeatherDb::sample())
        .registry()
        .expect("the weather tools form a valid registry")
}

fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

#[test]
fn tools_match_snapshots() {
    let registry = registry();
    let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    assert_eq!(
        names, TOOLS,
        "the registry should hold exactly the weather tools"
    );

    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1");
    let dir = snapshot_dir();
    let mut failures = Vec::new();
    for tool in registry.tools() {
        let path = dir.join(format!("{}.json", tool.name()));
        let actual = serde_json::to_string_pretty(&tool.to_json()).unwrap() + "\n";
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        // A checkout with Windows line endings still matches.
        match std::fs::read_to_string(&path).map(|text| text.replace("\r\n", "\n")) {
            Ok(expected) if expected == actual => {}
            Ok(expected) => failures.push(format!(
                "{} differs from the tool's definition (- snapshot, + actual):\n{}",
                path.display(),
                line_diff(&expected, &actual)
            )),
            Err(error) => failures.push(format!(
                "{} cannot be read ({error}); the tool's definition is:\n{actual}",
                path.display()
            )),
        }
    }

    // A snapshot of a tool that no longer exists is stale.
    for entry in std::fs::read_dir(&dir).into_iter().flatten() {
        let path = entry.unwrap().path();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if path.extension().is_some_and(|e| e == "json") && !TOOLS.contains(&stem) {
            if update {
                std::fs::remove_file(&path).unwrap();
            } else {
                failures.push(format!("{} belongs to no tool", path.display()));
            }
        }
    }

    assert!(
        failures.is_empty(),
        "{}\n\nIf the change is intended, rerun with UPDATE_SNAPSHOTS=1 and review the diff.",
        failures.join("\n\n")
    );
}

/// A minimal line diff (longest common subsequence) with two lines of
/// context around each change, enough to read a snapshot change in a test
/// failure.
fn line_diff(expected: &str, actual: &str) -> String {
    const CONTEXT: usize = 2;
    let old: Vec<&str> = expected.lines().collect();
    let new: Vec<&str> = actual.lines().collect();
    // lcs[i][j]: the length of the LCS of old[i..] and new[j..].
    let mut lcs = vec![vec![0usize; new.len() + 1]; old.len() + 1];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            lcs[i][j] = if old[i] == new[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut lines: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            lines.push((' ', old[i]));
            (i, j) = (i + 1, j + 1);
        } else if i < old.len() && (j == new.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            lines.push(('-', old[i]));
            i += 1;
        } else {
            lines.push(('+', new[j]));
            j += 1;
        }
    }
    let changed: Vec<usize> = (0..lines.len()).filter(|&k| lines[k].0 != ' ').collect();
    let near_change = |k: usize| changed.iter().any(|&c| c.abs_diff(k) <= CONTEXT);
    let mut out = String::new();
    let mut skipping = false;
    for (k, (mark, line)) in lines.iter().enumerate() {
        if near_change(k) {
            out += &format!("{mark} {line}\n");
            skipping = false;
        } else if !skipping {
            out += "  ...\n";
            skipping = true;
        }
    }
    out
}

/// What the snapshots should show, checked on every run so a bad snapshot
/// cannot be accepted by accident.
#[test]
fn schemas_are_client_friendly() {
    for tool in registry().tools() {
        let name = tool.name();
        let input = Value::Object(tool.input_schema().clone());
        let output = Value::Object(tool.output_schema().expect("structured output").clone());
        for (which, schema) in [("input", &input), ("output", &output)] {
            assert_eq!(schema["type"], "object", "{name}: {which} schema root");
            for key in ["$schema", "title"] {
                assert!(schema.get(key).is_none(), "{name}: {which} has {key}");
            }
            for key in ["$ref", "$defs"] {
                assert!(!has_key(schema, key), "{name}: {which} has {key}");
            }
        }
        assert_eq!(input["additionalProperties"], false, "{name}");
        assert!(
            !type_names(&input).contains(&"null"),
            "{name}: optional parameters must not be nullable: {input:#}"
        );
    }
}

fn has_key(value: &Value, key: &str) -> bool {
    match value {
        Value::Object(map) => map.contains_key(key) || map.values().any(|v| has_key(v, key)),
        Value::Array(list) => list.iter().any(|v| has_key(v, key)),
        _ => false,
    }
}

/// Every name given as a `type` anywhere in a schema.
fn type_names(schema: &Value) -> Vec<&str> {
    let mut names = Vec::new();
    match schema {
        Value::Object(map) => {
            match map.get("type") {
                Some(Value::String(t)) => names.push(t.as_str()),
                Some(Value::Array(ts)) => names.extend(ts.iter().filter_map(Value::as_str)),
                _ => {}
            }
            names.extend(map.values().flat_map(type_names));
        }
        Value::Array(list) => names.extend(list.iter().flat_map(type_names)),
        _ => {}
    }
    names
}

async fn call(registry: &Registry, tool: &str, arguments: Value) -> CallToolResult {
    registry
        .call(tool, arguments)
        .await
        .unwrap_or_else(|e| panic!("calling {tool}: {e}"))
}

/// The structured content of a successful call, checked against the tool's
/// `outputSchema` (by a validator, and for exactly the declared properties)
/// and against the text block that repeats it.
fn structured(registry: &Registry, tool: &str, result: &CallToolResult) -> Value {
    assert!(!result.is_error, "{tool} failed: {}", result.text());
    let content = result
        .structured_content
        .clone()
        .unwrap_or_else(|| panic!("{tool} returned no structuredContent"));
    let schema = Value::Object(registry.get(tool).unwrap().output_schema().unwrap().clone());
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&schema)
        .expect("the output schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&content)
        .map(|e| format!("{} at {}", e, e.instance_path().as_str()))
        .collect();
    assert!(errors.is_empty(), "{tool}: {errors:#?}\n{content:#}");
    assert_same_shape(&schema, &content, tool);
    let text: Value = serde_json::from_str(&result.text()).expect("the text block is JSON");
    assert_eq!(
        text, content,
        "{tool}: the text block repeats the structured content"
    );
    content
}

/// Objects have exactly the properties the schema declares, recursively.
fn assert_same_shape(schema: &Value, value: &Value, path: &str) {
    match (schema.get("properties").and_then(Value::as_object), value) {
        (Some(properties), Value::Object(object)) => {
            let declared: Vec<&String> = properties.keys().collect();
            let present: Vec<&String> = object.keys().collect();
            assert_eq!(present, declared, "properties of {path}");
            for (key, sub) in properties {
                assert_same_shape(sub, &object[key], &format!("{path}.{key}"));
            }
        }
        (None, Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                assert_same_shape(&schema["items"], item, &format!("{path}[{i}]"));
            }
        }
        (Some(_), other) => panic!("{path} should be an object, found {other}"),
        (None, _) => {}
    }
}

fn names(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|city| city["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn get_forecast_returns_the_requested_days() {
    let registry = registry();
    let args = json!({"city": "Paris", "days": 5, "unit": "fahrenheit"});
    let result = call(&registry, "get_forecast", args.clone()).await;
    let forecast = structured(&registry, "get_forecast", &result);
    assert_eq!(forecast["city"], "Paris");
    assert_eq!(forecast["country"], "France");
    assert_eq!(forecast["unit"], "fahrenheit");
    let days = forecast["days"].as_array().unwrap();
    let offsets: Vec<u64> = days.iter().map(|d| d["day"].as_u64().unwrap()).collect();
    assert_eq!(offsets, [0, 1, 2, 3, 4]);
    for day in days {
        assert!(day["high"].as_f64() >= day["low"].as_f64(), "{day}");
    }

    // Sample data, not a live feed: the same question gets the same answer.
    let again = call(&registry, "get_forecast", args).await;
    assert_eq!(again, result);

    // The same days in celsius.
    let celsius = call(
        &registry,
        "get_forecast",
        json!({"city": "Paris", "days": 5}),
    )
    .await;
    let celsius = structured(&registry, "get_forecast", &celsius);
    assert_eq!(celsius["unit"], "celsius");
    for (c, f) in celsius["days"].as_array().unwrap().iter().zip(days) {
        let converted = c["high"].as_f64().unwrap() * 9.0 / 5.0 + 32.0;
        assert!(
            (converted - f["high"].as_f64().unwrap()).abs() <= 0.2,
            "{c} vs {f}"
        );
        assert_eq!(c["condition"], f["condition"]);
    }
}

/// A city's value of `key` in a weather report entry.
fn number(city: &Value, key: &str) -> f64 {
    city[key].as_f64().unwrap()
}

#[tokio::test]
async fn weather_report_covers_every_city_and_names_the_extremes() {
    let registry = registry();
    let result = call(&registry, "weather_report", json!({"days": 2})).await;
    let report = structured(&registry, "weather_report", &result);
    assert_eq!(report["days"], 2);
    let cities = report["cities"].as_array().unwrap();
    let listed: Vec<&str> = cities.iter().map(|c| c["city"].as_str().unwrap()).collect();
    let known: Vec<&str> = data::WeatherDb::sample()
        .cities()
        .iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(listed, known);
    for city in cities {
        assert!(number(city, "high") >= number(city, "low"), "{city}");
        assert!(city["wet_days"].as_u64().unwrap() <= 2, "{city}");
    }
    let warmest = cities
        .iter()
        .max_by(|a, b| number(a, "high").total_cmp(&number(b, "high")))
        .unwrap();
    let coldest = cities
        .iter()
        .min_by(|a, b| number(a, "low").total_cmp(&number(b, "low")))
        .unwrap();
    assert_eq!(report["warmest"], warmest["city"]);
    assert_eq!(report["coldest"], coldest["city"]);
}

#[tokio::test]
async fn get_forecast_defaults_to_three_days_in_celsius() {
    let registry = registry();
    // Case, accents and hyphens do not matter; the answer spells the name properly.
    let result = call(&registry, "get_forecast", json!({"city": "SAO-PAULO"})).await;
    let forecast = structured(&registry, "get_forecast", &result);
    assert_eq!(forecast["city"], "São Paulo");
    assert_eq!(forecast["unit"], "celsius");
    assert_eq!(forecast["days"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn get_forecast_enforces_the_day_range() {
    let registry = registry();
    let result = call(
        &registry,
        "get_forecast",
        json!({"city": "Paris", "days": 8}),
    )
    .await;
    assert!(result.is_error);
    assert!(result.text().contains("days"), "{}", result.text());
}

#[tokio::test]
async fn current_conditions_is_within_the_day_s_range() {
    let registry = registry();
    let args = json!({"city": "Tokyo", "unit": "celsius"});
    let result = call(&registry, "current_conditions", args).await;
    let now = structured(&registry, "current_conditions", &result);
    assert_eq!(now["city"], "Tokyo");
    assert_eq!(now["country"], "Japan");
    assert_eq!(now["unit"], "celsius");

    let today = call(
        &registry,
        "get_forecast",
        json!({"city": "Tokyo", "days": 1}),
    )
    .await;
    let today = &structured(&registry, "get_forecast", &today)["days"][0];
    let temperature = now["temperature"].as_f64().unwrap();
    assert!(
        (today["low"].as_f64().unwrap()..=today["high"].as_f64().unwrap()).contains(&temperature),
        "{now} vs {today}"
    );
    assert_eq!(now["condition"], today["condition"]);
}

#[tokio::test]
async fn search_cities_wraps_its_list() {
    let registry = registry();
    let result = call(&registry, "search_cities", json!({"query": "san"})).await;
    let found = structured(&registry, "search_cities", &result);
    let object = found.as_object().unwrap();
    assert_eq!(object.keys().collect::<Vec<_>>(), ["result"]);
    assert_eq!(names(&found["result"]), ["San Francisco", "Santiago"]);

    // By country, limited.
    let args = json!({"query": "united", "limit": 2});
    let result = call(&registry, "search_cities", args).await;
    let found = structured(&registry, "search_cities", &result);
    assert_eq!(names(&found["result"]), ["Chicago", "Dubai"]);

    // No match is an empty list, not an error.
    let result = call(&registry, "search_cities", json!({"query": "Atlantis"})).await;
    let found = structured(&registry, "search_cities", &result);
    assert_eq!(found, json!({"result": []}));

    // The empty query is refused by the schema.
    let result = call(&registry, "search_cities", json!({"query": ""})).await;
    assert!(result.is_error, "{result:?}");
}

#[tokio::test]
async fn unknown_cities_get_suggestions() {
    let registry = registry();
    for (tool, city, suggestion) in [
        ("get_forecast", "Pari", "Did you mean Paris?"),
        ("get_forecast", "Lodnon", "Did you mean London?"),
        ("current_conditions", "Tokio", "Did you mean Tokyo?"),
        (
            "current_conditions",
            "New York City",
            "Did you mean New York?",
        ),
        ("get_forecast", "Japan", "Did you mean Tokyo?"),
        (
            "get_forecast",
            "San",
            "Did you mean Santiago or San Francisco?",
        ),
    ] {
        let result = call(&registry, tool, json!({"city": city})).await;
        assert!(result.is_error, "{tool}({city}): {result:?}");
        assert_eq!(result.structured_content, None);
        let text = result.text();
        assert!(
            text.starts_with(&format!("Unknown city {city:?}.")),
            "{text}"
        );
        assert!(text.contains(suggestion), "{tool}({city}): {text}");
        assert!(text.contains("search_cities"), "{text}");
    }

    let result = call(&registry, "get_forecast", json!({"city": "Xanadu"})).await;
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "Unknown city \"Xanadu\". Use search_cities to find the cities with weather data."
    );
}
