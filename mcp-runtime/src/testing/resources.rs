//! The resources helpers: listing, reading and subscribing.

use serde_json::{Value, json};

use super::client::TestClient;
use super::error::RpcError;

impl TestClient {
    /// `resources/list`, following `nextCursor` to the end: every resource
    /// (not the templates), in the server's order.
    ///
    /// ```standalone_crate
    /// use mcp_runtime::{Server, resource, testing::TestClient, serde_json::json};
    ///
    /// /// The application's settings.
    /// #[resource("config://app", mime_type = "application/json")]
    /// fn settings() -> String {
    ///     r#"{"theme": "dark"}"#.into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let mut client = TestClient::connect(Server::new("app", "1.0.0")).await.unwrap();
    /// let resources = client.list_resources().await.unwrap();
    /// assert_eq!(
    ///     resources,
    ///     [json!({"uri": "config://app", "name": "settings",
    ///             "description": "The application's settings.",
    ///             "mimeType": "application/json"})]
    /// );
    /// # }
    /// ```
    pub async fn list_resources(&mut self) -> Result<Vec<Value>, RpcError> {
        self.list_all("resources/list", "resources").await
    }

    /// `resources/templates/list`, following `nextCursor` to the end: every
    /// resource template, in the server's order.
    ///
    /// ```standalone_crate
    /// use mcp_runtime::{Server, resource, testing::TestClient};
    ///
    /// /// A user's profile.
    /// #[resource("users://{id}/profile")]
    /// async fn profile(id: u64) -> Option<String> {
    ///     (id == 1).then(|| "Ada".to_owned())
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let mut client = TestClient::connect(Server::new("users", "1.0.0")).await.unwrap();
    /// let templates = client.list_resource_templates().await.unwrap();
    /// assert_eq!(templates[0]["uriTemplate"], "users://{id}/profile");
    /// assert_eq!(templates[0]["name"], "profile");
    /// # }
    /// ```
    pub async fn list_resource_templates(&mut self) -> Result<Vec<Value>, RpcError> {
        self.list_all("resources/templates/list", "resourceTemplates")
            .await
    }

    /// `resources/read` of `uri`; returns the result (`{"contents": [...]}`)
    /// as the client receives it.
    ///
    /// ```standalone_crate
    /// use mcp_runtime::{Server, resource, testing::TestClient, serde_json::json};
    ///
    /// /// A user's profile.
    /// #[resource("users://{id}/profile")]
    /// async fn profile(id: u64) -> Option<String> {
    ///     (id == 1).then(|| "Ada".to_owned())
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let mut client = TestClient::connect(Server::new("users", "1.0.0")).await.unwrap();
    /// let read = client.read_resource("users://1/profile").await.unwrap();
    /// assert_eq!(
    ///     read,
    ///     json!({"contents": [{"uri": "users://1/profile", "mimeType": "text/plain", "text": "Ada"}]})
    /// );
    /// // `None` is "resource not found", naming the URI.
    /// let error = client.read_resource("users://2/profile").await.unwrap_err();
    /// assert_eq!(error.code, -32002);
    /// assert_eq!(error.data, Some(json!({"uri": "users://2/profile"})));
    /// # }
    /// ```
    pub async fn read_resource(&mut self, uri: &str) -> Result<Value, RpcError> {
        self.request("resources/read", json!({ "uri": uri })).await
    }

    /// `resources/subscribe` to `uri`; returns the result (`{}`). The
    /// server's `notifications/resources/updated` for it can then be
    /// awaited with [`TestClient::next_notification`].
    ///
    /// ```standalone_crate
    /// use std::time::Duration;
    /// use mcp_runtime::{Server, resource, testing::TestClient, serde_json::json};
    ///
    /// /// The current temperature.
    /// #[resource("sensors://temperature")]
    /// fn temperature() -> String {
    ///     "21.5".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let mut server = Server::new("sensors", "1.0.0");
    /// let notifier = server.notifier();
    /// let mut client = TestClient::connect(server).await.unwrap();
    /// assert_eq!(client.subscribe("sensors://temperature").await.unwrap(), json!({}));
    ///
    /// notifier.resource_updated("sensors://temperature");
    /// let update = client
    ///     .next_notification("notifications/resources/updated", Duration::from_secs(5))
    ///     .await
    ///     .expect("no update within 5 s");
    /// assert_eq!(update["params"], json!({"uri": "sensors://temperature"}));
    /// # }
    /// ```
    pub async fn subscribe(&mut self, uri: &str) -> Result<Value, RpcError> {
        self.request("resources/subscribe", json!({ "uri": uri }))
            .await
    }

    /// `resources/unsubscribe` from `uri`; returns the result (`{}`).
    ///
    /// ```standalone_crate
    /// use mcp_runtime::{Server, resource, testing::TestClient, serde_json::json};
    ///
    /// /// The current temperature.
    /// #[resource("sensors://temperature")]
    /// fn temperature() -> String {
    ///     "21.5".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let mut server = Server::new("sensors", "1.0.0");
    /// let notifier = server.notifier();
    /// let mut client = TestClient::connect(server).await.unwrap();
    /// client.subscribe("sensors://temperature").await.unwrap();
    /// assert_eq!(client.unsubscribe("sensors://temperature").await.unwrap(), json!({}));
    ///
    /// // No session is subscribed any more: nobody is told.
    /// assert_eq!(notifier.resource_updated("sensors://temperature"), 0);
    /// assert!(client.drain_notifications().await.unwrap().is_empty());
    /// # }
    /// ```
    pub async fn unsubscribe(&mut self, uri: &str) -> Result<Value, RpcError> {
        self.request("resources/unsubscribe", json!({ "uri": uri }))
            .await
    }
}
