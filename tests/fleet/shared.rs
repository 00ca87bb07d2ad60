//! Legacy sessions shared by a fleet through Redis, proven with the SDKs'
//! clients: three instances of the fleet example (`a`, `b`, `c`, each
//! started with `--sessions-redis URL` on one `redis-server`) behind nginx
//! round robin, no stickiness. A session of either SDK does everything
//! [`drive_legacy_session`] checks, and nginx's log shows its requests
//! answered by all three instances. Beside it, the control: the same
//! fleet, the same driver, without the flag, loses the session (404).
//!
//! Then what only a fleet has, one session of each SDK: a subscription
//! changed by an instance other than the one holding the GET stream is
//! heard (once); an elicitation asked by the instance running the call is
//! answered through another; and the GET stream's instance killed, the
//! SDK resumes the stream (`Last-Event-ID`) on another instance, which
//! delivers the next change.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::fleet::Instance;
use crate::common::fleet_binary;
use crate::common::nginx::{Balance, Logged, Nginx};
use crate::common::redis::Redis;
use crate::legacy::{COUNTER, Driver, Sdk, drive_legacy_session, finished, instances, url};

/// How long the fleet may take to show what a test waits for (a GET
/// stream held, a log line written).
pub const WAIT: Duration = Duration::from_secs(20);

/// The names of the fleet's instances (`FLEET_INSTANCE`), in nginx's
/// upstream order.
pub const NAMES: [&str; 3] = ["a", "b", "c"];

/// Three instances of the fleet example behind nginx round robin, sharing
/// their legacy sessions through a Redis or keeping each its own.
pub struct LegacyFleet {
    /// The instances, named as [`NAMES`].
    pub instances: Vec<(&'static str, Instance)>,
    pub nginx: Nginx,
}

impl LegacyFleet {
    /// The fleet, with `--sessions-redis` naming `store` if given.
    pub fn start(store: Option<&Redis>) -> LegacyFleet {
        let store = store.map(Redis::url);
        let args: Vec<&str> = match &store {
            Some(url) => vec!["--sessions-redis", url],
            None => Vec::new(),
        };
        let instances: Vec<(&'static str, Instance)> = NAMES
            .into_iter()
            .map(|name| {
                let instance = Instance::spawn(&fleet_binary(), &args, &[("FLEET_INSTANCE", name)]);
                (name, instance)
            })
            .collect();
        let addrs: Vec<SocketAddr> = instances.iter().map(|(_, i)| i.addr).collect();
        let nginx = Nginx::start(&addrs, Balance::RoundRobin);
        LegacyFleet { instances, nginx }
    }

    /// The MCP endpoint, through nginx.
    pub fn url(&self) -> String {
        url(self.nginx.addr)
    }

    /// The name of the instance at `addr`.
    pub fn name_of(&self, addr: SocketAddr) -> &'static str {
        self.instances
            .iter()
            .find(|(_, instance)| instance.addr == addr)
            .map(|(name, _)| *name)
            .unwrap_or_else(|| panic!("no instance of the fleet at {addr}"))
    }

    /// Kills the instance named `name` (SIGKILL).
    pub fn kill(&mut self, name: &str) {
        self.instances
            .iter_mut()
            .find(|(named, _)| *named == name)
            .map(|(_, instance)| instance)
            .unwrap_or_else(|| panic!("no instance named {name}"))
            .kill();
    }

    /// The first instance whose log has a line containing `words`, waiting
    /// up to [`WAIT`].
    pub fn wait_logging(&self, words: &str) -> &'static str {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some((name, _)) = self
                .instances
                .iter()
                .find(|(_, instance)| instance.log().contains(words))
            {
                return name;
            }
            assert!(
                Instant::now() < deadline,
                "no instance logged {words:?} within {WAIT:?}:\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The instance whose tag (`mcp-rs-{tag}-n` ids; logged at start as
    /// `instance=TAG`) is `tag`.
    fn tagged(&self, tag: &str) -> Option<&'static str> {
        let said = format!("instance={tag}");
        self.instances
            .iter()
            .find(|(_, instance)| {
                instance
                    .log()
                    .lines()
                    .any(|line| line.contains("sessions are shared") && line.contains(&said))
            })
            .map(|(name, _)| *name)
    }

    /// The instance holding `session`'s GET stream, as the store has it
    /// (the field `hold` of `mcp:session:ID`, an instance's tag), once it
    /// is one `but` does not name, waiting up to [`WAIT`].
    pub fn holder(&self, redis: &Redis, session: &str, but: Option<&str>) -> &'static str {
        let deadline = Instant::now() + WAIT;
        loop {
            let tag = redis.hget(&format!("mcp:session:{session}"), "hold");
            if let Some(name) = tag.as_deref().and_then(|tag| self.tagged(tag))
                && Some(name) != but
            {
                return name;
            }
            assert!(
                Instant::now() < deadline,
                "no instance (but {but:?}) held the GET stream of {session} within {WAIT:?} \
                 (hold: {tag:?}):\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Every request nginx logged by now, once it has at least `requests`.
    pub fn logged(&self, requests: usize) -> Vec<Logged> {
        self.nginx.logged(requests)
    }

    /// nginx's log once `done` holds of it, waiting up to [`WAIT`].
    pub fn logged_when(&self, done: impl Fn(&[Logged]) -> bool) -> Vec<Logged> {
        let deadline = Instant::now() + WAIT;
        loop {
            let logged = self.nginx.logged(0);
            if done(&logged) {
                return logged;
            }
            assert!(
                Instant::now() < deadline,
                "nginx's log not as awaited within {WAIT:?}: {logged:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The instances' logs, for a failure's message.
    pub fn logs(&self) -> String {
        self.instances
            .iter()
            .map(|(name, instance)| format!("--- instance {name}:\n{}", instance.log()))
            .collect()
    }
}

/// The requests of `session` in `logged`: those that named it, and its
/// `initialize`.
pub fn of_session<'a>(logged: &'a [Logged], session: &str) -> Vec<&'a Logged> {
    logged
        .iter()
        .filter(|request| {
            request.session.as_deref() == Some(session)
                || request.answered_session.as_deref() == Some(session)
        })
        .collect()
}

/// Whether a step's line is a request refused because its instance does
/// not know the session: failed, with a POST answered 404 among its
/// requests, and an error that says so: the TypeScript SDK names the
/// status, the Python SDK passes on the server's JSON-RPC error (or says
/// "Session terminated" when a 404 has no JSON body).
fn refused_as_unknown(line: &Value) -> bool {
    let error = line["error"].as_str().unwrap_or_default();
    let posted_404 = line["http"]
        .as_array()
        .is_some_and(|requests| requests.iter().any(|r| r == "POST 404"));
    let says_so = ["404", "unknown or expired session", "Session terminated"]
        .iter()
        .any(|words| error.contains(words));
    line["ok"] == false && posted_404 && says_so
}

/// The control: the fleet without `--sessions-redis`. `initialize`
/// succeeds (a session id), and the session's next requests reach
/// instances that never heard of it: 404, which the SDK reports. nginx's
/// log shows the session's requests spread over the instances, answered
/// only where it was initialized.
fn round_robin_without_a_store_loses_the_session(sdk: Sdk) {
    let fleet = LegacyFleet::start(None);
    let mut driver = Driver::start(sdk, &fleet.url());
    // The connection itself may fail: the TypeScript SDK's
    // `notifications/initialized` is a request of the session.
    let session = driver.connected["session"]
        .as_str()
        .unwrap_or_else(|| {
            driver.fail(&format!("initialize gave no session: {}", driver.connected))
        })
        .to_owned();
    for _ in 0..6 {
        driver.step("whoami");
    }
    driver.step("quit");
    let refused: Vec<&Value> = driver
        .transcript
        .iter()
        .filter(|line| refused_as_unknown(line))
        .collect();
    assert!(
        !refused.is_empty(),
        "{sdk:?}: no step was refused with a 404: {:?}",
        driver.transcript
    );

    let logged = fleet.logged(driver.finished_requests());
    let of_session = of_session(&logged, &session);
    let initialized = of_session
        .iter()
        .find(|request| request.session.is_none())
        .unwrap_or_else(|| panic!("{sdk:?}: no initialize of {session} in {logged:?}"));
    assert_eq!(
        (initialized.method.as_str(), initialized.status),
        ("POST", 200),
        "{logged:?}"
    );
    let home = initialized.upstream;
    let later: Vec<&&Logged> = of_session
        .iter()
        .filter(|request| request.session.is_some())
        .collect();
    assert!(
        later.iter().any(|request| request.status == 404),
        "{sdk:?}: {logged:?}"
    );
    for request in &later {
        assert_eq!(
            request.upstream == home,
            request.status < 400,
            "{sdk:?}: a request of the session answered {} by {} (initialized by {home}): \
             {logged:?}",
            request.status,
            request.upstream
        );
    }
    let reached: BTreeSet<SocketAddr> = of_session.iter().map(|request| request.upstream).collect();
    assert!(reached.len() >= 2, "{sdk:?}: {logged:?}");
}

#[test]
fn round_robin_without_a_session_store_loses_a_python_sdk_session() {
    round_robin_without_a_store_loses_the_session(Sdk::Python);
}

#[test]
fn round_robin_without_a_session_store_loses_a_typescript_sdk_session() {
    round_robin_without_a_store_loses_the_session(Sdk::TypeScript);
}

/// The same fleet with `--sessions-redis`: the whole session passes
/// through round robin, and nginx's log shows it served by every
/// instance, each request of it answered 2xx until its DELETE (after
/// which one `ping` is answered 404), its GET stream included.
fn a_shared_store_serves_a_session_through_round_robin(sdk: Sdk) {
    let redis = Redis::start();
    let fleet = LegacyFleet::start(Some(&redis));
    let lines = drive_legacy_session(&fleet.url(), sdk);
    let session = lines[0]["session"].as_str().expect("a session").to_owned();
    let ran: BTreeSet<String> = instances(&lines).into_iter().collect();
    assert!(ran.len() >= 2, "{sdk:?}: the tools ran on {ran:?}");

    // The SDK's requests, the `ping` after the DELETE, and the GET stream,
    // which ended with the session.
    let expected = finished(&lines) + 1;
    let logged = fleet.logged_when(|logged| {
        let of_session = of_session(logged, &session);
        of_session.len() > expected && of_session.iter().any(|request| request.method == "GET")
    });
    let of_session = of_session(&logged, &session);
    let deleted = of_session
        .iter()
        .position(|request| request.method == "DELETE")
        .unwrap_or_else(|| panic!("{sdk:?}: no DELETE in {of_session:?}"));
    for request in &of_session[..deleted] {
        assert!(
            request.status < 300,
            "{sdk:?}: a request of the session answered {} by {}: {of_session:?}",
            request.status,
            fleet.name_of(request.upstream)
        );
    }
    let answered = |method: &str| -> BTreeSet<&str> {
        of_session
            .iter()
            .filter(|request| request.method == method && request.status < 300)
            .map(|request| fleet.name_of(request.upstream))
            .collect()
    };
    assert_eq!(
        answered("POST"),
        BTreeSet::from(NAMES),
        "{sdk:?}: {of_session:?}"
    );
    assert!(
        !answered("GET").is_empty(),
        "{sdk:?}: no GET stream answered 200: {of_session:?}"
    );
    let after: Vec<u16> = of_session[deleted + 1..]
        .iter()
        .filter(|request| request.method == "POST")
        .map(|request| request.status)
        .collect();
    assert!(after.contains(&404), "{sdk:?}: {of_session:?}");
}

#[test]
fn a_fleet_sharing_sessions_in_redis_serves_a_python_sdk_session_through_round_robin() {
    a_shared_store_serves_a_session_through_round_robin(Sdk::Python);
}

#[test]
fn a_fleet_sharing_sessions_in_redis_serves_a_typescript_sdk_session_through_round_robin() {
    a_shared_store_serves_a_session_through_round_robin(Sdk::TypeScript);
}

/// One session through the fleet sharing its sessions: a change made by
/// an instance other than the GET stream's is heard, once; an
/// elicitation asked by one instance is answered through another; the
/// GET stream's instance killed, the stream is resumed on another, which
/// delivers the next change.
fn a_session_spans_the_instances(sdk: Sdk) {
    let redis = Redis::start();
    let mut fleet = LegacyFleet::start(Some(&redis));
    let mut driver = Driver::start(sdk, &fleet.url());
    let session = driver.session();
    driver.ok(&format!("subscribe {COUNTER}"));
    let holder = fleet.holder(&redis, &session, None);

    // Touched through round robin until an instance other than the holder
    // touched it; each change heard.
    let mut touched_by = Vec::new();
    while touched_by.iter().all(|name| *name == holder) {
        assert!(touched_by.len() < 6, "{sdk:?}: {touched_by:?}");
        let touched = driver.ok("touch");
        driver.ok("await_update 10");
        touched_by.push(touched["instance"].as_str().expect("instance").to_owned());
    }
    // Each change once: no other update comes.
    let more = driver.step("await_update 1");
    assert_eq!(more["ok"], false, "{sdk:?}: an update heard twice: {more}");

    // The elicitation: asked by the instance that runs the call, answered
    // by a POST that round robin sends to another (asked again, up to
    // three times, should nginx have sent both to one instance).
    let mut asked_on = Vec::new();
    for n in 1..=3 {
        let name = format!("Grace Hopper {n}");
        let (call, answer) = ask_through_the_fleet(&fleet, &mut driver, &session, &name);
        let crossed = call != answer;
        asked_on.push((call, answer));
        if crossed {
            break;
        }
    }
    assert!(
        asked_on.iter().any(|(call, answer)| call != answer),
        "{sdk:?}: every answer reached the instance that asked: {asked_on:?}"
    );

    // The GET stream's instance dies: the SDK resumes the stream on
    // another, which delivers the change made meanwhile.
    let from = driver.transcript.len();
    fleet.kill(holder);
    let touched = driver.ok("touch");
    assert_ne!(touched["instance"], holder, "{sdk:?}: {touched}");
    driver.ok("await_update 15");
    let resumed: Vec<String> = driver
        .http_since(from)
        .into_iter()
        .filter(|request| request.starts_with("GET 200 last-event-id="))
        .collect();
    assert!(
        !resumed.is_empty(),
        "{sdk:?}: no GET stream resumed: {:?}",
        driver.http_since(from)
    );
    let new_holder = fleet.holder(&redis, &session, Some(holder));
    let whoami = driver.ok("whoami");
    assert_ne!(whoami["instance"], holder, "{sdk:?}: {whoami}");
    driver.ok("touch");
    driver.ok("await_update 10");
    let quit = driver.ok("quit");
    assert_eq!(quit["deleted"], 204, "{sdk:?}: {quit}");
    eprintln!("{sdk:?}: GET stream held by {holder}, then resumed on {new_holder}: {resumed:?}");
}

/// `ask NAME` through the fleet: the instance that ran the call, and so
/// asked (the tool says, and nginx's log has a POST of the session
/// answered 200 by it), and the one that took the answer (the session's
/// next POST answered 202 in nginx's log; the answer's line may come
/// before the call's or after it).
fn ask_through_the_fleet(
    fleet: &LegacyFleet,
    driver: &mut Driver,
    session: &str,
    name: &str,
) -> (String, &'static str) {
    let posted = |logged: &[Logged]| -> Vec<Logged> {
        of_session(logged, session)
            .into_iter()
            .filter(|request| request.method == "POST")
            .cloned()
            .collect()
    };
    let answers = |posted: &[Logged]| posted.iter().filter(|r| r.status == 202).count();
    let before = posted(&fleet.logged(0));
    let asked = driver.ok(&format!("ask {name}"));
    assert_eq!(asked["name"], name, "{asked}");
    let call = asked["instance"].as_str().expect("instance").to_owned();
    let logged = fleet.logged_when(|logged| {
        let posted = posted(logged);
        let new = &posted[before.len().min(posted.len())..];
        answers(new) > 0
            && new
                .iter()
                .any(|r| r.status == 200 && fleet.name_of(r.upstream) == call)
    });
    let posted = posted(&logged);
    let new = &posted[before.len()..];
    assert_eq!(answers(new), 1, "one answer: {new:?}");
    let answer = new.iter().find(|r| r.status == 202).expect("the answer");
    (call, fleet.name_of(answer.upstream))
}

#[test]
fn a_python_sdk_session_spans_the_instances_of_a_fleet() {
    a_session_spans_the_instances(Sdk::Python);
}

#[test]
fn a_typescript_sdk_session_spans_the_instances_of_a_fleet() {
    a_session_spans_the_instances(Sdk::TypeScript);
}
