//! A rate limit per client, on the `governor` crate: each caller has its
//! own bucket, kept in one map that every connection shares (the layer is
//! applied once per server). A caller is the token's subject when the
//! request is authenticated, else its HTTP session, else the one client
//! of a stdio server. A request over the limit is refused at once, saying
//! when to retry.

use std::sync::Arc;
use std::task::{Context, Poll};

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use mcp_runtime::middleware::{BoxError, McpError, McpRequest};
use mcp_runtime::serde_json::{Value, json};
use tower::{Layer, Service, ServiceExt};

/// Allows each caller `quota` (for example 120 requests a minute, in
/// bursts of up to 120).
#[derive(Clone)]
pub struct RateLimitLayer {
    limiter: Arc<DefaultKeyedRateLimiter<String>>,
}

impl RateLimitLayer {
    pub fn new(quota: Quota) -> RateLimitLayer {
        RateLimitLayer {
            limiter: Arc::new(RateLimiter::keyed(quota)),
        }
    }
}

impl<S> Layer<S> for RateLimitLayer {
    type Service = RateLimit<S>;

    fn layer(&self, inner: S) -> RateLimit<S> {
        RateLimit {
            inner,
            limiter: Arc::clone(&self.limiter),
        }
    }
}

/// The service of [`RateLimitLayer`].
#[derive(Clone)]
pub struct RateLimit<S> {
    inner: S,
    limiter: Arc<DefaultKeyedRateLimiter<String>>,
}

/// Who a request counts against.
fn caller(request: &McpRequest) -> String {
    match (request.identity(), request.session_id()) {
        (Some(caller), _) => format!("subject {}", caller.subject()),
        (None, Some(session)) => format!("session {session}"),
        (None, None) => "the stdio client".to_owned(),
    }
}

impl<S> Service<McpRequest> for RateLimit<S>
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
        let key = caller(&request);
        if let Err(not_until) = self.limiter.check_key(&key) {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let retry_ms = wait.as_millis().max(1) as u64;
            let refused = McpError::invalid_request(format!(
                "rate limit exceeded for {key}: retry in {:.1} s",
                retry_ms as f64 / 1000.0
            ))
            .with_data(json!({ "retryAfterMs": retry_ms }));
            return Box::pin(std::future::ready(Err(refused.into())));
        }
        Box::pin(self.inner.clone().oneshot(request))
    }
}
