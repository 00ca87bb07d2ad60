use mcp_runtime::resource;

const LANGUAGES: [&str; 2] = ["rust", "go"];

/// Names a constant where a completion function belongs.
#[resource("docs://{language}/intro")]
async fn intro(#[complete(LANGUAGES)] language: String) -> String {
    language
}

fn main() {}
