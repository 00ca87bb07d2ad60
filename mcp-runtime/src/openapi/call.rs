//! One tool call: the operation's HTTP request, sent, and its answer as a
//! tool result.
//!
//! Every failure is an `isError` result the model can read (a bad
//! argument, a refused connection, a timeout, a redirect, a non-2xx
//! answer), never a JSON-RPC error and never a panic.
//!
//! Credentials go only to the base URL's origin. That is checked on every
//! request, against the URL actually sent, although nothing an argument
//! holds can change the origin: the URL is the base's with only its path
//! and query replaced, path values are percent-encoded (`/` included) and
//! dot segments refused (see `request.rs`), and redirects are never
//! followed (a redirect to another host would otherwise carry an API-key
//! header or query along; reqwest strips only `Authorization`). No
//! credential appears in a message, a log or a span: URLs are shown
//! before the credentials are added, and every error text is scrubbed of
//! the secrets in case the API echoes one back.

use base64::Engine as _;
use reqwest::header::{self, HeaderValue};
use serde_json::Value;

use super::plan::{CallPlan, Credential, KeyLocation};
use super::request::{self, Prepared};
use super::{response, styles};
use crate::CallToolResult;

/// What takes a secret's place in a message.
const REDACTED: &str = "[redacted]";

/// Calls the operation of `plan` with `arguments` (the tool's validated
/// arguments) and answers the tool's result.
pub(crate) async fn call(plan: &CallPlan, arguments: Value) -> CallToolResult {
    let mut prepared = match request::prepare(plan, &arguments) {
        Ok(prepared) => prepared,
        Err(reason) => {
            return failed(plan, format!("{} was not called: {reason}", plan.label));
        }
    };
    // Shown in messages: taken before any credential joins the URL.
    let target = format!("{} {}", plan.method, prepared.url);
    if same_origin(&plan.base, &prepared.url) {
        add_credentials(&mut prepared, &plan.credentials);
    } else if !plan.credentials.is_empty() {
        tracing::warn!(
            operation = %plan.label,
            "the request leaves the base URL's origin; sent without credentials"
        );
    }
    tracing::debug!(operation = %plan.label, request = %target, "calling the API");
    let sent = build(plan, prepared).send().await;
    let answered = match sent {
        Ok(answer) => response::read(&plan.settings, &target, answer).await,
        Err(error) => Err(response::send_error(&plan.settings, &target, error)),
    };
    match answered {
        Ok(result) => result,
        Err(message) => failed(plan, message),
    }
}

/// An error result whose text holds none of the plan's secrets.
fn failed(plan: &CallPlan, message: String) -> CallToolResult {
    CallToolResult::error(redact(message, &plan.credentials))
}

/// Whether `url` has the origin (scheme, host and port) of `base`.
pub(super) fn same_origin(base: &url::Url, url: &url::Url) -> bool {
    let origin = base.origin();
    origin.is_tuple() && origin == url.origin()
}

/// Adds the credentials where each one goes: the `Authorization` header,
/// an API-key header, query pair or cookie. Secret headers are marked
/// sensitive, so that no debug print of the request shows them.
pub(super) fn add_credentials(prepared: &mut Prepared, credentials: &[Credential]) {
    for credential in credentials {
        match credential {
            Credential::Bearer(token) => {
                push_secret(prepared, header::AUTHORIZATION, format!("Bearer {token}"));
            }
            Credential::Basic { user, password } => {
                let pair =
                    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
                push_secret(prepared, header::AUTHORIZATION, format!("Basic {pair}"));
            }
            Credential::ApiKey {
                name,
                location,
                value,
            } => match location {
                KeyLocation::Header => {
                    if let Ok(name) = header::HeaderName::from_bytes(name.as_bytes()) {
                        push_secret(prepared, name, value.to_string());
                    }
                }
                KeyLocation::Query => {
                    let pair = format!(
                        "{}={}",
                        styles::encode(name, b""),
                        styles::encode(value, b"")
                    );
                    let query = match prepared.url.query() {
                        Some(query) if !query.is_empty() => format!("{query}&{pair}"),
                        _ => pair,
                    };
                    prepared.url.set_query(Some(&query));
                }
                KeyLocation::Cookie => {
                    prepared
                        .cookies
                        .push(styles::cookie(name, &Value::String(value.to_string())));
                }
            },
        }
    }
}

/// A header holding a secret; a value a header cannot carry is left out
/// (the API then answers 401, which says more than a made-up error).
fn push_secret(prepared: &mut Prepared, name: header::HeaderName, text: String) {
    if let Ok(mut value) = HeaderValue::from_str(&text) {
        value.set_sensitive(true);
        prepared.headers.push((name, value));
    }
}

/// The reqwest request of a prepared one.
fn build(plan: &CallPlan, prepared: Prepared) -> reqwest::RequestBuilder {
    let mut request = plan
        .settings
        .client
        .request(plan.method.clone(), prepared.url)
        .timeout(plan.settings.timeout);
    if let Some(accept) = &plan.accept {
        request = request.header(header::ACCEPT, accept.as_str());
    }
    for (name, value) in prepared.headers {
        request = request.header(name, value);
    }
    if !prepared.cookies.is_empty()
        && let Ok(mut cookies) = HeaderValue::from_str(&prepared.cookies.join("; "))
    {
        cookies.set_sensitive(true);
        request = request.header(header::COOKIE, cookies);
    }
    if let (Some(body), Some(plan_body)) = (prepared.body, &plan.body) {
        request = request
            .header(header::CONTENT_TYPE, plan_body.media_type.as_str())
            .body(body);
    }
    request
}

/// `text` with every secret of `credentials` (as written and as sent:
/// percent-encoded, or Basic's base64 pair) replaced by `[redacted]`.
pub(super) fn redact(mut text: String, credentials: &[Credential]) -> String {
    let mut secrets: Vec<String> = Vec::new();
    for credential in credentials {
        match credential {
            Credential::Bearer(token) => secrets.push(token.to_string()),
            Credential::Basic { user, password } => {
                secrets.push(
                    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}")),
                );
                secrets.push(password.to_string());
            }
            Credential::ApiKey { value, .. } => {
                secrets.push(styles::encode(value, b""));
                secrets.push(value.to_string());
            }
        }
    }
    // Longest first, so that a secret inside another is not half-replaced.
    secrets.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
    for secret in secrets.iter().filter(|secret| !secret.is_empty()) {
        if !text.contains(secret.as_str()) {
            continue;
        }
        text = match secret.len() >= WHOLE_WORD_BELOW {
            true => text.replace(secret.as_str(), REDACTED),
            false => replace_whole_words(&text, secret),
        };
    }
    text
}

/// Secrets shorter than this are redacted only where they stand as a
/// whole word: replacing a one-letter token everywhere would shred the
/// message, while a longer one is redacted wherever it appears.
const WHOLE_WORD_BELOW: usize = 8;

/// `text` with each occurrence of `secret` that no letter or digit
/// touches replaced by `[redacted]`.
fn replace_whole_words(text: &str, secret: &str) -> String {
    let touches = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(secret) {
        let before = rest[..at].chars().next_back().or(out.chars().next_back());
        let after = rest[at + secret.len()..].chars().next();
        out.push_str(&rest[..at]);
        match touches(before) || touches(after) {
            true => out.push_str(secret),
            false => out.push_str(REDACTED),
        }
        rest = &rest[at + secret.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_plan::PlanBuilder;
    use super::*;

    fn url(text: &str) -> url::Url {
        url::Url::parse(text).unwrap()
    }

    #[test]
    fn short_secrets_are_redacted_only_as_whole_words() {
        let plan = PlanBuilder::get("http://127.0.0.1:1", "/")
            .bearer("t")
            .build();
        let text = "token t refused; try another (t)".to_owned();
        assert_eq!(
            redact(text, &plan.credentials),
            "token [redacted] refused; try another ([redacted])"
        );
    }

    #[test]
    fn a_call_can_run_on_any_thread() {
        // What a `DynamicTool` handler needs of it.
        fn send<T: Send + 'static>(_: T) {}
        let plan = std::sync::Arc::new(PlanBuilder::get("http://127.0.0.1:1", "/").build());
        send(async move { call(&plan, json!({})).await });
    }

    #[test]
    fn the_origin_is_scheme_host_and_port() {
        let base = url("http://127.0.0.1:4010/v1");
        assert!(same_origin(&base, &url("http://127.0.0.1:4010/other?x=1")));
        assert!(!same_origin(&base, &url("http://127.0.0.1:4011/v1")));
        assert!(!same_origin(&base, &url("https://127.0.0.1:4010/v1")));
        assert!(!same_origin(&base, &url("http://localhost:4010/v1")));
        let https = url("https://api.example.com");
        assert!(same_origin(&https, &url("https://api.example.com:443/x")));
        assert!(!same_origin(
            &https,
            &url("https://api.example.com.evil.example/")
        ));
        assert!(!same_origin(&url("file:///tmp/x"), &url("file:///tmp/x")));
    }

    #[test]
    fn credentials_go_where_their_scheme_says() {
        let plan = PlanBuilder::get("http://127.0.0.1:1/v1", "/x")
            .query("q", crate::openapi::plan::QueryStyle::Form, true)
            .cookie("c")
            .bearer("tok")
            .api_key("k", KeyLocation::Query, "a&b")
            .api_key("X-Key", KeyLocation::Header, "hv")
            .api_key("session", KeyLocation::Cookie, "cv")
            .build();
        let mut prepared = request::prepare(&plan, &json!({"q": 1, "c": 2})).unwrap();
        add_credentials(&mut prepared, &plan.credentials);
        assert_eq!(prepared.url.query(), Some("q=1&k=a%26b"));
        assert_eq!(prepared.cookies, ["c=2", "session=cv"]);
        let headers: Vec<_> = prepared
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.to_str().unwrap(), v.is_sensitive()))
            .collect();
        assert_eq!(
            headers,
            [("authorization", "Bearer tok", true), ("x-key", "hv", true)]
        );
        let basic = PlanBuilder::get("http://127.0.0.1:1", "/")
            .basic("u", "p w")
            .build();
        let mut prepared = request::prepare(&basic, &json!({})).unwrap();
        add_credentials(&mut prepared, &basic.credentials);
        assert_eq!(prepared.headers[0].1.to_str().unwrap(), "Basic dTpwIHc=");
    }

    #[test]
    fn secrets_are_redacted_in_every_form() {
        let plan = PlanBuilder::get("http://127.0.0.1:1", "/")
            .bearer("tok-123")
            .basic("user", "pa ss")
            .api_key("k", KeyLocation::Query, "key/1")
            .build();
        let text = "tok-123 pa ss dXNlcjpwYSBzcw== key%2F1 key/1 user".to_owned();
        assert_eq!(
            redact(text, &plan.credentials),
            "[redacted] [redacted] [redacted] [redacted] [redacted] user"
        );
    }
}
