//! `completion/complete` of `#[prompt]` arguments and `#[resource]`
//! template variables over a connection: `#[complete]` functions, unit-only
//! enums with no code, the cut at 100 values, the other arguments given
//! (`context.arguments`), the errors, and the `completions` capability of
//! each protocol version.

use mcp_runtime::testing::{CompletionRef, TestClient};
use mcp_runtime::{Arguments, ProtocolVersion, Server, prompt, resource};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// 150 cities, in this order.
fn cities(prefix: String) -> Vec<String> {
    (0..150)
        .map(|i| format!("city-{i:03}"))
        .filter(|city| city.starts_with(&prefix))
        .collect()
}

/// Says which city it was given, so that a test sees `context.arguments`.
async fn days_for(prefix: String, given: Arguments) -> Vec<String> {
    let city = given.get("city").unwrap_or("no city").to_owned();
    vec![
        format!("{prefix}1 day in {city}"),
        format!("{prefix}2 days in {city}"),
    ]
}

fn regions(prefix: String) -> [String; 2] {
    [format!("{prefix}north"), format!("{prefix}south")]
}

/// The other arguments given, as `name=value`.
fn given_back(prefix: String, given: Arguments) -> Vec<String> {
    let mut values = vec![prefix];
    values.extend(given.iter().map(|(name, value)| format!("{name}={value}")));
    values
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
    Kelvin,
}

/// A forecast.
#[prompt]
fn forecast(
    #[complete(cities)] city: String,
    unit: Option<Unit>,
    #[complete(days_for)] days: Option<u8>,
    note: Option<String>,
) -> String {
    let _ = (unit, days, note);
    format!("Forecast for {city}.")
}

/// The weather at a city, in a unit.
#[resource("weather://{city}/{unit}")]
fn weather(#[complete(cities)] city: String, unit: Unit) -> String {
    let _ = unit;
    city
}

/// A map of a city of a region.
#[resource("maps://{region}/{+city}")]
async fn map(#[complete(regions)] region: String, #[complete(given_back)] city: String) -> String {
    format!("{region}/{city}")
}

/// The index of the weather.
#[resource("weather://index")]
fn index() -> &'static str {
    "index"
}

fn server() -> Server {
    Server::new("completion", "1.0.0")
}

async fn connect(version: ProtocolVersion) -> TestClient {
    TestClient::connect_with_version(server(), version.as_str())
        .await
        .unwrap()
}

fn forecast_ref() -> CompletionRef {
    CompletionRef::Prompt("forecast".into())
}

fn weather_ref() -> CompletionRef {
    CompletionRef::Resource("weather://{city}/{unit}".into())
}

fn map_ref() -> CompletionRef {
    CompletionRef::Resource("maps://{region}/{+city}".into())
}

fn values(values: &[&str]) -> Value {
    json!({"completion": {"values": values}})
}

fn city_range(range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|i| format!("city-{i:03}")).collect()
}

#[tokio::test]
async fn completions_are_declared_from_2025_03_26_and_answered_in_every_version() {
    for version in ProtocolVersion::LEGACY {
        let mut client = TestClient::start(server()).unwrap();
        let result = client.initialize(version.as_str()).await.unwrap();
        let capabilities = &result["capabilities"];
        if version >= ProtocolVersion::V2025_03_26 {
            assert_eq!(capabilities["completions"], json!({}), "{version}");
        } else {
            assert!(capabilities.get("completions").is_none(), "{version}");
        }
        assert!(capabilities.get("resources").is_some(), "{version}");
        assert!(capabilities.get("prompts").is_some(), "{version}");
        // The method is older than the capability.
        let result = client
            .complete(&forecast_ref(), "city", "city-14")
            .await
            .unwrap();
        assert_eq!(
            result,
            json!({"completion": {"values": city_range(140..150)}}),
            "{version}"
        );
    }
}

#[tokio::test]
async fn prompt_arguments_and_template_variables_complete_from_their_functions() {
    let mut client = connect(ProtocolVersion::LATEST).await;
    let result = client
        .complete(&forecast_ref(), "city", "city-00")
        .await
        .unwrap();
    assert_eq!(result, json!({"completion": {"values": city_range(0..10)}}));
    let result = client
        .complete(&weather_ref(), "city", "city-12")
        .await
        .unwrap();
    assert_eq!(
        result,
        json!({"completion": {"values": city_range(120..130)}})
    );
    // The function's values as they are, not filtered again.
    let result = client.complete(&map_ref(), "region", "x").await.unwrap();
    assert_eq!(result, values(&["xnorth", "xsouth"]));
    let result = client
        .complete(&forecast_ref(), "city", "nowhere")
        .await
        .unwrap();
    assert_eq!(result, values(&[]));
}

#[tokio::test]
async fn more_than_100_values_are_cut_to_100_with_total_and_has_more() {
    let mut client = connect(ProtocolVersion::LATEST).await;
    for reference in [forecast_ref(), weather_ref()] {
        for prefix in ["", "c", "city-"] {
            let result = client.complete(&reference, "city", prefix).await.unwrap();
            assert_eq!(
                result,
                json!({"completion": {"values": city_range(0..100), "total": 150, "hasMore": true}}),
                "{reference:?} {prefix:?}"
            );
        }
        // Exactly 100: all of them, nothing more to say.
        let result = client.complete(&reference, "city", "city-0").await.unwrap();
        assert_eq!(
            result,
            json!({"completion": {"values": city_range(0..100)}})
        );
    }
}

#[tokio::test]
async fn unit_only_enums_complete_from_their_serde_names_with_no_code() {
    let mut client = connect(ProtocolVersion::LATEST).await;
    for (reference, argument) in [(forecast_ref(), "unit"), (weather_ref(), "unit")] {
        let all = client.complete(&reference, argument, "").await.unwrap();
        assert_eq!(all, values(&["celsius", "fahrenheit", "kelvin"]));
        let some = client.complete(&reference, argument, "k").await.unwrap();
        assert_eq!(some, values(&["kelvin"]));
        let none = client.complete(&reference, argument, "x").await.unwrap();
        assert_eq!(none, values(&[]));
    }
    // And those names are what the argument accepts.
    let got = client
        .get_prompt("forecast", json!({"city": "Oslo", "unit": "kelvin"}))
        .await
        .unwrap();
    assert_eq!(got["messages"][0]["content"]["text"], "Forecast for Oslo.");
    let read = client
        .read_resource("weather://Oslo/fahrenheit")
        .await
        .unwrap();
    assert_eq!(read["contents"][0]["text"], "Oslo");
    let error = client
        .get_prompt("forecast", json!({"city": "Oslo", "unit": "Kelvin"}))
        .await
        .unwrap_err();
    assert_eq!(error.code, -32602);
}

#[tokio::test]
async fn an_argument_with_no_completion_completes_to_nothing() {
    let mut client = connect(ProtocolVersion::LATEST).await;
    let result = client
        .complete(&forecast_ref(), "note", "any")
        .await
        .unwrap();
    assert_eq!(result, json!({"completion": {"values": []}}));
}

#[tokio::test]
async fn the_other_arguments_given_reach_the_function() {
    let mut client = connect(ProtocolVersion::LATEST).await;
    let result = client
        .complete_with_context(&forecast_ref(), "days", "", json!({"city": "Oslo"}))
        .await
        .unwrap();
    assert_eq!(result, values(&["1 day in Oslo", "2 days in Oslo"]));
    // Without `context`, none.
    let result = client.complete(&forecast_ref(), "days", "").await.unwrap();
    assert_eq!(result, values(&["1 day in no city", "2 days in no city"]));
    // A template's variables too, in the order given.
    let result = client
        .complete_with_context(
            &map_ref(),
            "city",
            "Os",
            json!({"region": "north", "x": "y"}),
        )
        .await
        .unwrap();
    assert_eq!(result, values(&["Os", "region=north", "x=y"]));
    // Given as the protocol says: strings.
    let error = client
        .complete_with_context(&forecast_ref(), "days", "", json!({"city": 7}))
        .await
        .unwrap_err();
    assert_eq!(error.code, -32602);
}

#[tokio::test]
async fn an_unknown_reference_or_argument_is_invalid_params() {
    let references = [
        (json!({"type": "ref/prompt", "name": "nope"}), "city"),
        (json!({"type": "ref/prompt", "name": "forecast"}), "nope"),
        (json!({"type": "ref/prompt"}), "city"),
        (json!({"type": "ref/resource", "uri": "nothing://{x}"}), "x"),
        // A resource that is not a template has nothing to complete.
        (
            json!({"type": "ref/resource", "uri": "weather://index"}),
            "city",
        ),
        (
            json!({"type": "ref/resource", "uri": "weather://{city}/{unit}"}),
            "nope",
        ),
        (json!({"type": "ref/tool", "name": "forecast"}), "city"),
        (json!({"name": "forecast"}), "city"),
    ];
    for version in ProtocolVersion::LEGACY {
        let mut client = connect(version).await;
        for (reference, argument) in &references {
            let error = client
                .request(
                    "completion/complete",
                    json!({"ref": reference, "argument": {"name": argument, "value": ""}}),
                )
                .await
                .unwrap_err();
            assert_eq!(error.code, -32602, "{version}: {reference} {argument}");
        }
        for params in [
            json!({}),
            json!({"ref": {"type": "ref/prompt", "name": "forecast"}}),
            json!({"ref": {"type": "ref/prompt", "name": "forecast"},
                   "argument": {"name": "city"}}),
        ] {
            let error = client
                .request("completion/complete", params.clone())
                .await
                .unwrap_err();
            assert_eq!(error.code, -32602, "{version}: {params}");
        }
        client.request("ping", json!({})).await.unwrap();
    }
}
