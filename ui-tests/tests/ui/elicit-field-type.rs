// A form's fields are flat: a list of text, or a nested struct, is not one.
use mcp_runtime::Elicit;

struct Address {
    street: String,
}

#[derive(Elicit)]
struct Signup {
    name: String,
    nicknames: Vec<String>,
    address: Address,
}

fn main() {}
