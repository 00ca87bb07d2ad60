//! `resources/read`, `resources/subscribe` and `resources/unsubscribe`.
//! (The lists are pages served by the connection.)

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::frame::Frame;
use super::job::{Job, request_context};
use super::reply::{Answer, JsonAnswer, json_result};
use super::state::Connection;
use crate::content::ResourceContents;
use crate::context::{Context, SessionChange, SessionShared};
use crate::jsonrpc::{ErrorObject, INTERNAL_ERROR, INVALID_PARAMS, RESOURCE_NOT_FOUND};
use crate::protocol::version::ProtocolVersion;
use crate::registry::Registry;
use crate::resources::def::{ReadError, ReadRequest};
use crate::unwind::CatchUnwind;

/// The `uri` of a resources request's params.
fn uri_of<'p>(params: &'p Map<String, Value>, method: &str) -> Result<&'p str, ErrorObject> {
    params.get("uri").and_then(Value::as_str).ok_or_else(|| {
        ErrorObject::new(
            INVALID_PARAMS,
            format!("{method} needs `uri`, a string naming the resource"),
        )
    })
}

/// "Resource not found", naming the URI: -32002 in the legacy era,
/// -32602 (invalid params) from 2026-07-28 on.
pub(super) fn not_found(uri: &str, version: ProtocolVersion) -> ErrorObject {
    let code = if version.is_modern() {
        INVALID_PARAMS
    } else {
        RESOURCE_NOT_FOUND
    };
    ErrorObject::new(code, format!("Resource not found: {uri}")).with_data(json!({ "uri": uri }))
}

/// The progress token in a request's `_meta`, if any.
pub(super) fn progress_token(params: &Map<String, Value>) -> Option<Value> {
    params
        .get("_meta")
        .and_then(|meta| meta.get("progressToken"))
        .filter(|token| token.is_string() || token.is_i64() || token.is_u64())
        .cloned()
}

impl Connection {
    /// `resources/read`: the resource with that URI, or the template that
    /// matches it, read as a call of its own (concurrent, cancellable).
    pub(super) async fn read_resource(
        &mut self,
        params: Map<String, Value>,
        session: Arc<SessionShared>,
        frame: &mut Frame<'_>,
    ) -> Result<Answer, ErrorObject> {
        let id = frame.id;
        let uri = uri_of(&params, "resources/read")?;
        let snapshot = Arc::clone(self.core.live.refresh(&mut self.held));
        let Some((resource, vars)) = snapshot.registry.find_resource(uri) else {
            return Err(not_found(uri, session.version));
        };
        self.calls.check_unused(id)?;
        let name = Arc::clone(&resource.name);
        let ctx = request_context(
            &session,
            name,
            id,
            progress_token(&params),
            frame.out,
            self.identity.as_ref(),
        );
        let request = ReadRequest {
            uri: uri.to_owned(),
            vars,
        };
        let reading = CatchUnwind::new(resource.read(request, ctx.clone()));
        let uri = uri.to_owned();
        let version = session.version;
        let call = async move { read_answer(&uri, reading.await, version) };
        let job = Job::json("resources/read", &session, &self.core);
        self.calls.run(ctx, Box::pin(call), job, frame).await
    }
}

/// `resources/read` of the resource `params` names, through the layers
/// (see `dispatch::layered`): the same answer as
/// [`Connection::read_resource`], with `ctx` made beforehand.
pub(super) async fn read(
    registry: &Registry,
    params: &Map<String, Value>,
    ctx: Context,
) -> JsonAnswer {
    let uri = uri_of(params, "resources/read")?;
    let version = ctx.protocol_version().unwrap_or(ProtocolVersion::LATEST);
    let Some((resource, vars)) = registry.find_resource(uri) else {
        return Err(not_found(uri, version));
    };
    let request = ReadRequest {
        uri: uri.to_owned(),
        vars,
    };
    let read = CatchUnwind::new(resource.read(request, ctx)).await;
    read_answer(uri, read, version)
}

/// `resources/subscribe` and `resources/unsubscribe` (`method`): a
/// resource that exists (or matches a template) is added to or removed
/// from the session's subscriptions.
pub(super) fn subscribe(
    registry: &Registry,
    params: &Map<String, Value>,
    session: &SessionShared,
    method: &str,
) -> Result<(), ErrorObject> {
    let subscribe = method == "resources/subscribe";
    let uri = uri_of(params, method)?;
    let found = registry.find_resource(uri);
    if subscribe && found.is_none() {
        return Err(not_found(uri, session.version));
    }
    let changed = session.subscriptions.lock().is_ok_and(|mut subscriptions| {
        if subscribe {
            subscriptions.insert(uri.to_owned())
        } else {
            subscriptions.remove(uri)
        }
    });
    if changed && let Some(hook) = found.and_then(|(resource, _)| resource.on_subscribe.as_ref()) {
        hook(uri, subscribe);
    }
    // Told even when this copy of the session had it already: a fleet's
    // store is the one to keep.
    session.changed(if subscribe {
        SessionChange::Subscribe(uri.to_owned())
    } else {
        SessionChange::Unsubscribe(uri.to_owned())
    });
    Ok(())
}

/// The answer to `resources/read` of `uri`, from what the handler gave.
fn read_answer(
    uri: &str,
    read: Result<Result<Vec<ResourceContents>, ReadError>, String>,
    version: ProtocolVersion,
) -> JsonAnswer {
    #[derive(Serialize)]
    struct ReadResult<'a> {
        contents: &'a [ResourceContents],
    }
    match read {
        Ok(Ok(mut contents)) => {
            // `_meta` on an item arrived with 2025-06-18, as on the lists.
            if !version.has_titles() {
                for item in &mut contents {
                    *item.meta_mut() = None;
                }
            }
            json_result(&ReadResult {
                contents: &contents,
            })
        }
        Ok(Err(ReadError::NotFound)) => Err(not_found(uri, version)),
        Ok(Err(ReadError::Failed(text))) => Err(ErrorObject::new(INTERNAL_ERROR, text)),
        Err(panic) => {
            tracing::error!(%uri, %panic, "resource handler panicked");
            Err(ErrorObject::new(
                INTERNAL_ERROR,
                format!("reading `{uri}` failed with an internal error"),
            ))
        }
    }
}
