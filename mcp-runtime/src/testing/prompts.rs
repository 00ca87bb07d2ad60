//! The prompts and completion helpers: `prompts/list`, `prompts/get` and
//! `completion/complete`.

use serde_json::{Map, Value, json};

use super::client::TestClient;
use super::error::RpcError;
use crate::completion::CompletionRef;

impl TestClient {
    /// `prompts/list`, following `nextCursor` to the end: every prompt, in
    /// the server's order.
    ///
    /// ```standalone_crate
    /// use mcp_runtime::{Server, prompt, testing::TestClient, serde_json::json};
    ///
    /// /// Greet someone.
    /// #[prompt]
    /// fn greet(
    ///     /// Who to greet.
    ///     name: String,
    /// ) -> String {
    ///     format!("Say hello to {name}.")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let mut client = TestClient::connect(Server::new("greeter", "1.0.0")).await.unwrap();
    /// let prompts = client.list_prompts().await.unwrap();
    /// assert_eq!(
    ///     prompts,
    ///     [json!({"name": "greet", "description": "Greet someone.",
    ///             "arguments": [{"name": "name", "description": "Who to greet.", "required": true}]})]
    /// );
    /// # }
    /// ```
    pub async fn list_prompts(&mut self) -> Result<Vec<Value>, RpcError> {
        self.list_all("prompts/list", "prompts").await
    }

    /// `prompts/get` of the prompt `name` with `arguments` (an object of
    /// strings, sent as given; `Value::Null` sends none); returns the result
    /// (`{"messages": [...]}`) as the client receives it.
    ///
    /// ```standalone_crate
    /// use mcp_runtime::{Server, prompt, testing::TestClient, serde_json::json};
    ///
    /// /// Greet someone.
    /// #[prompt]
    /// fn greet(name: String, times: Option<u8>) -> String {
    ///     format!("Say hello to {name} {} times.", times.unwrap_or(1))
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let mut client = TestClient::connect(Server::new("greeter", "1.0.0")).await.unwrap();
    /// let got = client
    ///     .get_prompt("greet", json!({"name": "Ada", "times": "2"}))
    ///     .await
    ///     .unwrap();
    /// assert_eq!(
    ///     got["messages"],
    ///     json!([{"role": "user", "content": {"type": "text", "text": "Say hello to Ada 2 times."}}])
    /// );
    /// // A missing required argument is invalid params, naming it.
    /// let error = client.get_prompt("greet", json!({})).await.unwrap_err();
    /// assert_eq!(error.code, -32602);
    /// assert!(error.message.contains("`name`"), "{}", error.message);
    /// # }
    /// ```
    pub async fn get_prompt(&mut self, name: &str, arguments: Value) -> Result<Value, RpcError> {
        let mut params = Map::new();
        params.insert("name".into(), json!(name));
        if !arguments.is_null() {
            params.insert("arguments".into(), arguments);
        }
        self.request("prompts/get", Value::Object(params)).await
    }

    /// `completion/complete` of the argument `argument` of `reference`,
    /// typed so far as `value`; returns the result
    /// (`{"completion": {"values": [...]}}`) as the client receives it.
    ///
    /// ```standalone_crate
    /// use mcp_runtime::{Server, prompt, resource, serde_json::json};
    /// use mcp_runtime::testing::{CompletionRef, TestClient};
    ///
    /// fn cities(prefix: String) -> Vec<&'static str> {
    ///     ["Oslo", "Osaka", "Paris"].into_iter().filter(|c| c.starts_with(&prefix)).collect()
    /// }
    ///
    /// /// Plan a trip.
    /// #[prompt]
    /// fn plan_trip(#[complete(cities)] city: String) -> String {
    ///     format!("Plan a trip to {city}.")
    /// }
    ///
    /// /// A city's weather.
    /// #[resource("weather://cities/{name}")]
    /// fn city(#[complete(cities)] name: String) -> String {
    ///     format!("{name}: sunny")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let mut client = TestClient::connect(Server::new("trips", "1.0.0")).await.unwrap();
    /// let result = client
    ///     .complete(&CompletionRef::Prompt("plan_trip".into()), "city", "Os")
    ///     .await
    ///     .unwrap();
    /// assert_eq!(result, json!({"completion": {"values": ["Oslo", "Osaka"]}}));
    /// let result = client
    ///     .complete(&CompletionRef::Resource("weather://cities/{name}".into()), "name", "P")
    ///     .await
    ///     .unwrap();
    /// assert_eq!(result["completion"]["values"], json!(["Paris"]));
    /// # }
    /// ```
    pub async fn complete(
        &mut self,
        reference: &CompletionRef,
        argument: &str,
        value: &str,
    ) -> Result<Value, RpcError> {
        self.complete_with_context(reference, argument, value, Value::Null)
            .await
    }

    /// [`TestClient::complete`] with the other arguments already given
    /// (`context.arguments`, protocol 2025-06-18), an object of strings;
    /// `Value::Null` sends no `context`.
    ///
    /// ```standalone_crate
    /// use mcp_runtime::{Arguments, Server, prompt, serde_json::json};
    /// use mcp_runtime::testing::{CompletionRef, TestClient};
    ///
    /// fn frameworks(prefix: String, given: Arguments) -> Vec<&'static str> {
    ///     let all: &[&'static str] = match given.get("language") {
    ///         Some("rust") => &["axum", "actix-web"],
    ///         _ => &["flask", "fastapi"],
    ///     };
    ///     all.iter().copied().filter(|f| f.starts_with(&prefix)).collect()
    /// }
    ///
    /// /// Start a project.
    /// #[prompt]
    /// fn start(language: String, #[complete(frameworks)] framework: String) -> String {
    ///     format!("Start a {language} project with {framework}.")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let mut client = TestClient::connect(Server::new("projects", "1.0.0")).await.unwrap();
    /// let result = client
    ///     .complete_with_context(
    ///         &CompletionRef::Prompt("start".into()),
    ///         "framework",
    ///         "a",
    ///         json!({"language": "rust"}),
    ///     )
    ///     .await
    ///     .unwrap();
    /// assert_eq!(result["completion"]["values"], json!(["axum", "actix-web"]));
    /// # }
    /// ```
    pub async fn complete_with_context(
        &mut self,
        reference: &CompletionRef,
        argument: &str,
        value: &str,
        context: Value,
    ) -> Result<Value, RpcError> {
        let mut params = Map::new();
        params.insert("ref".into(), reference.to_json());
        params.insert("argument".into(), json!({"name": argument, "value": value}));
        if !context.is_null() {
            params.insert("context".into(), json!({ "arguments": context }));
        }
        self.request("completion/complete", Value::Object(params))
            .await
    }
}
