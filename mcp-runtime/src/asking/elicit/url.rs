//! URL-mode elicitation (protocol 2025-11-25): sending the user to a page
//! outside the client, telling the client when the interaction there is
//! over, and the error that asks the client to do it before calling again
//! (`-32042`, `URLElicitationRequiredError`).

use std::fmt;
use std::sync::{Arc, Weak};

use serde_json::{Value, json};

use super::{Elicited, action, declares_mode, not_declared};
use crate::asking::ask::ClientRequestError;
use crate::context::{Context, SessionShared};
use crate::jsonrpc::{self, ErrorObject};
use crate::protocol::version::ProtocolVersion;

/// The code of `URLElicitationRequiredError`.
pub(crate) const URL_ELICITATION_REQUIRED: i32 = -32042;

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

/// Whether `session` may be sent URL-mode elicitations.
fn takes_urls(session: &SessionShared) -> bool {
    session.version >= ProtocolVersion::V2025_11_25 && declares_mode(session, "url")
}

fn not_a_url(url: &str) -> ClientRequestError {
    ClientRequestError::InvalidRequest(format!(
        "`{url}` is not an absolute URL: a URL-mode elicitation needs one, such as \
         `https://example.com/connect`"
    ))
}

/// A page the user must visit before a request can succeed: an entry of
/// [`Context::url_elicitation_required`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UrlElicitation {
    id: ElicitationId,
    message: String,
    url: String,
}

impl UrlElicitation {
    /// The page `url`, for the reason `message`, known by `id`.
    pub fn new(id: &ElicitationId, message: impl Into<String>, url: impl Into<String>) -> Self {
        UrlElicitation {
            id: id.clone(),
            message: message.into(),
            url: url.into(),
        }
    }

    fn to_json(&self) -> Value {
        json!({
            "mode": "url",
            "elicitationId": self.id.as_str(),
            "url": self.url,
            "message": self.message,
        })
    }
}

impl Context {
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
            return Err(not_a_url(&url));
        }
        let session = self.session().map(Arc::clone);
        if let Some(session) = &session
            && !takes_urls(session)
        {
            return Err(self.refused(not_declared(session, "url")));
        }
        let mut params = json!({
            "mode": "url",
            "message": message.into(),
            "url": url,
        });
        // 2026-07-28 dropped the id (and the completion notification): the
        // client says it is done by sending the call again.
        if !session.as_ref().is_some_and(|s| s.version.is_modern()) {
            params["elicitationId"] = json!(id.as_str());
        }
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

    /// Ends the call with error `-32042` (`URLElicitationRequiredError`):
    /// the client should have its user open each page, then call again.
    /// For a tool that cannot even start without something only a page
    /// outside the client can give (a sign-in to another service).
    ///
    /// Returns the text of the tool's error: return it as the `Err` of the
    /// call. A client that takes URL-mode elicitations gets the `-32042`
    /// error instead; one that does not (or an in-process call) gets that
    /// text, which names the pages, as an `isError` result.
    ///
    /// ```
    /// use mcp_runtime::{Context, ElicitationId, UrlElicitation, tool};
    ///
    /// /// Lists the user's files on Example Co.
    /// #[tool(read_only)]
    /// async fn list_files(ctx: Context) -> Result<Vec<String>, String> {
    ///     let signed_in = false; // Look the user's token up here.
    ///     if !signed_in {
    ///         let id = ElicitationId::new();
    ///         let url = format!("https://example.com/connect?elicitation={id}");
    ///         let page = UrlElicitation::new(&id, "Sign in to Example Co", url);
    ///         return Err(ctx.url_elicitation_required([page]));
    ///     }
    ///     Ok(vec![])
    /// }
    /// ```
    pub fn url_elicitation_required(
        &self,
        pages: impl IntoIterator<Item = UrlElicitation>,
    ) -> String {
        let pages: Vec<UrlElicitation> = pages.into_iter().collect();
        let text = pages
            .iter()
            .map(|p| format!("{} (open {})", p.message, p.url))
            .collect::<Vec<_>>()
            .join("; ");
        let text = format!("This request needs a page opened first: {text}");
        let sendable = pages.iter().all(|p| looks_like_url(&p.url));
        if !sendable {
            tracing::warn!(
                tool = self.tool_name(),
                "url_elicitation_required: a page's URL is not an absolute URL; the call ends \
                 with an isError result instead of error -32042"
            );
        }
        if let Some(request) = self.request()
            && sendable
            && !pages.is_empty()
            && takes_urls(&request.session)
            && let Some(replay) = &request.replay
        {
            // 2026-07-28 has no -32042: the pages are questions of the
            // call's `input_required` answer, and the client sends the
            // call again once its user has been to them.
            for page in &pages {
                let params = json!({"mode": "url", "message": page.message, "url": page.url});
                let _ = replay.answer("elicitation/create", &params, self.question_key());
            }
        } else if let Some(request) = self.request()
            && sendable
            && !pages.is_empty()
            && takes_urls(&request.session)
            && let Ok(mut required) = request.required.lock()
        {
            let data = json!({"elicitations": pages.iter().map(UrlElicitation::to_json).collect::<Vec<_>>()});
            *required = Some(Box::new(
                ErrorObject::new(URL_ELICITATION_REQUIRED, text.clone()).with_data(data),
            ));
        }
        text
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
}
