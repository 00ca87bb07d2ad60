use mcp_runtime::tool;

struct Context;

/// Takes a parameter whose type is named `Context` but is not the runtime's.
#[tool]
async fn greet(ctx: Context, name: String) -> String {
    let _ = ctx;
    name
}

fn main() {}
