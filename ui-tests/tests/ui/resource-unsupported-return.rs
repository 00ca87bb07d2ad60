use mcp_runtime::resource;

struct Settings {
    theme: String,
}

/// Returns a type that is neither text, bytes nor Serialize.
#[resource("config://app")]
async fn settings() -> Option<Settings> {
    Some(Settings { theme: "dark".into() })
}

fn main() {}
