use mcp_runtime::serde::Serialize;
use mcp_runtime::tool;

#[derive(Serialize)]
#[serde(crate = "mcp_runtime::serde")]
struct Weather {
    high_c: f64,
}

/// Returns a type that is `Serialize` but not `JsonSchema`.
#[tool]
async fn weather(city: String) -> Weather {
    Weather {
        high_c: city.len() as f64,
    }
}

fn main() {}
