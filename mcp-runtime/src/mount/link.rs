//! [`Link`]: what the entries of one mount share to reach the upstream:
//! the connection the mount follows, and for a per-session upstream one
//! connection per client session.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};

use tokio::sync::OnceCell;

use crate::client::{Client, ClientError, Notification};
use crate::context::{Context, LogLevel, SessionShared};
use crate::mount::upstream::Upstream;
use crate::notify::Notifier;

/// One mounted upstream, as its entries reach it.
pub(crate) struct Link {
    pub(crate) prefix: String,
    pub(crate) upstream: Upstream,
    /// The connection the mount lists and follows; `None` while it is
    /// lost.
    shared: RwLock<Option<Arc<Client>>>,
    /// Per-session upstreams: each session's own connection.
    sessions: Mutex<Vec<SessionLink>>,
    notifier: Notifier,
    /// How many of our sessions subscribed to each upstream URI.
    subscribers: Mutex<HashMap<String, usize>>,
}

struct SessionLink {
    session: Weak<SessionShared>,
    client: Arc<OnceCell<Arc<Client>>>,
}

impl Link {
    pub(crate) fn new(prefix: String, upstream: Upstream, notifier: Notifier) -> Link {
        Link {
            prefix,
            upstream,
            shared: RwLock::new(None),
            sessions: Mutex::new(Vec::new()),
            notifier,
            subscribers: Mutex::default(),
        }
    }

    /// How the upstream is named in logs and errors.
    pub(crate) fn label(&self) -> &str {
        &self.upstream.label
    }

    /// The name an upstream tool or prompt has here.
    pub(crate) fn ours(&self, name: &str) -> String {
        if self.prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{}_{name}", self.prefix)
        }
    }

    /// The logger name of the upstream's log messages here.
    pub(crate) fn logger(&self, upstream_logger: Option<&str>) -> String {
        let name = if self.prefix.is_empty() {
            self.label()
        } else {
            &self.prefix
        };
        match upstream_logger {
            Some(logger) => format!("{name}/{logger}"),
            None => name.to_owned(),
        }
    }

    pub(crate) fn set_shared(&self, client: Option<Arc<Client>>) {
        *self.shared.write().unwrap_or_else(PoisonError::into_inner) = client;
    }

    /// The followed connection, if it is up.
    pub(crate) fn shared(&self) -> Result<Arc<Client>, String> {
        let shared = self.shared.read().unwrap_or_else(PoisonError::into_inner);
        shared.clone().ok_or_else(|| {
            format!(
                "the upstream server `{}` is not connected{}",
                self.label(),
                if self.upstream.reconnects() {
                    "; it is being reconnected, try again shortly"
                } else {
                    ""
                }
            )
        })
    }

    /// The connection a request from `ctx`'s client goes through: its
    /// session's own for a per-session upstream (made now if it is the
    /// session's first), otherwise the shared one.
    pub(crate) async fn client_for(self: &Arc<Self>, ctx: &Context) -> Result<Arc<Client>, String> {
        let Some(session) = ctx.session().filter(|_| self.upstream.per_session) else {
            return self.shared();
        };
        let cell = self.session_cell(session);
        let client = cell
            .get_or_try_init(|| async {
                let client = self.upstream.open().await.map_err(|error| {
                    format!(
                        "could not connect to the upstream server `{}`: {error}",
                        self.label()
                    )
                })?;
                let client = Arc::new(client);
                tokio::spawn(forward_session_notes(
                    Arc::downgrade(self),
                    Arc::downgrade(&client),
                    Arc::downgrade(session),
                ));
                tracing::debug!(upstream = self.label(), "connected for a new session");
                Ok::<_, String>(client)
            })
            .await?;
        Ok(Arc::clone(client))
    }

    /// The cell holding `session`'s connection; forgets those of sessions
    /// that ended (closing their connections).
    fn session_cell(&self, session: &Arc<SessionShared>) -> Arc<OnceCell<Arc<Client>>> {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.retain(|s| s.session.strong_count() > 0);
        let target = Arc::downgrade(session);
        if let Some(found) = sessions.iter().find(|s| s.session.ptr_eq(&target)) {
            return Arc::clone(&found.client);
        }
        let client = Arc::new(OnceCell::new());
        sessions.push(SessionLink {
            session: target,
            client: Arc::clone(&client),
        });
        client
    }

    /// Forgets `client` if it is a session's connection that was lost, so
    /// that the session's next request connects again.
    pub(crate) fn lost(&self, client: &Arc<Client>) {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.retain(|s| s.client.get().is_none_or(|c| !Arc::ptr_eq(c, client)));
    }

    /// Closes every per-session connection, for sessions that have ended;
    /// the others stay.
    pub(crate) fn sweep(&self) {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.retain(|s| s.session.strong_count() > 0);
    }

    /// One of our sessions subscribed to (or unsubscribed from) `uri`: the
    /// upstream is told on the first subscription and after the last.
    pub(crate) fn subscription(self: &Arc<Self>, uri: &str, subscribe: bool) {
        let tell = {
            let mut counts = self
                .subscribers
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let count = counts.entry(uri.to_owned()).or_default();
            if subscribe {
                *count += 1;
                *count == 1
            } else {
                *count = count.saturating_sub(1);
                let last = *count == 0;
                if last {
                    counts.remove(uri);
                }
                last
            }
        };
        let Ok(client) = self.shared() else {
            return;
        };
        if !tell || !client.capabilities().resource_subscribe() {
            return;
        }
        let (uri, label) = (uri.to_owned(), self.label().to_owned());
        tokio::spawn(async move {
            let answer = if subscribe {
                client.subscribe(&uri).await
            } else {
                client.unsubscribe(&uri).await
            };
            if let Err(error) = answer {
                tracing::warn!(upstream = %label, %uri, %error, subscribe, "the upstream refused a subscription change");
            }
        });
    }

    /// The URIs our sessions are subscribed to, to subscribe a new
    /// connection to them again.
    pub(crate) fn subscribed(&self) -> Vec<String> {
        let counts = self
            .subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        counts.keys().cloned().collect()
    }

    /// Passes on a notification of the shared connection that is not about
    /// its lists: log messages to every session, resource updates to their
    /// subscribers.
    pub(crate) fn forward(&self, notification: Notification) {
        match notification {
            Notification::ResourceUpdated { uri } => {
                // Fleet-wide: the sessions that subscribed through this
                // instance may hold their streams on another.
                self.notifier.resource_updated(&uri);
            }
            Notification::Log {
                level,
                logger,
                data,
            } => {
                // Each instance of a fleet hears its own connection's
                // messages: passed on to its own sessions only.
                let logger = self.logger(logger.as_deref());
                self.notifier
                    .log_here(level.unwrap_or(LogLevel::Info), Some(&logger), data);
            }
            _ => {}
        }
    }

    /// Tells our sessions something about the upstream itself (lost,
    /// back), as a log message from the mount.
    pub(crate) fn announce(&self, level: LogLevel, message: String) {
        let logger = self.logger(None);
        self.notifier
            .log_here(level, Some(&logger), serde_json::Value::String(message));
    }
}

/// Passes the log messages of a session's own connection to that session
/// only, until either ends.
async fn forward_session_notes(
    link: Weak<Link>,
    client: Weak<Client>,
    session: Weak<SessionShared>,
) {
    let Some(mut notes) = client.upgrade().map(|c| c.notifications()) else {
        return;
    };
    while let Some(notification) = notes.recv().await {
        let (Some(link), Some(session)) = (link.upgrade(), session.upgrade()) else {
            return;
        };
        if let Notification::Log {
            level,
            logger,
            data,
        } = notification
        {
            let logger = link.logger(logger.as_deref());
            link.notifier
                .log_where(level.unwrap_or(LogLevel::Info), Some(&logger), data, |s| {
                    std::ptr::eq(s, Arc::as_ptr(&session))
                });
        }
    }
}

/// A failed forwarded request, as the sentence our client reads.
pub(crate) fn describe(link: &Link, error: &ClientError) -> String {
    match error {
        ClientError::Rpc { message, .. } => message.clone(),
        ClientError::Closed | ClientError::ConnectionLost(_) => format!(
            "the upstream server `{}` went away before answering",
            link.label()
        ),
        ClientError::Timeout => format!(
            "the upstream server `{}` did not answer in time",
            link.label()
        ),
        other => format!("the upstream server `{}`: {other}", link.label()),
    }
}
