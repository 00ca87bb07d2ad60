//! `#[serde(...)]` and `#[schemars(...)]` on parameters are forwarded.

use mcp_runtime::schemars::JsonSchema;
use mcp_runtime::serde::Deserialize;
use mcp_runtime::{Server, serde_json::json, tool};

#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde")]
#[schemars(crate = "mcp_runtime::schemars")]
struct Paging {
    /// Page number.
    page: u32,
}

/// Search things.
#[tool]
async fn search(
    #[serde(rename = "q")]
    #[schemars(length(min = 1, max = 100))]
    query: String,
    #[schemars(range(min = 1, max = 50))]
    #[serde(default)]
    limit: u8,
    #[schemars(regex(pattern = r"^[a-z]{2}$"))]
    lang: String,
    #[serde(flatten)]
    paging: Paging,
    #[serde(default = "default_sort")]
    sort: String,
) -> String {
    format!("{query} {limit} {lang} {} {sort}", paging.page)
}

fn default_sort() -> String {
    "relevance".into()
}

fn main() {
    let registry = Server::new("t", "1").registry().unwrap();
    let schema = json!(registry.get("search").unwrap().input_schema());
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "q": {"type": "string", "minLength": 1, "maxLength": 100},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 0},
                "lang": {"type": "string", "pattern": "^[a-z]{2}$"},
                "page": {"type": "integer", "minimum": 0, "description": "Page number."},
                "sort": {"type": "string", "default": "relevance"}
            },
            "required": ["q", "lang", "page"],
            "additionalProperties": false
        }),
        "{schema:#}"
    );
}
