//! The TypeScript SDK client (`@modelcontextprotocol/sdk`, pinned in
//! tests/interop/ts/package-lock.json) in tests/interop/ts/node_modules,
//! where tests/interop/run installs it too, installed by
//! tests/interop/ts/install, which the first test to need it runs when the
//! install is missing or was made from other pins ([`INSTALL`]). Its
//! scripts run on the `node` on the PATH (20 or later).

use std::path::PathBuf;
use std::process::Command;

use super::prerequisite::{self, Prerequisite};

/// The SDK, installed from the current pins.
pub static INSTALL: Prerequisite = Prerequisite::new(
    "typescript-sdk",
    "the TypeScript SDK client (npm @modelcontextprotocol/sdk 1.32.2 and \
     @modelcontextprotocol/client 2.4.0, pinned in \
     tests/interop/ts/package-lock.json)",
    "tests/interop/ts/install",
    "Install it by hand: run tests/interop/ts/install (it needs Node.js 20 or later with npm, \
     and access to https://registry.npmjs.org), then run the tests again.",
    current,
);

fn dir() -> PathBuf {
    prerequisite::repository().join("tests/interop/ts")
}

/// Whether the install's stamp is the pins and the `npm --version` the
/// install script would use, as the script (and tests/interop/run) writes it.
fn current() -> bool {
    let dir = dir();
    let Ok(npm) = Command::new("npm").arg("--version").output() else {
        return false;
    };
    let (Ok(package), Ok(lock), Ok(stamp)) = (
        std::fs::read(dir.join("package.json")),
        std::fs::read(dir.join("package-lock.json")),
        std::fs::read(dir.join("node_modules/.interop-stamp")),
    ) else {
        return false;
    };
    let mut wanted = package;
    wanted.extend_from_slice(&lock);
    wanted.extend_from_slice(&npm.stdout);
    stamp == wanted
        && dir
            .join("node_modules/@modelcontextprotocol/sdk/package.json")
            .exists()
}

/// A script of tests/interop/ts, the SDK installed (first, if it is not).
pub fn script(name: &str) -> PathBuf {
    INSTALL.ensure();
    dir().join(name)
}
