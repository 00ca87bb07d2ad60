//! Waiting for what the server sends on its own: notifications.

use std::time::Duration;

use serde_json::{Value, json};

use super::client::TestClient;
use super::error::RpcError;

/// Whether `message` is a notification (no `id`) of `method`.
fn is_notification(message: &Value, method: Option<&str>) -> bool {
    message.get("id").is_none()
        && match (message.get("method").and_then(Value::as_str), method) {
            (Some(_), None) => true,
            (Some(sent), Some(wanted)) => sent == wanted,
            (None, _) => false,
        }
}

impl TestClient {
    /// The next notification of `method` (for example
    /// `"notifications/resources/updated"`), the whole message, waiting at
    /// most `timeout` for it; `None` if none came in time or the server
    /// stopped.
    ///
    /// One already received (while waiting for a response) counts; other
    /// messages received meanwhile are kept, in order, for
    /// [`TestClient::recv`].
    ///
    /// ```standalone_crate
    /// use std::time::Duration;
    /// use mcp_runtime::{Server, testing::TestClient, serde_json::json};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let mut server = Server::new("plugins", "1.0.0");
    /// let notifier = server.notifier();
    /// let mut client = TestClient::connect(server).await.unwrap();
    /// notifier.tools_changed();
    /// let changed = client
    ///     .next_notification("notifications/tools/list_changed", Duration::from_secs(5))
    ///     .await
    ///     .expect("no notification within 5 s");
    /// assert_eq!(
    ///     changed,
    ///     json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}})
    /// );
    /// // Nothing else comes.
    /// let none = client
    ///     .next_notification("notifications/tools/list_changed", Duration::from_millis(10))
    ///     .await;
    /// assert_eq!(none, None);
    /// # }
    /// ```
    pub async fn next_notification(&mut self, method: &str, timeout: Duration) -> Option<Value> {
        let wanted = Some(method);
        if let Some(pos) = self
            .buffered
            .iter()
            .position(|m| is_notification(m, wanted))
        {
            return self.buffered.remove(pos);
        }
        let wait = async {
            loop {
                let message = self.read_message().await?;
                if is_notification(&message, wanted) {
                    return Some(message);
                }
                self.buffered.push_back(message);
            }
        };
        tokio::time::timeout(timeout, wait).await.ok().flatten()
    }

    /// Every notification the server sent up to now, in order: sends a
    /// `ping` and returns the notifications that came before its answer
    /// (the server writes its messages in the order it makes them), so an
    /// empty list says that nothing was sent. Other messages stay for
    /// [`TestClient::recv`].
    ///
    /// ```standalone_crate
    /// use mcp_runtime::{Server, testing::TestClient, serde_json::json};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let mut server = Server::new("plugins", "1.0.0");
    /// let notifier = server.notifier();
    /// let mut client = TestClient::connect(server).await.unwrap();
    /// assert!(client.drain_notifications().await.unwrap().is_empty());
    /// notifier.tools_changed();
    /// notifier.prompts_changed();
    /// let methods: Vec<_> = client
    ///     .drain_notifications()
    ///     .await
    ///     .unwrap()
    ///     .into_iter()
    ///     .map(|n| n["method"].clone())
    ///     .collect();
    /// assert_eq!(
    ///     methods,
    ///     ["notifications/tools/list_changed", "notifications/prompts/list_changed"]
    /// );
    /// # }
    /// ```
    pub async fn drain_notifications(&mut self) -> Result<Vec<Value>, RpcError> {
        self.request("ping", json!({})).await?;
        let (notifications, rest): (Vec<Value>, Vec<Value>) = self
            .buffered
            .drain(..)
            .partition(|m| is_notification(m, None));
        self.buffered = rest.into();
        Ok(notifications)
    }
}
