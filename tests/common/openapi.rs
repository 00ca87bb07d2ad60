//! The OpenAPI import's real parts: the Prism mock server (npm
//! `@stoplight/prism-cli`, on the Node 22 installed with it) and GitHub's
//! published OpenAPI document (npm `@octokit/openapi`), installed by
//! tests/openapi/install at pinned versions, which the first test to need
//! them runs when the install is missing or older than the pins
//! ([`INSTALL`]); and the test documents written for the tests
//! (tests/openapi/petstore.json, petstore-3.0.json).
//!
//! [`prism`] starts a Prism of the test's own on a free loopback port,
//! serving a document; it validates every request against the document
//! (422 with the reasons for a wrong one, 401 without the credentials the
//! operation's `security` asks for) and answers from its examples.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use super::prerequisite::{self, Prerequisite};

/// Prism, with the Node 22 it runs on, and GitHub's documents, in
/// tests/openapi/node_modules, installed from the current pins by
/// tests/openapi/install.
pub static INSTALL: Prerequisite = Prerequisite::new(
    "openapi",
    "the Prism mock server and GitHub's OpenAPI document (npm @stoplight/prism-cli 5.14.2 \
     and @octokit/openapi 23.0.2 on Node 22, pinned in tests/openapi/package-lock.json)",
    "tests/openapi/install",
    "Install them by hand: run tests/openapi/install (it needs Node.js 20 or later with npm, \
     and access to https://registry.npmjs.org), then run the tests again.",
    || prerequisite::npm_install_current(&dir(), ".openapi-stamp", &[NODE, PRISM, GITHUB]),
);

const NODE: &str = "node_modules/.bin/node";
const PRISM: &str = "node_modules/@stoplight/prism-cli/dist/index.js";
const GITHUB: &str = "node_modules/@octokit/openapi/generated/api.github.com.json";

/// How long Prism may take to answer after it was started: GitHub's 13 MB
/// document takes about 6 s on two cores, a Petstore under one.
const STARTUP: Duration = Duration::from_secs(60);

fn dir() -> PathBuf {
    prerequisite::repository().join("tests/openapi")
}

/// A document written for the tests: `petstore.json` (OpenAPI 3.1) or
/// `petstore-3.0.json` (its 3.0.3 twin), in tests/openapi.
pub fn document(name: &str) -> PathBuf {
    dir().join(name)
}

/// GitHub's OpenAPI document for api.github.com (OpenAPI 3.0.3, 13 MB),
/// installed first if it is not.
pub fn github_document() -> PathBuf {
    INSTALL.ensure();
    dir().join(GITHUB)
}

/// A Prism mock server of the test's own, serving one document on a free
/// loopback port; killed when dropped.
pub struct Prism {
    child: Option<Child>,
    addr: SocketAddr,
    log: PathBuf,
}

/// Starts Prism (`prism mock DOCUMENT -p PORT -h 127.0.0.1`) on `document`
/// and waits until it answers HTTP, for at most a minute.
pub fn prism(document: &Path) -> Prism {
    INSTALL.ensure();
    static STARTED: AtomicUsize = AtomicUsize::new(0);
    let log = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "prism-{}-{}.log",
        std::process::id(),
        STARTED.fetch_add(1, Ordering::Relaxed)
    ));
    // The port is free when picked and may be taken before Prism binds it:
    // then Prism exits, and another is tried.
    let mut failures = String::new();
    for _ in 0..3 {
        let port = free_port();
        match launch(document, port, &log) {
            Ok(prism) => return prism,
            Err(why) => failures.push_str(&why),
        }
    }
    panic!("Prism did not start on {}:\n{failures}", document.display());
}

fn launch(document: &Path, port: u16, log: &Path) -> Result<Prism, String> {
    let dir = dir();
    let out = File::create(log).map_err(|e| format!("create {}: {e}", log.display()))?;
    let err = out.try_clone().map_err(|e| format!("share the log: {e}"))?;
    let child = Command::new(dir.join(NODE))
        .arg(dir.join(PRISM))
        .arg("mock")
        .arg(document)
        .args(["-p", &port.to_string(), "-h", "127.0.0.1"])
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("could not start Prism: {e}"))?;
    let mut prism = Prism {
        child: Some(child),
        addr: ([127, 0, 0, 1], port).into(),
        log: log.to_path_buf(),
    };
    let deadline = Instant::now() + STARTUP;
    loop {
        let child = prism.child.as_mut().expect("started");
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            prism.child = None;
            return Err(format!("Prism exited ({status}):\n{}\n", prism.output()));
        }
        if answers(prism.addr) {
            return Ok(prism);
        }
        if Instant::now() > deadline {
            return Err(format!(
                "Prism did not answer within {STARTUP:?}:\n{}\n",
                prism.output()
            ));
        }
        thread::sleep(Duration::from_millis(50));
    }
}

impl Prism {
    /// `http://127.0.0.1:PORT`, the base URL its operations are served at
    /// (Prism leaves out the path of the document's `servers`).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// What Prism logged so far: each request, and the violations it found.
    pub fn output(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Prism {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = fs::remove_file(&self.log);
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// Whether something at `addr` answers an HTTP request with a status line
/// (Prism listens only once it has read the document).
fn answers(addr: SocketAddr) -> bool {
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_millis(200)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let request = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut start = [0; 8];
    stream.read_exact(&mut start).is_ok() && start.starts_with(b"HTTP/1.")
}

/// What a run of tests/interop/python/openapi.py printed.
pub struct ScriptRun {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

/// Runs tests/interop/python/openapi.py with `args` and the environment
/// `env` in the Python SDK's venv (installed first if it is not), and
/// waits for it, for at most `timeout`.
pub fn python_script(args: &[String], env: &[(&str, &str)], timeout: Duration) -> ScriptRun {
    let mut command = Command::new(super::python::python());
    command
        .arg(super::python::script("openapi.py"))
        .args(args)
        .env("PYTHONDONTWRITEBYTECODE", "1");
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the Python client");
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let (tx, done) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let (mut stdout, mut stderr) = (String::new(), String::new());
        let _ = out.read_to_string(&mut stdout);
        let _ = err.read_to_string(&mut stderr);
        let _ = tx.send((stdout, stderr));
    });
    let Ok((stdout, stderr)) = done.recv_timeout(timeout) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the Python client did not finish within {timeout:?}");
    };
    let status = child.wait().expect("wait for the Python client");
    ScriptRun {
        success: status.success(),
        stdout,
        stderr,
    }
}
