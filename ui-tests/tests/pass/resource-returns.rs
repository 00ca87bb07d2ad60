//! Every return form of a `#[resource]`, from async and plain fns, with
//! variables and with `Context` and `State<T>` injected.

use mcp_runtime::__private::{ResourceDef, inventory};
use mcp_runtime::serde::Serialize;
use mcp_runtime::{Blob, Context, ResourceContents, State, resource};

#[derive(Serialize)]
#[serde(crate = "mcp_runtime::serde")]
struct Settings {
    theme: String,
}

struct Db {
    users: Vec<String>,
}

/// Text.
#[resource("test://string")]
async fn string() -> String {
    "text".into()
}

/// Static text, from a plain fn.
#[resource("test://str", mime_type = "text/markdown")]
fn static_str() -> &'static str {
    "# Title"
}

/// JSON text.
#[resource("test://json")]
async fn json(ctx: Context) -> Settings {
    Settings {
        theme: ctx.tool_name().to_owned(),
    }
}

/// Bytes.
#[resource("test://blob", mime_type = "image/png")]
fn blob() -> Blob {
    Blob::new(vec![0x89, b'P', b'N', b'G'])
}

/// Contents built by hand.
#[resource("test://contents")]
async fn contents() -> ResourceContents {
    ResourceContents::text("test://contents", "a").with_mime_type("text/csv")
}

/// Several contents.
#[resource("test://contents-list")]
fn contents_list() -> Vec<ResourceContents> {
    vec![ResourceContents::blob("test://contents-list/1", [1u8, 2])]
}

/// A user, if there is one.
#[resource("test://users/{id}")]
async fn user(db: State<Db>, id: usize) -> Option<String> {
    db.users.get(id).cloned()
}

/// A file, which may fail to load.
#[resource("test://files/{+path}")]
fn file(path: String) -> Result<String, std::io::Error> {
    std::fs::read_to_string(path)
}

/// Settings that may be missing, or fail to load.
#[resource("test://settings/{name}", name = "named_settings", title = "Named settings")]
async fn named_settings(name: String, db: State<Db>) -> Result<Option<Settings>, String> {
    if db.users.is_empty() {
        return Err("no users".into());
    }
    Ok((name == "default").then(|| Settings { theme: name }))
}

/// JSON that may be missing.
#[resource("test://scores/{user}/{game}")]
async fn score(user: String, game: u32) -> Option<Vec<u32>> {
    (user == "ada").then(|| vec![game])
}

/// A JSON result.
#[resource("test://result-json")]
fn result_json() -> Result<Settings, String> {
    Ok(Settings {
        theme: "dark".into(),
    })
}

/// A blob that may be missing.
#[resource("test://maybe-blob/{n}")]
async fn maybe_blob(n: u8) -> Result<Option<Blob>, String> {
    Ok((n > 0).then(|| Blob::new(vec![n])))
}

fn main() {
    let defs: Vec<&ResourceDef> = inventory::iter::<ResourceDef>.into_iter().collect();
    assert_eq!(defs.len(), 12);
    let find = |uri: &str| defs.iter().find(|d| d.uri == uri).unwrap();
    assert_eq!(find("test://users/{id}").params.len(), 1);
    assert_eq!(find("test://users/{id}").requirements.len(), 1);
    assert_eq!(find("test://settings/{name}").name, "named_settings");
    assert_eq!((find("test://json").default_mime_type)(), Some("application/json"));
    assert_eq!(find("test://str").mime_type, Some("text/markdown"));
}
