//! The Redis session store's contract, against a real `redis-server`:
//! what a session is reads back whole and by revision, the fleet-wide
//! bounds end the idlest session that is not busy (and refuse when all
//! are), two stores on one Redis (two instances of a fleet) reap once,
//! and a killed instance's busy leases lapse. While Redis is down every
//! operation fails fast with a sentence naming the server and never the
//! URL; once it is back the same store carries on. Then the messages half:
//! a session's streams keep their order and their bound, the instance
//! holding a GET stream hears what is appended to it exactly once, and
//! messages reach one instance or all.
//!
//! The store's operations are crate-private; the tests reach them through
//! `mcp_runtime::sessions::probe` (hidden, not public API). Each test
//! starts a `redis-server` of its own on a free loopback port
//! (tests/common/redis.rs).

mod common;

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::redis::Redis;
use mcp_runtime::sessions::RedisSessions;
use mcp_runtime::sessions::probe::{
    self, BUSY_LEASE, Full, Inbound, Limits, SessionChange, SessionData,
};
use serde_json::json;
use tokio::sync::broadcast;

/// The bound of every wait for a message.
const WAIT: Duration = Duration::from_secs(20);

/// How long a call may take while Redis is down (it should fail at once:
/// the connection is refused).
const DOWN_CALL: Duration = Duration::from_secs(5);

const MINUTE: Duration = Duration::from_secs(60);

/// The idle timeout of [`limits`], and the grain of a session's recorded
/// last use under it (a hundredth): a use within it of the last one
/// recorded does not change the idle order.
const IDLE: Duration = Duration::from_secs(10);
const GRAIN: Duration = Duration::from_millis(100);

fn limits(max: usize, per_client: usize) -> Limits {
    Limits {
        idle_timeout: IDLE,
        max,
        per_client,
    }
}

/// A session id no other test uses.
fn new_id() -> String {
    static MADE: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{:08x}{:08x}",
        std::process::id(),
        MADE.fetch_add(1, Ordering::Relaxed)
    )
}

fn data(client_key: Option<&str>) -> SessionData {
    SessionData {
        version: "2025-11-25".into(),
        client: json!({"name": "test", "version": "1.0", "capabilities": {"elicitation": {}}}),
        owner: None,
        client_key: client_key.map(str::to_owned),
        log_level: 0,
        subscriptions: BTreeSet::new(),
        roots: 0,
    }
}

/// Creates a session that must fit; its id.
async fn created(store: &RedisSessions, data: &SessionData, limits: &Limits) -> String {
    let id = new_id();
    let ended = probe::create(store, &id, data, limits)
        .await
        .expect("Redis answers")
        .expect("there is room");
    assert!(ended.is_empty(), "nothing had to end for {id}: {ended:?}");
    // Idle order is by Redis's milliseconds: the next one is later.
    tokio::time::sleep(Duration::from_millis(3)).await;
    id
}

async fn exists(store: &RedisSessions, id: &str) -> bool {
    probe::load(store, id, None)
        .await
        .expect("Redis answers")
        .is_some()
}

/// The next message heard that `wanted` picks, within [`WAIT`].
async fn heard<T>(
    inbound: &mut broadcast::Receiver<Inbound>,
    mut wanted: impl FnMut(Inbound) -> Option<T>,
) -> T {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, inbound.recv()).await {
            Ok(Ok(message)) => {
                if let Some(found) = wanted(message) {
                    return found;
                }
            }
            Ok(Err(e)) => panic!("the inbound channel failed: {e}"),
            Err(_) => panic!("nothing wanted heard within {WAIT:?}"),
        }
    }
}

// ---------------------------------------------------------------------
// Sessions.

#[tokio::test]
async fn a_session_reads_back_whole_then_by_revision_until_it_ends() {
    let redis = Redis::start();
    let store = RedisSessions::new(&redis.url()).unwrap();
    probe::check(&store).await.expect("Redis is up");
    let mut made = data(Some("10.0.0.1"));
    made.owner = Some("alice".into());
    made.log_level = 4;
    made.subscriptions.insert("file:///a".into());
    let id = created(&store, &made, &limits(100, 10)).await;

    let first = probe::load(&store, &id, None).await.unwrap().expect("kept");
    assert_eq!(first.rev, 1);
    assert_eq!(first.holder, None);
    assert_eq!(
        first.data.as_ref(),
        Some(&made),
        "read back whole, owner and all"
    );
    let current = probe::load(&store, &id, Some(1))
        .await
        .unwrap()
        .expect("kept");
    assert_eq!(
        (current.rev, current.data),
        (1, None),
        "a current copy gets only the revision"
    );

    let rev = probe::change(&store, &id, SessionChange::LogLevel(6))
        .await
        .unwrap();
    assert_eq!(rev, Some(2));
    assert_eq!(
        probe::change(&store, &id, SessionChange::Subscribe("file:///b".into()))
            .await
            .unwrap(),
        Some(3)
    );
    assert_eq!(
        probe::change(&store, &id, SessionChange::Unsubscribe("file:///a".into()))
            .await
            .unwrap(),
        Some(4)
    );
    assert_eq!(
        probe::change(&store, &id, SessionChange::RootsChanged)
            .await
            .unwrap(),
        Some(5)
    );
    let now = probe::load(&store, &id, Some(1))
        .await
        .unwrap()
        .expect("kept");
    assert_eq!(now.rev, 5);
    let now = now.data.expect("an old copy gets the data");
    assert_eq!(now.log_level, 6);
    assert_eq!(now.subscriptions, BTreeSet::from(["file:///b".to_owned()]));
    assert_eq!(now.roots, 1);
    assert_eq!(now.owner.as_deref(), Some("alice"), "the owner is kept");
    assert_eq!(now.client, made.client);

    assert!(
        probe::end(&store, &id).await.unwrap(),
        "there was one to end"
    );
    assert_eq!(probe::load(&store, &id, None).await.unwrap(), None);
    assert!(!probe::end(&store, &id).await.unwrap(), "ended once");
    assert_eq!(
        probe::change(&store, &id, SessionChange::RootsChanged)
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn an_unknown_session_is_none_everywhere() {
    let redis = Redis::start();
    let store = RedisSessions::new(&redis.url()).unwrap();
    assert_eq!(probe::load(&store, "unknown", None).await.unwrap(), None);
    assert_eq!(probe::load(&store, "unknown", Some(1)).await.unwrap(), None);
    assert_eq!(
        probe::change(&store, "unknown", SessionChange::LogLevel(1))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        probe::append(&store, "unknown", "0", "{}", 10)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        probe::hold(&store, "unknown", "aaaaaaaa").await.unwrap(),
        None
    );
    assert_eq!(
        probe::busy(&store, &["unknown".into()]).await.unwrap(),
        vec!["unknown".to_owned()]
    );
    let mut anonymous = data(None);
    anonymous.client = json!({"name": "x"});
    let id = created(&store, &anonymous, &limits(10, 10)).await;
    let loaded = probe::load(&store, &id, None)
        .await
        .unwrap()
        .unwrap()
        .data
        .unwrap();
    assert_eq!((loaded.owner, loaded.client_key), (None, None));
}

#[tokio::test]
async fn at_its_bound_a_client_loses_its_idlest_session_not_busy() {
    let redis = Redis::start();
    let store = RedisSessions::new(&redis.url()).unwrap();
    let bounds = limits(100, 2);
    let a = data(Some("client-a"));
    let a1 = created(&store, &a, &bounds).await;
    let a2 = created(&store, &a, &bounds).await;
    let b1 = created(&store, &data(Some("client-b")), &bounds).await;
    // a1 used since (past the grain): a2 is the idlest of client a.
    tokio::time::sleep(GRAIN + Duration::from_millis(5)).await;
    assert!(exists(&store, &a1).await);
    tokio::time::sleep(Duration::from_millis(3)).await;

    let a3 = new_id();
    let ended = probe::create(&store, &a3, &a, &bounds)
        .await
        .unwrap()
        .expect("room made");
    assert_eq!(ended, vec![a2.clone()]);
    assert!(!exists(&store, &a2).await);
    assert!(exists(&store, &b1).await, "another client's session stays");

    // Busy sessions never end to make room: with all of a's busy, none fits.
    probe::busy(&store, &[a1.clone(), a3.clone()])
        .await
        .unwrap();
    let a4 = new_id();
    assert_eq!(
        probe::create(&store, &a4, &a, &bounds).await.unwrap(),
        Err(Full::Client)
    );
    assert!(!exists(&store, &a4).await, "not kept");
    assert!(exists(&store, &a1).await && exists(&store, &a3).await);
    // Once one is free again, it is the one to go.
    probe::not_busy(&store, std::slice::from_ref(&a1))
        .await
        .unwrap();
    assert_eq!(
        probe::create(&store, &a4, &a, &bounds).await.unwrap(),
        Ok(vec![a1])
    );
}

#[tokio::test]
async fn at_the_fleet_bound_the_idlest_of_all_not_busy_ends() {
    let redis = Redis::start();
    let store = RedisSessions::new(&redis.url()).unwrap();
    let bounds = limits(3, 10);
    let s1 = created(&store, &data(Some("one")), &bounds).await;
    let s2 = created(&store, &data(None), &bounds).await;
    let s3 = created(&store, &data(Some("three")), &bounds).await;
    tokio::time::sleep(GRAIN + Duration::from_millis(5)).await;
    assert!(exists(&store, &s1).await);
    tokio::time::sleep(Duration::from_millis(3)).await;

    let s4 = new_id();
    let ended = probe::create(&store, &s4, &data(Some("four")), &bounds)
        .await
        .unwrap();
    assert_eq!(ended, Ok(vec![s2.clone()]), "s2 was the idlest");

    probe::busy(&store, &[s1.clone(), s3.clone(), s4.clone()])
        .await
        .unwrap();
    let s5 = new_id();
    assert_eq!(
        probe::create(&store, &s5, &data(Some("five")), &bounds)
            .await
            .unwrap(),
        Err(Full::Server),
        "every session is busy"
    );
    for id in [&s1, &s3, &s4] {
        assert!(exists(&store, id).await, "busy {id} stays");
    }
    // An ended session frees its place.
    assert!(probe::end(&store, &s3).await.unwrap());
    assert_eq!(
        probe::create(&store, &s5, &data(None), &bounds)
            .await
            .unwrap(),
        Ok(vec![])
    );
}

#[tokio::test]
async fn two_instances_reap_idle_sessions_once_and_spare_busy_ones() {
    let redis = Redis::start();
    let a = RedisSessions::new(&redis.url()).unwrap();
    let b = RedisSessions::new(&redis.url()).unwrap();
    let idle = Duration::from_millis(300);
    let bounds = Limits {
        idle_timeout: idle,
        max: 100,
        per_client: 100,
    };
    let s1 = created(&a, &data(Some("c")), &bounds).await;
    let s2 = created(&b, &data(None), &bounds).await;
    let busy = created(&a, &data(None), &bounds).await;
    probe::busy(&a, std::slice::from_ref(&busy)).await.unwrap();
    tokio::time::sleep(idle * 2).await;
    // A fresh one is not idle.
    let fresh = created(&b, &data(None), &bounds).await;

    let (by_a, by_b) = tokio::join!(probe::reap(&a, idle), probe::reap(&b, idle));
    let (mut by_a, mut by_b) = (by_a.unwrap(), by_b.unwrap());
    assert!(
        by_a.is_empty() || by_b.is_empty(),
        "one instance reaps a round: {by_a:?} and {by_b:?}"
    );
    by_a.append(&mut by_b);
    by_a.sort();
    let mut expected = vec![s1.clone(), s2.clone()];
    expected.sort();
    assert_eq!(by_a, expected);
    assert!(!exists(&a, &s1).await && !exists(&b, &s2).await);
    assert!(exists(&b, &busy).await, "a busy session is not reaped");
    assert!(exists(&a, &fresh).await);
}

#[tokio::test]
async fn uses_within_the_grain_keep_a_session_alive_and_it_still_ends_when_idle() {
    let redis = Redis::start();
    let store = RedisSessions::new(&redis.url()).unwrap();
    // A grain of 10 ms; the reaper's lock lasts 250 ms.
    let idle = Duration::from_secs(1);
    let bounds = Limits {
        idle_timeout: idle,
        max: 100,
        per_client: 100,
    };
    let start = tokio::time::Instant::now();
    let id = created(&store, &data(Some("c")), &bounds).await;
    // Used at once (within the grain of its creation), then 600 ms on,
    // twice in a row (the second within the grain of the first).
    assert!(exists(&store, &id).await);
    tokio::time::sleep_until(start + Duration::from_millis(600)).await;
    assert!(exists(&store, &id).await);
    assert!(exists(&store, &id).await);
    // 1.2 s after its creation, 0.6 s after its last use: not idle.
    tokio::time::sleep_until(start + Duration::from_millis(1200)).await;
    assert_eq!(
        probe::reap(&store, idle).await.unwrap(),
        Vec::<String>::new()
    );
    // 1.3 s after its last use: idle, and ended.
    tokio::time::sleep_until(start + Duration::from_millis(1900)).await;
    assert_eq!(probe::reap(&store, idle).await.unwrap(), vec![id.clone()]);
    assert!(!exists(&store, &id).await);
}

#[tokio::test]
async fn the_busy_lease_of_a_killed_instance_lapses_and_its_session_is_reaped() {
    let redis = Redis::start();
    let b = RedisSessions::new(&redis.url()).unwrap();
    let idle = Duration::from_millis(200);
    let bounds = Limits {
        idle_timeout: idle,
        max: 100,
        per_client: 100,
    };
    let id = {
        let a = RedisSessions::new(&redis.url()).unwrap();
        let id = created(&a, &data(None), &bounds).await;
        probe::busy(&a, std::slice::from_ref(&id)).await.unwrap();
        // a is killed: dropped with its lease left in Redis.
        id
    };
    tokio::time::sleep(idle * 2).await;
    assert_eq!(
        probe::reap(&b, idle).await.unwrap(),
        Vec::<String>::new(),
        "still leased"
    );
    tokio::time::sleep(BUSY_LEASE).await;
    // Past the lock of the last round too.
    let ended = probe::reap(&b, idle).await.unwrap();
    assert_eq!(ended, vec![id.clone()]);
    assert!(!exists(&b, &id).await);
}

// ---------------------------------------------------------------------
// Faults.

async fn fails_fast<T: std::fmt::Debug>(
    what: &str,
    addr: &str,
    call: impl std::future::Future<Output = Result<T, mcp_runtime::sessions::SessionStoreError>>,
) {
    let started = Instant::now();
    let outcome = call.await;
    let took = started.elapsed();
    let error = outcome.expect_err(&format!("{what} fails while Redis is down"));
    assert!(took < DOWN_CALL, "{what} took {took:?}");
    let sentence = error.to_string();
    assert!(
        sentence.starts_with(&format!("redis at {addr}: ")),
        "{what}: {sentence}"
    );
}

#[tokio::test]
async fn while_redis_is_down_every_call_fails_fast_and_then_the_store_carries_on() {
    let mut redis = Redis::persistent();
    let store = RedisSessions::new(&redis.url())
        .unwrap()
        .timeout(Duration::from_secs(1));
    let addr = redis.addr.to_string();
    let bounds = limits(100, 10);
    let id = created(&store, &data(Some("c")), &bounds).await;
    assert!(
        probe::append(&store, &id, "0", "{\"before\":1}", 10)
            .await
            .unwrap()
            .is_some()
    );

    redis.stop();
    fails_fast("load", &addr, probe::load(&store, &id, None)).await;
    fails_fast(
        "create",
        &addr,
        probe::create(&store, &new_id(), &data(None), &bounds),
    )
    .await;
    fails_fast(
        "change",
        &addr,
        probe::change(&store, &id, SessionChange::LogLevel(1)),
    )
    .await;
    fails_fast(
        "busy",
        &addr,
        probe::busy(&store, std::slice::from_ref(&id)),
    )
    .await;
    fails_fast("reap", &addr, probe::reap(&store, MINUTE)).await;
    fails_fast("append", &addr, probe::append(&store, &id, "0", "{}", 10)).await;
    fails_fast("replay", &addr, probe::replay(&store, &id, "0", None, 10)).await;
    fails_fast("hold", &addr, probe::hold(&store, &id, "aaaaaaaa")).await;
    fails_fast("route", &addr, probe::route(&store, "aaaaaaaa", "x")).await;
    fails_fast("end", &addr, probe::end(&store, &id)).await;
    fails_fast("check", &addr, probe::check(&store)).await;

    redis.restart();
    let loaded = probe::load(&store, &id, None)
        .await
        .expect("the same store carries on");
    assert!(loaded.is_some(), "the session was kept on disk");
    let kept = probe::replay(&store, &id, "0", None, 10).await.unwrap();
    assert_eq!(kept.len(), 1, "and its stream: {kept:?}");
    assert_eq!(
        probe::change(&store, &id, SessionChange::LogLevel(2))
            .await
            .unwrap(),
        Some(2)
    );
    probe::check(&store).await.expect("up again");
}

#[tokio::test]
async fn the_start_up_check_names_the_server_and_never_the_password() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let store = RedisSessions::new(&format!("redis://:secret@127.0.0.1:{port}/")).unwrap();
    let started = Instant::now();
    let error = probe::check(&store)
        .await
        .expect_err("nothing listens there");
    assert!(started.elapsed() < DOWN_CALL);
    let sentence = error.to_string();
    assert!(
        sentence.starts_with(&format!("redis at 127.0.0.1:{port}: connecting: ")),
        "{sentence}"
    );
    assert!(!sentence.contains("secret"), "{sentence}");
    assert!(!format!("{store:?}").contains("secret"));
    let bad = RedisSessions::new("redis://:secret@[::1/")
        .unwrap_err()
        .to_string();
    assert!(!bad.contains("secret"), "{bad}");
}

// ---------------------------------------------------------------------
// Messages.

#[tokio::test]
async fn a_stream_replays_in_order_after_any_entry_within_its_bound() {
    let redis = Redis::start();
    let store = RedisSessions::new(&redis.url()).unwrap();
    let id = created(&store, &data(None), &limits(10, 10)).await;
    let mut ids = Vec::new();
    for n in 0..5 {
        let line = format!("{{\"n\": {n}}}");
        ids.push(
            probe::append(&store, &id, "0", &line, 100)
                .await
                .unwrap()
                .expect("kept"),
        );
    }
    let mut sorted = ids.clone();
    sorted.sort_by_key(|entry| {
        let (ms, seq) = entry.split_once('-').unwrap();
        (ms.parse::<u64>().unwrap(), seq.parse::<u64>().unwrap())
    });
    sorted.dedup();
    assert_eq!(sorted, ids, "ids increase");
    let all = probe::replay(&store, &id, "0", None, 100).await.unwrap();
    assert_eq!(all.iter().map(|(e, _)| e.clone()).collect::<Vec<_>>(), ids);
    assert_eq!(all[4].1, "{\"n\": 4}");
    let after = probe::replay(&store, &id, "0", Some(&ids[1]), 100)
        .await
        .unwrap();
    assert_eq!(
        after.iter().map(|(e, _)| e.clone()).collect::<Vec<_>>(),
        ids[2..]
    );
    let page = probe::replay(&store, &id, "0", Some(&ids[0]), 2)
        .await
        .unwrap();
    assert_eq!(
        page.iter().map(|(e, _)| e.clone()).collect::<Vec<_>>(),
        ids[1..3]
    );
    assert!(
        probe::replay(&store, &id, "0", Some(&ids[4]), 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        probe::replay(&store, &id, "7", None, 10)
            .await
            .unwrap()
            .is_empty(),
        "another stream"
    );

    // Bounded: about `keep` entries stay (Redis trims whole nodes), the
    // latest ones, without gaps.
    for n in 5..400 {
        probe::append(&store, &id, "0", &format!("{{\"n\": {n}}}"), 10)
            .await
            .unwrap();
    }
    let kept = probe::replay(&store, &id, "0", None, 1000).await.unwrap();
    assert!(kept.len() < 300, "trimmed: {} kept", kept.len());
    assert_eq!(kept.last().unwrap().1, "{\"n\": 399}");
    let first: usize = kept[0]
        .1
        .trim_start_matches("{\"n\": ")
        .trim_end_matches('}')
        .parse()
        .unwrap();
    assert_eq!(first + kept.len(), 400, "the latest, without gaps");

    assert!(probe::end(&store, &id).await.unwrap());
    assert!(
        probe::replay(&store, &id, "0", None, 10)
            .await
            .unwrap()
            .is_empty(),
        "gone with its session"
    );
}

#[tokio::test]
async fn the_holder_hears_its_sessions_and_loses_them_to_a_takeover() {
    let redis = Redis::start();
    let a = RedisSessions::new(&redis.url()).unwrap();
    let b = RedisSessions::new(&redis.url()).unwrap();
    let mut heard_a = probe::listen(&a, "aaaaaaaa").await;
    let mut heard_b = probe::listen(&b, "bbbbbbbb").await;
    let id = created(&a, &data(None), &limits(10, 10)).await;

    let held = probe::hold(&a, &id, "aaaaaaaa")
        .await
        .unwrap()
        .expect("the session exists");
    assert_eq!((held.previous, held.delivered), (None, None));
    assert_eq!(
        probe::load(&b, &id, None)
            .await
            .unwrap()
            .unwrap()
            .holder
            .as_deref(),
        Some("aaaaaaaa")
    );
    let entry = probe::append(&b, &id, "0", "{\"to\": \"a\"}", 10)
        .await
        .unwrap()
        .unwrap();
    let event = heard(&mut heard_a, |m| match m {
        Inbound::Event {
            session,
            stream,
            entry,
            line,
        } if session == id => Some((stream, entry, line)),
        _ => None,
    })
    .await;
    assert_eq!(event, ("0".into(), entry.clone(), "{\"to\": \"a\"}".into()));

    // b takes over: a is told, b hears what comes next.
    let held = probe::hold(&b, &id, "bbbbbbbb").await.unwrap().unwrap();
    assert_eq!(held.previous.as_deref(), Some("aaaaaaaa"));
    heard(&mut heard_a, |m| {
        (m == Inbound::Taken {
            session: id.clone(),
        })
        .then_some(())
    })
    .await;
    probe::change(&a, &id, SessionChange::LogLevel(3))
        .await
        .unwrap();
    let rev = heard(&mut heard_b, |m| match m {
        Inbound::Changed { session, rev } if session == id => Some(rev),
        _ => None,
    })
    .await;
    assert_eq!(rev, 2);

    // Letting go notes the cursor for the next holder; not ours: no change.
    assert!(
        !probe::release(&a, &id, "aaaaaaaa", Some("1-1"))
            .await
            .unwrap()
    );
    assert!(
        probe::release(&b, &id, "bbbbbbbb", Some(&entry))
            .await
            .unwrap()
    );
    let held = probe::hold(&a, &id, "aaaaaaaa").await.unwrap().unwrap();
    assert_eq!((held.previous, held.delivered), (None, Some(entry.clone())));
    // The lease tick notes the cursor of the streams still held, only.
    let cursors = [(id.clone(), "9-9".to_owned())];
    assert_eq!(probe::delivered(&b, "bbbbbbbb", &cursors).await.unwrap(), 0);
    assert_eq!(probe::delivered(&a, "aaaaaaaa", &cursors).await.unwrap(), 1);
    assert!(probe::release(&a, &id, "aaaaaaaa", None).await.unwrap());
    let held = probe::hold(&a, &id, "aaaaaaaa").await.unwrap().unwrap();
    assert_eq!(held.delivered.as_deref(), Some("9-9"));

    // Routed to one instance, broadcast to all.
    assert_eq!(probe::route(&b, "aaaaaaaa", "answer 7").await.unwrap(), 1);
    heard(&mut heard_a, |m| {
        (m == Inbound::Routed("answer 7".into())).then_some(())
    })
    .await;
    assert_eq!(
        probe::route(&b, "deadbeef", "lost").await.unwrap(),
        0,
        "no such instance"
    );
    assert_eq!(probe::broadcast(&a, "tools changed").await.unwrap(), 2);
    for heard_by in [&mut heard_a, &mut heard_b] {
        heard(heard_by, |m| {
            (m == Inbound::Broadcast("tools changed".into())).then_some(())
        })
        .await;
    }

    // Ending the session tells its holder.
    assert!(probe::end(&b, &id).await.unwrap());
    heard(&mut heard_a, |m| {
        (m == Inbound::Ended {
            session: id.clone(),
        })
        .then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_holder_gets_every_entry_of_two_concurrent_producers_exactly_once_in_order() {
    let redis = Redis::start();
    let a = RedisSessions::new(&redis.url()).unwrap();
    let b = RedisSessions::new(&redis.url()).unwrap();
    let c = RedisSessions::new(&redis.url()).unwrap();
    let mut heard_c = probe::listen(&c, "cccccccc").await;
    let id = created(&a, &data(None), &limits(10, 10)).await;
    probe::hold(&c, &id, "cccccccc").await.unwrap().unwrap();

    const EACH: usize = 50;
    let produce = |store: RedisSessions, name: &'static str, id: String| async move {
        for n in 0..EACH {
            let line = format!("{{\"from\": \"{name}\", \"n\": {n}}}");
            probe::append(&store, &id, "0", &line, 1000)
                .await
                .unwrap()
                .unwrap();
        }
    };
    tokio::join!(
        produce(a.clone(), "a", id.clone()),
        produce(b.clone(), "b", id.clone())
    );
    let mut live = Vec::new();
    while live.len() < 2 * EACH {
        let entry = heard(&mut heard_c, |m| match m {
            Inbound::Event {
                session,
                entry,
                line,
                ..
            } if session == id => Some((entry, line)),
            _ => None,
        })
        .await;
        live.push(entry);
    }
    let stored = probe::replay(&c, &id, "0", None, 1000).await.unwrap();
    assert_eq!(
        live, stored,
        "heard live exactly as stored: once each, in order"
    );
    for name in ["a", "b"] {
        let ns: Vec<usize> = live
            .iter()
            .filter(|(_, line)| line.contains(&format!("\"{name}\"")))
            .map(|(_, line)| {
                line.rsplit(' ')
                    .next()
                    .unwrap()
                    .trim_end_matches('}')
                    .parse()
                    .unwrap()
            })
            .collect();
        assert_eq!(ns, (0..EACH).collect::<Vec<_>>(), "{name}'s own order kept");
    }
    // Nothing more comes.
    let more = tokio::time::timeout(Duration::from_millis(300), heard_c.recv()).await;
    assert!(!matches!(more, Ok(Ok(Inbound::Event { .. }))), "{more:?}");
}

#[tokio::test]
async fn a_resource_update_reaches_the_streams_of_its_subscribers_only() {
    let redis = Redis::start();
    let store = RedisSessions::new(&redis.url()).unwrap();
    let bounds = limits(10, 10);
    let mut subscribed = data(None);
    subscribed.subscriptions.insert("file:///w".into());
    let s1 = created(&store, &subscribed, &bounds).await;
    let s2 = created(&store, &data(None), &bounds).await;
    let s3 = created(&store, &data(None), &bounds).await;
    probe::change(&store, &s2, SessionChange::Subscribe("file:///w".into()))
        .await
        .unwrap();

    let line = r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///w"}}"#;
    assert_eq!(
        probe::notify_uri(&store, "file:///w", line, 10)
            .await
            .unwrap(),
        2
    );
    for id in [&s1, &s2] {
        let kept = probe::replay(&store, id, "0", None, 10).await.unwrap();
        assert_eq!(kept.len(), 1, "{id}");
        assert_eq!(kept[0].1, line);
    }
    assert!(
        probe::replay(&store, &s3, "0", None, 10)
            .await
            .unwrap()
            .is_empty()
    );

    probe::change(&store, &s1, SessionChange::Unsubscribe("file:///w".into()))
        .await
        .unwrap();
    probe::end(&store, &s2).await.unwrap();
    assert_eq!(
        probe::notify_uri(&store, "file:///w", line, 10)
            .await
            .unwrap(),
        0
    );
}
