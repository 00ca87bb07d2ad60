//! Change notifications in the 2026-07-28 era: one `subscriptions/listen`
//! request, open for as long as the client wants notifications, asking for
//! every list change and for the updates of the resources the client
//! subscribed to. The server answers it only when it ends the
//! subscription (it is then opened again, as when its stream drops);
//! what it sends meanwhile reaches
//! [`Client::notifications`](crate::client::Client::notifications) as
//! the legacy GET stream's notifications do. A new subscription (a
//! resource added or removed) replaces the old one, which is cancelled
//! (`notifications/cancelled` on stdio, its stream closed on HTTP).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::task::JoinHandle;

use crate::client::error::ClientError;
use crate::client::session::Session;

/// The client's subscription, if open, and the resources it names.
#[derive(Default)]
pub(crate) struct Listening {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    task: Option<JoinHandle<()>>,
    uris: BTreeSet<String>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        if let Some(task) = self.state().task.take() {
            task.abort();
        }
    }
}

impl Listening {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Opens the subscription if it is not open yet.
    pub(crate) fn ensure(&self, session: &Arc<Session>) {
        let mut state = self.state();
        if state.task.as_ref().is_none_or(JoinHandle::is_finished) {
            state.task = Some(open(session, &state.uris));
        }
    }

    /// Adds (`subscribe`) or removes a resource, and opens a subscription
    /// naming the resources as they now are in place of the old one.
    pub(crate) fn resource(&self, session: &Arc<Session>, uri: &str, subscribe: bool) {
        let mut state = self.state();
        let changed = if subscribe {
            state.uris.insert(uri.to_owned())
        } else {
            state.uris.remove(uri)
        };
        if !changed && state.task.as_ref().is_some_and(|t| !t.is_finished()) {
            return;
        }
        if let Some(old) = state.task.take() {
            old.abort();
        }
        state.task = Some(open(session, &state.uris));
    }

    /// Cancels the subscription.
    pub(crate) fn stop(&self) {
        if let Some(task) = self.state().task.take() {
            task.abort();
        }
    }
}

/// The first wait before a subscription that ended is opened again,
/// doubled after each quick end.
const FIRST_RETRY: Duration = Duration::from_millis(250);
/// The longest wait between two attempts.
const LONGEST_RETRY: Duration = Duration::from_secs(30);
/// A subscription that lasted this long ended for a reason of its own:
/// the next wait starts from the first again.
const LASTED: Duration = Duration::from_secs(60);

/// Sends `subscriptions/listen` from a task of its own, and sends it again
/// when it ends while the connection is open (its stream dropped, or the
/// server ended it, as a restarting server does), after a wait that
/// grows while it keeps ending at once; not when the server refused it (a
/// JSON-RPC error). Aborting the task cancels it.
fn open(session: &Arc<Session>, uris: &BTreeSet<String>) -> JoinHandle<()> {
    let mut notifications = json!({
        "toolsListChanged": true,
        "promptsListChanged": true,
        "resourcesListChanged": true,
    });
    if !uris.is_empty() {
        notifications["resourceSubscriptions"] = json!(uris);
    }
    // The task is aborted when the client is dropped (`Listening` is the
    // client's): it does not keep the connection open.
    let session = Arc::clone(session);
    tokio::spawn(async move {
        let params = json!({ "notifications": notifications });
        let mut wait = FIRST_RETRY;
        loop {
            let opened = Instant::now();
            let answer = session
                .request_within("subscriptions/listen", params.clone(), None, true, None)
                .await;
            match answer {
                Ok(_) => tracing::debug!("the server ended the subscription"),
                Err(ClientError::Closed) => return,
                Err(error @ ClientError::Rpc { .. }) => {
                    tracing::debug!(%error, "the server refused subscriptions/listen");
                    return;
                }
                Err(error) => tracing::debug!(%error, "the subscription dropped"),
            }
            if opened.elapsed() >= LASTED {
                wait = FIRST_RETRY;
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(LONGEST_RETRY);
        }
    })
}
