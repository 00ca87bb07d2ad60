use mcp_runtime::resource;

/// Takes a parameter the URI template does not have.
#[resource("users://{id}/profile")]
async fn profile(id: u64, format: String) -> String {
    format!("{id} {format}")
}

fn main() {}
