//! Start-up errors as `main` reports them: `serve_stdio` returns an
//! `io::Error` whose every form (`{}`, `{:?}`) carries the sentence with the
//! fix, and which gives the `RegistryError` back to code that wants it.
//!
//! This binary links one tool, whose `pattern` is not `regex-lite` syntax.

use mcp_runtime::{RegistryError, Server, tool};

const SHOUT_LINE: u32 = line!() + 2;
/// Shout a word.
#[tool]
async fn shout(
    /// A word that is not followed by a digit.
    #[schemars(regex(pattern = r"^\w+(?!\d)$"))]
    word: String,
) -> String {
    word.to_uppercase()
}

#[tokio::test]
async fn serve_stdio_fails_with_a_sentence_in_every_form() {
    // Fails before touching stdin or stdout.
    let error = Server::new("startup", "0.0.0")
        .serve_stdio()
        .await
        .unwrap_err();
    let sentence = error.to_string();
    assert!(
        sentence.starts_with(&format!(
            "cannot start the MCP server: the tool `shout` (defined at \
             tests/startup.rs:{SHOUT_LINE}) has an unusable input schema: "
        )),
        "{sentence}"
    );
    assert!(
        sentence.contains(r#"is not a valid regular expression"#),
        "{sentence}"
    );
    assert!(
        sentence.ends_with(
            "; change the types of its parameters, or their `#[schemars(..)]` attributes"
        ),
        "{sentence}"
    );
    // What `main` returning the error prints after `Error: `, and what
    // `.unwrap()` prints: the sentence, in the one wrapper `io::Error` has.
    assert_eq!(
        format!("{error:?}"),
        format!("Custom {{ kind: Other, error: {sentence} }}")
    );

    let inner = error
        .get_ref()
        .and_then(|e| e.downcast_ref::<RegistryError>())
        .expect("the io::Error wraps the RegistryError");
    assert!(
        matches!(inner, RegistryError::InvalidSchema { tool, which: "input", .. } if tool == "shout"),
        "{inner:?}"
    );
    assert_eq!(format!("{inner:?}"), inner.to_string());
}
