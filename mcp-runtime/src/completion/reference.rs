//! What a `completion/complete` request completes an argument of: its
//! `ref`, the one type both clients send (`client::Client`, with the
//! `client` feature, and `testing::TestClient`).

use serde_json::{Value, json};

/// What a completion completes: a prompt's argument, or a resource
/// template's variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompletionRef {
    /// `ref/prompt`: an argument of the prompt with this name.
    Prompt(String),
    /// `ref/resource`: a variable of the resource template with this URI
    /// template, for example `"users://{id}/profile"`.
    Resource(String),
}

impl CompletionRef {
    /// The `ref` object of the request.
    pub(crate) fn to_json(&self) -> Value {
        match self {
            CompletionRef::Prompt(name) => json!({"type": "ref/prompt", "name": name}),
            CompletionRef::Resource(uri) => json!({"type": "ref/resource", "uri": uri}),
        }
    }
}
