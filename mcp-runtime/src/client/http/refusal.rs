//! Errors as the client reports them: an HTTP refusal with the server's
//! message, a failed request as an I/O error, an error and its sources in
//! one line.

use reqwest::Response;
use reqwest::header::WWW_AUTHENTICATE;
use serde_json::Value;

use super::DELETE_TIMEOUT;
use crate::client::error::ClientError;
use crate::client::limit;

/// The largest error body read for its message; past it the status
/// speaks alone. (Answers are read up to the client's `max_message_size`.)
const MAX_BODY: usize = 1024 * 1024;

/// A successful response as it is; an HTTP error as [`ClientError::Http`]
/// with the server's message (the JSON-RPC error's, or the body's).
pub(super) async fn refuse(response: Response) -> Result<Response, ClientError> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let www_authenticate = matches!(status.as_u16(), 401 | 403)
        .then(|| response.headers().get(WWW_AUTHENTICATE))
        .flatten()
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = tokio::time::timeout(DELETE_TIMEOUT, limit::read_body(response, MAX_BODY))
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let from_json = serde_json::from_slice::<Value>(&body).ok().and_then(|v| {
        let message = v.get("error")?.get("message")?.as_str()?;
        Some(message.to_owned())
    });
    let message = from_json.unwrap_or_else(|| {
        let text = String::from_utf8_lossy(&body);
        let text = text.trim();
        if text.is_empty() {
            status
                .canonical_reason()
                .unwrap_or("no reason given")
                .to_owned()
        } else {
            text.chars().take(500).collect()
        }
    });
    Err(ClientError::Http {
        status: status.as_u16(),
        message,
        www_authenticate,
    })
}

pub(super) fn io_error(error: &reqwest::Error) -> ClientError {
    use std::io::ErrorKind;
    let kind = if error.is_timeout() {
        ErrorKind::TimedOut
    } else if error.is_connect() {
        ErrorKind::ConnectionRefused
    } else {
        ErrorKind::Other
    };
    ClientError::Io(std::io::Error::new(kind, chain(error)))
}

/// An error and its sources, in one line.
pub(super) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let words = cause.to_string();
        if !text.contains(&words) {
            text.push_str(": ");
            text.push_str(&words);
        }
        source = cause.source();
    }
    text
}
