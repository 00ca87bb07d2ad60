//! The read shims `#[resource]` generates, called directly through
//! `inventory`, with a detached `Context`: every return form, the MIME
//! types, variables, injection and the errors. The resources here use
//! `test-res:` URIs, so a registry built in this crate's tests tells them
//! apart from others.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Blob, ReadError, ReadRequest, ResourceDef};
use crate::content::ResourceContents;
use crate::context::{Context, StateMap};
use crate::{Arguments, resource};

fn find(uri: &str) -> &'static ResourceDef {
    inventory::iter::<ResourceDef>
        .into_iter()
        .find(|def| def.uri == uri)
        .unwrap_or_else(|| panic!("no resource {uri}"))
}

/// Reads the resource `template` as `uri`, with `vars` matched.
async fn read(
    template: &str,
    uri: &str,
    vars: &[(&str, &str)],
) -> Result<Vec<ResourceContents>, ReadError> {
    let def = find(template);
    let ctx = Context::new(def.name.into(), Arc::new(StateMap::default()));
    let vars = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let request = ReadRequest {
        uri: uri.to_owned(),
        vars,
    };
    (def.read)(request, ctx).await
}

/// Reads a plain resource: its URI is the one asked for.
async fn read_plain(uri: &str) -> Result<Vec<ResourceContents>, ReadError> {
    read(uri, uri, &[]).await
}

fn text(uri: &str, mime_type: &str, text: &str) -> Vec<ResourceContents> {
    vec![ResourceContents::text(uri, text).with_mime_type(mime_type)]
}

#[derive(Serialize)]
struct Settings {
    theme: &'static str,
    size: u8,
}

/// Plain text, from a plain fn.
#[resource("test-res://string")]
fn string() -> String {
    "hello".into()
}

#[resource("test-res://str")]
async fn static_str() -> &'static str {
    "static"
}

#[resource("test-res://markdown", mime_type = "text/markdown")]
async fn markdown() -> String {
    "# Title".into()
}

#[resource("test-res://json")]
async fn json() -> Settings {
    Settings {
        theme: "dark",
        size: 3,
    }
}

#[resource("test-res://json-typed", mime_type = "application/vnd.settings+json")]
fn json_typed() -> Vec<u32> {
    vec![1, 2]
}

#[tokio::test]
async fn text_and_json() {
    let uri = "test-res://string";
    assert_eq!(read_plain(uri).await, Ok(text(uri, "text/plain", "hello")));
    let uri = "test-res://str";
    assert_eq!(read_plain(uri).await, Ok(text(uri, "text/plain", "static")));
    let uri = "test-res://markdown";
    assert_eq!(
        read_plain(uri).await,
        Ok(text(uri, "text/markdown", "# Title"))
    );
    let uri = "test-res://json";
    assert_eq!(
        read_plain(uri).await,
        Ok(text(
            uri,
            "application/json",
            r#"{"theme":"dark","size":3}"#
        ))
    );
    let uri = "test-res://json-typed";
    assert_eq!(
        read_plain(uri).await,
        Ok(text(uri, "application/vnd.settings+json", "[1,2]"))
    );
}

#[resource("test-res://blob")]
fn blob() -> Blob {
    Blob::new(vec![1u8, 2, 3])
}

#[resource("test-res://blob-typed", mime_type = "image/png")]
fn blob_typed() -> Blob {
    Blob::new(b"PNG")
}

#[resource("test-res://blob-own", mime_type = "image/png")]
fn blob_own() -> Blob {
    Blob::new(b"GIF").with_mime_type("image/gif")
}

#[tokio::test]
async fn blobs_are_base64_with_the_most_specific_mime_type() {
    let uri = "test-res://blob";
    assert_eq!(
        read_plain(uri).await,
        Ok(vec![ResourceContents::Blob {
            uri: uri.into(),
            mime_type: None,
            blob: "AQID".into(),
            meta: None,
        }])
    );
    let uri = "test-res://blob-typed";
    assert_eq!(
        read_plain(uri).await,
        Ok(vec![
            ResourceContents::blob(uri, b"PNG").with_mime_type("image/png")
        ])
    );
    let uri = "test-res://blob-own";
    assert_eq!(
        read_plain(uri).await,
        Ok(vec![
            ResourceContents::blob(uri, b"GIF").with_mime_type("image/gif")
        ])
    );
}

#[resource("test-res://contents", mime_type = "text/csv")]
async fn contents() -> ResourceContents {
    ResourceContents::text("test-res://contents/a.csv", "a,b")
}

#[resource("test-res://contents-list", mime_type = "text/csv")]
async fn contents_list() -> Vec<ResourceContents> {
    vec![
        ResourceContents::text("test-res://contents-list/1", "a,b"),
        ResourceContents::blob("test-res://contents-list/2", [0u8]).with_mime_type("image/x-icon"),
    ]
}

#[tokio::test]
async fn contents_pass_through_and_get_the_attribute_mime_type_if_they_have_none() {
    assert_eq!(
        read_plain("test-res://contents").await,
        Ok(vec![
            ResourceContents::text("test-res://contents/a.csv", "a,b").with_mime_type("text/csv")
        ])
    );
    assert_eq!(
        read_plain("test-res://contents-list").await,
        Ok(vec![
            ResourceContents::text("test-res://contents-list/1", "a,b").with_mime_type("text/csv"),
            ResourceContents::blob("test-res://contents-list/2", [0u8])
                .with_mime_type("image/x-icon"),
        ])
    );
}

/// An error whose alternate form shows its cause, as anyhow's does.
#[derive(Debug)]
struct Chain;

impl fmt::Display for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.write_str("database down: connection refused")
        } else {
            f.write_str("database down")
        }
    }
}

/// A user's name.
#[resource("test-res://users/{id}")]
async fn user(
    /// The user's id.
    id: u64,
) -> Option<String> {
    (id == 1).then(|| "Ada".to_owned())
}

#[resource("test-res://failing/{which}")]
async fn failing(which: String) -> Result<String, Chain> {
    match which.as_str() {
        "ok" => Ok("fine".into()),
        _ => Err(Chain),
    }
}

#[resource("test-res://maybe-json/{id}")]
fn maybe_json(id: u32) -> Result<Option<Settings>, String> {
    match id {
        0 => Err("zero is not an id".into()),
        1 => Ok(Some(Settings {
            theme: "light",
            size: 1,
        })),
        _ => Ok(None),
    }
}

#[resource("test-res://optional-json/{id}")]
async fn optional_json(id: u32) -> Option<Vec<u32>> {
    (id > 0).then(|| vec![id])
}

#[resource("test-res://result-json")]
async fn result_json() -> Result<Settings, Chain> {
    Err(Chain)
}

#[resource("test-res://result-blob/{n}")]
async fn result_blob(n: u8) -> Result<Option<Blob>, String> {
    Ok((n > 0).then(|| Blob::new(vec![n])))
}

#[tokio::test]
async fn none_and_unparseable_variables_are_not_found() {
    let template = "test-res://users/{id}";
    let uri = "test-res://users/1";
    assert_eq!(
        read(template, uri, &[("id", "1")]).await,
        Ok(text(uri, "text/plain", "Ada"))
    );
    let uri = "test-res://users/2";
    assert_eq!(
        read(template, uri, &[("id", "2")]).await,
        Err(ReadError::NotFound)
    );
    let uri = "test-res://users/ada";
    assert_eq!(
        read(template, uri, &[("id", "ada")]).await,
        Err(ReadError::NotFound)
    );
    assert_eq!(read(template, uri, &[]).await, Err(ReadError::NotFound));

    let template = "test-res://optional-json/{id}";
    assert_eq!(
        read(template, "test-res://optional-json/0", &[("id", "0")]).await,
        Err(ReadError::NotFound)
    );
    let uri = "test-res://optional-json/4";
    assert_eq!(
        read(template, uri, &[("id", "4")]).await,
        Ok(text(uri, "application/json", "[4]"))
    );
}

#[tokio::test]
async fn errors_are_failed_with_their_text() {
    let template = "test-res://failing/{which}";
    let uri = "test-res://failing/ok";
    assert_eq!(
        read(template, uri, &[("which", "ok")]).await,
        Ok(text(uri, "text/plain", "fine"))
    );
    assert_eq!(
        read(template, "test-res://failing/no", &[("which", "no")]).await,
        Err(ReadError::Failed(
            "database down: connection refused".into()
        ))
    );
    assert_eq!(
        read_plain("test-res://result-json").await,
        Err(ReadError::Failed(
            "database down: connection refused".into()
        ))
    );

    let template = "test-res://maybe-json/{id}";
    assert_eq!(
        read(template, "test-res://maybe-json/0", &[("id", "0")]).await,
        Err(ReadError::Failed("zero is not an id".into()))
    );
    let uri = "test-res://maybe-json/1";
    assert_eq!(
        read(template, uri, &[("id", "1")]).await,
        Ok(text(
            uri,
            "application/json",
            r#"{"theme":"light","size":1}"#
        ))
    );
    assert_eq!(
        read(template, "test-res://maybe-json/2", &[("id", "2")]).await,
        Err(ReadError::NotFound)
    );

    let template = "test-res://result-blob/{n}";
    let uri = "test-res://result-blob/7";
    assert_eq!(
        read(template, uri, &[("n", "7")]).await,
        Ok(vec![ResourceContents::blob(uri, [7u8])])
    );
    assert_eq!(
        read(template, "test-res://result-blob/0", &[("n", "0")]).await,
        Err(ReadError::NotFound)
    );
}

#[derive(Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Lang {
    Rust,
    Go,
}

/// A file of a repository.
#[resource(
    "test-res://repos/{owner}/{lang}/{+path}",
    name = "repo_file",
    title = "Repository file",
    icons = ["https://example.com/repo.png"],
    meta = r#"{"team": "search"}"#
)]
async fn repo_file(
    ctx: Context,
    /// The owner.
    #[complete(owners)]
    owner: String,
    lang: Lang,
    /// The path,
    /// which may contain `/`.
    path: String,
) -> String {
    format!("{} {owner} {lang:?} {path}", ctx.tool_name())
}

fn owners(prefix: String, arguments: Arguments) -> Vec<String> {
    vec![format!("{prefix}:{}", arguments.len())]
}

#[tokio::test]
async fn variables_are_bound_by_name_and_context_is_injected() {
    let template = "test-res://repos/{owner}/{lang}/{+path}";
    let uri = "test-res://repos/ada/rust/src/lib.rs";
    let vars = [("path", "src/lib.rs"), ("lang", "rust"), ("owner", "ada")];
    assert_eq!(
        read(template, uri, &vars).await,
        Ok(text(uri, "text/plain", "repo_file ada Rust src/lib.rs"))
    );
    let vars = [("path", "src/lib.rs"), ("lang", "cobol"), ("owner", "ada")];
    assert_eq!(read(template, uri, &vars).await, Err(ReadError::NotFound));
}

#[tokio::test]
async fn definitions_carry_the_metadata() {
    let def = find("test-res://repos/{owner}/{lang}/{+path}");
    assert_eq!(def.name, "repo_file");
    assert_eq!(def.title, Some("Repository file"));
    assert_eq!(def.description, Some("A file of a repository."));
    assert_eq!(def.icons, ["https://example.com/repo.png"]);
    assert_eq!(def.meta, Some(r#"{"team": "search"}"#));
    // `Context` needs no state.
    assert_eq!(def.requirements.len(), 1);
    assert!((def.requirements[0])().is_none());
    assert!(def.location.file.ends_with("tests.rs"), "{}", def.location);

    let params: Vec<_> = def
        .params
        .iter()
        .map(|p| (p.name, p.description, p.required))
        .collect();
    assert_eq!(
        params,
        [
            ("owner", Some("The owner."), true),
            ("lang", None, true),
            ("path", Some("The path, which may contain `/`."), true),
        ]
    );
    assert_eq!((def.params[0].enum_values)(), None);
    assert_eq!(
        (def.params[1].enum_values)(),
        Some(vec!["rust".to_owned(), "go".to_owned()])
    );
    assert!(def.params[1].complete.is_none());
    let complete = def.params[0].complete.expect("#[complete(owners)]");
    let request = crate::completion::CompleteRequest {
        prefix: "a".into(),
        arguments: Arguments::from(vec![("lang".to_owned(), "rust".to_owned())]),
    };
    assert_eq!(complete(request).await, ["a:1"]);

    let def = find("test-res://users/{id}");
    assert_eq!(def.name, "user");
    assert_eq!(def.description, Some("A user's name."));
    assert_eq!(def.params[0].description, Some("The user's id."));
    assert!(def.icons.is_empty());
    assert_eq!(def.meta, None);
    let def = find("test-res://string");
    assert_eq!(def.description, Some("Plain text, from a plain fn."));
    assert!(def.params.is_empty());
    let def = find("test-res://json");
    assert_eq!(def.description, None);
}

#[test]
fn default_mime_types_come_from_the_return_type() {
    let mime = |uri| (find(uri).default_mime_type)();
    let attribute = |uri| find(uri).mime_type;
    assert_eq!(mime("test-res://string"), Some("text/plain"));
    assert_eq!(mime("test-res://str"), Some("text/plain"));
    assert_eq!(mime("test-res://json"), Some("application/json"));
    assert_eq!(mime("test-res://json-typed"), Some("application/json"));
    assert_eq!(
        attribute("test-res://json-typed"),
        Some("application/vnd.settings+json")
    );
    assert_eq!(mime("test-res://blob"), None);
    assert_eq!(attribute("test-res://blob-typed"), Some("image/png"));
    assert_eq!(mime("test-res://contents"), None);
    assert_eq!(mime("test-res://contents-list"), None);
    assert_eq!(mime("test-res://users/{id}"), Some("text/plain"));
    assert_eq!(mime("test-res://maybe-json/{id}"), Some("application/json"));
    assert_eq!(mime("test-res://result-blob/{n}"), None);
    assert_eq!(attribute("test-res://string"), None);
}
