//! `#[complete(path)]` accepts the four shapes of completion function, on
//! prompt arguments and on template variables.

use mcp_runtime::__private::{PromptDef, ResourceDef, inventory};
use mcp_runtime::{Arguments, prompt, resource};

fn plain(prefix: String) -> Vec<String> {
    vec![prefix]
}

async fn asynchronous(prefix: String) -> [&'static str; 1] {
    let _ = prefix;
    ["rust"]
}

fn with_arguments(prefix: String, arguments: Arguments) -> Vec<String> {
    vec![format!("{prefix}{}", arguments.len())]
}

async fn asynchronous_with_arguments(prefix: String, arguments: Arguments) -> Vec<String> {
    arguments
        .iter()
        .map(|(name, value)| format!("{prefix}{name}={value}"))
        .collect()
}

mod completions {
    pub async fn frameworks(prefix: String) -> Vec<String> {
        vec![prefix]
    }
}

/// Every shape.
#[prompt]
async fn scaffold(
    #[complete(plain)] a: String,
    #[complete(asynchronous)] b: String,
    #[complete(with_arguments)] c: Option<String>,
    #[complete(asynchronous_with_arguments)] d: String,
    #[complete(completions::frameworks)] e: String,
) -> String {
    format!("{a}{b}{c:?}{d}{e}")
}

/// A template variable.
#[resource("docs://{language}/{+page}")]
async fn docs(
    #[complete(asynchronous)] language: String,
    #[complete(with_arguments)] page: String,
) -> String {
    format!("{language}/{page}")
}

fn main() {
    let prompt = inventory::iter::<PromptDef>.into_iter().next().unwrap();
    assert!(prompt.arguments.iter().all(|a| a.complete.is_some()));
    let resource = inventory::iter::<ResourceDef>.into_iter().next().unwrap();
    assert!(resource.params.iter().all(|p| p.complete.is_some()));
}
