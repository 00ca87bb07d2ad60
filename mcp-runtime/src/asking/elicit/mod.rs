//! Asking the client's user (`elicitation/create`): a form whose schema
//! comes from a type ([`Context::elicit`]), or a URL to open outside the
//! client ([`Context::elicit_url`]), and the user's answer.
//!
//! - `fields`: the types a form's field may have;
//! - `form`: the requested schema of a type, and the reading of answers;
//! - `url`: URL mode, its completion notice and its `-32042` error.

mod fields;
mod form;
mod url;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use serde_json::{Map, Value, json};

use crate::asking::ask::ClientRequestError;
use crate::context::{Context, SessionShared};

pub use fields::{
    Choice, Choices, ElicitEnum, ElicitField, Number, Text, choice_json, choose, one_of,
};
pub use form::{Elicit, Form, FormBuilder};
pub use url::{ElicitationComplete, ElicitationId, UrlElicitation};

/// The user's answer to a question: what they entered, or that they said
/// no (`Declined`) or dismissed it (`Cancelled`).
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub enum Elicited<T> {
    /// The user submitted the form (or, for a URL, agreed to open it).
    Accepted(T),
    /// The user explicitly said no.
    Declined,
    /// The user dismissed the question without choosing.
    Cancelled,
}

impl<T> Elicited<T> {
    /// The accepted value, if the user accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicited::Accepted(value) => Some(value),
            Elicited::Declined | Elicited::Cancelled => None,
        }
    }
}

/// The answer [`Context::elicit`] waits for: a future of
/// `Result<Elicited<T>, ClientRequestError>`.
#[must_use = "the question is asked only when awaited"]
pub struct Asking<'a, T>(
    Pin<Box<dyn Future<Output = Result<Elicited<T>, ClientRequestError>> + Send + 'a>>,
);

impl<T> Future for Asking<'_, T> {
    type Output = Result<Elicited<T>, ClientRequestError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        self.0.as_mut().poll(cx)
    }
}

impl<T> fmt::Debug for Asking<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Asking").finish_non_exhaustive()
    }
}

/// Whether the client declared the elicitation `mode` (`form` or `url`).
/// An empty `elicitation` object means form mode only.
fn declares_mode(session: &SessionShared, mode: &str) -> bool {
    match session.client.capabilities.get("elicitation") {
        Some(Value::Object(modes)) if modes.is_empty() => mode == "form",
        Some(Value::Object(modes)) => modes.contains_key(mode),
        _ => false,
    }
}

/// The capability a client that did not declare `mode` lacks: all of
/// `elicitation` when it declared none, else just the mode.
fn not_declared(session: &SessionShared, mode: &str) -> ClientRequestError {
    match session.client.capabilities.get("elicitation") {
        None | Some(Value::Null) => ClientRequestError::NotSupported("elicitation".into()),
        Some(_) => ClientRequestError::NotSupported(format!("elicitation.{mode}")),
    }
}

/// Reads `{action, content}`; `content` only for `accept`.
fn action(answer: Value) -> Result<Elicited<Option<Map<String, Value>>>, ClientRequestError> {
    let bad = |why: &str| {
        ClientRequestError::InvalidAnswer(format!(
            "the answer to elicitation/create {why}: {answer}"
        ))
    };
    match answer.get("action").and_then(Value::as_str) {
        Some("accept") => match answer.get("content") {
            None | Some(Value::Null) => Ok(Elicited::Accepted(None)),
            Some(Value::Object(content)) => Ok(Elicited::Accepted(Some(content.clone()))),
            Some(_) => Err(bad("has a `content` that is not an object")),
        },
        Some("decline") => Ok(Elicited::Declined),
        Some("cancel") => Ok(Elicited::Cancelled),
        _ => Err(bad("has no `action` of accept, decline or cancel")),
    }
}

impl Context {
    /// Asks the client's user to fill in the form `T` (`elicitation/create`
    /// in form mode) and waits for the answer.
    ///
    /// The requested schema comes from `T`'s `#[derive(Elicit)]`. An
    /// accepted answer is checked against it (left-out fields get their
    /// defaults first) and read into a `T`; one that does not fit is
    /// [`ClientRequestError::InvalidAnswer`], naming each problem.
    ///
    /// ```
    /// use mcp_runtime::{Context, Elicit, Elicited, tool};
    ///
    /// #[derive(Elicit)]
    /// struct Confirm {
    ///     /// Delete them all?
    ///     confirm: bool,
    /// }
    ///
    /// /// Deletes the user's drafts, once they confirm.
    /// #[tool(destructive)]
    /// async fn delete_drafts(ctx: Context) -> Result<String, String> {
    ///     // Work before the first question may run again in the 2026-07-28
    ///     // era: ask first, act after.
    ///     match ctx.elicit::<Confirm>("Delete all 12 drafts?").await.map_err(|e| e.to_string())? {
    ///         Elicited::Accepted(Confirm { confirm: true }) => Ok("Deleted 12 drafts.".into()),
    ///         _ => Ok("Nothing was deleted.".into()),
    ///     }
    /// }
    /// ```
    ///
    /// Fails as [`Context::send_request`] does, and with
    /// [`ClientRequestError::NotSupported`] when the client did not declare
    /// form-mode elicitation.
    pub fn elicit<T: Elicit>(&self, message: impl Into<String>) -> Asking<'_, T> {
        let message = message.into();
        Asking(Box::pin(async move {
            let form = T::form()
                .as_ref()
                .map_err(|why| ClientRequestError::InvalidRequest(why.clone()))?;
            if let Some(session) = self.session()
                && !declares_mode(session, "form")
            {
                return Err(self.refused(not_declared(session, "form")));
            }
            let params = json!({
                "message": message,
                "requestedSchema": form.schema_for(self.protocol_version()),
            });
            let answer = self.send_request("elicitation/create", params).await?;
            Ok(match action(answer)? {
                Elicited::Accepted(content) => {
                    let read = form
                        .read(content.unwrap_or_default())
                        .and_then(T::from_answer)
                        .map_err(ClientRequestError::InvalidAnswer)?;
                    Elicited::Accepted(read)
                }
                Elicited::Declined => Elicited::Declined,
                Elicited::Cancelled => Elicited::Cancelled,
            })
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_without_an_action_is_refused() {
        assert!(matches!(
            action(json!({"content": {}})),
            Err(ClientRequestError::InvalidAnswer(_))
        ));
        assert_eq!(action(json!({"action": "decline"})), Ok(Elicited::Declined));
        assert_eq!(
            action(json!({"action": "accept", "content": {"a": 1}})),
            Ok(Elicited::Accepted(Some(
                json!({"a": 1}).as_object().unwrap().clone()
            )))
        );
    }
}
