//! The README's snippet written with rmcp (3.11), for `bench/first-build`:
//! one `get_forecast` tool with the same arguments and structured output,
//! served on stdio. Written for this comparison, not taken from rmcp.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::stdio;
use rmcp::{Json, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: String,
    high_c: f64,
}

#[derive(Deserialize, JsonSchema)]
struct ForecastArgs {
    /// City name, for example "Paris".
    city: String,
    /// Number of days, 1 to 7 (default 3).
    #[schemars(range(min = 1, max = 7))]
    days: Option<u8>,
}

#[derive(Clone)]
struct Weather {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Weather {
    /// Get the weather forecast for a city.
    #[tool(annotations(title = "Weather forecast", read_only_hint = true, idempotent_hint = true))]
    async fn get_forecast(
        &self,
        Parameters(ForecastArgs { city, days }): Parameters<ForecastArgs>,
    ) -> Result<Json<Forecast>, String> {
        let _ = days;
        Ok(Json(Forecast { city, high_c: 21.5 }))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Weather {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Weather { tool_router: Weather::tool_router() }.serve(stdio()).await?;
    service.waiting().await?;
    Ok(())
}
