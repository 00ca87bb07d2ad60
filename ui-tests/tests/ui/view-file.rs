// `view_file!` takes one path, as a string, of a file that exists.
use mcp_runtime::apps::Html;
use mcp_runtime::view_file;

fn missing() -> Html {
    view_file!("no-such-view.html")
}

fn not_a_string() -> Html {
    view_file!(forecast.html)
}

fn empty() -> Html {
    view_file!("")
}

fn main() {}
