//! Tasks across a fleet: three instances of the conformance example (whose
//! task tools ask and sleep) keep their tasks in one Redis server
//! (`--tasks-redis`, a lease of a second: `--task-lease 1s`) and share their
//! `MCP_STATE_KEY`, behind nginx balancing round robin (no stickiness). One
//! 2026-07-28 client, declaring the tasks extension in every request,
//! makes a task on one instance and sees it through the others: polled,
//! answered, cancelled, read; an instance killed mid-task, every instance
//! restarted, Redis itself restarted.
//!
//! Which instance served each request is read from nginx's access log (the
//! step each request names in `X-Fleet-Step`, and `$upstream_addr`). Round
//! robin sends a lone client's requests to the instances in turn; where a
//! step must land on a given instance, `tools/list` requests go first until
//! it is that instance's turn, and the log then says where it did land.
//! Redis and nginx are the distribution's (`tests/redis/install`,
//! `tests/fleet/install`, run on first use when missing).

mod common;

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use common::fleet::{Instance, task_request};
use common::nginx::{Balance, Nginx, STEP};
use common::redis::Redis;
use serde_json::{Value, json};

/// The key every instance signs `requestState` with.
const KEY: &str = "5e0a7c2b9d4f61e8a3c5b7d9f1e2a4c6b8d0f2e4";

/// How long an instance's claim on its tasks lasts unrenewed.
const LEASE: &str = "1s";

/// The longest any wait for a task or a log line may take.
const WAIT: Duration = Duration::from_secs(20);

/// The pause between two polls of a task.
const POLL: Duration = Duration::from_millis(50);

/// What `stop_local` logs when it stops a task's work on its instance.
const STOPPED: &str = "stopped the work of a task that was cancelled or is gone";

/// The conformance example, with `--tasks-redis`.
fn conformance_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| common::example_binary("conformance"))
        .clone()
}

/// One instance on `redis`.
fn instance(redis: &Redis) -> Instance {
    Instance::spawn(
        &conformance_binary(),
        &["--tasks-redis", &redis.url(), "--task-lease", LEASE],
        &[("MCP_STATE_KEY", KEY)],
    )
}

/// Three instances on one Redis behind nginx, and a client that goes
/// through nginx, naming each request in its log.
struct Fleet {
    instances: Vec<Instance>,
    nginx: Nginx,
    /// How many requests went through nginx.
    sent: usize,
}

impl Fleet {
    fn start(redis: &Redis) -> Fleet {
        let instances: Vec<Instance> = (0..3).map(|_| instance(redis)).collect();
        let addrs: Vec<SocketAddr> = instances.iter().map(|i| i.addr).collect();
        let nginx = Nginx::start(&addrs, Balance::RoundRobin);
        Fleet {
            instances,
            nginx,
            sent: 0,
        }
    }

    fn addrs(&self) -> BTreeSet<SocketAddr> {
        self.instances.iter().map(|i| i.addr).collect()
    }

    fn instance(&self, addr: SocketAddr) -> &Instance {
        self.instances
            .iter()
            .find(|i| i.addr == addr)
            .expect("an instance of the fleet")
    }

    /// A request through nginx, named `step` in its log: the HTTP status
    /// and the JSON-RPC response.
    fn send(&mut self, step: &str, method: &str, params: Value) -> (u16, Value) {
        self.sent += 1;
        let id = self.sent as u64;
        task_request(self.nginx.addr, id, method, params, &[(STEP, step)])
    }

    /// The result of a request through nginx that must succeed.
    fn ok(&mut self, step: &str, method: &str, params: Value) -> Value {
        let (status, response) = self.send(step, method, params);
        assert_eq!(status, 200, "{step}: {response}");
        assert!(response.get("error").is_none(), "{step}: {response}");
        response["result"].clone()
    }

    /// `tools/call` of `name`, answered with a task; its id.
    fn create(&mut self, step: &str, name: &str, arguments: Value) -> String {
        let created = self.ok(
            step,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        );
        assert_eq!(created["resultType"], "task", "{step}: {created}");
        assert_eq!(created["status"], "working", "{step}: {created}");
        created["taskId"].as_str().expect("a task id").to_owned()
    }

    /// `tasks/get` of the task `id`: the task.
    fn get(&mut self, step: &str, id: &str) -> Value {
        let task = self.ok(step, "tasks/get", json!({"taskId": id}));
        assert_eq!(task["resultType"], "complete", "{step}: {task}");
        assert_eq!(task["taskId"], id, "{step}: {task}");
        task
    }

    /// Which instance served each request so far, in order: (step,
    /// instance, HTTP status).
    fn log(&self) -> Vec<(String, SocketAddr, u16)> {
        self.nginx.served(self.sent)
    }

    /// The instance that served `step`.
    fn served(&self, step: &str) -> SocketAddr {
        let log = self.log();
        log.iter()
            .find(|(logged, _, _)| logged == step)
            .unwrap_or_else(|| panic!("no step {step:?} in nginx's log: {log:?}"))
            .1
    }

    /// The instance nginx sends the next request to: round robin takes
    /// them in the order of its config, one after the other.
    fn next(&self) -> SocketAddr {
        let Some((_, last, _)) = self.log().pop() else {
            return self.instances[0].addr;
        };
        let at = self
            .instances
            .iter()
            .position(|i| i.addr == last)
            .expect("an instance of the fleet served it");
        self.instances[(at + 1) % self.instances.len()].addr
    }

    /// Sends `tools/list` requests until the next request goes to none of
    /// `avoid`.
    fn steer_away(&mut self, avoid: &[SocketAddr]) {
        for _ in 0..self.instances.len() {
            if !avoid.contains(&self.next()) {
                return;
            }
            let step = format!("turn-{}", self.sent);
            let listed = self.ok(&step, "tools/list", json!({}));
            assert!(listed["tools"].is_array(), "{listed}");
        }
        panic!("nginx sent every request to {avoid:?}: {:?}", self.log());
    }

    /// Polls the task `id` through nginx, never through `avoid`, until
    /// `until` holds; the task then, and the step that read it.
    fn poll(
        &mut self,
        name: &str,
        id: &str,
        avoid: &[SocketAddr],
        until: impl Fn(&Value) -> bool,
    ) -> (Value, String) {
        let deadline = Instant::now() + WAIT;
        for n in 0.. {
            self.steer_away(avoid);
            let step = format!("{name}-{n}");
            let task = self.get(&step, id);
            if until(&task) {
                return (task, step);
            }
            assert!(
                Instant::now() < deadline,
                "{name}: the task is still {task} after {WAIT:?}"
            );
            thread::sleep(POLL);
        }
        unreachable!()
    }
}

/// The text of a task's result.
fn text(task: &Value) -> &str {
    task["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text result: {task}"))
}

fn status(task: &Value) -> &str {
    task["status"].as_str().unwrap_or_default()
}

/// Waits until `instance` logged a line with each of `words`.
fn await_log(instance: &Instance, words: &[&str]) {
    let deadline = Instant::now() + WAIT;
    while !instance
        .log()
        .lines()
        .any(|line| words.iter().all(|word| line.contains(word)))
    {
        assert!(
            Instant::now() < deadline,
            "no line with {words:?} in the log within {WAIT:?}:\n{}",
            instance.log()
        );
        thread::sleep(POLL);
    }
}

#[test]
fn a_task_made_on_one_instance_is_polled_answered_and_read_on_the_others() {
    let redis = Redis::start();
    let mut fleet = Fleet::start(&redis);

    let id = fleet.create("create", "confirm_delete", json!({"filename": "notes.txt"}));
    let a = fleet.served("create");
    // Polled through the two other instances until the task asks; both
    // see the question.
    let mut asked_through = BTreeSet::new();
    let mut question = None;
    let deadline = Instant::now() + WAIT;
    for n in 0.. {
        fleet.steer_away(&[a]);
        let step = format!("poll-{n}");
        let task = fleet.get(&step, &id);
        match status(&task) {
            "working" => {}
            "input_required" => {
                let requests = task["inputRequests"].as_object().expect("inputRequests");
                assert_eq!(requests.len(), 1, "{task}");
                let (key, request) = requests.iter().next().unwrap();
                assert_eq!(request["method"], "elicitation/create", "{task}");
                assert_eq!(request["params"]["message"], "Delete notes.txt?", "{task}");
                assert!(
                    question.replace(key.clone()).is_none_or(|k| k == *key),
                    "{task}"
                );
                asked_through.insert(fleet.served(&step));
            }
            _ => panic!("{step}: {task}"),
        }
        if asked_through.len() == 2 {
            break;
        }
        assert!(Instant::now() < deadline, "{step}: still {task}");
        thread::sleep(POLL);
    }
    let key = question.expect("the question");

    // Answered through an instance that does not run it.
    fleet.steer_away(&[a]);
    let answer = json!({"action": "accept", "content": {"confirm": true}});
    let ack = fleet.ok(
        "answer",
        "tasks/update",
        json!({"taskId": id, "inputResponses": {key: answer}}),
    );
    assert_eq!(ack["resultType"], "complete", "{ack}");
    let c = fleet.served("answer");

    // Read, done, through the third.
    let (done, step) = fleet.poll("read", &id, &[a, c], |task| {
        status(task) != "working" && status(task) != "input_required"
    });
    assert_eq!(status(&done), "completed", "{done}");
    assert_eq!(text(&done), "deleted notes.txt", "{done}");
    let b = fleet.served(&step);

    let log = fleet.log();
    assert!(a != b && b != c && c != a, "{log:?}");
    assert_eq!(
        asked_through,
        BTreeSet::from([b, c]),
        "the question was read through both others: {log:?}"
    );
    assert!(log.iter().all(|(_, _, status)| *status == 200), "{log:?}");
    // The work ran on the instance that made the task, and nowhere else.
    for instance in &fleet.instances {
        assert!(!instance.log().contains(STOPPED), "{}", instance.log());
    }
}

#[test]
fn a_cancel_through_any_instance_stops_the_work_where_it_runs() {
    let redis = Redis::start();
    let mut fleet = Fleet::start(&redis);

    let id = fleet.create(
        "create",
        "slow_compute",
        json!({"seconds": 60, "label": "long"}),
    );
    let runs_on = fleet.served("create");
    fleet.steer_away(&[runs_on]);
    let ack = fleet.ok("cancel", "tasks/cancel", json!({"taskId": id}));
    assert_eq!(ack["resultType"], "complete", "{ack}");
    let cancelled_on = fleet.served("cancel");
    assert_ne!(cancelled_on, runs_on);

    // Every instance says so.
    for n in 0..3 {
        let task = fleet.get(&format!("after-{n}"), &id);
        assert_eq!(status(&task), "cancelled", "{task}");
        assert!(task.get("result").is_none(), "{task}");
    }
    let read_on: BTreeSet<SocketAddr> = (0..3)
        .map(|n| fleet.served(&format!("after-{n}")))
        .collect();
    assert_eq!(read_on, fleet.addrs(), "{:?}", fleet.log());

    // The instance running it heard of the cancel and stopped the work.
    await_log(fleet.instance(runs_on), &[STOPPED, &id]);
    assert!(
        !fleet.instance(cancelled_on).log().contains(STOPPED),
        "{}",
        fleet.instance(cancelled_on).log()
    );
}

#[test]
fn the_task_of_an_instance_killed_mid_run_fails_once_its_lease_runs_out() {
    let redis = Redis::start();
    let mut fleet = Fleet::start(&redis);

    let id = fleet.create(
        "create",
        "slow_compute",
        json!({"seconds": 60, "label": "doomed"}),
    );
    let killed = fleet.served("create");
    let at = fleet.log().len();
    let index = fleet
        .instances
        .iter()
        .position(|i| i.addr == killed)
        .unwrap();
    fleet.instances[index].kill();

    // Read through the survivors: working, until the lease runs out.
    let (failed, _) = fleet.poll("read", &id, &[killed], |task| {
        assert!(matches!(status(task), "working" | "failed"), "{task}");
        status(task) == "failed"
    });
    assert_eq!(
        failed["statusMessage"], "the server instance running this task stopped",
        "{failed}"
    );
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    let message = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("instance running this task stopped"),
        "{failed}"
    );
    let log = fleet.log();
    assert!(
        log[at..]
            .iter()
            .all(|(_, upstream, status)| *upstream != killed && *status == 200),
        "{log:?}"
    );
    // Failed for good, on both survivors.
    for n in 0..2 {
        let task = fleet.get(&format!("again-{n}"), &id);
        assert_eq!(status(&task), "failed", "{task}");
    }
}

#[test]
fn results_kept_in_redis_outlive_a_restart_of_every_instance() {
    let redis = Redis::start();
    let mut fleet = Fleet::start(&redis);
    let id = fleet.create(
        "create",
        "slow_compute",
        json!({"seconds": 0.2, "label": "kept"}),
    );
    let (done, _) = fleet.poll("read", &id, &[], |task| status(task) != "working");
    assert_eq!(text(&done), "computed kept after 0.2s", "{done}");
    let before = fleet.addrs();
    drop(fleet);

    let mut fleet = Fleet::start(&redis);
    assert!(fleet.addrs().is_disjoint(&before));
    for n in 0..3 {
        let task = fleet.get(&format!("after-{n}"), &id);
        assert_eq!(status(&task), "completed", "{task}");
        assert_eq!(task["result"], done["result"], "{task}");
    }
    let read_on: BTreeSet<SocketAddr> = fleet.log().iter().map(|(_, addr, _)| *addr).collect();
    assert_eq!(read_on, fleet.addrs());
}

#[test]
fn while_redis_restarts_plain_calls_are_served_and_task_requests_fail_clearly() {
    let mut redis = Redis::persistent();
    let mut fleet = Fleet::start(&redis);
    let before = fleet.create(
        "create",
        "slow_compute",
        json!({"seconds": 0.2, "label": "before"}),
    );
    let (done, _) = fleet.poll("read", &before, &[], |task| status(task) != "working");
    assert_eq!(text(&done), "computed before after 0.2s", "{done}");

    redis.stop();
    let down_from = fleet.log().len();
    for n in 0..3 {
        let greeted = fleet.ok(
            &format!("greet-{n}"),
            "tools/call",
            json!({"name": "greet", "arguments": {"name": "fleet"}}),
        );
        assert_eq!(greeted["content"][0]["text"], "Hello, fleet!", "{greeted}");
        let listed = fleet.ok(&format!("list-{n}"), "tools/list", json!({}));
        assert!(listed["tools"].is_array(), "{listed}");
        for (step, method, params) in [
            (format!("get-{n}"), "tasks/get", json!({"taskId": before})),
            (
                format!("call-{n}"),
                "tools/call",
                json!({"name": "slow_compute", "arguments": {"seconds": 1}}),
            ),
        ] {
            let (http_status, response) = fleet.send(&step, method, params);
            assert_eq!(http_status, 500, "{step}: {response}");
            assert_eq!(response["error"]["code"], -32603, "{step}: {response}");
            let message = response["error"]["message"].as_str().unwrap_or_default();
            assert!(
                message.starts_with("task store unavailable: "),
                "{step}: {response}"
            );
        }
    }
    let down: BTreeSet<SocketAddr> = fleet.log()[down_from..]
        .iter()
        .map(|(_, addr, _)| *addr)
        .collect();
    assert_eq!(down, fleet.addrs(), "every instance answered meanwhile");

    redis.restart();
    // The task made before is there, on every instance.
    for n in 0..3 {
        let task = fleet.get(&format!("back-{n}"), &before);
        assert_eq!(task["result"], done["result"], "{task}");
    }
    let after = fleet.create(
        "create-after",
        "slow_compute",
        json!({"seconds": 0.2, "label": "after"}),
    );
    let (done, _) = fleet.poll("read-after", &after, &[], |task| status(task) != "working");
    assert_eq!(text(&done), "computed after after 0.2s", "{done}");
}
