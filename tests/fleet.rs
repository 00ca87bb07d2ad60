//! A fleet: three instances of the weather example behind nginx, a plain
//! round-robin load balancer (no stickiness), serving one 2026-07-28
//! client whose requests land on different instances, an `input_required`
//! round trip included. What makes it work is the key the instances share
//! (`MCP_STATE_KEY`): with a key each, the retry is refused. A client of
//! the initialize-based era, whose session lives in one instance, needs
//! sticky routing instead.
//!
//! nginx runs in the foreground on a free loopback port, from a config,
//! pid file, logs and temp dirs of its own in a temp dir; its access log
//! records which instance (`$upstream_addr`) served each request, named by
//! an `X-Fleet-Step` header the client adds. Without nginx, the first test
//! to start it runs `tests/fleet/install` (apt-get, as root or with sudo:
//! see [`NGINX`]); if that cannot install it, the tests fail and say what
//! to install by hand. They never skip.

mod common;

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use common::fleet::{
    Instance, MODERN, answer_subscribe, ask_to_subscribe, assert_state_refused, assert_subscribed,
    request,
};
use common::http;
use common::prerequisite::Prerequisite;
use serde_json::{Value, json};

/// How long nginx may take to start listening, or to stop, or to log.
const TIMEOUT: Duration = Duration::from_secs(20);

/// The keys of the fleet, 32 bytes or more each.
const KEY: &str = "c4f1e2d3a5b6978812a3b4c5d6e7f8091a2b3c4d";
const OTHER_KEYS: [&str; 3] = [
    "1111111111111111111111111111111111111111",
    "2222222222222222222222222222222222222222",
    "3333333333333333333333333333333333333333",
];

/// The header that names each request in nginx's access log.
const STEP: &str = "X-Fleet-Step";

/// nginx, from the distribution's packages: installed by tests/fleet/install
/// (apt-get, as root or with sudo) if the first test to start it finds none.
static NGINX: Prerequisite = Prerequisite::new(
    "nginx",
    "nginx (the fleet test's load balancer)",
    "tests/fleet/install",
    "Install it by hand from your distribution's packages (Debian and Ubuntu: `sudo apt-get \
     install nginx`) so that `nginx` is on PATH or at /usr/sbin/nginx, then run the tests again.",
    || find_nginx().is_some(),
);

/// nginx: the binary on PATH, or Debian's /usr/sbin/nginx (not on a
/// user's PATH).
fn find_nginx() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("nginx"))
            .find(|candidate| candidate.is_file())
    });
    on_path.or_else(|| Some(PathBuf::from("/usr/sbin/nginx")).filter(|path| path.is_file()))
}

/// nginx, installed first if it is not.
fn nginx_binary() -> PathBuf {
    NGINX.ensure();
    find_nginx().expect("nginx, just found")
}

/// nginx in the foreground, balancing `/mcp` over some instances round
/// robin. Stopped (SIGTERM, as a service manager would) and its temp dir
/// removed when dropped.
struct Nginx {
    child: Child,
    addr: SocketAddr,
    dir: PathBuf,
}

/// How nginx picks an instance.
#[derive(Clone, Copy)]
enum Balance {
    /// nginx's default: each request to the next instance.
    RoundRobin,
    /// Every request of a client address to the same instance.
    Sticky,
}

/// nginx's config: everything it writes is under `dir`, nothing under
/// /etc or /var is read or written.
fn config(dir: &Path, listen: SocketAddr, upstreams: &[SocketAddr], balance: Balance) -> String {
    let dir = dir.display();
    let balance = match balance {
        Balance::RoundRobin => "",
        Balance::Sticky => "        hash $remote_addr consistent;\n",
    };
    let servers: String = upstreams
        .iter()
        .map(|addr| format!("        server {addr};\n"))
        .collect();
    format!(
        "daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log notice;
events {{
    worker_connections 64;
}}
http {{
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    log_format fleet '$http_x_fleet_step $upstream_addr $status';
    access_log {dir}/access.log fleet;
    upstream weather {{
{balance}{servers}        keepalive 16;
    }}
    server {{
        listen {listen};
        location /mcp {{
            proxy_pass http://weather;
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            proxy_set_header Host $http_host;
        }}
    }}
}}
"
    )
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

impl Nginx {
    fn start(upstreams: &[SocketAddr], balance: Balance) -> Nginx {
        static STARTED: AtomicUsize = AtomicUsize::new(0);
        let mut dir = std::env::temp_dir().join(format!(
            "mcp-fleet-{}-{}",
            std::process::id(),
            STARTED.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create nginx's temp dir");
        // The port is free when picked, and may be taken before nginx binds
        // it: then nginx exits, and another is tried.
        let mut failures = String::new();
        for _ in 0..3 {
            let addr: SocketAddr = ([127, 0, 0, 1], free_port()).into();
            fs::write(
                dir.join("nginx.conf"),
                config(&dir, addr, upstreams, balance),
            )
            .expect("write nginx.conf");
            let stderr = fs::File::create(dir.join("stderr")).expect("create nginx's stderr");
            let child = Command::new(nginx_binary())
                .arg("-p")
                .arg(&dir)
                .arg("-c")
                .arg(dir.join("nginx.conf"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(stderr)
                .spawn()
                .expect("start nginx");
            let mut nginx = Nginx { child, addr, dir };
            match nginx.wait_listening() {
                Ok(()) => return nginx,
                Err(why) => failures.push_str(&why),
            }
            dir = nginx.take_dir();
        }
        let _ = fs::remove_dir_all(&dir);
        panic!("nginx did not start:\n{failures}");
    }

    /// Waits until nginx accepts connections; its logs if it exited.
    fn wait_listening(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Err(format!(
                    "nginx exited ({status}):\n{}{}",
                    fs::read_to_string(self.dir.join("stderr")).unwrap_or_default(),
                    fs::read_to_string(self.dir.join("error.log")).unwrap_or_default()
                ));
            }
            if TcpStream::connect(self.addr).is_ok() {
                return Ok(());
            }
            assert!(
                Instant::now() < deadline,
                "nginx did not listen at {} within {TIMEOUT:?}",
                self.addr
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops nginx and hands over its temp dir (to start again in it).
    fn take_dir(mut self) -> PathBuf {
        self.stop();
        std::mem::take(&mut self.dir)
    }

    /// Which instance served each step, from the access log, once it has
    /// `steps` lines (nginx writes a line after the response is sent).
    fn served(&self, steps: usize) -> Vec<(String, SocketAddr, u16)> {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let log = fs::read_to_string(self.dir.join("access.log")).unwrap_or_default();
            if log.lines().count() >= steps {
                return log
                    .lines()
                    .map(|line| {
                        let fields: Vec<&str> = line.split(' ').collect();
                        let [step, upstream, status] = fields[..] else {
                            panic!("not a line of the fleet log format: {line:?}");
                        };
                        let upstream = upstream
                            .parse()
                            .unwrap_or_else(|_| panic!("one upstream per request: {line:?}"));
                        (step.to_owned(), upstream, status.parse().unwrap())
                    })
                    .collect();
            }
            assert!(
                Instant::now() < deadline,
                "nginx logged {} of {steps} requests within {TIMEOUT:?}:\n{log}",
                log.lines().count()
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn stop(&mut self) {
        if self.child.try_wait().ok().flatten().is_some() {
            return;
        }
        // SIGTERM: the master stops its worker too (SIGKILL would leave
        // the worker holding the port).
        #[cfg(unix)]
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: a plain kill(2) of our own child, which has not been
            // waited for (so the pid is still its).
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        let deadline = Instant::now() + TIMEOUT;
        while self.child.try_wait().ok().flatten().is_none() {
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        self.stop();
        if !self.dir.as_os_str().is_empty() {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

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
