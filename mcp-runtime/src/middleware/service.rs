//! The service layers wrap, and the stack a server builds from its layers.

use std::task::{Context, Poll};

use serde_json::Value;
use tower::util::BoxCloneSyncService;
use tower::{BoxError, Layer, Service, ServiceExt};

use super::McpRequest;

/// The service a layer given to [`Server::layer`](crate::Server::layer)
/// wraps: the layers inside it and, innermost, the server performing the
/// request. Its response is the JSON-RPC `result`; its error, anything a
/// layer returned (see [`McpError`](super::McpError) for what the client
/// is sent).
pub type McpService = BoxCloneSyncService<McpRequest, Value, BoxError>;

/// The layers a server was given, in the order given; turned into one
/// service when the server starts.
#[derive(Default)]
pub(crate) struct Layers {
    wraps: Vec<Wrap>,
}

type Wrap = Box<dyn FnOnce(McpService) -> McpService + Send + Sync>;

impl Layers {
    /// Adds `layer` inside the ones added before.
    pub(crate) fn push<L>(&mut self, layer: L)
    where
        L: Layer<McpService> + Send + Sync + 'static,
        L::Service: Service<McpRequest, Response = Value> + Clone + Send + Sync + 'static,
        <L::Service as Service<McpRequest>>::Error: Into<BoxError>,
        <L::Service as Service<McpRequest>>::Future: Send + 'static,
    {
        self.wraps.push(Box::new(move |inner| {
            BoxCloneSyncService::new(layer.layer(inner).map_err(Into::into))
        }));
    }

    /// The whole stack, the first layer outermost; `None` without layers.
    pub(crate) fn build(self) -> Option<McpService> {
        if self.wraps.is_empty() {
            return None;
        }
        tracing::debug!(
            layers = self.wraps.len(),
            "every request goes through the layers"
        );
        let mut service = McpService::new(Innermost);
        for wrap in self.wraps.into_iter().rev() {
            service = wrap(service);
        }
        Some(service)
    }
}

/// The bottom of the stack: performs the request as the layers left it.
#[derive(Clone, Copy)]
struct Innermost;

impl Service<McpRequest> for Innermost {
    type Response = Value;
    type Error = BoxError;
    type Future = std::pin::Pin<Box<dyn Future<Output = Result<Value, BoxError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let McpRequest {
            method,
            params,
            perform,
            ..
        } = request;
        let performing = perform.perform(method, params);
        Box::pin(async move { performing.await.map_err(BoxError::from) })
    }
}
