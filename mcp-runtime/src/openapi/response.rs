//! The API's answer as a tool result: JSON successes as structured
//! content, other successes as text, and everything else (a non-2xx, a
//! redirect, a timeout, a refused connection, a body over the limit) as
//! an error sentence naming the request. Texts made here are scrubbed of
//! secrets by the caller.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header;
use serde_json::Value;

use super::plan::Settings;
use crate::CallToolResult;
use crate::content::Content;

/// How much of an error answer's body a message shows.
const SHOWN_BODY: usize = 8 * 1024;

/// The result of an answer to `target` (`GET URL`); `Err` is an error
/// result's text.
pub(super) async fn read(
    settings: &Settings,
    target: &str,
    mut answer: reqwest::Response,
) -> Result<CallToolResult, String> {
    let status = answer.status();
    if status.is_redirection() {
        let location = answer
            .headers()
            .get(header::LOCATION)
            .map(|l| String::from_utf8_lossy(l.as_bytes()).into_owned());
        return Err(match location {
            Some(location) => format!(
                "The API answered {} to {target}, a redirect to {location}, which this tool \
                 does not follow",
                status_text(status)
            ),
            None => format!(
                "The API answered {} to {target}, which this tool cannot use",
                status_text(status)
            ),
        });
    }
    let media_type = answer
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|v| !v.is_empty());
    let body = read_limited(settings, target, status, &mut answer).await?;
    let json_type = media_type.as_deref().map(is_json);
    if status.is_success() {
        if body.is_empty() {
            return Ok(text_result(status_text(status)));
        }
        if json_type != Some(false) {
            match serde_json::from_slice::<Value>(&body) {
                Ok(value) => return Ok(CallToolResult::structured(value)),
                Err(error) if json_type == Some(true) => {
                    return Err(format!(
                        "The API answered {} to {target} with invalid JSON ({error})",
                        status_text(status)
                    ));
                }
                Err(_) => {}
            }
        }
        return match String::from_utf8(body) {
            Ok(text) => Ok(text_result(text)),
            Err(bytes) => Err(format!(
                "The API answered {} to {target} with {} bytes of {}, which this tool cannot \
                 return (it answers JSON or text)",
                status_text(status),
                bytes.as_bytes().len(),
                media_type.as_deref().unwrap_or("binary data"),
            )),
        };
    }
    let said = if body.is_empty() {
        return Err(format!(
            "The API answered {} to {target}, with an empty body",
            status_text(status)
        ));
    } else if let Ok(value) = serde_json::from_slice::<Value>(&body) {
        serde_json::to_string_pretty(&value).unwrap_or_else(|_| value.to_string())
    } else {
        match std::str::from_utf8(&body) {
            Ok(text) => text.to_owned(),
            Err(_) => format!(
                "({} bytes of {})",
                body.len(),
                media_type.as_deref().unwrap_or("binary data")
            ),
        }
    };
    Err(format!(
        "The API answered {} to {target}:\n{}",
        status_text(status),
        cut(&said, SHOWN_BODY)
    ))
}

/// The text of a request that got no answer.
pub(super) fn send_error(settings: &Settings, target: &str, error: reqwest::Error) -> String {
    if error.is_timeout() {
        return timed_out(settings, target);
    }
    let host = error.url().map(|url| {
        let host = url.host_str().unwrap_or_default();
        match url.port_or_known_default() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_owned(),
        }
    });
    if error.is_connect()
        && let Some(host) = host
    {
        return format!(
            "could not connect to {host}: {}, so {target} was not sent",
            cause(&error)
        );
    }
    format!("{target} failed: {}", cause(&error))
}

/// `GET URL did not answer within 30 s`.
fn timed_out(settings: &Settings, target: &str) -> String {
    format!(
        "{target} did not answer within {}",
        duration(settings.timeout)
    )
}

/// The body, at most `max_response_bytes` of it.
async fn read_limited(
    settings: &Settings,
    target: &str,
    status: StatusCode,
    answer: &mut reqwest::Response,
) -> Result<Vec<u8>, String> {
    let limit = settings.max_response_bytes;
    let too_large = || {
        format!(
            "The API answered {} to {target} with a body larger than {limit} bytes, the most \
             this tool reads (max_response_bytes); ask for less, with a filter or a smaller page",
            status_text(status)
        )
    };
    if answer
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Err(too_large());
    }
    let mut body = Vec::new();
    loop {
        match answer.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > limit {
                    return Err(too_large());
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(body),
            Err(error) if error.is_timeout() => return Err(timed_out(settings, target)),
            Err(error) => {
                return Err(format!(
                    "reading the answer to {target} failed: {}",
                    cause(&error)
                ));
            }
        }
    }
}

/// What went wrong, from the innermost error (reqwest's own text names the
/// URL, which may hold a query credential, so it is never shown).
fn cause(error: &reqwest::Error) -> String {
    let mut innermost: Option<&dyn std::error::Error> = None;
    let mut next = std::error::Error::source(error);
    while let Some(current) = next {
        if let Some(io) = current.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::ConnectionRefused
        {
            return "connection refused".to_owned();
        }
        innermost = Some(current);
        next = current.source();
    }
    match innermost {
        Some(inner) => inner.to_string(),
        None if error.is_body() || error.is_decode() => "the body could not be read".to_owned(),
        None => "the request could not be sent".to_owned(),
    }
}

/// A successful text result.
fn text_result(text: String) -> CallToolResult {
    CallToolResult::success(vec![Content::text(text)])
}

/// `application/json`, or a `+json` type (`application/problem+json`).
fn is_json(media_type: &str) -> bool {
    media_type == "application/json" || media_type.ends_with("+json")
}

/// `404 Not Found` (the code alone when it has no standard reason).
pub(super) fn status_text(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

/// `30 s`, or `200 ms` under a whole second.
fn duration(duration: Duration) -> String {
    if duration.subsec_millis() == 0 && duration.as_secs() > 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{} ms", duration.as_millis())
    }
}

/// At most `limit` bytes of `text` (cut on a character boundary), saying
/// so when cut.
fn cut(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n… (cut at {} KiB of {} bytes)",
        &text[..end],
        limit / 1024,
        text.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(duration(Duration::from_secs(30)), "30 s");
        assert_eq!(duration(Duration::from_millis(200)), "200 ms");
        assert_eq!(duration(Duration::from_millis(1500)), "1500 ms");
    }

    #[test]
    fn statuses_carry_their_reason() {
        assert_eq!(status_text(StatusCode::NOT_FOUND), "404 Not Found");
        assert_eq!(status_text(StatusCode::from_u16(299).unwrap()), "299");
    }

    #[test]
    fn long_bodies_are_cut_on_a_character_boundary() {
        let text = "é".repeat(10);
        let shown = cut(&text, 5);
        assert!(shown.starts_with("éé\n…"), "{shown}");
        assert!(shown.contains("of 20 bytes"), "{shown}");
        assert_eq!(cut("short", 5), "short");
    }

    #[test]
    fn json_media_types() {
        assert!(is_json("application/json"));
        assert!(is_json("application/problem+json"));
        assert!(!is_json("text/plain"));
    }
}
