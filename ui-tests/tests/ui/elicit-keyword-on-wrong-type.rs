// `min_length` applies to text, `maximum` to numbers, `min_items` to lists.
use mcp_runtime::Elicit;

#[derive(Elicit)]
enum Color {
    Red,
    Green,
}

#[derive(Elicit)]
struct Settings {
    #[elicit(min_length = 2)]
    enabled: bool,
    #[elicit(maximum = 10)]
    name: String,
    #[elicit(min_items = 1)]
    color: Color,
}

fn main() {}
