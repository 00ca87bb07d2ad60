//! Answering the server's `elicitation/create` requests: what the handler
//! given to [`ClientBuilder::on_elicitation`](crate::client::ClientBuilder::on_elicitation)
//! receives and returns, and the answer sent for it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value, json};

/// A question the server asks the user (`elicitation/create`, protocol
/// 2025-06-18 and later).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ElicitationRequest {
    /// What to ask, for the user to read.
    pub message: String,
    /// The JSON Schema of the answer (form mode): an object of primitive
    /// properties, some with a `default`. `Value::Null` in URL mode.
    pub requested_schema: Value,
    /// The whole `params`, as the server sent them (URL mode's `url` and
    /// `elicitationId` are there).
    pub params: Value,
}

/// The user's answer to an [`ElicitationRequest`].
#[derive(Clone, Debug, PartialEq)]
pub enum Elicitation {
    /// The user answered: the values, by property name. A property the
    /// answer leaves out whose schema has a `default` is sent with the
    /// default (SEP-1034).
    Accept(Map<String, Value>),
    /// The user said no.
    Decline,
    /// The user dismissed the question.
    Cancel,
}

type Answering = Pin<Box<dyn Future<Output = Elicitation> + Send>>;

/// The handler, shared by the connection.
pub(crate) type ElicitationHandler = Arc<dyn Fn(ElicitationRequest) -> Answering + Send + Sync>;

type Sampling =
    Pin<Box<dyn Future<Output = Result<crate::asking::sampling::Sampled, String>> + Send>>;

/// The sampling handler, shared by the connection: the completion, or
/// why the user refused.
pub(crate) type SamplingHandler =
    Arc<dyn Fn(crate::asking::sampling::SamplingRequest) -> Sampling + Send + Sync>;

pub(crate) fn handler<F, Fut>(handler: F) -> ElicitationHandler
where
    F: Fn(ElicitationRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Elicitation> + Send + 'static,
{
    Arc::new(move |request| Box::pin(handler(request)))
}

/// The request `params` as an [`ElicitationRequest`].
pub(crate) fn request(params: Value) -> ElicitationRequest {
    ElicitationRequest {
        message: params
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        requested_schema: params
            .get("requestedSchema")
            .cloned()
            .unwrap_or(Value::Null),
        params,
    }
}

/// The `elicitation/create` result for `answer`, with the defaults of
/// `schema` filled in where an accepted answer left a property out.
pub(crate) fn result(answer: Elicitation, schema: &Value) -> Value {
    match answer {
        Elicitation::Accept(mut content) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            for (name, property) in properties.into_iter().flatten() {
                if let Some(default) = property.get("default")
                    && !content.contains_key(name)
                {
                    content.insert(name.clone(), default.clone());
                }
            }
            json!({ "action": "accept", "content": content })
        }
        Elicitation::Decline => json!({ "action": "decline" }),
        Elicitation::Cancel => json!({ "action": "cancel" }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_accepted_answer_gets_the_defaults_it_left_out() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "email": {"type": "string"}
            }
        });
        let mut given = Map::new();
        given.insert("name".into(), json!("Ada"));
        assert_eq!(
            result(Elicitation::Accept(given), &schema),
            json!({"action": "accept", "content": {"name": "Ada", "age": 30}})
        );
        assert_eq!(
            result(Elicitation::Decline, &schema),
            json!({"action": "decline"})
        );
        assert_eq!(
            result(Elicitation::Cancel, &Value::Null),
            json!({"action": "cancel"})
        );
    }
}
