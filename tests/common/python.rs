//! The Python SDK client (`mcp`, pinned in tests/interop/python/requirements.txt)
//! in the venv tests/interop/run uses, target/interop/venv, installed by
//! tests/interop/python/install, which the first test to need it runs when
//! the venv is missing or was made from other pins or another Python
//! ([`INSTALL`]).

use std::path::PathBuf;
use std::process::Command;

use super::prerequisite::{self, Prerequisite};

/// The venv, with the SDK, installed from the current pins.
pub static INSTALL: Prerequisite = Prerequisite::new(
    "python-sdk",
    "the Python SDK client (PyPI mcp 2.3.0 in a venv, pinned in \
     tests/interop/python/requirements.txt)",
    "tests/interop/python/install",
    "Install it by hand: run tests/interop/python/install (it needs Python 3.11 or later with \
     the venv module, PYTHON=... to pick one, and access to https://pypi.org), then run the \
     tests again.",
    current,
);

fn venv() -> PathBuf {
    prerequisite::repository().join("target/interop/venv")
}

/// Whether the venv's stamp is the requirements and the `--version` of
/// the Python the install script would use, as the script writes it.
fn current() -> bool {
    let root = prerequisite::repository();
    let python = std::env::var_os("PYTHON").unwrap_or_else(|| "python3".into());
    let Ok(version) = Command::new(python).arg("--version").output() else {
        return false;
    };
    let (Ok(requirements), Ok(stamp)) = (
        std::fs::read(root.join("tests/interop/python/requirements.txt")),
        std::fs::read(venv().join("interop-stamp")),
    ) else {
        return false;
    };
    let mut wanted = requirements;
    wanted.extend_from_slice(&version.stdout);
    stamp == wanted && venv().join("bin/python").exists()
}

/// The venv's Python, with the SDK installed (first, if it is not).
pub fn python() -> PathBuf {
    INSTALL.ensure();
    venv().join("bin/python")
}

/// A script of tests/interop/python.
pub fn script(name: &str) -> PathBuf {
    prerequisite::repository()
        .join("tests/interop/python")
        .join(name)
}
