use mcp_runtime::resource;

#[derive(Debug)]
struct LoadError;

/// Returns an error the client cannot be told about.
#[resource("config://app")]
fn settings() -> Result<String, LoadError> {
    Err(LoadError)
}

fn main() {}
