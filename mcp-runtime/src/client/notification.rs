//! Notifications a server sends, as the client hands them out, and the
//! receiver that hands them out.

use serde_json::Value;
use tokio::sync::broadcast;

use crate::context::LogLevel;

/// A notification from the server.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Notification {
    /// `notifications/tools/list_changed`: list the tools again.
    ToolListChanged,
    /// `notifications/resources/list_changed`.
    ResourceListChanged,
    /// `notifications/prompts/list_changed`.
    PromptListChanged,
    /// `notifications/resources/updated`: a subscribed resource changed.
    ResourceUpdated {
        /// The resource's URI.
        uri: String,
    },
    /// `notifications/message`: a log message.
    Log {
        /// Its level (`None` when the server sent a level the protocol does
        /// not define).
        level: Option<LogLevel>,
        /// The logger's name, if given.
        logger: Option<String>,
        /// The message: any JSON.
        data: Value,
    },
    /// Any other notification, including progress for a request no longer
    /// waited for.
    Other {
        /// The method.
        method: String,
        /// Its params, if any.
        params: Option<Value>,
    },
}

impl Notification {
    pub(crate) fn from_message(method: &str, params: Option<Value>) -> Notification {
        let text = |params: &Option<Value>, key: &str| {
            params
                .as_ref()
                .and_then(|p| p.get(key))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        match method {
            "notifications/tools/list_changed" => Notification::ToolListChanged,
            "notifications/resources/list_changed" => Notification::ResourceListChanged,
            "notifications/prompts/list_changed" => Notification::PromptListChanged,
            "notifications/resources/updated" => match text(&params, "uri") {
                Some(uri) => Notification::ResourceUpdated { uri },
                None => Notification::Other {
                    method: method.to_owned(),
                    params,
                },
            },
            "notifications/message" => Notification::Log {
                level: text(&params, "level").and_then(|l| LogLevel::parse(&l)),
                logger: text(&params, "logger"),
                data: params
                    .as_ref()
                    .and_then(|p| p.get("data"))
                    .cloned()
                    .unwrap_or(Value::Null),
            },
            _ => Notification::Other {
                method: method.to_owned(),
                params,
            },
        }
    }
}

/// A receiver of the server's notifications, from
/// [`Client::notifications`](crate::client::Client::notifications). Each
/// receiver sees every notification that arrives after it was made; one
/// that falls more than a thousand behind skips the oldest.
pub struct Notifications {
    receiver: broadcast::Receiver<Notification>,
}

/// How many notifications a slow receiver may fall behind.
pub(crate) const NOTIFICATION_CAPACITY: usize = 1024;

impl Notifications {
    pub(crate) fn new(receiver: broadcast::Receiver<Notification>) -> Notifications {
        Notifications { receiver }
    }

    /// The next notification; `None` once the connection is closed and
    /// everything before was received.
    pub async fn recv(&mut self) -> Option<Notification> {
        loop {
            match self.receiver.recv().await {
                Ok(notification) => return Some(notification),
                Err(broadcast::error::RecvError::Lagged(skipped)) => {
                    tracing::warn!(skipped, "a slow notification receiver skipped some");
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    /// The next notification already received, without waiting.
    pub fn try_recv(&mut self) -> Option<Notification> {
        loop {
            match self.receiver.try_recv() {
                Ok(notification) => return Some(notification),
                Err(broadcast::error::TryRecvError::Lagged(_)) => continue,
                Err(_) => return None,
            }
        }
    }
}
