//! The three tools of the basic benchmark server, written with mcp-runtime:
//! an echo tool, a tool with structured output, and a tool taking and
//! returning 64 KiB. Served over stdio by `ours-basic` and over Streamable
//! HTTP by `ours-http`; a module of each binary, since inventory serves
//! every `#[tool]` linked into a binary.

use mcp_runtime::tool;
use schemars::JsonSchema;
use serde::Serialize;

/// Returns the text it is given.
#[tool(read_only, idempotent)]
async fn echo(
    /// The text to return.
    text: String,
) -> String {
    text
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

/// Looks up an order and returns it with its lines.
#[tool(read_only, idempotent)]
async fn order(
    /// The order's number.
    id: u64,
    /// How many lines the order has.
    lines: u32,
) -> Order {
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
    Order {
        id,
        status,
        customer: Customer {
            name: format!("Customer {id}"),
            email: format!("customer{id}@example.com"),
        },
        lines,
        total_cents,
    }
}

/// Returns the data it is given (the 64 KiB workload).
#[tool(read_only, idempotent)]
async fn payload(
    /// Any text.
    data: String,
) -> String {
    data
}
