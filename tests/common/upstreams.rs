//! The servers we did not write that tests run against, installed by
//! tests/upstreams/install at pinned versions, which the first test to use
//! one runs when the install is missing or older than the pins
//! ([`INSTALL`]).

use std::path::PathBuf;

use super::prerequisite::{self, Prerequisite};

/// The reference servers in tests/upstreams/node_modules, with the Node 22
/// they run on, installed from the current pins by tests/upstreams/install.
pub static INSTALL: Prerequisite = Prerequisite::new(
    "upstreams",
    "the reference servers the client and gateway tests run against (npm \
     @modelcontextprotocol/server-everything and server-filesystem on Node 22, pinned in \
     tests/upstreams/package-lock.json)",
    "tests/upstreams/install",
    "Install them by hand: run tests/upstreams/install (it needs Node.js 20 or later with npm, \
     and access to https://registry.npmjs.org), then run the tests again.",
    || prerequisite::npm_install_current(&dir(), ".upstreams-stamp", &[NODE, EVERYTHING]),
);

const NODE: &str = "node_modules/.bin/node";
const EVERYTHING: &str = "node_modules/@modelcontextprotocol/server-everything/dist/index.js";

fn dir() -> PathBuf {
    prerequisite::repository().join("tests/upstreams")
}

/// The Node 22 and the reference server `@modelcontextprotocol/server-everything`
/// (its entry script), installed first if they are not: the program and the
/// arguments that serve it on stdio.
pub fn everything() -> (PathBuf, Vec<String>) {
    INSTALL.ensure();
    let dir = dir();
    (
        dir.join(NODE),
        vec![
            dir.join(EVERYTHING).display().to_string(),
            "stdio".to_owned(),
        ],
    )
}
