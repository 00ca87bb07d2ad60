//! The browser test's tools: Chromium and the DejaVu fonts from the
//! distribution, and in
//! tests/browser/node_modules the npm packages pinned there (playwright-core,
//! @modelcontextprotocol/ext-apps with the SDK client it builds on, esbuild)
//! and the host page's bundle, all installed by tests/browser/install, which
//! the test runs on first use when something is missing or was made from
//! other pins or another host.ts ([`INSTALL`]); and [`run`], which has
//! tests/browser/run.mjs render a server's view in Chromium and check it.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::prerequisite::{self, Prerequisite};

/// How long run.mjs may take: it gives up by itself after 120 s (each of its
/// waits is bounded by 20 s), and takes about 3 s.
const RUN_TIMEOUT: Duration = Duration::from_secs(150);

/// Chromium and the npm packages, installed from the current pins.
pub static INSTALL: Prerequisite = Prerequisite::new(
    "browser",
    "the browser test's Chromium (Debian's chromium), fonts (fonts-dejavu-core) and npm \
     packages (playwright-core, @modelcontextprotocol/ext-apps, pinned in \
     tests/browser/package-lock.json)",
    "tests/browser/install",
    "Install them by hand: run tests/browser/install (it needs apt-get with root or a sudo that \
     asks no password for Chromium and the fonts, or Chromium installed so that `chromium` is \
     on PATH and the DejaVu fonts in /usr/share/fonts/truetype/dejavu; and \
     Node.js 20 or later with npm, with access to https://registry.npmjs.org), then run the \
     tests again.",
    installed,
);

fn dir() -> PathBuf {
    prerequisite::repository().join("tests/browser")
}

/// Chromium: on PATH, or Debian's /usr/bin/chromium.
pub fn chromium() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("chromium"))
            .find(|candidate| candidate.is_file())
    });
    on_path.or_else(|| Some(PathBuf::from("/usr/bin/chromium")).filter(|path| path.is_file()))
}

/// The fonts tests/browser/fonts.conf lets Chromium use (fonts-dejavu-core's).
const FONTS: [&str; 6] = [
    "DejaVuSans",
    "DejaVuSans-Bold",
    "DejaVuSerif",
    "DejaVuSerif-Bold",
    "DejaVuSansMono",
    "DejaVuSansMono-Bold",
];

/// Whether Chromium and the fonts are there, and the install's stamp is the pins and the
/// host page's source as the install script writes it, with the bundle made
/// (the install script's own "up to date" check, so the two agree).
fn installed() -> bool {
    let dir = dir();
    let parts =
        ["package.json", "package-lock.json", "host.ts"].map(|name| std::fs::read(dir.join(name)));
    let Ok(stamp) = std::fs::read(dir.join("node_modules/.browser-stamp")) else {
        return false;
    };
    let mut wanted = Vec::new();
    for part in parts {
        match part {
            Ok(bytes) => wanted.extend(bytes),
            Err(_) => return false,
        }
    }
    let fonts = Path::new("/usr/share/fonts/truetype/dejavu");
    chromium().is_some()
        && FONTS
            .iter()
            .all(|name| fonts.join(format!("{name}.ttf")).is_file())
        && stamp == wanted
        && dir.join("node_modules/.build/host.js").is_file()
        && dir
            .join("node_modules/playwright-core/package.json")
            .is_file()
}

/// Where the test leaves the view's screenshot: `target/browser/` (in the
/// target directory cargo builds this test in).
pub fn screenshot_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is TARGET/tmp")
        .join("browser")
        .join(name)
}

/// What run.mjs said: its verdict (the JSON line it prints last) and its
/// stderr.
pub struct Verdict {
    pub verdict: Value,
    pub stderr: String,
}

/// Has tests/browser/run.mjs (installed first, if it is not) render the
/// weather example's view from the server at `mcp_url` in Chromium and
/// check it, the screenshot saved to `shot`; its verdict, whether or not
/// it passed. Fails the test when run.mjs gives no verdict in time.
pub fn run(mcp_url: &str, shot: &Path) -> Verdict {
    INSTALL.ensure();
    let chromium = chromium().expect("Chromium, just installed");
    let mut child = Command::new("node")
        .arg(dir().join("run.mjs"))
        .current_dir(prerequisite::repository())
        .env("MCP_URL", mcp_url)
        .env("SHOT", shot)
        .env("CHROMIUM", chromium)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("could not start `node tests/browser/run.mjs`: {e}"));
    let read = |mut from: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut text = String::new();
            let _ = from.read_to_string(&mut text);
            text
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + RUN_TIMEOUT;
    loop {
        if child.try_wait().expect("wait for run.mjs").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "tests/browser/run.mjs did not finish within {RUN_TIMEOUT:?}; its output:\n{}\n{}",
                stdout.join().unwrap_or_default(),
                stderr.join().unwrap_or_default()
            );
        }
        thread::sleep(Duration::from_millis(50));
    }
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    let verdict = stdout
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str::<Value>(line).ok())
        .unwrap_or_else(|| {
            panic!("tests/browser/run.mjs printed no verdict; its output:\n{stdout}\n{stderr}")
        });
    Verdict { verdict, stderr }
}
