//! `subscriptions/listen` (2026-07-28): a request that stays open and
//! carries the change notifications its client opted in to
//! (`notifications`: `toolsListChanged`, `promptsListChanged`,
//! `resourcesListChanged`, `resourceSubscriptions`), each tagged with the
//! request's id. The server acknowledges first, with the part of the
//! filter it honours: list changes only when its lists can change (a
//! [`Notifier`](crate::Notifier) or a [`ServerHandle`](crate::ServerHandle)
//! was taken), prompts and resources only when it serves them. It answers
//! the request only when it ends the subscription (shutdown); the client
//! ends it by closing the stream (HTTP) or cancelling the request (stdio).

use std::collections::HashSet;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::frame::params_object;
use super::reply::Answer;
use super::state::Connection;
use crate::jsonrpc::{ErrorObject, INVALID_PARAMS, RequestId};
use crate::notify::Filter;
use crate::outbox::Outbox;

fn invalid(message: &str) -> ErrorObject {
    ErrorObject::new(
        INVALID_PARAMS,
        format!(
            "Invalid params: {message}; subscriptions/listen takes `notifications`, an object \
             with toolsListChanged, promptsListChanged, resourcesListChanged (booleans) and \
             resourceSubscriptions (resource URIs)"
        ),
    )
}

/// The filter a listen request asks for.
fn requested(params: &Map<String, Value>) -> Result<Filter, ErrorObject> {
    let Some(Value::Object(notifications)) = params.get("notifications") else {
        return Err(invalid("`notifications` is missing or not an object"));
    };
    let flag = |key: &str| match notifications.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(on)) => Ok(*on),
        Some(_) => Err(invalid(&format!("`{key}` must be a boolean"))),
    };
    let uris = match notifications.get("resourceSubscriptions") {
        None | Some(Value::Null) => HashSet::new(),
        Some(Value::Array(uris)) => uris
            .iter()
            .map(|uri| uri.as_str().map(str::to_owned))
            .collect::<Option<HashSet<String>>>()
            .ok_or_else(|| invalid("`resourceSubscriptions` must hold strings"))?,
        Some(_) => return Err(invalid("`resourceSubscriptions` must be an array")),
    };
    Ok(Filter {
        tools: flag("toolsListChanged")?,
        prompts: flag("promptsListChanged")?,
        resources: flag("resourcesListChanged")?,
        uris,
    })
}

impl Connection {
    /// Opens a subscription for the listen request `id` on `out`.
    pub(super) fn listen(
        &mut self,
        id: &RequestId,
        params: Option<&RawValue>,
        out: &Outbox,
    ) -> Result<Answer, ErrorObject> {
        let asked = requested(&params_object(params)?)?;
        let served = &self.core.served;
        let changes = served.list_changes;
        let honoured = Filter {
            tools: asked.tools && changes,
            prompts: asked.prompts && changes && served.prompts,
            resources: asked.resources && changes && served.resources,
            uris: if served.resources {
                asked.uris
            } else {
                HashSet::new()
            },
        };
        tracing::debug!(id = id.as_json(), filter = ?honoured, "subscription opened");
        let subscription = self.core.hub.subscribe(id.clone(), honoured, out.clone());
        self.listens.push(subscription);
        Ok(Answer::Later)
    }

    /// Cancels the subscription the listen request `id` opened, if any
    /// (`notifications/cancelled` on stdio); whether there was one.
    pub(super) fn unlisten(&mut self, key: &str) -> bool {
        let before = self.listens.len();
        self.listens.retain(|subscription| {
            let cancelled = subscription.id.key() == key;
            if cancelled {
                subscription.cancel();
            }
            !cancelled
        });
        self.listens.len() != before
    }

    /// Ends this connection's subscriptions gracefully (its input ended).
    pub(super) fn end_listens(&mut self) {
        for subscription in self.listens.drain(..) {
            subscription.end();
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_filter_is_read_strictly() {
        let read = |v: Value| requested(v.as_object().unwrap());
        assert!(read(json!({})).is_err());
        assert!(read(json!({"notifications": {"toolsListChanged": "yes"}})).is_err());
        assert!(read(json!({"notifications": {"resourceSubscriptions": [1]}})).is_err());
        let filter = read(json!({"notifications": {
            "toolsListChanged": true,
            "resourceSubscriptions": ["a://b"],
            "somethingNew": true
        }}))
        .unwrap();
        assert!(filter.tools && !filter.prompts && !filter.resources);
        assert!(filter.uris.contains("a://b"));
    }
}
