//! Builds and tests `tests/downstream`: a crate outside the workspace that
//! depends on mcp-runtime by path and on nothing else of this repository,
//! as a user's crate does. It catches generated code that only compiles
//! inside the workspace, for example by naming a crate the user never added.
//!
//! It has its own lock file and target directory (`target/downstream`), so
//! it never waits on the lock of the main build. Its library declares tools,
//! resources, resource templates, prompts and completions in two modules
//! (`src/math.rs`, `src/notes.rs`); its server binary serves them with the
//! tools of its second library crate (`extra/`) and of `src/main.rs`, and a
//! real client (the Python SDK) drives it over stdio and over HTTP in
//! `tests/interop/run`.
//! Its other binaries (`src/bin/`) make a newcomer's mistakes, a library of
//! tools the binary never names and a missing `State<T>`, and its
//! `tests/startup.rs` checks what their stderr tells the user.

use std::path::Path;
use std::process::Command;

#[test]
fn downstream_crate_builds_and_passes_its_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(env!("CARGO"))
        .arg("test")
        .arg("--manifest-path")
        .arg(root.join("tests/downstream/Cargo.toml"))
        .args(["--color", "never"])
        .env("CARGO_TARGET_DIR", root.join("target/downstream"))
        .output()
        .expect("cargo can be started");
    assert!(
        output.status.success(),
        "`cargo test` in tests/downstream failed ({})\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
}
