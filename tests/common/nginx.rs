//! nginx in front of instances of a server, as a fleet's load balancer:
//! in the foreground on a free loopback port, from a config, pid file, logs
//! and temp dirs of its own in a temp dir; its access log records which
//! instance (`$upstream_addr`) served each request, named by an
//! [`STEP`] header the client adds, with the request's method, the
//! session it named (`Mcp-Session-Id`) and the session an instance
//! answered with (an `initialize`'s), so a test can follow one session of
//! an SDK client over the instances ([`Nginx::logged`]). Without nginx, the first test to start
//! it runs `tests/fleet/install` (apt-get, as root or with sudo: see
//! [`NGINX`]); if that cannot install it, the tests fail and say what to
//! install by hand. They never skip.

use std::fs;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use super::prerequisite::Prerequisite;

/// The header that names each request in nginx's access log.
pub const STEP: &str = "X-Fleet-Step";

/// How long nginx may take to start listening, or to stop, or to log.
const TIMEOUT: Duration = Duration::from_secs(20);

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
pub struct Nginx {
    child: Child,
    pub addr: SocketAddr,
    dir: PathBuf,
}

/// One request, as nginx's access log has it.
#[derive(Clone, Debug)]
pub struct Logged {
    /// Its [`STEP`] header, `-` without one.
    pub step: String,
    /// The instance that answered it: when nginx tried more than one (the
    /// first refused the connection: it had stopped), the last.
    pub upstream: SocketAddr,
    /// The HTTP status sent to the client.
    pub status: u16,
    /// `GET`, `POST`, `DELETE`.
    pub method: String,
    /// The session the request named (its `Mcp-Session-Id`).
    pub session: Option<String>,
    /// The session the instance answered with (an `initialize`'s
    /// `Mcp-Session-Id`).
    pub answered_session: Option<String>,
}

impl Logged {
    /// A line of the `fleet` log format: fields between `|`; a variable
    /// of the upstream (its address, a header of its response) lists every
    /// instance tried, `, ` between them, the last the one that answered.
    fn parse(line: &str) -> Logged {
        let fields: Vec<&str> = line.split('|').collect();
        let [step, upstream, status, method, session, answered] = fields[..] else {
            panic!("not a line of the fleet log format: {line:?}")
        };
        let last = |field: &str| field.rsplit(", ").next().unwrap_or_default().to_owned();
        let header =
            |field: &str| Some(last(field)).filter(|value| value != "-" && !value.is_empty());
        Logged {
            step: step.to_owned(),
            upstream: last(upstream)
                .parse()
                .unwrap_or_else(|_| panic!("no instance in the fleet log line {line:?}")),
            status: status
                .parse()
                .unwrap_or_else(|_| panic!("no status in the fleet log line {line:?}")),
            method: method.to_owned(),
            session: header(session),
            answered_session: header(answered),
        }
    }
}

/// How nginx picks an instance.
#[derive(Clone, Copy)]
pub enum Balance {
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
    log_format fleet '$http_x_fleet_step|$upstream_addr|$status|$request_method|$http_mcp_session_id|$upstream_http_mcp_session_id';
    access_log {dir}/access.log fleet;
    upstream instances {{
{balance}{servers}        keepalive 16;
    }}
    server {{
        listen {listen};
        location /mcp {{
            proxy_pass http://instances;
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
    pub fn start(upstreams: &[SocketAddr], balance: Balance) -> Nginx {
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
    /// `steps` lines (nginx writes a line after the response is sent). When
    /// nginx tried more than one (the first refused the connection: it had
    /// stopped), the last, which answered.
    pub fn served(&self, steps: usize) -> Vec<(String, SocketAddr, u16)> {
        self.logged(steps)
            .into_iter()
            .map(|request| (request.step, request.upstream, request.status))
            .collect()
    }

    /// Every request of the access log, in order, once it has at least
    /// `requests` lines.
    pub fn logged(&self, requests: usize) -> Vec<Logged> {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let log = fs::read_to_string(self.dir.join("access.log")).unwrap_or_default();
            if log.lines().count() >= requests {
                return log.lines().map(Logged::parse).collect();
            }
            assert!(
                Instant::now() < deadline,
                "nginx logged {} of {requests} requests within {TIMEOUT:?}:\n{log}",
                log.lines().count()
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn stop(&mut self) {
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
