//! `#[tool(ui = "ui://..", visibility = ..)]`: the view (an MCP Apps
//! `ui://` resource) a host renders for the tool's result, and who may
//! call the tool: the model, the view, or both.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::LitStr;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

use crate::common::call::rt;
use crate::common::errors::Errors;
use crate::common::ui::{check_view_uri, meta_sets, parse_str_list};

/// The values `visibility` accepts, each with the `Visibility` variant it
/// names.
const VISIBILITY_VALUES: &[(&str, &str)] = &[("model", "Model"), ("app", "App")];

/// The values `visibility` accepts and what each means, for its messages.
const VISIBILITY_HELP: &str = "expected \"model\" (only the model may call the tool), \"app\" (only its view may call it) or [\"model\", \"app\"] (both, the default)";

/// The `_meta` keys `ui = ..` writes, which a `meta` must leave alone.
const UI_META_KEYS: &[&str] = &["ui", "ui/resourceUri"];

/// The `ui` and `visibility` keys of `#[tool]`.
#[derive(Default)]
pub struct ToolUiArgs {
    /// `ui = "ui://.."`: the view's URI.
    pub uri: Option<LitStr>,
    /// `visibility = ..`: the values as written, and where the key is.
    pub visibility: Option<(Span, Vec<LitStr>)>,
}

impl ToolUiArgs {
    /// Takes `ui` or `visibility`; returns whether `key` was one of them.
    pub fn parse_key(&mut self, key: &str, meta: &ParseNestedMeta) -> syn::Result<bool> {
        match key {
            "ui" => {
                if !meta.input.peek(syn::Token![=]) {
                    return Err(meta.error(
                        "`ui` needs the URI of the tool's view, such as ui = \"ui://weather/forecast\"",
                    ));
                }
                self.uri = Some(meta.value()?.parse()?);
            }
            "visibility" => {
                let span = meta.path.span();
                self.visibility = Some((span, parse_visibility(meta)?));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Checks the URI and the visibility values, and that `meta` (the
    /// tool's `meta = r#".."#`, if any) leaves `_meta.ui` to `ui = ..`.
    pub fn check(&self, meta: Option<&LitStr>, errors: &mut Errors) {
        if let Some(uri) = &self.uri
            && let Err(why) = check_view_uri(&uri.value())
        {
            errors.at(uri.span(), format!("invalid `ui`: {why}"));
        }
        if let Some((span, values)) = &self.visibility {
            if self.uri.is_none() {
                errors.at(
                    *span,
                    "`visibility` says who may call a tool that has a view, but this tool has none; add the view's URI, such as ui = \"ui://weather/forecast\", or remove `visibility`",
                );
            }
            if values.is_empty() {
                errors.at(
                    *span,
                    format!(
                        "`visibility` lists no one, so no one could call the tool; {VISIBILITY_HELP}"
                    ),
                );
            }
            for (i, lit) in values.iter().enumerate() {
                let text = lit.value();
                if !VISIBILITY_VALUES.iter().any(|(name, _)| *name == text) {
                    errors.at(
                        lit.span(),
                        format!("unknown visibility {text:?}; {VISIBILITY_HELP}"),
                    );
                } else if values[..i].iter().any(|earlier| earlier.value() == text) {
                    errors.at(
                        lit.span(),
                        format!("the visibility {text:?} is listed twice; remove one"),
                    );
                }
            }
        }
        if self.uri.is_some()
            && let Some(meta) = meta
            && let Some(key) = meta_sets(meta, UI_META_KEYS)
        {
            errors.at(
                meta.span(),
                format!(
                    "`meta` sets {key:?}, which `ui = ..` writes itself (`_meta.ui.resourceUri`, and the older `_meta[\"ui/resourceUri\"]`); remove {key:?} from `meta`"
                ),
            );
        }
    }

    /// The `ui` field of the tool's definition.
    pub fn tokens(&self) -> TokenStream {
        let rt = rt();
        let Some(uri) = &self.uri else {
            return quote!(::core::option::Option::None);
        };
        let visibility = self
            .visibility
            .iter()
            .flat_map(|(_, values)| values)
            .map(|lit| {
                let text = lit.value();
                let variant = VISIBILITY_VALUES
                    .iter()
                    .find(|(name, _)| *name == text)
                    .map_or("App", |(_, variant)| variant);
                let variant = syn::Ident::new(variant, Span::call_site());
                quote!(#rt::Visibility::#variant)
            });
        quote! {
            ::core::option::Option::Some(#rt::ToolUi {
                resource_uri: #uri,
                visibility: &[#(#visibility),*],
            })
        }
    }
}

/// Parses `visibility = "app"` or `visibility = ["model", "app"]`.
fn parse_visibility(meta: &ParseNestedMeta) -> syn::Result<Vec<LitStr>> {
    if !meta.input.peek(syn::Token![=]) {
        return Err(meta.error(format!(
            "`visibility` needs a value, such as visibility = \"app\"; {VISIBILITY_HELP}"
        )));
    }
    let value = meta.value()?;
    if value.peek(LitStr) {
        return Ok(vec![value.parse()?]);
    }
    if value.peek(syn::token::Bracket) {
        return parse_str_list(value, "visibility = [\"model\", \"app\"]");
    }
    let token: proc_macro2::TokenTree = value.parse()?;
    let text = token.to_string();
    let message = if VISIBILITY_VALUES.iter().any(|(name, _)| *name == text) {
        format!("`visibility` takes a string: write visibility = \"{text}\", in quotes")
    } else {
        format!("`visibility` takes a string or a list of strings; {VISIBILITY_HELP}")
    };
    Err(syn::Error::new(token.span(), message))
}
