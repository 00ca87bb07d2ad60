use mcp_runtime::tool;

/// Lists a user's repositories.
#[tool(tags = ["repos", "read"], read_only)]
async fn list_repos(owner: String) -> String {
    owner
}

/// One tag, with a trailing comma.
#[tool(tags = ["repos",])]
async fn get_repo(owner: String) -> String {
    owner
}

/// No tags at all.
#[tool(tags = [])]
async fn untagged(owner: String) -> String {
    owner
}

fn main() {}
