//! A Redis server of the test's own: `redis-server` from the distribution
//! (installed by tests/redis/install on first use, see [`INSTALL`]) on a
//! free loopback port, its files in a temp dir of its own; stopped, and the
//! dir removed, when dropped. It can be stopped and started again on the
//! same port, with its data when it keeps any ([`Redis::persistent`]).

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use super::prerequisite::Prerequisite;

/// How long Redis may take to answer after it was started, or to exit
/// after it was told to.
const TIMEOUT: Duration = Duration::from_secs(20);

/// redis-server, from the distribution's packages: installed by
/// tests/redis/install (apt-get, as root or with sudo) if the first test
/// that starts one finds none.
pub static INSTALL: Prerequisite = Prerequisite::new(
    "redis",
    "redis-server (the task store tests' Redis)",
    "tests/redis/install",
    "Install it by hand from your distribution's packages (Debian and Ubuntu: `sudo apt-get \
     install redis-server`) so that `redis-server` is on PATH or at /usr/bin/redis-server, then \
     run the tests again.",
    || find_redis().is_some(),
);

/// redis-server: on PATH, or Debian's /usr/bin/redis-server.
fn find_redis() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("redis-server"))
            .find(|candidate| candidate.is_file())
    });
    on_path.or_else(|| Some(PathBuf::from("/usr/bin/redis-server")).filter(|path| path.is_file()))
}

/// redis-server, installed first if it is not.
pub fn redis_binary() -> PathBuf {
    INSTALL.ensure();
    find_redis().expect("redis-server, just found")
}

/// A `redis-server` of the test's own.
pub struct Redis {
    child: Option<Child>,
    pub addr: SocketAddr,
    dir: PathBuf,
    persistent: bool,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

impl Redis {
    /// A Redis that keeps nothing on disk: a restart starts it empty.
    pub fn start() -> Redis {
        Redis::start_with(false)
    }

    /// A Redis that writes every change to its append-only file before
    /// answering (`appendonly yes`, `appendfsync always`): a restart, even
    /// after SIGKILL, finds the data again.
    pub fn persistent() -> Redis {
        Redis::start_with(true)
    }

    fn start_with(persistent: bool) -> Redis {
        static STARTED: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "mcp-redis-{}-{}",
            std::process::id(),
            STARTED.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create Redis's temp dir");
        let mut redis = Redis {
            child: None,
            addr: ([127, 0, 0, 1], 0).into(),
            dir,
            persistent,
        };
        // The port is free when picked, and may be taken before Redis binds
        // it: then Redis exits, and another is tried.
        let mut failures = String::new();
        for _ in 0..3 {
            redis.addr.set_port(free_port());
            match redis.launch() {
                Ok(()) => return redis,
                Err(why) => failures.push_str(&why),
            }
        }
        panic!("redis-server did not start:\n{failures}");
    }

    /// `redis://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("redis://{}/", self.addr)
    }

    /// Starts redis-server on `self.addr` and waits until it answers PING.
    fn launch(&mut self) -> Result<(), String> {
        let log = self.dir.join("redis.log");
        let mut command = Command::new(redis_binary());
        command
            .args(["--port", &self.addr.port().to_string()])
            .args(["--bind", "127.0.0.1"])
            .arg("--dir")
            .arg(&self.dir)
            .arg("--logfile")
            .arg(&log)
            .args(["--save", ""])
            .args(["--daemonize", "no"]);
        if self.persistent {
            command.args(["--appendonly", "yes", "--appendfsync", "always"]);
        } else {
            command.args(["--appendonly", "no"]);
        }
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server");
        self.child = Some(child);
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let child = self.child.as_mut().expect("started");
            if let Some(status) = child.try_wait().expect("try_wait") {
                self.child = None;
                return Err(format!(
                    "redis-server exited ({status}):\n{}",
                    fs::read_to_string(&log).unwrap_or_default()
                ));
            }
            if ping(self.addr) {
                return Ok(());
            }
            if Instant::now() > deadline {
                self.kill();
                return Err(format!(
                    "redis-server did not answer PING within {TIMEOUT:?}:\n{}",
                    fs::read_to_string(&log).unwrap_or_default()
                ));
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops it (SIGTERM, as a service manager would, then SIGKILL if it
    /// lingers) and waits until it is gone: connections to it are refused.
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        #[cfg(unix)]
        if let Ok(pid) = libc::pid_t::try_from(child.id()) {
            // SAFETY: kill(2) of our own child, not yet waited for.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        let deadline = Instant::now() + TIMEOUT;
        while child.try_wait().expect("try_wait").is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                break;
            }
            thread::sleep(Duration::from_millis(20));
        }
        let _ = child.wait();
    }

    /// Starts it again on the same port, with the same files (and so the
    /// same data if it is [`persistent`](Redis::persistent)).
    pub fn restart(&mut self) {
        self.stop();
        if let Err(why) = self.launch() {
            panic!("redis-server did not start again on {}:\n{why}", self.addr);
        }
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Sends `words` as one command (a RESP array of bulk strings) on a
    /// connection of its own: the answer, to read.
    fn command(&self, words: &[&str]) -> BufReader<TcpStream> {
        let mut stream = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1))
            .expect("connect to Redis");
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .expect("set a read timeout");
        let mut request = format!("*{}\r\n", words.len());
        for word in words {
            request.push_str(&format!("${}\r\n{word}\r\n", word.len()));
        }
        stream.write_all(request.as_bytes()).expect("send to Redis");
        BufReader::new(stream)
    }

    /// How many clients are subscribed to `channel` (`PUBSUB NUMSUB`).
    pub fn subscribers(&self, channel: &str) -> i64 {
        // The answer: *2, $LEN, CHANNEL, :COUNT.
        let mut reader = self.command(&["PUBSUB", "NUMSUB", channel]);
        for _ in 0..4 {
            let mut line = String::new();
            reader.read_line(&mut line).expect("read from Redis");
            if let Some(count) = line.trim_end().strip_prefix(':') {
                return count.parse().expect("a count");
            }
        }
        panic!("no count in Redis's answer to PUBSUB NUMSUB");
    }

    /// Whether `key` exists (`EXISTS`).
    pub fn exists(&self, key: &str) -> bool {
        let mut line = String::new();
        self.command(&["EXISTS", key])
            .read_line(&mut line)
            .expect("read from Redis");
        line.trim_end() == ":1"
    }

    /// The field `field` of the hash at `key` (`HGET`), if there is one.
    pub fn hget(&self, key: &str, field: &str) -> Option<String> {
        // The answer: `$LEN` then the value, or `$-1` (none).
        let mut reader = self.command(&["HGET", key, field]);
        let mut line = String::new();
        reader.read_line(&mut line).expect("read from Redis");
        let len: i64 = line
            .trim_end()
            .strip_prefix('$')
            .and_then(|len| len.parse().ok())
            .unwrap_or_else(|| panic!("not a bulk string from Redis: {line:?}"));
        if len < 0 {
            return None;
        }
        let mut value = String::new();
        reader.read_line(&mut value).expect("read from Redis");
        Some(value.trim_end_matches("\r\n").to_owned())
    }

    /// Its files: the log, and the append-only file when persistent.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Whether a Redis at `addr` answers PING with PONG (not `-LOADING`, as
/// it does while it reads its data back).
fn ping(addr: SocketAddr) -> bool {
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_secs(1)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
    if stream.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).is_ok() && line.trim_end() == "+PONG"
}
