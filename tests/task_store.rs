//! Every task store keeps the same contract: one suite of checks (the
//! `async fn`s taking a `&dyn TaskStore`), run against the in-memory store
//! and against Redis alike (`contract!` makes a test of each for each
//! store). Then what only Redis does: two stores on one Redis (two
//! instances of a fleet) share tasks and events, their concurrent changes
//! of one task all apply, and a store outlives a restart of Redis: while
//! Redis is down every method fails, fast, with a clear error; once it is
//! back the same store carries on, with the tasks made before (Redis keeps
//! them in its append-only file), and announces the changes it could not
//! hear meanwhile. A dropped store stops listening; a store made before
//! any runtime runs works in one.
//!
//! Each Redis test starts a `redis-server` of its own on a free loopback
//! port (tests/common/redis.rs); without one installed, the first runs
//! tests/redis/install.

mod common;

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::redis::Redis;
use mcp_runtime::tasks::{
    Change, Lease, MemoryTasks, RedisTasks, StoreError, TaskEvents, TaskOutcome, TaskRecord,
    TaskStatus, TaskStore, Updated,
};
use serde_json::json;

/// The bound of every wait: for an event, for a TTL to pass, for Redis to
/// come back.
const WAIT: Duration = Duration::from_secs(20);

/// How long a call may take while Redis is down (it should fail at once:
/// the connection is refused).
const DOWN_CALL: Duration = Duration::from_secs(5);

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap()
}

/// A new `working` task of `owner` in the era `modern`, kept `ttl_ms`, with
/// an id no other test uses.
fn task(owner: Option<&str>, modern: bool, ttl_ms: u64) -> TaskRecord {
    static MADE: AtomicUsize = AtomicUsize::new(0);
    let id = format!(
        "task-{}-{}",
        std::process::id(),
        MADE.fetch_add(1, Ordering::Relaxed)
    );
    let mut record = TaskRecord::new(id, owner.map(str::to_owned), modern, "report");
    record.ttl_ms = ttl_ms;
    record.poll_interval_ms = 1_000;
    record
}

const MINUTE: u64 = 60_000;

fn completed() -> Change {
    Change::Finish {
        status: TaskStatus::Completed,
        outcome: Some(TaskOutcome::Result(
            json!({"content": [{"type": "text", "text": "done"}]}),
        )),
        message: None,
    }
}

fn cancelled() -> Change {
    Change::Finish {
        status: TaskStatus::Cancelled,
        outcome: None,
        message: Some("cancelled by the client".into()),
    }
}

fn renew(until_ms: u64) -> Change {
    Change::Renew(Lease {
        instance: "instance-a".into(),
        until_ms,
    })
}

fn message(text: &str) -> Change {
    Change::Message(Some(text.into()))
}

fn changed(updated: Updated) -> TaskRecord {
    match updated {
        Updated::Changed(record) => record,
        other => panic!("expected the change to apply, got {other:?}"),
    }
}

/// The next id announced, within [`WAIT`].
async fn next_event(events: &mut TaskEvents) -> String {
    tokio::time::timeout(WAIT, events.recv())
        .await
        .unwrap_or_else(|_| panic!("no task event within {WAIT:?}"))
        .expect("the events channel is open and not lagging")
}

fn ids(records: &[TaskRecord]) -> Vec<String> {
    records.iter().map(|r| r.id.clone()).collect()
}

// ---------------------------------------------------------------------
// The contract.

async fn a_created_task_reads_back_whole(store: &dyn TaskStore) {
    let mut record = task(Some("alice"), true, MINUTE);
    record.status_message = Some("starting".into());
    record.input_requests.insert(
        "q1".into(),
        json!({"method": "elicitation/create", "params": {"message": "sure?"}}),
    );
    record.status = TaskStatus::InputRequired;
    store.create(record.clone()).await.unwrap();
    assert_eq!(store.get(&record.id).await.unwrap(), Some(record));
    assert_eq!(store.get("no-such-task").await.unwrap(), None);
}

async fn updates_follow_the_state_machine(store: &dyn TaskStore) {
    let record = task(None, true, MINUTE);
    let id = record.id.clone();
    store.create(record).await.unwrap();

    let asked = changed(
        store
            .update(
                &id,
                Change::Ask {
                    key: "q1".into(),
                    request: json!({"method": "elicitation/create"}),
                },
            )
            .await
            .unwrap(),
    );
    assert_eq!(asked.status, TaskStatus::InputRequired);
    let mut answers = serde_json::Map::new();
    answers.insert("q1".into(), json!({"action": "accept"}));
    answers.insert("never-asked".into(), json!({"action": "accept"}));
    let answered = changed(store.update(&id, Change::Answer(answers)).await.unwrap());
    assert_eq!(answered.status, TaskStatus::Working);
    assert_eq!(
        answered.answers.keys().collect::<Vec<_>>(),
        ["q1"],
        "an answer to a question never asked is dropped"
    );

    let done = changed(store.update(&id, completed()).await.unwrap());
    assert_eq!(done.status, TaskStatus::Completed);
    // An ended task stays as it ended: a late cancel changes nothing.
    match store.update(&id, cancelled()).await.unwrap() {
        Updated::Unchanged(kept) => assert_eq!(kept, done),
        other => panic!("a cancel after the end: {other:?}"),
    }
    match store.update(&id, message("late")).await.unwrap() {
        Updated::Unchanged(kept) => assert_eq!(kept, done),
        other => panic!("a message after the end: {other:?}"),
    }
    assert_eq!(store.get(&id).await.unwrap(), Some(done));
    assert_eq!(
        store.update("no-such-task", completed()).await.unwrap(),
        Updated::NotFound
    );
}

async fn changes_are_announced_and_renewals_are_not(store: &dyn TaskStore) {
    let (a, b) = (task(None, true, MINUTE), task(None, true, MINUTE));
    store.create(a.clone()).await.unwrap();
    store.create(b.clone()).await.unwrap();
    let mut events = store.events();

    // A renewal of `a`, then a change of `b`: the first news is `b`.
    changed(store.update(&a.id, renew(now_ms() + MINUTE)).await.unwrap());
    changed(store.update(&b.id, message("halfway")).await.unwrap());
    assert_eq!(next_event(&mut events).await, b.id);

    // `a` ends: news. A cancel after it changes nothing: no news, so the
    // next is `b` again.
    changed(store.update(&a.id, completed()).await.unwrap());
    assert_eq!(next_event(&mut events).await, a.id);
    assert!(matches!(
        store.update(&a.id, cancelled()).await.unwrap(),
        Updated::Unchanged(_)
    ));
    changed(store.update(&b.id, message("almost")).await.unwrap());
    assert_eq!(next_event(&mut events).await, b.id);
}

async fn lists_are_per_owner_and_era_oldest_first_in_pages(store: &dyn TaskStore) {
    let base = now_ms();
    let mut mine = Vec::new();
    for i in 0..5 {
        let mut record = task(Some("me"), true, MINUTE);
        record.created_ms = base + i * 10;
        mine.push(record);
    }
    // Made out of order: the list is by creation, not by insertion.
    for record in mine.iter().rev() {
        store.create(record.clone()).await.unwrap();
    }
    store
        .create(task(Some("them"), true, MINUTE))
        .await
        .unwrap();
    store.create(task(None, true, MINUTE)).await.unwrap();
    let legacy = task(Some("me"), false, MINUTE);
    store.create(legacy.clone()).await.unwrap();

    let first = store.list(Some("me"), true, None, 2).await.unwrap();
    assert_eq!(ids(&first), ids(&mine[..2]));
    // A task made between two pages is on a later page; none is repeated
    // or skipped.
    let mut late = task(Some("me"), true, MINUTE);
    late.created_ms = base + 1_000;
    store.create(late.clone()).await.unwrap();
    let mut seen = first;
    for pages in 1.. {
        // 6 tasks in pages of 2: a store that repeats one never ends.
        assert!(pages <= 5, "more pages than tasks: {:?}", ids(&seen));
        let last = seen.last().unwrap().clone();
        let page = store
            .list(Some("me"), true, Some((last.created_ms, &last.id)), 2)
            .await
            .unwrap();
        assert!(page.len() <= 2);
        if page.is_empty() {
            break;
        }
        seen.extend(page);
    }
    let mut expected = ids(&mine);
    expected.push(late.id.clone());
    assert_eq!(ids(&seen), expected);

    assert_eq!(
        ids(&store.list(Some("me"), false, None, 10).await.unwrap()),
        [legacy.id]
    );
    let theirs = store.list(Some("them"), true, None, 10).await.unwrap();
    assert_eq!(theirs.len(), 1);
    assert_eq!(theirs[0].owner.as_deref(), Some("them"));
    let anonymous = store.list(None, true, None, 10).await.unwrap();
    assert_eq!(anonymous.len(), 1);
    assert_eq!(anonymous[0].owner, None);
    assert!(
        store
            .list(Some("nobody"), true, None, 10)
            .await
            .unwrap()
            .is_empty()
    );
}

async fn a_task_is_gone_after_its_ttl(store: &dyn TaskStore) {
    let keeper = task(Some("ttl"), true, MINUTE);
    store.create(keeper.clone()).await.unwrap();
    let brief = task(Some("ttl"), true, 300);
    let expires = brief.expires_ms();
    store.create(brief.clone()).await.unwrap();
    let read = store.get(&brief.id).await.unwrap();
    if now_ms() < expires {
        // Read in time (the usual case): it was there.
        assert_eq!(read, Some(brief.clone()));
    }
    let deadline = Instant::now() + WAIT;
    while store.get(&brief.id).await.unwrap().is_some() {
        assert!(
            Instant::now() < deadline,
            "a task with a TTL of 300 ms still there after {WAIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(now_ms() >= expires, "gone before its TTL");
    assert_eq!(
        store.update(&brief.id, completed()).await.unwrap(),
        Updated::NotFound
    );
    assert_eq!(
        ids(&store.list(Some("ttl"), true, None, 10).await.unwrap()),
        [keeper.id.as_str()]
    );
    assert!(store.get(&keeper.id).await.unwrap().is_some());
}

async fn lapsed_leases_of_running_tasks_are_found(store: &dyn TaskStore) {
    let now = now_ms();
    let lapsed = task(None, true, MINUTE);
    let ended = task(None, true, MINUTE);
    let current = task(None, true, MINUTE);
    let never = task(None, true, MINUTE);
    for record in [&lapsed, &ended, &current, &never] {
        store.create(record.clone()).await.unwrap();
    }
    changed(store.update(&lapsed.id, renew(now - 1_000)).await.unwrap());
    changed(store.update(&ended.id, renew(now - 1_000)).await.unwrap());
    changed(store.update(&ended.id, completed()).await.unwrap());
    changed(
        store
            .update(&current.id, renew(now + MINUTE))
            .await
            .unwrap(),
    );
    assert_eq!(
        store.expired_leases(now).await.unwrap(),
        [lapsed.id.as_str()]
    );

    // Renewed in time: no longer lapsed. Lapsed later: found then.
    changed(store.update(&lapsed.id, renew(now + 500)).await.unwrap());
    assert!(store.expired_leases(now).await.unwrap().is_empty());
    let later = store.expired_leases(now + MINUTE + 1).await.unwrap();
    assert_eq!(
        later.into_iter().collect::<BTreeSet<_>>(),
        BTreeSet::from([lapsed.id.clone(), current.id.clone()])
    );
    // Once failed (as the reaper does), it is not found again.
    changed(
        store
            .update(
                &lapsed.id,
                Change::Finish {
                    status: TaskStatus::Failed,
                    outcome: Some(TaskOutcome::Error(json!({
                        "code": -32603,
                        "message": "the server instance running this task stopped",
                    }))),
                    message: None,
                },
            )
            .await
            .unwrap(),
    );
    assert_eq!(
        store.expired_leases(now + MINUTE + 1).await.unwrap(),
        [current.id.as_str()]
    );
}

/// A test of each check for each store: `memory::NAME` and `redis::NAME`
/// (each with a Redis of its own).
macro_rules! contract {
    ($($check:ident),* $(,)?) => {
        mod memory {
            use super::*;
            $(
                #[tokio::test]
                async fn $check() {
                    super::$check(&MemoryTasks::new()).await;
                }
            )*
        }
        mod redis {
            use super::*;
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $check() {
                    let redis = Redis::start();
                    let store = RedisTasks::new(&redis.url()).unwrap();
                    super::$check(&store).await;
                }
            )*
        }
    };
}

contract!(
    a_created_task_reads_back_whole,
    updates_follow_the_state_machine,
    changes_are_announced_and_renewals_are_not,
    lists_are_per_owner_and_era_oldest_first_in_pages,
    a_task_is_gone_after_its_ttl,
    lapsed_leases_of_running_tasks_are_found,
);

// ---------------------------------------------------------------------
// Redis only.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_on_one_redis_share_tasks_and_events() {
    let redis = Redis::start();
    let a = RedisTasks::new(&redis.url()).unwrap();
    let b = RedisTasks::new(&redis.url()).unwrap();
    let elsewhere = RedisTasks::new(&redis.url()).unwrap().prefix("other");
    let mut a_events = a.events();
    let mut b_events = b.events();
    // Each store's subscription is made on its first call.
    assert_eq!(b.get("warm-up").await.unwrap(), None);

    let record = task(Some("carol"), true, MINUTE);
    a.create(record.clone()).await.unwrap();
    assert_eq!(b.get(&record.id).await.unwrap(), Some(record.clone()));
    assert_eq!(
        ids(&b.list(Some("carol"), true, None, 10).await.unwrap()),
        [record.id.as_str()]
    );
    // Another prefix is another set of tasks.
    assert_eq!(elsewhere.get(&record.id).await.unwrap(), None);

    // A change made through B is news on A (and on B), and A reads it.
    changed(b.update(&record.id, message("from b")).await.unwrap());
    assert_eq!(next_event(&mut a_events).await, record.id);
    assert_eq!(next_event(&mut b_events).await, record.id);
    let seen = a.get(&record.id).await.unwrap().unwrap();
    assert_eq!(seen.status_message.as_deref(), Some("from b"));

    // Cancelled through A, completed late through B: it stays cancelled.
    changed(a.update(&record.id, cancelled()).await.unwrap());
    assert!(matches!(
        b.update(&record.id, completed()).await.unwrap(),
        Updated::Unchanged(kept) if kept.status == TaskStatus::Cancelled
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_updates_from_two_instances_all_apply() {
    let redis = Redis::start();
    let a = Arc::new(RedisTasks::new(&redis.url()).unwrap());
    let b = Arc::new(RedisTasks::new(&redis.url()).unwrap());
    let record = task(None, true, MINUTE);
    a.create(record.clone()).await.unwrap();
    // 40 questions asked at once, half through each store: each is a
    // read-modify-write of the same record, and none may be lost.
    let asks: Vec<_> = (0..40)
        .map(|i| {
            let store = Arc::clone(if i % 2 == 0 { &a } else { &b });
            let id = record.id.clone();
            tokio::spawn(async move {
                let ask = Change::Ask {
                    key: format!("q{i}"),
                    request: json!({"method": "elicitation/create"}),
                };
                store.update(&id, ask).await
            })
        })
        .collect();
    for ask in asks {
        changed(ask.await.unwrap().unwrap());
    }
    let kept = a.get(&record.id).await.unwrap().unwrap();
    assert_eq!(kept.input_requests.len(), 40);
}

/// Fails unless `call` fails within [`DOWN_CALL`] with a [`StoreError`]
/// that names the Redis server.
async fn fails_fast<T: std::fmt::Debug>(
    what: &str,
    redis: &Redis,
    call: impl Future<Output = Result<T, StoreError>>,
) {
    let outcome = tokio::time::timeout(DOWN_CALL, call)
        .await
        .unwrap_or_else(|_| panic!("{what} while Redis is down took over {DOWN_CALL:?}"));
    let error = outcome.expect_err(&format!("{what} succeeded while Redis is down"));
    let text = error.to_string();
    assert!(
        text.starts_with("task store unavailable: redis at ")
            && text.contains(&redis.addr.to_string()),
        "{what}: {text}"
    );
}

/// Every method of `store` fails, fast, while Redis is down.
async fn all_fail(store: &RedisTasks, redis: &Redis, id: &str) {
    fails_fast("create", redis, store.create(task(None, true, MINUTE))).await;
    fails_fast("get", redis, store.get(id)).await;
    fails_fast("update", redis, store.update(id, message("down"))).await;
    fails_fast("list", redis, store.list(None, true, None, 10)).await;
    fails_fast("expired_leases", redis, store.expired_leases(now_ms())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_carries_on_after_redis_restarts_with_its_data() {
    let mut redis = Redis::persistent();
    let store = RedisTasks::new(&redis.url()).unwrap();
    let mut events = store.events();
    let before = task(Some("dave"), true, 10 * MINUTE);
    store.create(before.clone()).await.unwrap();
    changed(store.update(&before.id, message("before")).await.unwrap());
    assert_eq!(next_event(&mut events).await, before.id);

    redis.stop();
    all_fail(&store, &redis, &before.id).await;
    // A store made while Redis is down is made all the same (the server
    // starts), and fails alike.
    let late = RedisTasks::new(&redis.url()).unwrap();
    all_fail(&late, &redis, &before.id).await;

    redis.restart();
    // The first call after Redis came back works: the connection made
    // again at once.
    let kept = store
        .get(&before.id)
        .await
        .unwrap()
        .expect("the task made before the restart");
    assert_eq!(kept.status_message.as_deref(), Some("before"));
    assert_eq!(late.get(&before.id).await.unwrap(), Some(kept));
    assert_eq!(
        ids(&store.list(Some("dave"), true, None, 10).await.unwrap()),
        [before.id.as_str()]
    );
    let after = task(Some("dave"), true, MINUTE);
    store.create(after.clone()).await.unwrap();
    assert!(late.get(&after.id).await.unwrap().is_some());
    assert!(store.expired_leases(now_ms()).await.unwrap().is_empty());

    // Events flow again, on both stores (whether or not their
    // subscriptions were back when the change was made).
    let mut late_events = late.events();
    changed(store.update(&before.id, message("after")).await.unwrap());
    changed(store.update(&after.id, completed()).await.unwrap());
    for events in [&mut events, &mut late_events] {
        let mut heard = BTreeSet::new();
        while heard.len() < 2 {
            heard.insert(next_event(events).await);
        }
        assert_eq!(heard, BTreeSet::from([before.id.clone(), after.id.clone()]));
    }

    // Restarted again with no call meanwhile: the store's connection is
    // one Redis closed, and its first call, a change, works all the same.
    redis.restart();
    changed(store.update(&before.id, message("again")).await.unwrap());
    changed(late.update(&before.id, message("late")).await.unwrap());
}

/// Waits until `redis` counts `count` subscribers to the store's channel.
async fn wait_for_subscribers(redis: &Redis, count: i64) {
    let deadline = Instant::now() + WAIT;
    loop {
        let now = redis.subscribers("mcp:tasks:events");
        if now == count {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{now} subscribers, not {count}, after {WAIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_store_stops_listening() {
    let redis = Redis::start();
    let a = RedisTasks::new(&redis.url()).unwrap();
    let b = RedisTasks::new(&redis.url()).unwrap();
    let _events = (a.events(), b.events());
    wait_for_subscribers(&redis, 2).await;
    drop(a);
    wait_for_subscribers(&redis, 1).await;
    // B still hears its changes.
    let mut events = b.events();
    let record = task(None, true, MINUTE);
    b.create(record.clone()).await.unwrap();
    changed(b.update(&record.id, message("still here")).await.unwrap());
    assert_eq!(next_event(&mut events).await, record.id);
}

/// A change made after Redis came back but before a store subscribed again
/// (its retry still asleep) was published to no one there: the store
/// announces it once subscribed, from the changes Redis keeps.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_missed_while_the_subscription_was_down_is_announced_late() {
    let mut redis = Redis::persistent();
    let store = RedisTasks::new(&redis.url()).unwrap();
    let writer = RedisTasks::new(&redis.url()).unwrap();
    let mut events = store.events();
    let record = task(None, true, 10 * MINUTE);
    writer.create(record.clone()).await.unwrap();
    assert!(store.get(&record.id).await.unwrap().is_some());
    wait_for_subscribers(&redis, 2).await;

    // Down for 1.8 s: the subscriptions retried after 0.1, 0.2, 0.4 and
    // 0.8 s, and sleep 1.6 s more. A change made as soon as Redis is back
    // finds no subscriber; if one came back first (a slow machine), the
    // round proves nothing, and is made again.
    for round in 1.. {
        assert!(round <= 5, "a subscription came back first in every round");
        redis.stop();
        tokio::time::sleep(Duration::from_millis(1_800)).await;
        redis.restart();
        let deadline = Instant::now() + WAIT;
        loop {
            match writer
                .update(&record.id, message(&format!("round {round}")))
                .await
            {
                Ok(updated) => {
                    changed(updated);
                    break;
                }
                Err(e) => assert!(Instant::now() < deadline, "Redis is back, yet: {e}"),
            }
        }
        if redis.subscribers("mcp:tasks:events") == 0 {
            break;
        }
        wait_for_subscribers(&redis, 2).await;
        while events.try_recv().is_ok() {}
    }
    let id = next_event(&mut events).await;
    assert_eq!(id, record.id);
}

/// Made, and its events receiver taken, before any runtime runs (as in a
/// `main` that builds the server first): it subscribes on its first call.
#[test]
fn a_store_made_outside_a_runtime_works_inside_one() {
    let redis = Redis::start();
    let store = RedisTasks::new(&redis.url()).unwrap();
    let mut events = store.events();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let record = task(None, true, MINUTE);
        store.create(record.clone()).await.unwrap();
        changed(store.update(&record.id, message("inside")).await.unwrap());
        assert_eq!(next_event(&mut events).await, record.id);
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_url_is_refused_without_quoting_it() {
    let error = RedisTasks::new("http://user:s3cret@127.0.0.1/").unwrap_err();
    let text = error.to_string();
    assert!(text.contains("not a Redis URL"), "{text}");
    assert!(!text.contains("s3cret"), "{text}");
}
