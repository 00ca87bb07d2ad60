//! A server to run several times behind a load balancer, for the fleet
//! tests (tests/fleet.rs) and for trying a fleet by hand: every tool says
//! which instance ran it, so whoever drives a client through the balancer
//! sees where each step landed. It exercises what a legacy session carries
//! between requests: progress on a call's stream, a question to the client
//! while a call runs (elicitation), a resource subscription told of a
//! change, a log message sent outside any call, and a call that takes as
//! long as asked (to kill an instance under it).
//!
//! The instance's name is `FLEET_INSTANCE`, or the process id when unset.
//! Run it with `FLEET_INSTANCE=a cargo run --example fleet -- --http
//! 127.0.0.1:8081` (and `b`, `c` on other ports behind the balancer);
//! `--help` says the rest of the command line.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcp_runtime::serde_json::json;
use mcp_runtime::{Context, Elicit, Elicited, LogLevel, Notifier, Server, State, resource, tool};
use schemars::JsonSchema;
use serde::Serialize;

/// The URI of the counter `touch` changes.
pub const COUNTER_URI: &str = "fleet://counter";

/// This instance: its name, its counter, and the notifier that tells
/// sessions of changes.
struct Fleet {
    instance: String,
    counter: AtomicU64,
    notifier: Notifier,
}

impl Fleet {
    fn new(notifier: Notifier) -> Fleet {
        let instance = std::env::var("FLEET_INSTANCE")
            .ok()
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| std::process::id().to_string());
        Fleet {
            instance,
            counter: AtomicU64::new(0),
            notifier,
        }
    }
}

/// Where a call ran.
#[derive(Serialize, JsonSchema)]
struct Ran {
    /// The instance that ran it.
    instance: String,
}

/// Which instance answers: `FLEET_INSTANCE`, or its process id.
#[tool(read_only, idempotent)]
fn whoami(fleet: State<Fleet>) -> Ran {
    Ran {
        instance: fleet.instance.clone(),
    }
}

/// What `count_slowly` did.
#[derive(Serialize, JsonSchema)]
struct Counted {
    /// How many progress notifications were sent.
    n: u32,
    /// The instance that counted.
    instance: String,
}

/// Sends `n` progress notifications, about 50 ms apart, then returns `n`
/// (its log says `count started` when it begins).
#[tool(read_only, idempotent)]
async fn count_slowly(
    /// How many notifications, 1 to 1000.
    #[schemars(range(min = 1, max = 1000))]
    n: u32,
    fleet: State<Fleet>,
    ctx: Context,
) -> Counted {
    // Says where the call runs while it runs (the tests kill that instance).
    tracing::info!(n, instance = %fleet.instance, "count started");
    for i in 1..=n {
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.progress(f64::from(i), Some(f64::from(n)), Some("counting"));
    }
    Counted {
        n,
        instance: fleet.instance.clone(),
    }
}

/// The form `ask_name` asks the user to fill in.
#[derive(Elicit)]
struct Name {
    /// Your name
    name: String,
}

/// What `ask_name` was told.
#[derive(Serialize, JsonSchema)]
struct Answered {
    /// The name the user gave; none if they declined or cancelled.
    name: Option<String>,
    /// The instance that asked.
    instance: String,
}

/// Asks the user for a name (a form elicitation) and returns it.
#[tool(read_only)]
async fn ask_name(fleet: State<Fleet>, ctx: Context) -> Result<Answered, String> {
    let answer = ctx
        .elicit::<Name>("What is your name?")
        .await
        .map_err(|e| format!("Could not ask the user: {e}"))?;
    let name = match answer {
        Elicited::Accepted(Name { name }) => Some(name),
        Elicited::Declined | Elicited::Cancelled => None,
    };
    Ok(Answered {
        name,
        instance: fleet.instance.clone(),
    })
}

/// What `touch` did.
#[derive(Serialize, JsonSchema)]
struct Touched {
    /// The counter's new value on this instance.
    counter: u64,
    /// How many sessions this instance told of the change.
    told: usize,
    /// The instance whose counter changed.
    instance: String,
}

/// Changes `fleet://counter` on this instance, and tells the sessions
/// subscribed to it (`notifications/resources/updated`).
#[tool]
fn touch(fleet: State<Fleet>) -> Touched {
    let counter = fleet.counter.fetch_add(1, Ordering::Relaxed) + 1;
    let told = fleet.notifier.resource_updated(COUNTER_URI);
    Touched {
        counter,
        told,
        instance: fleet.instance.clone(),
    }
}

/// What `log` did.
#[derive(Serialize, JsonSchema)]
struct Logged {
    /// How many sessions this instance sent the message to.
    told: usize,
    /// The instance that logged.
    instance: String,
}

/// Sends `message` as a log message at `info` (logger `fleet`) to every
/// session, outside any call.
#[tool(read_only)]
fn log(
    /// The message.
    message: String,
    fleet: State<Fleet>,
) -> Logged {
    let told = fleet
        .notifier
        .log(LogLevel::Info, Some("fleet"), json!(message));
    Logged {
        told,
        instance: fleet.instance.clone(),
    }
}

/// What `sleep` did.
#[derive(Serialize, JsonSchema)]
struct Slept {
    /// How long it slept, in seconds.
    secs: f64,
    /// The instance that slept.
    instance: String,
}

/// Sleeps `secs` seconds (at most 600), then returns: a call to kill an
/// instance under (its log says `sleep started` when it begins).
#[tool(read_only, idempotent)]
async fn sleep(
    /// Seconds, 0 to 600.
    #[schemars(range(min = 0, max = 600))]
    secs: f64,
    fleet: State<Fleet>,
) -> Result<Slept, String> {
    if !(0.0..=600.0).contains(&secs) {
        return Err(format!("secs must be between 0 and 600, not {secs}"));
    }
    // Says where the call runs while it runs (the tests kill that instance).
    tracing::info!(secs, instance = %fleet.instance, "sleep started");
    tokio::time::sleep(Duration::from_secs_f64(secs)).await;
    Ok(Slept {
        secs,
        instance: fleet.instance.clone(),
    })
}

/// What `fleet://counter` reads as.
#[derive(Serialize)]
struct Counter {
    /// How many times `touch` ran on this instance.
    counter: u64,
    /// The instance read.
    instance: String,
}

/// How many times `touch` ran on this instance (subscribe to hear of each).
#[resource("fleet://counter", name = "counter", mime_type = "application/json")]
fn counter(fleet: State<Fleet>) -> Counter {
    Counter {
        counter: fleet.counter.load(Ordering::Relaxed),
        instance: fleet.instance.clone(),
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut server = Server::new("fleet", env!("CARGO_PKG_VERSION"));
    let notifier = server.notifier();
    // `--http ADDR` serves Streamable HTTP at http://ADDR/mcp; `--help`
    // says the rest (the session store included, when built with it).
    server.state(Fleet::new(notifier)).run().await
}
