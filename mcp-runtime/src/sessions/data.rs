//! What a shared session store takes and gives: plain data, so that this
//! module knows neither the dispatcher nor the transport. Not public API
//! (reached by tests through [`probe`](super::probe)).

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::Value;

/// What a session is, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionData {
    /// The negotiated protocol version (`2025-11-25`).
    pub version: String,
    /// The client's info and capabilities, as the runtime gives them
    /// (`{"name", "version", "capabilities"}`).
    pub client: Value,
    /// The authenticated subject that owns the session, if any.
    pub owner: Option<String>,
    /// The key its client's bound counts it under (an address or a
    /// subject), if any.
    pub client_key: Option<String>,
    /// Its log level (the runtime's number for it).
    pub log_level: u8,
    /// The URIs it is subscribed to.
    pub subscriptions: BTreeSet<String>,
    /// Bumped each time the client said its roots changed.
    pub roots: u64,
}

/// The bounds a new session is kept within, fleet-wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// How long a session may go unused; its keys expire a minute after.
    pub idle_timeout: Duration,
    /// How many sessions the fleet keeps (at least 1).
    pub max: usize,
    /// How many one client key keeps (at least 1).
    pub per_client: usize,
}

/// Why a session could not be kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    /// Its client is at its bound, and every session it has is busy.
    Client,
    /// The fleet is at its bound, and the sessions looked at are busy.
    Server,
}

/// A session found by `RedisSessions::load`.
#[derive(Clone, Debug, PartialEq)]
pub struct Loaded {
    /// Its revision: changes with every change of its data.
    pub rev: u64,
    /// The instance holding its GET stream, if one does.
    pub holder: Option<String>,
    /// Its data, unless the caller's copy is of this revision.
    pub data: Option<SessionData>,
}

/// One change of a session's mutable state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionChange {
    /// `logging/setLevel`.
    LogLevel(u8),
    /// `resources/subscribe`.
    Subscribe(String),
    /// `resources/unsubscribe`.
    Unsubscribe(String),
    /// `notifications/roots/list_changed`: bumps the roots epoch.
    RootsChanged,
}

/// What `RedisSessions::hold` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    /// The instance that held the GET stream before, if one did (told,
    /// if it is another, that it lost it).
    pub previous: Option<String>,
    /// How far the GET stream was delivered when its last holder let go
    /// (a stream entry id), if it was noted.
    pub delivered: Option<String>,
}

/// What an instance hears on its channels (see
/// `RedisSessions::listen`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inbound {
    /// A line appended to a stream of a session whose GET stream this
    /// instance holds.
    Event {
        /// The session's id.
        session: String,
        /// The stream's name (`0`: the GET stream).
        stream: String,
        /// The entry's id (`MS-SEQ`), increasing within the stream.
        entry: String,
        /// The line appended (one JSON-RPC message).
        line: String,
    },
    /// A session this instance holds changed (its revision now `rev`).
    Changed {
        /// The session's id.
        session: String,
        /// Its revision now.
        rev: u64,
    },
    /// A session this instance holds ended.
    Ended {
        /// The session's id.
        session: String,
    },
    /// Another instance took the GET stream of a session this one held.
    Taken {
        /// The session's id.
        session: String,
    },
    /// A message routed to this instance (`RedisSessions::route`).
    Routed(String),
    /// A message for every instance (`RedisSessions::broadcast`).
    Broadcast(String),
    /// The subscription was made again after it was lost (or for the
    /// first time): messages may have been missed meanwhile; streams held
    /// should be read again from where they were delivered.
    Resubscribed,
}
