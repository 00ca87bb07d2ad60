use mcp_runtime::tool;

/// Gives one tag without the brackets.
#[tool(tags = "repos")]
async fn not_a_list(owner: String) -> String {
    owner
}

/// A tag that is not a string literal.
#[tool(tags = [repos])]
async fn not_a_string(owner: String) -> String {
    owner
}

/// An empty tag, a padded one and one listed twice.
#[tool(tags = ["repos", "", " read", "repos"])]
async fn bad_tags(owner: String) -> String {
    owner
}

fn main() {}
