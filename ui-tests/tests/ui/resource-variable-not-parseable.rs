use mcp_runtime::resource;

struct UserId(u64);

/// Binds a variable to a type that cannot be read from text.
#[resource("users://{id}")]
async fn user(id: UserId) -> String {
    id.0.to_string()
}

fn main() {}
