use mcp_runtime::schemars::JsonSchema;
use mcp_runtime::tool;

#[derive(JsonSchema)]
#[schemars(crate = "mcp_runtime::schemars")]
struct Weather {
    high_c: f64,
}

/// Returns a type that is `JsonSchema` but not `Serialize`.
#[tool]
async fn weather(city: String) -> Weather {
    Weather {
        high_c: city.len() as f64,
    }
}

fn main() {}
