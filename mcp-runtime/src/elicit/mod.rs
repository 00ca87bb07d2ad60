//! Asking the client's user (`elicitation/create`): a form whose schema
//! comes from a type ([`Context::elicit`]), or a URL to open outside the
//! client ([`Context::elicit_url`]), and the user's answer.
//!
//! - `fields`: the types a form's field may have;
//! - `form`: the requested schema of a type, and the reading of answers.

mod fields;
mod form;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context as TaskContext, Poll};

use serde_json::{Map, Value, json};

use crate::ask::ClientRequestError;
use crate::context::{Context, SessionShared};
use crate::jsonrpc;
use crate::protocol::version::ProtocolVersion;

pub use fields::{
    Choice, Choices, ElicitEnum, ElicitField, Number, Text, choice_json, choose, one_of,
};
pub use form::{Elicit, Form, FormBuilder};

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

/// The identifier of a URL-mode elicitation: random, so that it can go in
/// the URL without being guessable. Put it in the URL you send, and find the
/// waiting interaction by it when the user's browser arrives.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ElicitationId(String);

impl ElicitationId {
    /// A new random identifier (128 bits, as 32 hex digits).
    pub fn new() -> ElicitationId {
        let mut bytes = [0u8; 16];
        if getrandom::fill(&mut bytes).is_err() {
            // No entropy source: unique still, if guessable.
            static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            bytes[..8].copy_from_slice(&n.to_le_bytes());
            bytes[8..].copy_from_slice(&(std::process::id() as u64).to_le_bytes());
        }
        ElicitationId(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// The identifier as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for ElicitationId {
    fn default() -> Self {
        ElicitationId::new()
    }
}

impl From<String> for ElicitationId {
    fn from(id: String) -> Self {
        ElicitationId(id)
    }
}

impl fmt::Display for ElicitationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
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

/// Tells the client that asked that a URL-mode elicitation it accepted is
/// complete (`notifications/elicitation/complete`), for example once the
/// user's browser came back from a sign-in. Cheap to clone and `'static`:
/// keep it where the out-of-band interaction ends.
#[derive(Clone)]
pub struct ElicitationComplete {
    id: ElicitationId,
    session: Weak<SessionShared>,
}

impl ElicitationComplete {
    /// The elicitation this completes.
    pub fn id(&self) -> &ElicitationId {
        &self.id
    }

    /// Sends the notification to the client that was asked, and to no
    /// other. Returns whether it was sent: not when that client is gone.
    pub fn send(&self) -> bool {
        let Some(session) = self.session.upgrade() else {
            return false;
        };
        let Some(out) = session.notices.get().and_then(|out| out.upgrade()) else {
            return false;
        };
        let mut line = Vec::new();
        jsonrpc::write_notification(
            &mut line,
            "notifications/elicitation/complete",
            &json!({"elicitationId": self.id.as_str()}),
        );
        line.push(b'\n');
        out.try_send(&line)
    }
}

impl fmt::Debug for ElicitationComplete {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ElicitationComplete")
            .field("id", &self.id)
            .finish_non_exhaustive()
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

fn not_declared(mode: &str) -> ClientRequestError {
    ClientRequestError::NotSupported(format!("elicitation.{mode}"))
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

/// Whether `url` reads as an absolute URL (`scheme:` then no spaces).
fn looks_like_url(url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        && !rest.is_empty()
        && !url.chars().any(|c| c.is_whitespace() || c.is_control())
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
                return Err(not_declared("form"));
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

    /// Asks the client to have its user open `url` (`elicitation/create` in
    /// URL mode, protocol 2025-11-25): for what must not pass through the
    /// client, such as a sign-in to another service or a payment.
    ///
    /// `Accepted` means the user agreed to open it, not that they are done:
    /// keep the [`ElicitationComplete`] it carries and call
    /// [`send`](ElicitationComplete::send) when the interaction `id` names
    /// has finished.
    ///
    /// ```
    /// use mcp_runtime::{Context, ElicitationId, Elicited, tool};
    ///
    /// /// Connects the user's calendar.
    /// #[tool]
    /// async fn connect_calendar(ctx: Context) -> Result<String, String> {
    ///     let id = ElicitationId::new();
    ///     let url = format!("https://example.com/connect?elicitation={id}");
    ///     match ctx.elicit_url(&id, "Sign in to your calendar", &url).await.map_err(|e| e.to_string())? {
    ///         Elicited::Accepted(done) => {
    ///             // Hand `done` to the web route that finishes the sign-in;
    ///             // it calls `done.send()` then.
    ///             drop(done);
    ///             Ok("Finish signing in in your browser, then ask again.".into())
    ///         }
    ///         _ => Ok("Not connected.".into()),
    ///     }
    /// }
    /// ```
    ///
    /// Fails with [`ClientRequestError::NotSupported`] when the client did
    /// not declare URL-mode elicitation (or speaks a protocol older than
    /// 2025-11-25), and [`ClientRequestError::InvalidRequest`] when `url` is
    /// not an absolute URL; otherwise as [`Context::send_request`] does.
    pub async fn elicit_url(
        &self,
        id: &ElicitationId,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<Elicited<ElicitationComplete>, ClientRequestError> {
        let url = url.into();
        if !looks_like_url(&url) {
            return Err(ClientRequestError::InvalidRequest(format!(
                "`{url}` is not an absolute URL: a URL-mode elicitation needs one, such as \
                 `https://example.com/connect`"
            )));
        }
        let session = self.session().map(Arc::clone);
        if let Some(session) = &session
            && (session.version < ProtocolVersion::V2025_11_25 || !declares_mode(session, "url"))
        {
            return Err(not_declared("url"));
        }
        let params = json!({
            "mode": "url",
            "message": message.into(),
            "url": url,
            "elicitationId": id.as_str(),
        });
        let answer = self.send_request("elicitation/create", params).await?;
        Ok(match action(answer)? {
            Elicited::Accepted(_) => Elicited::Accepted(ElicitationComplete {
                id: id.clone(),
                session: session.as_ref().map(Arc::downgrade).unwrap_or_default(),
            }),
            Elicited::Declined => Elicited::Declined,
            Elicited::Cancelled => Elicited::Cancelled,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_need_a_scheme_and_no_spaces() {
        assert!(looks_like_url("https://example.com/connect?id=1"));
        assert!(looks_like_url("mailto:ada@example.com"));
        assert!(!looks_like_url("example.com/connect"));
        assert!(!looks_like_url("https://exa mple.com"));
        assert!(!looks_like_url("1http://x"));
    }

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
