//! A fleet's notifier events: what a [`Notifier`](crate::Notifier) of one
//! instance hands to the fleet, on the wire, and to whom an instance that
//! receives one delivers it.
//!
//! With a bus set ([`Hub::set_bus`](super::Hub::set_bus)), the notifier
//! delivers nothing itself: it publishes the event, and the transport
//! delivers it on every instance, its own included, with
//! [`Hub::deliver`](super::Hub::deliver). Registry changes are not
//! events: each instance's registry is its own, so it alone announces
//! them, to its own sessions.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::context::{LogLevel, SessionShared};

/// Where a fleet's notifier events go (set on the hub by the transport of
/// a fleet). Every instance, the publisher's included, is expected to
/// pass each event it hears to [`Hub::deliver`](super::Hub::deliver).
pub(crate) trait FleetBus: Send + Sync {
    /// Hands `event` to the fleet. Called from any task, even one that
    /// is not async: it must not block (queue the write).
    fn publish(&self, event: FleetEvent);
}

/// A list whose change a [`FleetEvent`] announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ListKind {
    Tools,
    Resources,
    Prompts,
}

impl ListKind {
    /// The notification that says this list changed.
    fn method(self) -> &'static str {
        match self {
            ListKind::Tools => "notifications/tools/list_changed",
            ListKind::Resources => "notifications/resources/list_changed",
            ListKind::Prompts => "notifications/prompts/list_changed",
        }
    }
}

/// One [`Notifier`](crate::Notifier) call, as the fleet passes it on.
/// Its wire form ([`FleetEvent::encode`]) is one JSON object whose
/// `kind` names the event: `{"kind":"list_changed","list":"tools"}`,
/// `{"kind":"log","level":"info","logger":"db","data":…}` (no `logger`
/// when it has none), `{"kind":"resource_updated","uri":"…"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum FleetEvent {
    /// `notifications/{list}/list_changed`, to every session.
    ListChanged { list: ListKind },
    /// `notifications/message`, to the sessions whose level lets `level`
    /// through.
    Log {
        #[serde(with = "level_name")]
        level: LogLevel,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        logger: Option<String>,
        data: Value,
    },
    /// `notifications/resources/updated`, to the sessions subscribed to
    /// `uri`.
    ResourceUpdated { uri: String },
}

impl FleetEvent {
    /// The event's wire form: compact JSON.
    #[cfg_attr(not(test), allow(dead_code))] // The fleet transport calls it.
    pub(crate) fn encode(&self) -> String {
        // A map with string keys and plain values: it cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The event `text` is the wire form of; `None` for text that is not
    /// one (an event of a newer kind, from a newer instance of a fleet
    /// being upgraded, is skipped).
    #[cfg_attr(not(test), allow(dead_code))] // The fleet transport calls it.
    pub(crate) fn decode(text: &str) -> Option<FleetEvent> {
        serde_json::from_str(text).ok()
    }

    /// To whom an instance of a fleet delivers it when it hears it from
    /// the bus: [`DeliverTo::Listens`] for a resource update (the session
    /// store tells the legacy sessions subscribed to it), else
    /// [`DeliverTo::All`].
    #[cfg_attr(not(test), allow(dead_code))] // The fleet transport calls it.
    pub(crate) fn audience(&self) -> DeliverTo {
        match self {
            FleetEvent::ResourceUpdated { .. } => DeliverTo::Listens,
            FleetEvent::ListChanged { .. } | FleetEvent::Log { .. } => DeliverTo::All,
        }
    }

    /// The notification it becomes: method and params.
    pub(super) fn notification(&self) -> (&'static str, Value) {
        match self {
            FleetEvent::ListChanged { list } => (list.method(), json!({})),
            FleetEvent::Log {
                level,
                logger,
                data,
            } => {
                let mut params = serde_json::Map::new();
                params.insert("level".into(), level.as_str().into());
                if let Some(logger) = logger {
                    params.insert("logger".into(), logger.as_str().into());
                }
                params.insert("data".into(), data.clone());
                ("notifications/message", Value::Object(params))
            }
            FleetEvent::ResourceUpdated { uri } => {
                ("notifications/resources/updated", json!({ "uri": uri }))
            }
        }
    }

    /// Whether a legacy session is told of it: every session of a list
    /// change, those whose level lets a log message through, those
    /// subscribed to an updated resource.
    pub(super) fn reaches(&self, session: &SessionShared) -> bool {
        match self {
            FleetEvent::ListChanged { .. } => true,
            FleetEvent::Log { level, .. } => session.lets_through(*level),
            FleetEvent::ResourceUpdated { uri } => session
                .subscriptions
                .lock()
                .is_ok_and(|subscribed| subscribed.contains(uri)),
        }
    }
}

/// To whom [`Hub::deliver`](super::Hub::deliver) delivers an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DeliverTo {
    /// The legacy sessions registered on this hub (in a fleet: whose GET
    /// stream this instance holds) and this hub's 2026-07-28 listen
    /// subscriptions. For list changes and log messages.
    All,
    /// This hub's listen subscriptions only. For resource updates in a
    /// fleet, which reach legacy sessions through the session store
    /// instead (kept for a session whose GET stream is open nowhere).
    Listens,
}

/// How many outputs [`Hub::deliver`](super::Hub::deliver) told.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Delivered {
    /// Legacy sessions.
    pub(crate) sessions: usize,
    /// 2026-07-28 listen subscriptions.
    pub(crate) listens: usize,
}

impl Delivered {
    /// Both counts together.
    pub(crate) fn total(self) -> usize {
        self.sessions + self.listens
    }
}

/// A [`LogLevel`] on the wire: its protocol name.
mod level_name {
    use serde::{Deserialize, Deserializer, Serializer, de};

    use crate::context::LogLevel;

    pub(super) fn serialize<S: Serializer>(
        level: &LogLevel,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(level.as_str())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<LogLevel, D::Error> {
        let name = String::deserialize(deserializer)?;
        LogLevel::parse(&name).ok_or_else(|| de::Error::custom("an unknown log level"))
    }
}
