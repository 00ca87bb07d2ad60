//! Following a mounted upstream while the server runs: its list changes
//! re-fetched and applied (our clients are told), its log messages and
//! resource updates passed on; when it is lost, its entries removed and a
//! new connection made with backoff.

use std::sync::Arc;
use std::time::Duration;

use crate::client::{Client, Notification, Notifications};
use crate::context::LogLevel;
use crate::handle::ServerHandle;
use crate::location::Location;
use crate::mount::link::Link;
use crate::mount::listing::{Mounted, fetch};
use crate::registry::change::{Change, List};

/// The first wait before connecting again, doubled after each failure.
const FIRST_RETRY: Duration = Duration::from_millis(250);
/// The longest wait between two attempts.
const LONGEST_RETRY: Duration = Duration::from_secs(30);
/// How often the upstream is pinged (a lost HTTP upstream says nothing)
/// and per-session connections of ended sessions are closed.
const CHECK: Duration = Duration::from_secs(5);
/// How long a ping may take before the upstream counts as lost.
const PING_LIMIT: Duration = Duration::from_secs(10);

/// What the follower starts from: the connection that was listed, its
/// notifications (taken before listing, so that no change is missed) and
/// what was mounted.
pub(crate) struct Start {
    pub(crate) client: Arc<Client>,
    pub(crate) notes: Notifications,
    pub(crate) mounted: Mounted,
}

/// Follows the upstream until the server stops, or the connection is lost
/// and cannot be made again.
pub(crate) async fn follow(link: Arc<Link>, handle: ServerHandle, start: Start, at: Location) {
    let Start {
        mut client,
        mut notes,
        mut mounted,
    } = start;
    loop {
        watch(&link, &handle, &client, &mut notes, &mut mounted, at).await;
        if handle.is_stopped() {
            return;
        }
        // The connection is lost: what it served goes.
        link.set_shared(None);
        drop(client);
        let removals = mounted.removals();
        apply(&link, &handle, &mut mounted, removals);
        let again = if link.upstream.reconnects() {
            "; connecting again"
        } else {
            ""
        };
        tracing::warn!(
            upstream = link.label(),
            "the upstream server is gone{again}"
        );
        link.announce(
            LogLevel::Warning,
            format!("the upstream server `{}` is gone{again}", link.label()),
        );
        if !link.upstream.reconnects() {
            return;
        }
        let Some((next, next_notes)) = reconnect(&link, &handle, &mut mounted, at).await else {
            return;
        };
        (client, notes) = (next, next_notes);
    }
}

/// Serves the connection's notifications until it closes.
async fn watch(
    link: &Arc<Link>,
    handle: &ServerHandle,
    client: &Arc<Client>,
    notes: &mut Notifications,
    mounted: &mut Mounted,
    at: Location,
) {
    let mut check = tokio::time::interval(CHECK);
    check.reset();
    loop {
        let notification = tokio::select! {
            notification = notes.recv() => notification,
            _ = check.tick() => {
                if handle.is_stopped() || !alive(client).await {
                    return;
                }
                link.sweep();
                continue;
            }
        };
        let list = match notification {
            None => return,
            Some(Notification::ToolListChanged) => List::Tools,
            Some(Notification::ResourceListChanged) => List::Resources,
            Some(Notification::PromptListChanged) => List::Prompts,
            Some(other) => {
                link.forward(other);
                continue;
            }
        };
        match fetch(link, client, Some(list), at).await {
            Ok(entries) => {
                let changes = mounted.changes(entries, Some(list));
                apply(link, handle, mounted, changes);
            }
            Err(error) => {
                tracing::warn!(upstream = link.label(), %error, ?list, "could not list what changed");
            }
        }
    }
}

/// Whether the upstream answers a ping (an error answer counts: it is
/// there).
async fn alive(client: &Client) -> bool {
    match tokio::time::timeout(PING_LIMIT, client.ping()).await {
        Ok(Ok(())) | Ok(Err(crate::client::ClientError::Rpc { .. })) => true,
        Ok(Err(error)) => {
            tracing::debug!(%error, "the upstream did not answer a ping");
            false
        }
        Err(_) => false,
    }
}

/// Connects again, with backoff, and mounts what the new connection
/// serves; `None` once the server has stopped.
async fn reconnect(
    link: &Arc<Link>,
    handle: &ServerHandle,
    mounted: &mut Mounted,
    at: Location,
) -> Option<(Arc<Client>, Notifications)> {
    let mut wait = FIRST_RETRY;
    loop {
        tokio::time::sleep(wait).await;
        if handle.is_stopped() {
            return None;
        }
        wait = (wait * 2).min(LONGEST_RETRY);
        let client = match link.upstream.open().await {
            Ok(client) => Arc::new(client),
            Err(error) => {
                tracing::warn!(upstream = link.label(), %error, retry_in = ?wait, "could not connect to the upstream server");
                continue;
            }
        };
        let notes = client.notifications();
        let entries = match fetch(link, &client, None, at).await {
            Ok(entries) => entries,
            Err(error) => {
                tracing::warn!(upstream = link.label(), %error, retry_in = ?wait, "could not list what the upstream server serves");
                continue;
            }
        };
        prepare(&client).await;
        for uri in link.subscribed() {
            if let Err(error) = client.subscribe(&uri).await {
                tracing::debug!(upstream = link.label(), %uri, %error, "could not subscribe again");
            }
        }
        // Reachable before it is listed: a client that sees the entries
        // can call them.
        link.set_shared(Some(Arc::clone(&client)));
        let changes = mounted.changes(entries, None);
        apply(link, handle, mounted, changes);
        tracing::info!(upstream = link.label(), "the upstream server is back");
        link.announce(
            LogLevel::Notice,
            format!("the upstream server `{}` is back", link.label()),
        );
        return Some((client, notes));
    }
}

/// Asks a new connection for every log message: each of our sessions
/// filters by its own level.
pub(crate) async fn prepare(client: &Client) {
    if client.capabilities().logging()
        && let Err(error) = client.set_log_level(LogLevel::Debug).await
    {
        tracing::debug!(%error, "the upstream refused logging/setLevel");
    }
}

/// Makes `changes`; one that is refused (a name or URI taken meanwhile by
/// an entry of another source) is left out with a warning.
fn apply(link: &Link, handle: &ServerHandle, mounted: &mut Mounted, changes: Vec<Change>) {
    if changes.is_empty() {
        return;
    }
    let keys: Vec<Option<(List, String)>> = changes.iter().map(Change::added).collect();
    let Ok(outcomes) = handle.apply_all(changes) else {
        return;
    };
    for (outcome, key) in outcomes.into_iter().zip(keys) {
        if let (Err(error), Some((list, key))) = (outcome, key) {
            // Not ours to remove later.
            mounted.forget(list, &key);
            tracing::warn!(
                upstream = link.label(),
                "an entry of the upstream server is not served: {error}"
            );
        }
    }
}
