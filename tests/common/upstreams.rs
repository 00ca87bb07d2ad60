//! The servers we did not write that tests run against, installed by
//! tests/upstreams/install at pinned versions.

use std::path::PathBuf;

/// The Node 22 and the reference server `@modelcontextprotocol/server-everything`
/// (its entry script), after checking the install is current: the program
/// and the arguments that serve it on stdio.
pub fn everything() -> (PathBuf, Vec<String>) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/upstreams");
    let node = dir.join("node_modules/.bin/node");
    let server = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let install = "run tests/upstreams/install (it needs Node.js 20 or later with npm, and \
                   access to https://registry.npmjs.org)";
    assert!(
        node.exists() && server.exists(),
        "the reference server the tests run against is not installed: {install}"
    );
    let pins = [
        std::fs::read(dir.join("package.json")).unwrap(),
        std::fs::read(dir.join("package-lock.json")).unwrap(),
    ]
    .concat();
    let stamp = std::fs::read(dir.join("node_modules/.upstreams-stamp")).unwrap_or_default();
    assert!(
        stamp == pins,
        "tests/upstreams/node_modules was not installed from the current pins: {install}"
    );
    (node, vec![server.display().to_string(), "stdio".to_owned()])
}
