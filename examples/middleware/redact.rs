//! Removes secrets from results: every string in a result (a tool's text
//! and structured content, a resource's text, a prompt's messages) loses
//! what looks like an API key to `[REDACTED]`, whatever the handler
//! returned.

use std::sync::Arc;
use std::task::{Context, Poll};

use mcp_runtime::middleware::{BoxError, McpRequest};
use mcp_runtime::serde_json::Value;
use regex_lite::Regex;
use tower::{Layer, Service, ServiceExt};

/// Replaces what `pattern` matches in every string of a result.
#[derive(Clone, Debug)]
pub struct RedactLayer {
    pattern: Arc<Regex>,
}

impl RedactLayer {
    /// Keys shaped like Stripe's (`sk_live_...`, `pk_test_...`), OpenAI's
    /// (`sk-...`) and GitHub's (`ghp_...`) tokens.
    pub fn api_keys() -> RedactLayer {
        RedactLayer::new(
            Regex::new(r"\b(?:[spr]k_(?:live|test)_[A-Za-z0-9]{16,}|sk-[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{30,})")
                .expect("a valid pattern"),
        )
    }

    pub fn new(pattern: Regex) -> RedactLayer {
        RedactLayer {
            pattern: Arc::new(pattern),
        }
    }
}

impl<S> Layer<S> for RedactLayer {
    type Service = Redact<S>;

    fn layer(&self, inner: S) -> Redact<S> {
        Redact {
            inner,
            pattern: Arc::clone(&self.pattern),
        }
    }
}

/// The service of [`RedactLayer`].
#[derive(Clone, Debug)]
pub struct Redact<S> {
    inner: S,
    pattern: Arc<Regex>,
}

impl<S> Service<McpRequest> for Redact<S>
where
    S: Service<McpRequest, Response = Value, Error = BoxError> + Clone + Send + 'static,
    S::Future: Send,
{
    type Response = Value;
    type Error = BoxError;
    type Future = super::BoxFuture<Result<Value, BoxError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let method = request.method().to_owned();
        let pattern = Arc::clone(&self.pattern);
        let answer = self.inner.clone().oneshot(request);
        Box::pin(async move {
            let mut result = answer.await?;
            let redacted = redact(&mut result, &pattern);
            if redacted > 0 {
                tracing::warn!(target: "redact", %method, redacted, "secrets removed from a result");
            }
            Ok(result)
        })
    }
}

/// Replaces every match in the strings of `value`; returns how many
/// strings changed.
fn redact(value: &mut Value, pattern: &Regex) -> usize {
    match value {
        Value::String(text) if pattern.is_match(text) => {
            *text = pattern.replace_all(text, "[REDACTED]").into_owned();
            1
        }
        Value::Array(items) => items.iter_mut().map(|item| redact(item, pattern)).sum(),
        Value::Object(members) => members
            .values_mut()
            .map(|member| redact(member, pattern))
            .sum(),
        _ => 0,
    }
}
