use mcp_runtime::schemars::{self, JsonSchema};
use mcp_runtime::serde::Serialize;
use mcp_runtime::tool;

#[derive(Serialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde")]
struct Forecast {
    city: String,
}

// Serializable, so the whole `Result` is `Serialize + JsonSchema`, but not
// `Display`: it must not be served as structured output `{"Err": ...}`.
#[derive(Serialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde")]
enum LookupError {
    NotFound,
}

/// Returns a `Result` whose error type is data, not a message.
#[tool]
async fn lookup(city: String) -> Result<Forecast, LookupError> {
    if city.is_empty() {
        Err(LookupError::NotFound)
    } else {
        Ok(Forecast { city })
    }
}

fn main() {}
