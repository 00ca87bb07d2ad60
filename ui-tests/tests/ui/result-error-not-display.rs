use mcp_runtime::tool;

#[derive(Debug)]
enum LookupError {
    NotFound,
}

/// Returns a `Result` whose error type does not implement `Display`.
#[tool]
async fn lookup(city: String) -> Result<String, LookupError> {
    if city.is_empty() {
        Err(LookupError::NotFound)
    } else {
        Ok(city)
    }
}

fn main() {}
