//! The server under test as a process: spawning it, reading its CPU time and
//! memory from /proc while it runs, and reaping it with its rusage.

use std::fs::File;
use std::io;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// A spawned server with its pipes.
pub struct Server {
    pub pid: i32,
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<ChildStdout>,
    pub spawned_at: Instant,
    /// Kept so that std does not close anything early; never waited on
    /// through std (we reap with wait4 to get the rusage).
    _child: Child,
}

/// What wait4 tells about a finished server.
#[derive(Debug, Default, Clone, Copy)]
pub struct Exit {
    /// User + system CPU time over the whole life of the process, all threads.
    pub cpu_us: u64,
    /// Peak resident set size (ru_maxrss), KiB.
    pub maxrss_kib: u64,
    /// Whether it exited with status 0 by itself.
    pub clean: bool,
    /// Whether it had to be killed (it did not exit after stdin closed).
    pub killed: bool,
}

impl Server {
    /// Spawns `program args..` with piped stdin/stdout and stderr sent to
    /// `stderr_log`. `RUST_LOG` is removed so no peer logs more than its default.
    pub fn spawn(program: &Path, args: &[String], stderr_log: &Path) -> io::Result<Server> {
        let stderr = File::create(stderr_log)?;
        let spawned_at = Instant::now();
        let mut child = Command::new(program)
            .args(args)
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr))
            .spawn()?;
        let pid = i32::try_from(child.id()).map_err(io::Error::other)?;
        Ok(Server {
            pid,
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            spawned_at,
            _child: child,
        })
    }

    /// Spawns a server that listens on its own (HTTP): stdin from /dev/null,
    /// stdout and stderr to `log`.
    pub fn spawn_listening(program: &Path, args: &[String], log: &Path) -> io::Result<Server> {
        let stdout = File::create(log)?;
        let stderr = stdout.try_clone()?;
        let spawned_at = Instant::now();
        let child = Command::new(program)
            .args(args)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::from(stdout))
            .stderr(Stdio::from(stderr))
            .spawn()?;
        let pid = i32::try_from(child.id()).map_err(io::Error::other)?;
        Ok(Server {
            pid,
            stdin: None,
            stdout: None,
            spawned_at,
            _child: child,
        })
    }

    /// Whether the process is still running (not exited and unreaped).
    pub fn alive(&self) -> bool {
        proc_state(self.pid).is_some_and(|state| state != 'Z' && state != 'X')
    }

    /// Sends `signal` (SIGINT asks an HTTP server to shut down).
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill has no memory-safety preconditions; the pid is our
        // unreaped child, so it cannot have been reused.
        unsafe {
            libc::kill(self.pid, signal);
        }
    }

    /// The resident set size now (VmRSS), KiB.
    pub fn vm_rss_kib(&self) -> Option<u64> {
        status_field(self.pid, "VmRSS:")
    }

    /// CPU time of all the server's threads so far, in nanoseconds, from
    /// /proc/PID/task/*/schedstat (nanosecond resolution; /proc/PID/stat
    /// only has clock ticks). Threads that exited are not counted, so
    /// this is read around phases during which the servers' threads persist.
    pub fn cpu_ns(&self) -> u64 {
        cpu_ns_of(self.pid)
    }

    /// Time the server's threads spent runnable but waiting for a CPU, in
    /// nanoseconds (schedstat's run delay; live threads only).
    pub fn run_delay_ns(&self) -> u64 {
        schedstat_sum(&format!("/proc/{}/task", self.pid), 1)
    }

    /// utime + stime of the process from /proc/PID/stat, in nanoseconds
    /// (clock-tick resolution, but includes threads that exited).
    pub fn cpu_ticks_ns(&self) -> u64 {
        cpu_ticks_ns_of(self.pid)
    }

    /// The peak resident set size so far (VmHWM), KiB.
    pub fn vm_hwm_kib(&self) -> Option<u64> {
        status_field(self.pid, "VmHWM:")
    }

    /// The processes this server spawned (a forwarding front's upstream),
    /// found by their parent pid.
    pub fn children(&self) -> Vec<i32> {
        children_of(self.pid)
    }

    /// Closes stdin, waits up to `grace` for the server to exit (then kills
    /// it), and reaps it with its rusage.
    pub fn finish(mut self, grace: Duration) -> Exit {
        drop(self.stdin.take());
        drop(self.stdout.take());
        reap(self.pid, grace).unwrap_or_default()
    }
}

/// utime + stime of process `pid` from /proc/PID/stat, in nanoseconds
/// (clock-tick resolution, but includes threads that exited).
pub fn cpu_ticks_ns_of(pid: i32) -> u64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0;
    };
    // Fields after the command name, which is in parentheses and may hold spaces.
    let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
        return 0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line; `rest`
    // starts at field 3.
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum();
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    ticks * 1_000_000_000 / hz
}

/// CPU time of all the threads of process `pid` so far, in nanoseconds
/// (schedstat: live threads only).
pub fn cpu_ns_of(pid: i32) -> u64 {
    schedstat_sum(&format!("/proc/{pid}/task"), 0)
}

/// The peak resident set size of process `pid` so far (VmHWM), KiB.
pub fn vm_hwm_kib_of(pid: i32) -> Option<u64> {
    status_field(pid, "VmHWM:")
}

/// The VmRSS of any process of ours (a Redis the driver started).
pub fn vm_rss_kib_of(pid: i32) -> Option<u64> {
    status_field(pid, "VmRSS:")
}

/// The processes whose parent is `pid`.
pub fn children_of(pid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&child| {
            std::fs::read_to_string(format!("/proc/{child}/stat"))
                .ok()
                .and_then(|stat| {
                    let rest = &stat[stat.rfind(')')? + 1..];
                    rest.split_whitespace().nth(1)?.parse::<i32>().ok()
                })
                == Some(pid)
        })
        .collect()
}

/// Makes this process the reaper of its orphaned descendants: a
/// forwarding front's upstream, left behind when the front exits, becomes
/// our child, so that [`reap`] gets its rusage.
pub fn become_subreaper() {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes an integer argument
    // and touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Waits up to `grace` for process `pid` to exit (then kills it) and reaps
/// it with its rusage, if it is our child; `None` if it is not (its parent
/// reaped it: its rusage went to that parent's).
pub fn reap(pid: i32, grace: Duration) -> Option<Exit> {
    let deadline = Instant::now() + grace;
    let mut killed = false;
    loop {
        let flags = if killed { 0 } else { libc::WNOHANG };
        let mut status = 0;
        // SAFETY: all-zero is a valid rusage.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: valid pointers to local variables.
        let reaped = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
        if reaped == pid {
            let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
            return Some(Exit {
                cpu_us: tv(usage.ru_utime) + tv(usage.ru_stime),
                maxrss_kib: usage.ru_maxrss.max(0) as u64,
                clean: !killed && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
                killed,
            });
        }
        if reaped < 0 {
            return None;
        }
        if Instant::now() >= deadline {
            // SAFETY: kill has no memory-safety preconditions; `pid` is
            // our unreaped child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
            killed = true;
        } else {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// The sum over the threads under `tasks` of field `field` of their
/// schedstat (0: time on a CPU, 1: time waiting for one; nanoseconds).
fn schedstat_sum(tasks: &str, field: usize) -> u64 {
    let Ok(tasks) = std::fs::read_dir(tasks) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().nth(field)?.parse::<u64>().ok())
        .sum()
}

/// Time this process's threads spent waiting for a CPU, in nanoseconds.
pub fn self_run_delay_ns() -> u64 {
    schedstat_sum("/proc/self/task", 1)
}

/// A `/proc/PID/status` field in KiB.
fn status_field(pid: i32, name: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(name))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The state letter of `/proc/PID/stat` (R, S, Z, ...).
fn proc_state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().next()?.chars().next()
}

/// CPU time (user + system) of this process so far, all threads, in
/// nanoseconds: the driver's own cost.
pub fn self_cpu_ns() -> u64 {
    // SAFETY: all-zero is a valid rusage; getrusage only writes to it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a local rusage.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0;
    }
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Kills the server unless disarmed before `limit`: a hung server ends its
/// run (its reader sees EOF) instead of the whole benchmark.
pub struct Watchdog {
    disarm: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<bool>>,
}

impl Watchdog {
    pub fn arm(pid: i32, limit: Duration) -> Watchdog {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(limit) {
                // SAFETY: as in Server::signal; the run still holds the unreaped child.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
                return true;
            }
            false
        });
        Watchdog {
            disarm: Some(tx),
            thread: Some(thread),
        }
    }

    /// Stops the watchdog; returns whether it had fired.
    pub fn disarm(mut self) -> bool {
        drop(self.disarm.take());
        self.thread
            .take()
            .map(|t| t.join().unwrap_or(false))
            .unwrap_or(false)
    }
}
