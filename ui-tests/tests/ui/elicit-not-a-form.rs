// `ctx.elicit::<T>()` needs a `T` with `#[derive(Elicit)]` on a struct.
use mcp_runtime::{Context, Elicit, tool};

struct Plain {
    confirm: bool,
}

#[derive(Elicit)]
enum Color {
    Red,
}

/// Asks.
#[tool]
async fn ask(ctx: Context) -> String {
    let _ = ctx.elicit::<Plain>("Sure?").await;
    let _ = ctx.elicit::<Color>("Which?").await;
    String::new()
}

fn main() {}
