// `view(..)` takes `csp`, `permissions`, `prefers_border` and `domain`.
use mcp_runtime::resource;

/// A size, which views do not declare.
#[resource("ui://a", view(size = "400x300"))]
fn size() -> &'static str {
    ""
}

/// A misspelt key.
#[resource("ui://a2", view(border = true))]
fn border() -> &'static str {
    ""
}

/// A key twice.
#[resource("ui://b", view(prefers_border, prefers_border = false))]
fn twice() -> &'static str {
    ""
}

/// A value for `view` itself.
#[resource("ui://c", view = true)]
fn valued() -> &'static str {
    ""
}

/// An empty domain.
#[resource("ui://d", view(domain = ""))]
fn domain() -> &'static str {
    ""
}

/// An unknown key in `csp`.
#[resource("ui://e", view(csp(scripts = ["https://cdn.example.com"])))]
fn scripts() -> &'static str {
    ""
}

/// `csp` without its lists.
#[resource("ui://f", view(csp = "https://api.example.com"))]
fn csp_value() -> &'static str {
    ""
}

/// A `csp` list that is a string.
#[resource("ui://g", view(csp(connect = "https://api.example.com")))]
fn not_a_list() -> &'static str {
    ""
}

fn main() {}
