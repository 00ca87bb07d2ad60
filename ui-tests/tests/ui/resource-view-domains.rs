// Each CSP domain is an origin: `scheme://host[:port]`, http(s) or ws(s),
// `*.` only as the first label, no path; none twice.
use mcp_runtime::resource;

/// Every mistake at once: each domain is checked.
#[resource(
    "ui://weather/forecast",
    view(csp(
        connect = ["https://api.example.com/v1", "api.example.com", "ftp://files.example.com"],
        resources = ["https://cdn.*.example.com", "https://cdn.example.com/"],
        frames = ["https://player.example.com:99999"],
        base_uri = ["https://example.com", "https://example.com"],
    ))
)]
fn forecast() -> &'static str {
    ""
}

fn main() {}
