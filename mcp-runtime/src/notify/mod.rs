//! Telling connected clients that something changed: a resource they
//! subscribed to (`notifications/resources/updated`), or a list
//! (`notifications/{tools,resources,prompts}/list_changed`); and log
//! messages that belong to no call (`notifications/message`).
//!
//! Every initialized session registers its output with the server's hub:
//! on stdio the connection's stdout, on HTTP the session's GET stream. The
//! hub holds them weakly, so a session that ends simply stops receiving.
//!
//! The 2026-07-28 era has no sessions: a client opens a subscription
//! (`subscriptions/listen`) naming what it wants to hear of, and hears
//! only that, each notification tagged with the subscription's id. The
//! hub holds subscriptions weakly too: the connection serving the listen
//! request owns it, and a stream the client closed ends it.

use std::sync::Arc;

use serde_json::json;

use crate::context::{LogLevel, SessionShared};

mod hub;
mod subscription;

pub(crate) use self::hub::Hub;
pub(crate) use self::subscription::{Filter, Subscription};

#[cfg(test)]
mod tests;
/// A handle that tells the server's clients about changes, from any task.
/// Cheap to clone; get one with [`Server::notifier`](crate::Server::notifier)
/// before serving.
///
/// ```
/// use mcp_runtime::Server;
///
/// let mut server = Server::new("weather", "1.0.0");
/// let notifier = server.notifier();
/// // Later, from a task that refreshes the data:
/// notifier.resource_updated("weather://cities");
/// # let _ = server;
/// ```
#[derive(Clone, Default)]
pub struct Notifier {
    pub(crate) hub: Arc<Hub>,
}

impl Notifier {
    /// Tells the sessions subscribed to `uri` (`resources/subscribe`) that
    /// it changed. Returns how many sessions were told.
    pub fn resource_updated(&self, uri: &str) -> usize {
        self.hub.send(
            "notifications/resources/updated",
            &json!({ "uri": uri }),
            |session| {
                session
                    .subscriptions
                    .lock()
                    .is_ok_and(|subscribed| subscribed.contains(uri))
            },
        )
    }

    /// Tells every session that the list of tools changed.
    pub fn tools_changed(&self) -> usize {
        self.list_changed("notifications/tools/list_changed")
    }

    /// Tells every session that the list of resources changed.
    pub fn resources_changed(&self) -> usize {
        self.list_changed("notifications/resources/list_changed")
    }

    /// Tells every session that the list of prompts changed.
    pub fn prompts_changed(&self) -> usize {
        self.list_changed("notifications/prompts/list_changed")
    }

    /// Sends a log message (`notifications/message`) to every session
    /// whose level (`logging/setLevel`, `info` until set) lets `level`
    /// through, as `logger` if given. For messages that belong to no call;
    /// a tool logs with [`Context::log`](crate::Context::log). Returns how
    /// many sessions were told.
    pub fn log(&self, level: LogLevel, logger: Option<&str>, data: serde_json::Value) -> usize {
        self.log_where(level, logger, data, |_| true)
    }

    /// [`Notifier::log`] to the sessions `to` selects.
    pub(crate) fn log_where(
        &self,
        level: LogLevel,
        logger: Option<&str>,
        data: serde_json::Value,
        to: impl Fn(&SessionShared) -> bool,
    ) -> usize {
        let mut params = serde_json::Map::new();
        params.insert("level".into(), level.as_str().into());
        if let Some(logger) = logger {
            params.insert("logger".into(), logger.into());
        }
        params.insert("data".into(), data);
        self.hub.send(
            "notifications/message",
            &serde_json::Value::Object(params),
            |session| session.lets_through(level) && to(session),
        )
    }

    fn list_changed(&self, method: &str) -> usize {
        self.hub.send(method, &json!({}), |_| true)
    }
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier").finish_non_exhaustive()
    }
}
