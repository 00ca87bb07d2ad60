//! A policy: a tool annotated `destructive` (`#[tool(destructive)]`) may
//! be called only by a caller whose token grants a given scope. Anyone
//! else, anonymous callers included, is refused before the tool runs.
//!
//! (The protocol reads a tool with no hints at all as possibly destructive
//! too; a stricter policy would refuse every tool not marked `read_only`.)

use std::sync::Arc;
use std::task::{Context, Poll};

use mcp_runtime::middleware::{BoxError, McpError, McpRequest};
use mcp_runtime::serde_json::{Value, json};
use tower::{Layer, Service, ServiceExt};

/// Refuses calls of destructive tools to callers without `scope`.
#[derive(Clone, Debug)]
pub struct RequireScopeForDestructive {
    scope: Arc<str>,
}

impl RequireScopeForDestructive {
    pub fn new(scope: &str) -> RequireScopeForDestructive {
        RequireScopeForDestructive {
            scope: scope.into(),
        }
    }
}

impl<S> Layer<S> for RequireScopeForDestructive {
    type Service = Policy<S>;

    fn layer(&self, inner: S) -> Policy<S> {
        Policy {
            inner,
            scope: Arc::clone(&self.scope),
        }
    }
}

/// The service of [`RequireScopeForDestructive`].
#[derive(Clone, Debug)]
pub struct Policy<S> {
    inner: S,
    scope: Arc<str>,
}

impl<S> Service<McpRequest> for Policy<S>
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
        if let Some(tool) = request.tool()
            && tool.hints().destructive == Some(true)
            && !request
                .identity()
                .is_some_and(|caller| caller.has_scope(&self.scope))
        {
            let refused = McpError::invalid_request(format!(
                "the tool `{}` is destructive: calling it needs the `{}` scope",
                tool.name(),
                self.scope
            ))
            .with_data(json!({ "tool": tool.name(), "requiredScope": &*self.scope }));
            return Box::pin(std::future::ready(Err(refused.into())));
        }
        Box::pin(self.inner.clone().oneshot(request))
    }
}
