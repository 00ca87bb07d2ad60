//! The TypeScript SDK client (`@modelcontextprotocol/sdk`, pinned in
//! tests/interop/ts/package-lock.json) in tests/interop/ts/node_modules,
//! where tests/interop/run uses it too, installed by tests/interop/ts/install,
//! which the first test to need it runs when the install is missing or was
//! made from other pins ([`INSTALL`]). Its scripts run on the `node` on
//! PATH (Node 20 or later).

use std::path::PathBuf;

use super::prerequisite::{self, Prerequisite};

/// The SDK, installed from the current pins.
pub static INSTALL: Prerequisite = Prerequisite::new(
    "typescript-sdk",
    "the TypeScript SDK client (npm @modelcontextprotocol/sdk 1.32.2, pinned in \
     tests/interop/ts/package-lock.json)",
    "tests/interop/ts/install",
    "Install it by hand: run tests/interop/ts/install (it needs Node.js 20 or later with npm, \
     and access to https://registry.npmjs.org), then run the tests again.",
    || {
        prerequisite::npm_install_current(
            &dir(),
            ".tests-stamp",
            &["node_modules/@modelcontextprotocol/sdk/package.json"],
        )
    },
);

fn dir() -> PathBuf {
    prerequisite::repository().join("tests/interop/ts")
}

/// The program that runs the scripts (`node`, from PATH), the SDK
/// installed first if it is not.
pub fn node() -> PathBuf {
    INSTALL.ensure();
    PathBuf::from("node")
}

/// A script of tests/interop/ts.
pub fn script(name: &str) -> PathBuf {
    dir().join(name)
}
