//! The three tools of the basic benchmark server, written with rmcp: an echo
//! tool, a tool with structured output, and a tool taking and returning
//! 64 KiB. Served over stdio by `rmcp-basic` and over Streamable HTTP by
//! `rmcp-http` (servers/rmcp-http), so both serve the same text.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{Json, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to return.
    text: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct OrderArgs {
    /// The order's number.
    id: u64,
    /// How many lines the order has.
    lines: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct PayloadArgs {
    /// Any text.
    data: String,
}

/// Where an order is.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    Pending,
    Shipped,
    Delivered,
    Cancelled,
}

/// Who placed an order.
#[derive(Serialize, JsonSchema)]
struct Customer {
    /// Full name.
    name: String,
    /// Contact address.
    email: String,
}

/// One line of an order.
#[derive(Serialize, JsonSchema)]
struct Line {
    /// Stock-keeping unit.
    sku: String,
    /// Number of units.
    quantity: u32,
    /// Price of one unit, in cents.
    unit_price_cents: u64,
}

/// An order, with its lines.
#[derive(Serialize, JsonSchema)]
struct Order {
    /// The order's number.
    id: u64,
    /// Where the order is.
    status: Status,
    /// Who placed it.
    customer: Customer,
    /// What was ordered.
    lines: Vec<Line>,
    /// The sum of the lines, in cents.
    total_cents: u64,
}

/// The router is built once and kept, as rmcp's examples do, rather than
/// rebuilt for every request by `#[tool_handler]`'s default `Self::tool_router()`.
#[derive(Clone)]
pub struct Basic {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Basic {
    pub fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    /// Returns the text it is given.
    #[tool(annotations(read_only_hint = true, idempotent_hint = true))]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    /// Looks up an order and returns it with its lines.
    #[tool(annotations(read_only_hint = true, idempotent_hint = true))]
    async fn order(
        &self,
        Parameters(OrderArgs { id, lines }): Parameters<OrderArgs>,
    ) -> Json<Order> {
        let status = match id % 4 {
            0 => Status::Pending,
            1 => Status::Shipped,
            2 => Status::Delivered,
            _ => Status::Cancelled,
        };
        let lines: Vec<Line> = (0..lines)
            .map(|i| Line {
                sku: format!("SKU-{id}-{i:04}"),
                quantity: i % 5 + 1,
                unit_price_cents: 199 + u64::from(i) * 100,
            })
            .collect();
        let total_cents = lines
            .iter()
            .map(|l| u64::from(l.quantity) * l.unit_price_cents)
            .sum();
        Json(Order {
            id,
            status,
            customer: Customer {
                name: format!("Customer {id}"),
                email: format!("customer{id}@example.com"),
            },
            lines,
            total_cents,
        })
    }

    /// Returns the data it is given (the 64 KiB workload).
    #[tool(annotations(read_only_hint = true, idempotent_hint = true))]
    async fn payload(&self, Parameters(PayloadArgs { data }): Parameters<PayloadArgs>) -> String {
        data
    }
}

#[tool_handler(router = self.tool_router, name = "bench-basic")]
impl ServerHandler for Basic {}
