use mcp_runtime::resource;

/// A user's profile, but the function does not take the `id`.
#[resource("users://{id}/profile")]
async fn profile() -> String {
    String::new()
}

fn main() {}
