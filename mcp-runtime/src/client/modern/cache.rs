//! The 2026-07-28 era's freshness hints, honoured: a `server/discover`
//! answer or a page of a list whose result says `ttlMs` is kept that long
//! (each page by its own cursor, as the specification's caching rules
//! say) and served again instead of asking the server. A change
//! notification for a list drops its pages at once. Results with no
//! `ttlMs`, a zero or negative one, or of the legacy era, are not kept.
//!
//! One cache per [`Client`](crate::client::Client): it is never shared
//! with another connection, so a `cacheScope` of `"private"` (reuse only
//! under the same authorization) is honoured as well as `"public"`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

/// What is kept, by method and cursor.
#[derive(Default)]
pub(crate) struct ListCache {
    kept: Mutex<HashMap<(String, Option<String>), Kept>>,
}

struct Kept {
    result: Value,
    until: Instant,
}

/// The lists a change notification makes stale.
fn stale_after(notification: &str) -> &'static [&'static str] {
    match notification {
        "notifications/tools/list_changed" => &["tools/list"],
        "notifications/prompts/list_changed" => &["prompts/list"],
        "notifications/resources/list_changed" => &["resources/list", "resources/templates/list"],
        _ => &[],
    }
}

/// How long a result says it stays fresh: its `ttlMs`, if positive.
pub(crate) fn ttl(result: &Value) -> Option<Duration> {
    let ms = result.get("ttlMs")?.as_f64()?;
    (ms >= 1.0).then(|| Duration::from_millis(ms.min(u64::MAX as f64) as u64))
}

impl ListCache {
    fn kept(&self) -> std::sync::MutexGuard<'_, HashMap<(String, Option<String>), Kept>> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The result of `method` at `cursor`, if one was kept and is fresh.
    pub(crate) fn get(&self, method: &str, cursor: Option<&str>) -> Option<Value> {
        let mut kept = self.kept();
        let key = (method.to_owned(), cursor.map(str::to_owned));
        match kept.get(&key) {
            Some(entry) if Instant::now() < entry.until => Some(entry.result.clone()),
            Some(_) => {
                kept.remove(&key);
                None
            }
            None => None,
        }
    }

    /// Keeps `result` of `method` at `cursor` for as long as its `ttlMs`
    /// says, counted from now (when it was received).
    pub(crate) fn keep(&self, method: &str, cursor: Option<&str>, result: &Value) {
        let Some(ttl) = ttl(result) else { return };
        let Some(until) = Instant::now().checked_add(ttl) else {
            return;
        };
        let entry = Kept {
            result: result.clone(),
            until,
        };
        self.kept()
            .insert((method.to_owned(), cursor.map(str::to_owned)), entry);
    }

    /// Drops every page of `method` (a cursor the server refused, or a
    /// list the caller wants fresh).
    pub(crate) fn forget(&self, method: &str) {
        self.kept().retain(|(kept, _), _| kept != method);
    }

    /// A notification arrived: the lists it says changed are stale.
    pub(crate) fn changed(&self, notification: &str) {
        for method in stale_after(notification) {
            self.forget(method);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn results_are_kept_for_their_ttl_and_dropped_on_change() {
        let cache = ListCache::default();
        cache.keep("tools/list", None, &json!({"tools": [], "ttlMs": 60000}));
        cache.keep(
            "tools/list",
            Some("2"),
            &json!({"tools": [1], "ttlMs": 60000}),
        );
        cache.keep("prompts/list", None, &json!({"prompts": [], "ttlMs": 0}));
        cache.keep("resources/list", None, &json!({"resources": []}));
        cache.keep("resources/templates/list", None, &json!({"ttlMs": -5}));
        assert_eq!(
            cache.get("tools/list", None),
            Some(json!({"tools": [], "ttlMs": 60000}))
        );
        assert_eq!(
            cache.get("tools/list", Some("2")).unwrap()["tools"],
            json!([1])
        );
        assert_eq!(cache.get("tools/list", Some("3")), None);
        assert_eq!(cache.get("prompts/list", None), None, "zero: stale at once");
        assert_eq!(cache.get("resources/list", None), None, "no ttlMs: stale");
        assert_eq!(cache.get("resources/templates/list", None), None);
        cache.changed("notifications/prompts/list_changed");
        assert!(cache.get("tools/list", None).is_some());
        cache.changed("notifications/tools/list_changed");
        assert_eq!(cache.get("tools/list", None), None);
        assert_eq!(cache.get("tools/list", Some("2")), None);
    }

    #[test]
    fn an_expired_result_is_not_served() {
        let cache = ListCache::default();
        cache.keep("server/discover", None, &json!({"ttlMs": 1}));
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(cache.get("server/discover", None), None);
    }
}
