// Permissions are `camera`, `microphone`, `geolocation` and
// `clipboard_write`, unquoted, once each.
use mcp_runtime::resource;

/// An unknown permission.
#[resource("ui://a", view(permissions = [camera, notifications]))]
fn unknown() -> &'static str {
    ""
}

/// In quotes.
#[resource("ui://b", view(permissions = ["camera"]))]
fn quoted() -> &'static str {
    ""
}

/// Twice.
#[resource("ui://c", view(permissions = [microphone, microphone]))]
fn twice() -> &'static str {
    ""
}

/// Not a list.
#[resource("ui://d", view(permissions = camera))]
fn not_a_list() -> &'static str {
    ""
}

fn main() {}
