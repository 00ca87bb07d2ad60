//! The chain's middleware layer. It wraps the mounted servers' tools as it
//! would local ones: every request the chain serves passes through it,
//! whichever server answers it.
//!
//! [`CallLogLayer`]: one `tracing` event per request (target `chain`): the
//! method, the tool, the outcome and the duration. (The tools the config
//! blocks are hidden by transforms in `main.rs`: the runtime answers a call
//! of one as of an unknown tool, -32602 `Unknown tool: NAME`, which this
//! layer logs too.)

use std::task::{Context, Poll};
use std::time::Instant;

use mcp_runtime::middleware::{BoxError, McpError, McpRequest};
use mcp_runtime::serde_json::Value;
use tower::{Layer, Service, ServiceExt};

use super::BoxFuture;

/// Logs every request with its outcome and duration (the outermost layer,
/// so refusals are logged too).
#[derive(Clone, Copy, Debug, Default)]
pub struct CallLogLayer;

impl<S> Layer<S> for CallLogLayer {
    type Service = CallLog<S>;

    fn layer(&self, inner: S) -> CallLog<S> {
        CallLog { inner }
    }
}

/// The service of [`CallLogLayer`].
#[derive(Clone, Debug)]
pub struct CallLog<S> {
    inner: S,
}

impl<S> Service<McpRequest> for CallLog<S>
where
    S: Service<McpRequest, Response = Value, Error = BoxError> + Clone + Send + 'static,
    S::Future: Send,
{
    type Response = Value;
    type Error = BoxError;
    type Future = BoxFuture<Result<Value, BoxError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let method = request.method().to_owned();
        let tool = tool_name(&request).map(str::to_owned);
        let started = Instant::now();
        let answer = self.inner.clone().oneshot(request);
        Box::pin(async move {
            // A call cancelled on its way drops this future: logged as such.
            let mut logged = Logged {
                method,
                tool,
                started,
                outcome: None,
            };
            let result = answer.await;
            logged.outcome = Some(outcome(&result));
            result
        })
    }
}

/// The name a `tools/call` asks for.
fn tool_name(request: &McpRequest) -> Option<&str> {
    if request.method() != "tools/call" {
        return None;
    }
    request.params().get("name").and_then(Value::as_str)
}

/// What became of a request, in a word or two.
fn outcome(result: &Result<Value, BoxError>) -> String {
    match result {
        Ok(value) if value.get("isError") == Some(&Value::Bool(true)) => "tool_error".into(),
        Ok(_) => "ok".into(),
        Err(error) => match error.downcast_ref::<McpError>() {
            Some(refused) => format!("error {}", refused.code()),
            None => "failed".into(),
        },
    }
}

/// One request, logged when it is over (answered or dropped).
struct Logged {
    method: String,
    tool: Option<String>,
    started: Instant,
    outcome: Option<String>,
}

impl Drop for Logged {
    fn drop(&mut self) {
        tracing::info!(
            target: "chain",
            method = %self.method,
            tool = %self.tool.as_deref().unwrap_or("-"),
            outcome = %self.outcome.as_deref().unwrap_or("cancelled"),
            duration_ms = %format_args!("{:.1}", self.started.elapsed().as_secs_f64() * 1000.0),
            "request"
        );
    }
}
