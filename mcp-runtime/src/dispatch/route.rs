//! Routing by method, shared by both eras: a request past its era's gate
//! is served in `self.session` (the legacy session, or the one made for a
//! 2026-07-28 request alone), on the plain path or, when the server has
//! layers, through them (`layered`).

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::frame::{Frame, Request, params_object};
use super::logging::set_level;
use super::reply::{Answer, Replies, method_not_found, not_initialized, raw};
use super::resources::subscribe;
use super::state::Connection;
use super::tails::finish;
use crate::jsonrpc::call_params;
use crate::jsonrpc::{self, ErrorObject};

impl Connection {
    /// Serves a request past the era's gate: `self.session` is the
    /// request's session (the connection's, or one made for a 2026-07-28
    /// request alone).
    pub(super) async fn route(
        &mut self,
        request: Request<'_, '_>,
        frame: &mut Frame<'_>,
    ) -> Result<Answer, ErrorObject> {
        if self.core.service.is_some() {
            if request.method.starts_with("tasks/") && self.core.tasks.is_some() {
                // The task methods are served past the layers: a task's
                // call went through them when it was made.
                let Some(session) = self.session.clone() else {
                    return Err(not_initialized());
                };
                return Box::pin(self.task_method(request.method, request.params, session, frame))
                    .await;
            }
            // Boxed: the layered path's state stays out of every request's
            // future.
            return Box::pin(self.handle_layered(request, frame)).await;
        }
        let Request {
            method,
            params,
            call,
        } = request;
        let id = frame.id;
        let write = |reply: &mut Replies<'_>, result: &RawValue| {
            reply.write(|reply| jsonrpc::write_result(reply, id, &result));
            Ok(Answer::Written)
        };
        let Some(session) = self.session.clone() else {
            return Err(not_initialized());
        };
        if !self.core.served.serves(method) {
            return Err(method_not_found(method));
        }
        // The calls other than `tools/call` are awaited boxed: inline, their
        // state would make every request's future larger, and `tools/call`
        // pay to move it.
        match method {
            "tools/call" => {
                let params = call
                    .unwrap_or_else(|| call_params::parse(params))
                    .map_err(|error| *error)?;
                let snapshot = self.core.live.refresh(&mut self.held);
                let identity = self.identity.as_ref();
                (self.calls)
                    .start(&self.core, snapshot, params, session, identity, frame)
                    .await
            }
            "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" => {
                let params = params_object(params)?;
                let snapshot = self.core.live.refresh(&mut self.held);
                let cursor = params.get("cursor");
                let version = session.version;
                let caller = self.identity.as_ref();
                let permitted = self.core.limits.list_only_permitted && caller.is_some();
                let page = match caller.filter(|_| permitted) {
                    Some(caller) => {
                        Cow::Owned(snapshot.permitted_page(method, cursor, version, caller)?)
                    }
                    None => Cow::Borrowed(snapshot.page(method, cursor, version)?),
                };
                let tail = version
                    .is_modern()
                    .then(|| self.core.tails().of(method, permitted));
                frame.reply.write(|reply| {
                    let start = reply.len();
                    jsonrpc::write_result(reply, id, &page);
                    if let Some(tail) = tail {
                        finish(reply, start, id, tail);
                    }
                });
                Ok(Answer::Written)
            }
            "resources/read" => {
                let params = params_object(params)?;
                Box::pin(self.read_resource(params, session, frame)).await
            }
            "resources/subscribe" | "resources/unsubscribe" => {
                let params = params_object(params)?;
                let snapshot = self.core.live.refresh(&mut self.held);
                subscribe(&snapshot.registry, &params, &session, method)?;
                write(&mut frame.reply, &raw("{}"))
            }
            "prompts/get" => {
                let params = params_object(params)?;
                Box::pin(self.get_prompt(params, session, frame)).await
            }
            "completion/complete" => {
                let params = params_object(params)?;
                Box::pin(self.complete(params, session, frame)).await
            }
            "tasks/get" | "tasks/cancel" | "tasks/update" | "tasks/result" | "tasks/list" => {
                Box::pin(self.task_method(method, params, session, frame)).await
            }
            #[cfg(feature = "skills")]
            "skills/list" | "skills/get" => {
                let params = params_object(params)?;
                let snapshot = self.core.live.refresh(&mut self.held);
                let result = super::skills::answer(snapshot, method, &params, session.version)?;
                let tail = self.core.tail(&session, method);
                frame.reply.write(|reply| {
                    let start = reply.len();
                    jsonrpc::write_result(reply, id, &result);
                    if let Some(tail) = tail {
                        finish(reply, start, id, &tail);
                    }
                });
                Ok(Answer::Written)
            }
            "logging/setLevel" => {
                set_level(&params_object(params)?, &session)?;
                write(&mut frame.reply, &raw("{}"))
            }
            _ => Err(method_not_found(method)),
        }
    }
}
