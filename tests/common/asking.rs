//! A raw in-process client for tests of the server's requests to its
//! client: it declares what capabilities it is told to, and the test
//! answers each request by hand.

use mcp_runtime::Server;
use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::testing::TestClient;

use super::step::within;

/// A raw in-process client, initialized at `version` declaring
/// `capabilities`.
pub async fn raw_client_at(server: Server, version: &str, capabilities: Value) -> TestClient {
    let mut client = TestClient::start(server).unwrap();
    let init = json!({
        "protocolVersion": version,
        "capabilities": capabilities,
        "clientInfo": {"name": "raw", "version": "0"}
    });
    within(client.request("initialize", init)).await.unwrap();
    client.notify("notifications/initialized", json!({})).await;
    client
}

/// [`raw_client_at`] protocol 2025-11-25.
pub async fn raw_client(server: Server, capabilities: Value) -> TestClient {
    raw_client_at(server, "2025-11-25", capabilities).await
}

/// The next message from the server that is not a notification.
pub async fn next_non_notification(client: &mut TestClient) -> Value {
    loop {
        let message = within(client.recv()).await.expect("a message");
        if message.get("id").is_some() {
            return message;
        }
    }
}
