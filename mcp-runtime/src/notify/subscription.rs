//! The 2026-07-28 era's subscriptions (`subscriptions/listen`): what
//! each hears of, and its stream.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use crate::jsonrpc::{self, RequestId};
use crate::outbox::Outbox;

/// The `_meta` key that tags a notification with its subscription.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// What a 2026-07-28 subscription hears of (`notifications` of
/// `subscriptions/listen`, as acknowledged).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Filter {
    pub(crate) tools: bool,
    pub(crate) prompts: bool,
    pub(crate) resources: bool,
    pub(crate) uris: HashSet<String>,
}

impl Filter {
    /// Whether a notification `method` with `params` is one this filter
    /// asked for.
    pub(super) fn wants(&self, method: &str, params: &Value) -> bool {
        match method {
            "notifications/tools/list_changed" => self.tools,
            "notifications/prompts/list_changed" => self.prompts,
            "notifications/resources/list_changed" => self.resources,
            "notifications/resources/updated" => params
                .get("uri")
                .and_then(Value::as_str)
                .is_some_and(|uri| self.uris.contains(uri)),
            _ => false,
        }
    }

    /// The `notifications` object of the acknowledgement.
    pub(crate) fn to_json(&self) -> Value {
        let mut notifications = serde_json::Map::new();
        for (key, on) in [
            ("toolsListChanged", self.tools),
            ("promptsListChanged", self.prompts),
            ("resourcesListChanged", self.resources),
        ] {
            if on {
                notifications.insert(key.into(), Value::Bool(true));
            }
        }
        if !self.uris.is_empty() {
            let mut uris: Vec<&String> = self.uris.iter().collect();
            uris.sort();
            notifications.insert("resourceSubscriptions".into(), json!(uris));
        }
        Value::Object(notifications)
    }
}

/// One open `subscriptions/listen`: where its notifications go, and what
/// it hears of.
pub(crate) struct Subscription {
    /// The id of the listen request, which tags its notifications.
    pub(crate) id: RequestId,
    /// The same id as a value, for the tag.
    pub(super) tag: Value,
    pub(crate) filter: Filter,
    /// The listen request's stream (held: the stream ends when the
    /// subscription does).
    pub(super) out: Outbox,
    pub(super) ended: AtomicBool,
}

impl Subscription {
    /// Writes `method` with `params` tagged with this subscription's id.
    pub(super) fn send(&self, method: &str, params: &Value) -> bool {
        let mut params = params.clone();
        if let Value::Object(map) = &mut params {
            let meta = map.entry("_meta").or_insert_with(|| json!({}));
            meta[SUBSCRIPTION_ID] = self.tag.clone();
        }
        let mut line = Vec::new();
        jsonrpc::write_notification(&mut line, method, &params);
        line.push(b'\n');
        self.out.try_send(&line)
    }

    /// Ends the subscription gracefully: its listen request is answered
    /// (a result naming the subscription), which closes its stream.
    pub(crate) fn end(&self) {
        if self.ended.swap(true, Ordering::AcqRel) {
            return;
        }
        let result = json!({
            "resultType": "complete",
            "_meta": { SUBSCRIPTION_ID: self.tag },
        });
        let mut line = Vec::new();
        jsonrpc::write_result(&mut line, &self.id, &result);
        line.push(b'\n');
        let _ = self.out.try_send(&line);
    }

    /// Stops it without an answer (the client cancelled it).
    pub(crate) fn cancel(&self) {
        self.ended.store(true, Ordering::Release);
    }

    pub(super) fn is_live(&self) -> bool {
        !self.ended.load(Ordering::Acquire) && !self.out.is_closed()
    }
}
