// A form needs named fields; choices need unit variants; formats are the
// protocol's four; keys are known ones.
use mcp_runtime::Elicit;

#[derive(Elicit)]
struct Pair(String, bool);

#[derive(Elicit)]
enum Shape {
    Circle { radius: f64 },
    Square,
}

#[derive(Elicit)]
struct Contact {
    #[elicit(format = "phone")]
    phone: String,
    #[elicit(placeholder = "Ada")]
    name: String,
    #[elicit(rename = "name")]
    other: String,
}

fn main() {}
