//! `#[resource]`, `#[prompt]` and `#[complete]` functions served over a
//! connection, end to end.

use mcp_runtime::testing::TestClient;
use mcp_runtime::{Server, prompt, resource};
use serde_json::json;

/// A greeting.
#[resource("test://hello", mime_type = "text/plain")]
fn hello() -> String {
    "Hello!".to_owned()
}

/// A user's profile.
#[resource("users://{id}/profile")]
async fn profile(id: u64) -> Option<String> {
    (id == 7).then(|| format!("user {id}"))
}

fn cities(prefix: String) -> Vec<String> {
    ["Oslo", "Osaka", "Paris"]
        .into_iter()
        .filter(|c| c.starts_with(&prefix))
        .map(String::from)
        .collect()
}

/// Plan a trip.
#[prompt(title = "Trip planner")]
async fn plan_trip(
    /// The city to visit.
    #[complete(cities)]
    city: String,
    /// How many days.
    days: Option<u8>,
) -> String {
    format!("Plan {} days in {city}.", days.unwrap_or(3))
}

#[tokio::test]
async fn attribute_functions_are_listed_read_got_and_completed() {
    let mut client = TestClient::connect(Server::new("attributes", "0"))
        .await
        .unwrap();
    let list = client.request("resources/list", json!({})).await.unwrap();
    assert_eq!(
        list["resources"][0],
        json!({"uri": "test://hello", "name": "hello", "description": "A greeting.",
               "mimeType": "text/plain"})
    );
    let read = client
        .request("resources/read", json!({"uri": "users://7/profile"}))
        .await
        .unwrap();
    assert_eq!(read["contents"][0]["text"], "user 7");
    for uri in ["users://8/profile", "users://x/profile"] {
        let error = client
            .request("resources/read", json!({"uri": uri}))
            .await
            .unwrap_err();
        assert_eq!(
            (error.code, error.data),
            (-32002, Some(json!({"uri": uri})))
        );
    }
    let got = client
        .request(
            "prompts/get",
            json!({"name": "plan_trip", "arguments": {"city": "Oslo", "days": "2"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        got["messages"][0]["content"]["text"],
        "Plan 2 days in Oslo."
    );
    let error = client
        .request(
            "prompts/get",
            json!({"name": "plan_trip", "arguments": {"city": "Oslo", "days": "many"}}),
        )
        .await
        .unwrap_err();
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("days"), "{}", error.message);
    let completion = client
        .request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "plan_trip"},
                   "argument": {"name": "city", "value": "Os"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        completion,
        json!({"completion": {"values": ["Oslo", "Osaka"]}})
    );
}
