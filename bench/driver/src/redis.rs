//! A `redis-server` of a run's own, for the tasks suite's `ours-redis`:
//! started on a free loopback port with nothing on disk, stopped with the
//! run.

use std::io::{Read, Write};
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
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
