//! A `redis-server` of a run's own, for the `ours-redis` peers of the tasks
//! suite (tasks in Redis) and of the HTTP suite (sessions in Redis): started
//! on a free loopback port with nothing on disk, stopped with the run; and
//! a small RESP client to read what it did (`INFO`, `MEMORY USAGE`,
//! `MONITOR`: see [`RedisConn`] and [`Monitor`]).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `redis-server` of the run's own on a free loopback port, nothing on
/// disk; killed when dropped.
pub struct Redis {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Redis {
    pub fn start(program: &Path) -> Result<Redis, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        let dir =
            std::env::temp_dir().join(format!("mcp-bench-redis-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let child = Command::new(program)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .arg("--dir")
            .arg(&dir)
            .arg("--logfile")
            .arg(dir.join("redis.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let mut redis = Redis { child, port, dir };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !redis.pong() {
            if Instant::now() > deadline || redis.child.try_wait().ok().flatten().is_some() {
                let log = std::fs::read_to_string(redis.dir.join("redis.log")).unwrap_or_default();
                return Err(format!("redis-server did not answer PING: {log}"));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(redis)
    }

    fn pong(&self) -> bool {
        let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
        let mut buf = [0u8; 7];
        stream.write_all(b"PING\r\n").is_ok()
            && stream.read_exact(&mut buf).is_ok()
            && &buf == b"+PONG\r\n"
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// A new connection of the driver's own (for `INFO`, `MEMORY USAGE`).
    pub fn connect(&self) -> Result<RedisConn, String> {
        RedisConn::open(self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A RESP reply.
#[derive(Debug)]
pub enum Reply {
    Simple(String),
    Int(i64),
    Bulk(Option<Vec<u8>>),
    Array(Option<Vec<Reply>>),
}

/// One blocking connection to the run's Redis, for the driver's own
/// questions (never on the path of a measured call).
pub struct RedisConn {
    reader: BufReader<TcpStream>,
}

impl RedisConn {
    fn open(port: u16) -> Result<RedisConn, String> {
        let stream = TcpStream::connect(("127.0.0.1", port))
            .map_err(|e| format!("connecting to redis on port {port}: {e}"))?;
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| e.to_string())?;
        let _ = stream.set_nodelay(true);
        Ok(RedisConn {
            reader: BufReader::new(stream),
        })
    }

    /// Sends one command and reads its reply; an error reply is an `Err`.
    pub fn command(&mut self, args: &[&str]) -> Result<Reply, String> {
        let mut out = format!("*{}\r\n", args.len()).into_bytes();
        for arg in args {
            out.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
            out.extend_from_slice(arg.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        self.reader
            .get_mut()
            .write_all(&out)
            .map_err(|e| format!("writing to redis: {e}"))?;
        read_reply(&mut self.reader)
    }

    /// `INFO section` as its `name:value` lines.
    pub fn info(&mut self, section: &str) -> Result<BTreeMap<String, String>, String> {
        let text = match self.command(&["INFO", section])? {
            Reply::Bulk(Some(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            other => return Err(format!("INFO {section} answered {other:?}")),
        };
        Ok(text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.to_string(), v.trim().to_string()))
            .collect())
    }

    /// `INFO commandstats`: calls of each command since the start (the
    /// commands that scripts run included, each under its own name).
    pub fn command_stats(&mut self) -> Result<BTreeMap<String, u64>, String> {
        Ok(self
            .info("commandstats")?
            .into_iter()
            .filter_map(|(name, stats)| {
                let name = name.strip_prefix("cmdstat_")?.to_string();
                let calls = stats
                    .split(',')
                    .find_map(|kv| kv.strip_prefix("calls="))?
                    .parse()
                    .ok()?;
                Some((name, calls))
            })
            .collect())
    }

    /// `INFO memory`'s `used_memory`: bytes the allocator holds for data.
    pub fn used_memory(&mut self) -> Result<u64, String> {
        self.info("memory")?
            .get("used_memory")
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| "INFO memory without used_memory".to_string())
    }

    /// An integer reply (`DBSIZE`, `MEMORY USAGE key`); `None` for nil.
    pub fn integer(&mut self, args: &[&str]) -> Result<Option<i64>, String> {
        match self.command(args)? {
            Reply::Int(n) => Ok(Some(n)),
            Reply::Bulk(None) | Reply::Array(None) => Ok(None),
            other => Err(format!("{} answered {other:?}", args.join(" "))),
        }
    }
}

fn read_line(reader: &mut BufReader<TcpStream>) -> Result<String, String> {
    let mut line = String::new();
    match reader.read_line(&mut line) {
        Ok(0) => Err("redis closed the connection".into()),
        Ok(_) => Ok(line.trim_end_matches(['\r', '\n']).to_string()),
        Err(e) => Err(format!("reading from redis: {e}")),
    }
}

fn read_reply(reader: &mut BufReader<TcpStream>) -> Result<Reply, String> {
    let line = read_line(reader)?;
    let (kind, rest) = line.split_at(line.len().min(1));
    let number = || {
        rest.parse::<i64>()
            .map_err(|_| format!("a bad RESP line: {line:?}"))
    };
    match kind {
        "+" => Ok(Reply::Simple(rest.to_string())),
        "-" => Err(format!("redis answered an error: {rest}")),
        ":" => Ok(Reply::Int(number()?)),
        "$" => {
            let n = number()?;
            if n < 0 {
                return Ok(Reply::Bulk(None));
            }
            let mut bytes = vec![0; n as usize + 2];
            reader
                .read_exact(&mut bytes)
                .map_err(|e| format!("reading from redis: {e}"))?;
            bytes.truncate(n as usize);
            Ok(Reply::Bulk(Some(bytes)))
        }
        "*" => {
            let n = number()?;
            if n < 0 {
                return Ok(Reply::Array(None));
            }
            let items = (0..n)
                .map(|_| read_reply(reader))
                .collect::<Result<_, _>>()?;
            Ok(Reply::Array(Some(items)))
        }
        _ => Err(format!("not a RESP reply: {line:?}")),
    }
}

/// The commands Redis received while a [`Monitor`] watched, by name
/// (lowercase): those sent by clients (one per command of a pipeline or a
/// transaction: a round trip carries one or more), and those run by
/// scripts, counted apart.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    pub sent: BTreeMap<String, u64>,
    pub by_scripts: BTreeMap<String, u64>,
}

/// `MONITOR` on a connection of its own, read by a thread until
/// [`Monitor::finish`]: every command Redis receives, with who sent it
/// (a client's address, or `lua` for a script's). Redis pays for each line
/// it writes, so a monitored phase is never a timed one.
pub struct Monitor {
    port: u16,
    marker: String,
    reader: std::thread::JoinHandle<Result<Seen, String>>,
}

impl Monitor {
    pub fn start(redis: &Redis) -> Result<Monitor, String> {
        let mut conn = RedisConn::open(redis.port)?;
        match conn.command(&["MONITOR"])? {
            Reply::Simple(ok) if ok == "OK" => {}
            other => return Err(format!("MONITOR answered {other:?}")),
        }
        let marker = format!("mcp-bench-monitor-end-{}", std::process::id());
        // The command's name as the client wrote it: `finish` writes `ECHO`.
        let end = format!("\"ECHO\" \"{marker}\"");
        let reader = std::thread::spawn(move || {
            let mut seen = Seen::default();
            loop {
                let line = read_line(&mut conn.reader)?;
                if line.ends_with(&end) {
                    return Ok(seen);
                }
                // +1700000000.123456 [0 127.0.0.1:41234] "evalsha" "…" …
                let Some((who, command)) = line
                    .split_once('[')
                    .and_then(|(_, rest)| rest.split_once("] \""))
                else {
                    continue;
                };
                let name = command
                    .split('"')
                    .next()
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                let by_script = who.split(' ').nth(1) == Some("lua");
                let counts = if by_script {
                    &mut seen.by_scripts
                } else {
                    &mut seen.sent
                };
                *counts.entry(name).or_default() += 1;
            }
        });
        Ok(Monitor {
            port: redis.port,
            marker,
            reader,
        })
    }

    /// Sends the end marker (an `ECHO` on a connection of its own, not
    /// counted) and returns what was seen before it.
    pub fn finish(self) -> Result<Seen, String> {
        RedisConn::open(self.port)?.command(&["ECHO", &self.marker])?;
        self.reader
            .join()
            .map_err(|_| "the MONITOR reader panicked".to_string())?
    }
}
