//! What some tests need that cargo does not build (the OpenID provider and
//! the reference servers from npm, nginx and redis-server from the
//! distribution), installed
//! by the tests themselves on first use, so that `cargo test --workspace`
//! passes on a machine that has only the Rust toolchain, Python 3.11 and
//! Node 20 with npm.
//!
//! Each [`Prerequisite`] names a cheap check (is it there, made from the
//! current pins?) and the install script that makes it so (`tests/*/install`,
//! which people and the interop suite run too). [`Prerequisite::ensure`],
//! called by a test before it uses the thing:
//!
//! - returns at once when the check passes (the usual case: one stat and one
//!   small file compare per test process, no lock, no shell);
//! - otherwise takes a lock file under cargo's `target/tmp/prerequisites/`,
//!   so that of the threads of one test binary and the test binaries cargo
//!   runs one after another (or another `cargo test` at the same time) only
//!   one installs, and the others wait for it and then find it installed;
//! - runs the script with a timeout, its output kept in
//!   `target/tmp/prerequisites/NAME.log`, and a note on the terminal (not
//!   captured by the test harness) that says what is being installed;
//! - fails the test, if the script fails or times out or leaves the check
//!   unmet, with the script's output and a sentence saying what to install
//!   by hand. A missing prerequisite never makes a test skip.
//!
//! The outcome is kept for the rest of the process: one attempt per test
//! binary, whatever the number of tests that need it.
//!
//! Where things go: the npm installs stay in tests/oidc/node_modules and
//! tests/upstreams/node_modules (ignored by git, each with Node 22 from the
//! npm package `node@22`), where the interop suite and the README's auth
//! section find them too; the Python SDK client goes into the interop
//! suite's venv, target/interop/venv (tests/interop/python/install, for
//! tests/common/python.rs), the TypeScript SDK client into
//! tests/interop/ts/node_modules (tests/interop/ts/install, for
//! tests/common/typescript.rs); nginx (tests/fleet/install) and redis-server
//! (tests/redis/install, for tests/common/redis.rs) come from the
//! distribution (apt-get, as root or with a sudo that asks no password,
//! since the tests have no terminal to ask on); the browser test's Chromium
//! comes from the distribution too, and its npm packages go into
//! tests/browser/node_modules (tests/browser/install, for
//! tests/common/browser.rs).

use std::fs::{self, File, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// How long an install script may run: `npm ci` fetches Node 22 (about 30
/// MB) with the packages, `apt-get` the package lists and nginx or Redis,
/// or Chromium for the browser test (about 125 MB of packages, 415 MB
/// installed; with its npm packages, about 45 MB, some 15 s on a fast
/// line, minutes on a slow one).
const INSTALL_TIMEOUT: Duration = Duration::from_secs(600);

/// How long a process may wait for another to finish installing: the
/// other's script is bounded by [`INSTALL_TIMEOUT`], and a process that
/// dies releases its lock.
const LOCK_TIMEOUT: Duration = Duration::from_secs(660);

/// How often a wait looks again (for the lock, for the script's exit).
const POLL: Duration = Duration::from_millis(100);

/// Something the tests need that cargo does not build, and how to install it.
pub struct Prerequisite {
    /// A short name, for the lock and log files: `oidc`.
    name: &'static str,
    /// What it is, for messages: "the OpenID provider (npm oidc-provider)".
    what: &'static str,
    /// The install script, from the repository root: `tests/oidc/install`.
    script: &'static str,
    /// What to do by hand when the script cannot install it: a sentence.
    by_hand: &'static str,
    /// Whether it is installed and current. Cheap: called once per process
    /// when all is well, and before and after an install.
    installed: fn() -> bool,
    outcome: OnceLock<Result<(), String>>,
    /// Whether a test failed with the whole story already.
    told: AtomicBool,
}

impl Prerequisite {
    pub const fn new(
        name: &'static str,
        what: &'static str,
        script: &'static str,
        by_hand: &'static str,
        installed: fn() -> bool,
    ) -> Prerequisite {
        Prerequisite {
            name,
            what,
            script,
            by_hand,
            installed,
            outcome: OnceLock::new(),
            told: AtomicBool::new(false),
        }
    }

    /// Makes sure it is installed (installing it if not, once per machine),
    /// or fails the test saying why and what to do: the first test of the
    /// process to fail so with the script's output, the others in short.
    pub fn ensure(&self) {
        if let Err(message) = self.outcome.get_or_init(|| self.check_or_install()) {
            if self.told.swap(true, Ordering::Relaxed) {
                panic!(
                    "{}",
                    self.failure(&format!(
                        "{} did not install it; its output is in {}, and in the first failure \
                         that quotes it",
                        self.script,
                        self.dir().join(format!("{}.log", self.name)).display()
                    ))
                );
            }
            panic!("{message}");
        }
    }

    /// Where the lock and log files are: `target/tmp/prerequisites`.
    fn dir(&self) -> PathBuf {
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("prerequisites")
    }

    fn check_or_install(&self) -> Result<(), String> {
        if (self.installed)() {
            return Ok(());
        }
        let dir = self.dir();
        fs::create_dir_all(&dir)
            .map_err(|e| self.failure(&format!("could not create {}: {e}", dir.display())))?;
        let lock = dir.join(format!("{}.lock", self.name));
        let _held = self.lock(&lock)?;
        // Another process may have installed it while this one waited.
        if (self.installed)() {
            return Ok(());
        }
        let log = dir.join(format!("{}.log", self.name));
        note(&format!(
            "first use: installing {} with {} (its output: {})",
            self.what,
            self.script,
            log.display()
        ));
        let started = Instant::now();
        let status = self.run_script(&log)?;
        let output = fs::read_to_string(&log).unwrap_or_default();
        let output = match output.trim_end() {
            "" => "(nothing)",
            output => output,
        };
        match status {
            None => Err(self.failure(&format!(
                "{} did not finish within {INSTALL_TIMEOUT:?} and was stopped; its output:\n{output}",
                self.script
            ))),
            Some(status) if !status.success() => Err(self.failure(&format!(
                "{} failed ({status}); its output:\n{output}",
                self.script
            ))),
            Some(_) if !(self.installed)() => Err(self.failure(&format!(
                "{} succeeded, yet the tests still do not find it; its output:\n{output}",
                self.script
            ))),
            Some(_) => {
                note(&format!(
                    "installed {} in {:.0?}",
                    self.what,
                    started.elapsed()
                ));
                Ok(())
            }
        }
    }

    /// The lock file at `path`, held (exclusively) until the file is dropped.
    /// The OS releases it when the process dies, so a killed test run leaves
    /// no stale lock behind.
    fn lock(&self, path: &Path) -> Result<File, String> {
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| self.failure(&format!("could not open {}: {e}", path.display())))?;
        let deadline = Instant::now() + LOCK_TIMEOUT;
        let mut told = false;
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(file),
                Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                    if !told {
                        note(&format!(
                            "waiting for another test process that is installing {}",
                            self.what
                        ));
                        told = true;
                    }
                    thread::sleep(POLL);
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(self.failure(&format!(
                        "another process held {} for more than {LOCK_TIMEOUT:?}",
                        path.display()
                    )));
                }
                Err(TryLockError::Error(e)) => {
                    return Err(self.failure(&format!("could not lock {}: {e}", path.display())));
                }
            }
        }
    }

    /// Runs the script, stdout and stderr into `log`, in a process group of
    /// its own (killed whole on timeout: npm and apt-get start children).
    /// `None` if it timed out.
    fn run_script(&self, log: &Path) -> Result<Option<ExitStatus>, String> {
        let script = repository().join(self.script);
        let out = File::create(log)
            .map_err(|e| self.failure(&format!("could not create {}: {e}", log.display())))?;
        let err = out
            .try_clone()
            .map_err(|e| self.failure(&format!("could not share {}: {e}", log.display())))?;
        let mut command = Command::new(&script);
        command
            .current_dir(repository())
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| self.failure(&format!("could not run {}: {e}", script.display())))?;
        let deadline = Instant::now() + INSTALL_TIMEOUT;
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return Ok(Some(status)),
                Ok(None) if Instant::now() < deadline => thread::sleep(POLL),
                Ok(None) => {
                    // The whole group: the script, npm or apt-get, and theirs.
                    // kill(2) itself, not a `kill` program (procps, which a
                    // slim image lacks: the script alone would then die).
                    #[cfg(unix)]
                    if let Ok(group) = libc::pid_t::try_from(child.id()) {
                        // SAFETY: kill(2) of the process group of our own
                        // child, which leads it and has not been waited for.
                        unsafe { libc::kill(-group, libc::SIGKILL) };
                    }
                    let _ = child.kill();
                    let _ = child.wait();
                    return Ok(None);
                }
                Err(e) => {
                    return Err(self.failure(&format!("could not wait for {}: {e}", self.script)));
                }
            }
        }
    }

    /// The message a test fails with: what is missing, what went wrong,
    /// and what to do by hand.
    fn failure(&self, what_happened: &str) -> String {
        format!(
            "{} is not installed, and the tests that need it could not install it: \
             {what_happened}\n\n{}",
            self.what, self.by_hand
        )
    }
}

/// The repository's root (where `tests/` is).
pub fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether `npm ci` in `dir` (a package.json and package-lock.json) is done
/// and current: `node_modules/STAMP` holds a copy of both files, as the
/// install scripts write it last, and each of `expected` (paths from `dir`)
/// exists.
pub fn npm_install_current(dir: &Path, stamp: &str, expected: &[&str]) -> bool {
    let pins = [
        fs::read(dir.join("package.json")),
        fs::read(dir.join("package-lock.json")),
    ];
    let Ok(stamp) = fs::read(dir.join("node_modules").join(stamp)) else {
        return false;
    };
    let mut wanted = Vec::new();
    for pin in pins {
        match pin {
            Ok(bytes) => wanted.extend(bytes),
            Err(_) => return false,
        }
    }
    stamp == wanted && expected.iter().all(|path| dir.join(path).exists())
}

/// A line on the terminal, past the test harness's capture of `eprintln!`:
/// an install takes a minute or so, and whoever waits should know why.
fn note(line: &str) {
    let _ = writeln!(std::io::stderr(), "note: {line}");
}
