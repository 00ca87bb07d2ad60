use mcp_runtime::tool;

struct Service;

impl Service {
    /// Uses self.
    #[tool]
    async fn lookup(&self, city: String) -> String {
        city
    }
}

fn main() {}
