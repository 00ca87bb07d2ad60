//! The npm install scripts the tests run on first use (tests/oidc/install,
//! tests/upstreams/install; tests/common/prerequisite.rs): their "up to
//! date" shortcut must agree with the tests' own check, or a test that finds
//! the install broken runs a script that does nothing, and the failure then
//! tells the user to run that same script by hand.
//!
//! Each script runs on a copy of its directory, with a stand-in `npm` and
//! `node` on PATH (no network, nothing installed in the repository).

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// Held by each test: one thread writing a stand-in while another forks
/// could make running it fail with "Text file busy" (ETXTBSY).
static SERIAL: Mutex<()> = Mutex::new(());

/// The scripts, their stamp, and the files the tests check for besides the
/// stamp (tests/common/oidc.rs and tests/common/upstreams.rs, `INSTALL`).
const SCRIPTS: [(&str, &str, &[&str]); 2] = [
    (
        "oidc",
        ".oidc-stamp",
        &["node_modules/.bin/node", "node_modules/oidc-provider"],
    ),
    (
        "upstreams",
        ".upstreams-stamp",
        &[
            "node_modules/.bin/node",
            "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        ],
    ),
];

fn write_executable(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// A copy of tests/NAME (the script and its pins) in a fresh directory, and
/// a directory of stand-ins for `node` and `npm`: this `npm ci` replaces
/// node_modules with the files the tests check for (a `.bin/node` that says
/// it is Node 22) and leaves a mark.
fn sandbox(test: &str, name: &str, expected: &[&str]) -> (PathBuf, PathBuf) {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("installs")
        .join(format!("{test}-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let dir = root.join(name);
    let bin = root.join("bin");
    fs::create_dir_all(&dir).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name);
    for file in ["install", "package.json", "package-lock.json"] {
        fs::copy(source.join(file), dir.join(file)).unwrap();
    }
    write_executable(&bin.join("node"), "#!/bin/sh\necho v20.0.0\n");
    let mut npm = String::from("#!/bin/sh\nset -e\nrm -rf node_modules\ntouch npm-ran\n");
    for path in expected {
        if *path == "node_modules/.bin/node" {
            npm.push_str("mkdir -p node_modules/.bin\nprintf '#!/bin/sh\\necho v22.0.0\\n' > node_modules/.bin/node\nchmod +x node_modules/.bin/node\n");
        } else {
            npm.push_str(&format!("mkdir -p \"$(dirname {path})\"\ntouch {path}\n"));
        }
    }
    write_executable(&bin.join("npm"), &npm);
    (dir, bin)
}

fn run(dir: &Path, bin: &Path) {
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let output = Command::new(dir.join("install"))
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{} failed: {}{}",
        dir.join("install").display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn stamp_pins(dir: &Path, stamp: &str) {
    let mut pins = fs::read(dir.join("package.json")).unwrap();
    pins.extend(fs::read(dir.join("package-lock.json")).unwrap());
    fs::create_dir_all(dir.join("node_modules")).unwrap();
    fs::write(dir.join("node_modules").join(stamp), pins).unwrap();
}

#[test]
fn a_current_stamp_over_a_broken_install_installs_again() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for (name, stamp, expected) in SCRIPTS {
        for missing in expected {
            let (dir, bin) = sandbox("broken", name, expected);
            run(&dir, &bin);
            assert!(
                dir.join("npm-ran").exists(),
                "{name}: the first run installs"
            );
            fs::remove_file(dir.join("npm-ran")).unwrap();
            assert!(dir.join("node_modules").join(stamp).exists());

            // Still stamped with the current pins, but a file the tests
            // look for is gone: the tests find it not installed, and so
            // must the script.
            let missing = dir.join(missing);
            fs::remove_file(&missing).unwrap();
            stamp_pins(&dir, stamp);
            run(&dir, &bin);
            assert!(
                dir.join("npm-ran").exists(),
                "{name}: with {} missing under a current stamp, the script did not install again",
                missing.display()
            );
            for path in expected {
                assert!(dir.join(path).exists(), "{name}: {path} after the install");
            }
        }
    }
}

#[test]
fn a_current_install_is_left_alone() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for (name, _, expected) in SCRIPTS {
        let (dir, bin) = sandbox("current", name, expected);
        run(&dir, &bin);
        fs::remove_file(dir.join("npm-ran")).unwrap();
        run(&dir, &bin);
        assert!(
            !dir.join("npm-ran").exists(),
            "{name}: an install that is up to date was made again"
        );
    }
}
