use mcp_runtime::tool;

#[tool]
async fn echo(value: String) -> String {
    value
}

fn main() {}
