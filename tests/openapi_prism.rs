//! The OpenAPI import end to end, with real parts only: the openapi example
//! (examples/openapi) serving the Petstore written for the tests
//! (tests/openapi/petstore.json, OpenAPI 3.1, and its 3.0.3 twin) over
//! stdio, called by the Python SDK's client (PyPI `mcp`, in the venv
//! tests/interop/python/install makes on first use), in front of the Prism
//! mock server (npm `@stoplight/prism-cli`, tests/openapi/install) serving
//! the same document.
//!
//! Prism validates every request against the document, and answers 422
//! with the reasons when one is not what the document describes (a query
//! style, a path value, a header, a body, its content type) and 401 when
//! the credentials the operation's `security` asks for are missing; so
//! each tool call with good arguments that succeeds shows its request was
//! right. The script (tests/interop/python/openapi.py) says what it checks;
//! the SDK client also checks each result's structured content against the
//! tool's output schema. Exact wire shapes, which Prism cannot always tell
//! apart (it takes a deepObject sent as one value, or a pipeDelimited
//! array of strings sent comma-separated, as a string), are checked byte
//! for byte by the OpenAPI call's own tests, against an in-process stub.

mod common;

use std::process::Command;
use std::time::Duration;

use common::openapi::{self, Prism};

/// How long the script may take: three server sessions of a dozen calls.
const SCRIPT: Duration = Duration::from_secs(120);

/// Runs the script's petstore checks against a Prism serving `document`.
fn petstore(document: &str) {
    let document = openapi::document(document);
    let server = common::example_binary("openapi");
    let prism: Prism = openapi::prism(&document);
    let run = openapi::python_script(
        &[
            "petstore".into(),
            server.display().to_string(),
            document.display().to_string(),
            prism.url(),
        ],
        &[
            ("OPENAPI_TOKEN", "petstore-token"),
            ("OPENAPI_KEY", "petstore-key"),
        ],
        SCRIPT,
    );
    assert!(
        run.success,
        "the Python client's checks failed:\n{}\n--- its stderr (and the server's):\n{}\n--- Prism's log:\n{}",
        run.stdout,
        run.stderr,
        prism.output()
    );
    // Every operation's request reached this Prism (it logs each one it
    // receives as `[HTTP SERVER] METHOD PATH`).
    let log = prism.output();
    for request in [
        "get /pets ",
        "post /pets ",
        "get /pets/7 ",
        "delete /pets/7 ",
        "post /pets/7/notes ",
        "get /search ",
        "get /store/inventory ",
        "get /tree ",
    ] {
        assert!(
            log.contains(&format!("[HTTP SERVER] {request}")),
            "Prism received no {request}:\n{log}"
        );
    }
}

#[test]
fn the_petstore_3_1_through_prism_and_the_python_sdk() {
    petstore("petstore.json");
}

#[test]
fn the_petstore_3_0_through_prism_and_the_python_sdk() {
    petstore("petstore-3.0.json");
}

/// The example's own command line: what it says when it cannot start.
#[test]
fn the_example_says_what_is_wrong_with_its_command_line() {
    let server = common::example_binary("openapi");
    let document = openapi::document("petstore.json");
    let run = |args: &[&str]| {
        let output = Command::new(&server)
            .args(args)
            .env_remove("OPENAPI_TEST_UNSET")
            .output()
            .expect("run the openapi example");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let document = document.to_str().expect("a UTF-8 path");

    let (code, _, stderr) = run(&["--base-url", "http://127.0.0.1:4010"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("no OpenAPI document"), "{stderr}");

    let (code, _, stderr) = run(&[document, "--base-url"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--base-url needs a value"), "{stderr}");

    let (code, _, stderr) = run(&[document, "--base-url", "127.0.0.1:4010"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("is not an http:// or https:// URL"),
        "{stderr}"
    );

    let (code, _, stderr) = run(&[document, document]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("two documents"), "{stderr}");

    let (code, _, stderr) = run(&[document, "--bearer-env", "OPENAPI_TEST_UNSET"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("OPENAPI_TEST_UNSET (--bearer-env) is not set"),
        "{stderr}"
    );

    // The Petstore has two operations the import cannot serve: without
    // --exclude or --skip-unsupported the server refuses to start, naming
    // the first.
    let (code, _, stderr) = run(&[
        document,
        "--base-url",
        "http://127.0.0.1:4010",
        "--list-tools",
    ]);
    assert_ne!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("petstore.json") && stderr.contains("uploadPhoto"),
        "{stderr}"
    );

    // --skip-unsupported serves the rest; --tag chooses among them;
    // --tool-search lists the pinned tools and the two of discovery.
    let listed = |extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            document,
            "--base-url",
            "http://127.0.0.1:4010",
            "--skip-unsupported",
            "--list-tools",
        ];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, Some(0), "{stderr}");
        let listed: serde_json::Value =
            serde_json::from_str(&stdout).expect("--list-tools prints JSON");
        listed["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
            .collect()
    };
    assert_eq!(listed(&["--tag", "tree"]), ["getTree"]);
    assert_eq!(
        listed(&["--tool-search", "--pin", "getPet"]),
        ["call_tool", "getPet", "search_tools"]
    );
    let (code, _, stderr) = run(&[
        document,
        "--base-url",
        "http://127.0.0.1:4010",
        "--skip-unsupported",
        "--list-tools",
        "--pin",
        "getPet",
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("give --tool-search too"), "{stderr}");
}
