//! A fleet: three instances of the weather example behind nginx, a plain
//! round-robin load balancer (no stickiness), serving one 2026-07-28
//! client whose requests land on different instances, an `input_required`
//! round trip included. What makes it work is the key the instances share
//! (`MCP_STATE_KEY`): with a key each, the retry is refused. A client of
//! the initialize-based era, whose session lives in one instance, needs
//! sticky routing instead, or a session store the instances share (below).
//!
//! nginx (tests/common/nginx.rs) runs in the foreground on a free loopback
//! port; its access log records which instance served each request, named
//! by an `X-Fleet-Step` header the client adds. Tasks across a fleet, on
//! Redis, are tests/fleet_tasks.rs.
//!
//! Legacy sessions, driven by the Python and TypeScript SDKs' clients
//! through the fleet example (examples/fleet.rs): tests/fleet/legacy.rs
//! has the drivers and a session against one instance; tests/fleet/shared.rs
//! proves that a fleet sharing its sessions through Redis
//! (`--sessions-redis`, one `redis-server` of the test's own) serves a
//! whole session through round robin, every instance answering part of it,
//! a change made on one instance heard on the GET stream another holds, an
//! elicitation asked on one answered through another, and the GET stream
//! resumed elsewhere when its instance is killed; the same fleet without
//! the flag loses the session (404), so the store is what makes it work.
//! tests/fleet/faults.rs kills the instance under a call, stops Redis
//! mid-session and starts an instance whose Redis does not answer. They
//! install nginx (tests/fleet/install), redis-server (tests/redis/install)
//! and the SDKs (tests/interop/python/install, tests/interop/ts/install)
//! on first use.

mod common;
#[path = "fleet/faults.rs"]
mod faults;
#[path = "fleet/legacy.rs"]
mod legacy;
#[path = "fleet/shared.rs"]
mod shared;

use std::collections::{BTreeSet, HashMap};
use std::net::SocketAddr;

use common::fleet::{
    Instance, MODERN, answer_subscribe, ask_to_subscribe, assert_state_refused, assert_subscribed,
    request,
};
use common::http;
use common::nginx::{Balance, Nginx, STEP};
use serde_json::{Value, json};

/// The keys of the fleet, 32 bytes or more each.
const KEY: &str = "c4f1e2d3a5b6978812a3b4c5d6e7f8091a2b3c4d";
const OTHER_KEYS: [&str; 3] = [
    "1111111111111111111111111111111111111111",
    "2222222222222222222222222222222222222222",
    "3333333333333333333333333333333333333333",
];

/// Three weather instances, `keys[i]` the `MCP_STATE_KEY` of the i-th,
/// behind nginx.
fn fleet(keys: [&str; 3], balance: Balance) -> (Vec<Instance>, Nginx) {
    let instances: Vec<Instance> = keys
        .iter()
        .map(|key| Instance::start(&[("MCP_STATE_KEY", key)]))
        .collect();
    let addrs: Vec<SocketAddr> = instances.iter().map(|instance| instance.addr).collect();
    let nginx = Nginx::start(&addrs, balance);
    (instances, nginx)
}

/// A 2026-07-28 request through nginx, named `step` in its access log.
fn through(nginx: &Nginx, step: &str, method: &str, params: Value) -> Value {
    let (status, response) = request(nginx.addr, 1, method, params, &[(STEP, step)]);
    assert_eq!(status, 200, "{step}: {response}");
    assert_eq!(response["result"]["resultType"], "complete", "{response}");
    response["result"].clone()
}

#[test]
fn a_fleet_sharing_its_state_key_serves_a_client_whatever_instance_each_request_lands_on() {
    let (instances, nginx) = fleet([KEY; 3], Balance::RoundRobin);

    let discovered = through(&nginx, "discover", "server/discover", json!({}));
    assert!(
        discovered["supportedVersions"]
            .as_array()
            .is_some_and(|versions| versions.contains(&json!(MODERN))),
        "{discovered}"
    );
    assert_eq!(
        discovered["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "weather"
    );
    let listed = through(&nginx, "list", "tools/list", json!({}));
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(
        names.contains(&"get_forecast") && names.contains(&"subscribe_alerts"),
        "{names:?}"
    );
    let forecast = through(
        &nginx,
        "forecast",
        "tools/call",
        json!({"name": "get_forecast", "arguments": {"city": "Paris", "days": 2}}),
    );
    assert_eq!(forecast["isError"], false, "{forecast}");
    assert_eq!(forecast["structuredContent"]["city"], "Paris", "{forecast}");

    // The round trip, three times: each question is answered through the
    // balancer, and the answer reaches another instance than the question.
    let cities = ["Paris", "Tokyo", "Lagos"];
    for city in cities {
        let ask = format!("ask-{city}");
        let (question, state) = ask_to_subscribe(nginx.addr, city, &[(STEP, &ask)]);
        let answer = format!("answer-{city}");
        let (status, response) =
            answer_subscribe(nginx.addr, city, &question, &state, &[(STEP, &answer)]);
        assert_eq!(status, 200, "{response}");
        assert_subscribed(&response, city);
    }

    let served = nginx.served(3 + 2 * cities.len());
    let by_step: HashMap<&str, SocketAddr> = served
        .iter()
        .map(|(step, upstream, status)| {
            assert_eq!(*status, 200, "{served:?}");
            (step.as_str(), *upstream)
        })
        .collect();
    for city in cities {
        let (asked, answered) = (
            by_step[format!("ask-{city}").as_str()],
            by_step[format!("answer-{city}").as_str()],
        );
        assert_ne!(
            asked, answered,
            "{city}: the question and the answer reached the same instance: {served:?}"
        );
    }
    // Every instance served the client.
    let used: BTreeSet<SocketAddr> = by_step.values().copied().collect();
    let started: BTreeSet<SocketAddr> = instances.iter().map(|instance| instance.addr).collect();
    assert_eq!(used, started, "{served:?}");
}

#[test]
fn a_fleet_whose_instances_have_keys_of_their_own_refuses_the_answer() {
    let (_instances, nginx) = fleet(OTHER_KEYS, Balance::RoundRobin);

    let (question, state) = ask_to_subscribe(nginx.addr, "Paris", &[(STEP, "ask")]);
    let (status, response) =
        answer_subscribe(nginx.addr, "Paris", &question, &state, &[(STEP, "answer")]);
    assert_eq!(status, 400, "{response}");
    assert_state_refused(&response);

    let served = nginx.served(2);
    let (asked, answered) = (served[0].1, served[1].1);
    assert_eq!(
        (served[0].0.as_str(), served[1].0.as_str()),
        ("ask", "answer")
    );
    assert_ne!(asked, answered, "{served:?}");
    // It is the key: the instance that asked takes the same answer.
    let (status, response) = answer_subscribe(asked, "Paris", &question, &state, &[]);
    assert_eq!(status, 200, "{response}");
    assert_subscribed(&response, "Paris");
}

/// A client of the initialize-based era (2025-11-25 and before) has a
/// session, which lives in the instance that answered `initialize`: round
/// robin sends its next request elsewhere, where the session is unknown
/// (404). Sticky routing (here by client address) keeps it on one
/// instance.
#[test]
fn legacy_sessions_need_a_sticky_balancer() {
    let (_instances, round_robin) = fleet([KEY; 3], Balance::RoundRobin);
    let mut client = http::Client::new(round_robin.addr);
    let reply = client.post(&json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "fleet-test", "version": "0"}}
    }));
    assert_eq!(reply.status, 200, "initialize");
    client.session = reply.header("mcp-session-id").map(str::to_owned);
    client.version = Some("2025-11-25".to_owned());
    assert!(client.session.is_some(), "a session id");
    let reply = client.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(
        reply.status, 404,
        "the session is unknown on the next instance"
    );

    let (_instances, sticky) = fleet([KEY; 3], Balance::Sticky);
    let mut client = http::Client::new(sticky.addr);
    client.initialize("2025-11-25");
    for _ in 0..3 {
        let listed = client.call("tools/list", json!({}));
        assert!(listed["result"]["tools"].is_array(), "{listed}");
    }
    let served = sticky.served(5);
    let instances: BTreeSet<SocketAddr> = served.iter().map(|(_, upstream, _)| *upstream).collect();
    assert_eq!(instances.len(), 1, "{served:?}");
}
