//! An audit log: one `tracing` event per request, target `audit`, with the
//! method, the tool, the caller, the outcome and the duration. Never the
//! params, the result or a token: what a request carries may be private,
//! and a caller is named by its subject alone.

use std::task::{Context, Poll};
use std::time::Instant;

use mcp_runtime::middleware::{BoxError, McpError, McpRequest};
use mcp_runtime::serde_json::Value;
use tower::{Layer, Service, ServiceExt};

/// Logs every request that passes through it (outermost, it sees them all).
#[derive(Clone, Copy, Debug, Default)]
pub struct AuditLayer;

impl<S> Layer<S> for AuditLayer {
    type Service = Audit<S>;

    fn layer(&self, inner: S) -> Audit<S> {
        Audit { inner }
    }
}

/// The service of [`AuditLayer`].
#[derive(Clone, Debug)]
pub struct Audit<S> {
    inner: S,
}

impl<S> Service<McpRequest> for Audit<S>
where
    S: Service<McpRequest, Response = Value, Error = BoxError> + Clone + Send + 'static,
    S::Future: Send,
{
    type Response = Value;
    type Error = BoxError;
    type Future = super::BoxFuture<Result<Value, BoxError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        // Readiness is the inner service's business, per request (below).
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let entry = Entry {
            method: request.method().to_owned(),
            tool: request.tool().map(|tool| tool.name().to_owned()),
            subject: request.identity().map(|caller| caller.subject().to_owned()),
            session: request.session_id().map(str::to_owned),
            // Set by tower-http's `SetRequestIdLayer` on the HTTP router.
            http_request: request
                .extensions()
                .get::<tower_http::request_id::RequestId>()
                .and_then(|id| id.header_value().to_str().ok())
                .map(str::to_owned),
            started: Instant::now(),
            outcome: None,
        };
        let answer = self.inner.clone().oneshot(request);
        Box::pin(async move {
            // `entry` logs as it drops: here, or, if the request is
            // cancelled, when this future is dropped mid-way.
            let result = answer.await;
            entry.finish(outcome(&result));
            result
        })
    }
}

/// What became of a request, in a word.
fn outcome(result: &Result<Value, BoxError>) -> String {
    match result {
        Ok(value) if value.get("isError") == Some(&Value::Bool(true)) => "tool_error".into(),
        Ok(_) => "ok".into(),
        Err(error) => match error.downcast_ref::<McpError>() {
            Some(refused) => format!("error {}", refused.code()),
            None if error.is::<tower::timeout::error::Elapsed>() => "timed_out".into(),
            None => "failed".into(),
        },
    }
}

/// One line of the log, written when the request is over.
struct Entry {
    method: String,
    tool: Option<String>,
    subject: Option<String>,
    session: Option<String>,
    http_request: Option<String>,
    started: Instant,
    /// `None` until the request was answered.
    outcome: Option<String>,
}

impl Entry {
    /// Logs the request, answered with `outcome`.
    fn finish(mut self, outcome: String) {
        self.outcome = Some(outcome);
    }
}

impl Drop for Entry {
    fn drop(&mut self) {
        let outcome = self.outcome.as_deref().unwrap_or("cancelled");
        tracing::info!(
            target: "audit",
            method = %self.method,
            tool = %self.tool.as_deref().unwrap_or("-"),
            subject = %self.subject.as_deref().unwrap_or("-"),
            session = %self.session.as_deref().unwrap_or("-"),
            http_request = %self.http_request.as_deref().unwrap_or("-"),
            %outcome,
            duration_us = self.started.elapsed().as_micros() as u64,
            "request"
        );
    }
}
