//! `view_file!("forecast.html")`: the HTML of a view, embedded with
//! `include_str!` (so a change to the file rebuilds the crate) and named
//! by its absolute path, from which debug builds read it on every call so
//! that a reload of the view shows an edit without a rebuild.

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::LitStr;

/// Expands `view_file!(path)` called from the source file `caller` (as the
/// compiler names it; `None` if it is not a file on disk).
pub fn view_file(input: TokenStream, caller: Option<PathBuf>) -> TokenStream {
    let path: LitStr = match syn::parse2(input.clone()) {
        Ok(path) => path,
        Err(_) => {
            let message = "view_file! takes the path of an HTML file relative to this source file, as a string: view_file!(\"forecast.html\")";
            let error = if input.is_empty() {
                syn::Error::new(proc_macro2::Span::call_site(), message)
            } else {
                syn::Error::new_spanned(input, message)
            };
            return error.to_compile_error();
        }
    };
    if path.value().trim().is_empty() {
        return syn::Error::new(
            path.span(),
            "view_file! needs the path of an HTML file, such as view_file!(\"forecast.html\")",
        )
        .to_compile_error();
    }
    // Spanned at the literal: `include_str!` resolves the path against the
    // file the literal is in, and a missing file is reported there.
    let embedded = quote_spanned!(path.span()=> ::core::include_str!(#path));
    match caller.and_then(|file| on_disk(&file, &path.value())) {
        Some(absolute) => quote!(::mcp_runtime::__private::view_file(#embedded, #absolute)),
        // Not a file on disk (or not UTF-8): the embedded text only.
        None => quote!(::mcp_runtime::apps::Html::from(#embedded)),
    }
}

/// The absolute path of `relative` next to the source file `caller`, as
/// text; `None` if it cannot be written as UTF-8.
fn on_disk(caller: &Path, relative: &str) -> Option<String> {
    let directory = caller.parent()?;
    let joined = directory.join(relative);
    // The compiler names a workspace member's files relative to its working
    // directory, which is the proc macro's too.
    let absolute = if joined.is_absolute() {
        joined
    } else {
        std::env::current_dir().ok()?.join(joined)
    };
    absolute.to_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_made_absolute_next_to_the_caller() {
        let absolute = on_disk(Path::new("/src/app/main.rs"), "views/a.html");
        assert_eq!(absolute.as_deref(), Some("/src/app/views/a.html"));
        let relative = on_disk(Path::new("examples/weather/main.rs"), "forecast.html").unwrap();
        let expected = std::env::current_dir()
            .unwrap()
            .join("examples/weather/forecast.html");
        assert_eq!(relative, expected.to_str().unwrap());
    }

    #[test]
    fn expands_to_the_runtime_call() {
        let tokens = view_file(quote!("forecast.html"), Some("/src/main.rs".into())).to_string();
        assert!(
            tokens.contains("include_str ! (\"forecast.html\")"),
            "{tokens}"
        );
        assert!(tokens.contains("view_file ("), "{tokens}");
        assert!(tokens.contains(", \"/src/forecast.html\")"), "{tokens}");
        let tokens = view_file(quote!("forecast.html"), None).to_string();
        assert!(tokens.contains("Html :: from ("), "{tokens}");
    }
}
