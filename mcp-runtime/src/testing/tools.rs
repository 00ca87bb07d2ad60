//! The tools helpers: `tools/list` and `tools/call`.

use serde_json::{Value, json};

use super::client::TestClient;
use super::error::RpcError;

impl TestClient {
    /// `tools/list`, following `nextCursor` to the end: every tool, in the
    /// server's order.
    ///
    /// ```standalone_crate
    /// use mcp_runtime::{Server, testing::TestClient, tool};
    ///
    /// /// Add two numbers.
    /// #[tool]
    /// async fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::new("calc", "1.0.0").page_size(1);
    /// let mut client = TestClient::connect(server).await.unwrap();
    /// let tools = client.list_tools().await.unwrap();
    /// assert_eq!(tools[0]["name"], "add");
    /// assert_eq!(tools[0]["description"], "Add two numbers.");
    /// # }
    /// ```
    pub async fn list_tools(&mut self) -> Result<Vec<Value>, RpcError> {
        self.list_all("tools/list", "tools").await
    }

    /// `tools/call`; returns the result object as the client receives it.
    pub async fn call_tool(&mut self, name: &str, arguments: Value) -> Result<Value, RpcError> {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }
}
