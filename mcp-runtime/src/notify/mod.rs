//! Telling connected clients that something changed: a resource they
//! subscribed to (`notifications/resources/updated`), or a list
//! (`notifications/{tools,resources,prompts}/list_changed`); and log
//! messages that belong to no call (`notifications/message`).
//!
//! Every initialized session registers its output with the server's hub:
//! on stdio the connection's stdout, on HTTP the session's GET stream. The
//! hub holds them weakly, so a session that ends simply stops receiving
//! (and in a fleet the transport unregisters a session whose GET stream
//! another instance took).
//!
//! The 2026-07-28 era has no sessions: a client opens a subscription
//! (`subscriptions/listen`) naming what it wants to hear of, and hears
//! only that, each notification tagged with the subscription's id. The
//! hub holds subscriptions weakly too: the connection serving the listen
//! request owns it, and a stream the client closed ends it.
//!
//! In a fleet (several instances sharing their sessions through a Redis
//! session store), a [`Notifier`] call is an event for the whole fleet:
//! with a bus set on the hub, the notifier publishes it and the
//! transport has every instance, its own included, deliver it to the
//! outputs registered there (`fleet`). Without one (memory mode, stdio)
//! the notifier tells the hub's outputs itself.

use std::sync::Arc;

use crate::context::{LogLevel, SessionShared};

mod fleet;
mod hub;
mod subscription;

#[cfg_attr(not(test), allow(unused_imports))] // The fleet transport uses them.
pub(crate) use self::fleet::{DeliverTo, Delivered, FleetBus, FleetEvent, ListKind};
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
///
/// Each method returns how many clients it told: legacy sessions
/// (protocol 2025-11-25 and earlier) and 2026-07-28 subscriptions
/// (`subscriptions/listen`) that asked for it.
///
/// # In a fleet
///
/// When the server's sessions are shared by a fleet of instances (a
/// Redis session store), every method hands its event to the fleet and
/// returns 0: each instance, this one included, then tells the clients
/// it serves, a moment later. List changes and log messages reach the
/// legacy sessions whose event stream (GET) is open on some instance, and
/// every instance's subscriptions; resource updates reach every session
/// subscribed to the resource, kept for it while its stream is closed,
/// and every subscription that asked for it.
///
/// Changes made through a [`ServerHandle`](crate::ServerHandle) (tools,
/// resources or prompts added or removed at run time) are announced by
/// the instance whose registry changed, to its own clients only: make
/// the same change on every instance.
#[derive(Clone, Default)]
pub struct Notifier {
    pub(crate) hub: Arc<Hub>,
}

impl Notifier {
    /// Tells the sessions subscribed to `uri` (`resources/subscribe`), and
    /// the subscriptions that named it, that it changed. Returns how many
    /// were told (0 in a fleet: see [In a fleet](Notifier#in-a-fleet)).
    pub fn resource_updated(&self, uri: &str) -> usize {
        self.tell(FleetEvent::ResourceUpdated {
            uri: uri.to_owned(),
        })
    }

    /// Tells every session, and the subscriptions that asked for it, that
    /// the list of tools changed. Returns how many were told (0 in a
    /// fleet).
    pub fn tools_changed(&self) -> usize {
        self.tell(FleetEvent::ListChanged {
            list: ListKind::Tools,
        })
    }

    /// Tells every session, and the subscriptions that asked for it, that
    /// the list of resources changed. Returns how many were told (0 in a
    /// fleet).
    pub fn resources_changed(&self) -> usize {
        self.tell(FleetEvent::ListChanged {
            list: ListKind::Resources,
        })
    }

    /// Tells every session, and the subscriptions that asked for it, that
    /// the list of prompts changed. Returns how many were told (0 in a
    /// fleet).
    pub fn prompts_changed(&self) -> usize {
        self.tell(FleetEvent::ListChanged {
            list: ListKind::Prompts,
        })
    }

    /// Sends a log message (`notifications/message`) to every session
    /// whose level (`logging/setLevel`, `info` until set) lets `level`
    /// through, as `logger` if given. For messages that belong to no call;
    /// a tool logs with [`Context::log`](crate::Context::log). Returns how
    /// many sessions were told (0 in a fleet, where each instance applies
    /// the levels of the sessions it serves).
    pub fn log(&self, level: LogLevel, logger: Option<&str>, data: serde_json::Value) -> usize {
        self.tell(FleetEvent::Log {
            level,
            logger: logger.map(str::to_owned),
            data,
        })
    }

    /// Tells this instance's clients that `list` changed, never the
    /// fleet's: a change of this instance's registry.
    pub(crate) fn list_changed_here(&self, list: ListKind) -> usize {
        self.hub
            .deliver(&FleetEvent::ListChanged { list }, DeliverTo::All)
            .total()
    }

    /// [`Notifier::log`] to this instance's sessions only, never the
    /// fleet's: a message that each instance hears for itself.
    #[cfg_attr(not(any(test, feature = "client")), allow(dead_code))] // Mounts.
    pub(crate) fn log_here(
        &self,
        level: LogLevel,
        logger: Option<&str>,
        data: serde_json::Value,
    ) -> usize {
        self.log_where(level, logger, data, |_| true)
    }

    /// [`Notifier::log`] to the sessions of this instance that `to`
    /// selects, never the fleet's.
    #[cfg_attr(not(any(test, feature = "client")), allow(dead_code))] // Mounts.
    pub(crate) fn log_where(
        &self,
        level: LogLevel,
        logger: Option<&str>,
        data: serde_json::Value,
        to: impl Fn(&SessionShared) -> bool,
    ) -> usize {
        let event = FleetEvent::Log {
            level,
            logger: logger.map(str::to_owned),
            data,
        };
        self.hub.deliver_where(&event, to).total()
    }

    /// Hands `event` to the fleet if there is one (and told nobody here
    /// yet: 0), else tells this hub's outputs.
    fn tell(&self, event: FleetEvent) -> usize {
        match self.hub.bus() {
            Some(bus) => {
                bus.publish(event);
                0
            }
            None => self.hub.deliver(&event, DeliverTo::All).total(),
        }
    }
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier").finish_non_exhaustive()
    }
}
