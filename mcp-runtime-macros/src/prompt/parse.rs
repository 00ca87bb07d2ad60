//! Parsing of `#[prompt(...)]`, and what `#[prompt]` says about a misused
//! function.

use proc_macro2::TokenStream;

use crate::common::errors::Errors;
use crate::common::keys::{Metadata, parse_keys};
use crate::common::params::Rules;

/// The keys `#[prompt(...)]` accepts, in the order the error message lists them.
pub const KEYS: &[&str] = &["name", "title", "description", "icons", "meta", "scopes"];

/// What `#[prompt]` says about a misused function or parameter.
pub const RULES: Rules = Rules {
    attr: "prompt",
    not_generic: "its arguments are parsed into one set of concrete types",
    named_return: "the runtime decides from it how to turn the value into messages",
    no_self: "a prompt is a free function; share data with `State<T>` instead",
    plain_names: "the name becomes the argument's name",
    no_cfg: "the list of arguments must not depend on the build configuration",
    concrete_param: "name a concrete type that implements `FromStr` or `Deserialize`",
    owned_params: "arguments are parsed from text into owned values",
    serde_attrs: Some(
        "#[prompt] arguments are parsed from text with `FromStr` (or `Deserialize` for a unit-only enum), so #[serde] and #[schemars] on a parameter have no effect; put them on the type",
    ),
    complete: None,
    header: Some(
        "#[header] applies to #[tool] parameters: only a tool call's arguments are mirrored into HTTP headers",
    ),
};

/// The parsed arguments of `#[prompt(...)]`: only the shared keys.
pub fn parse_args(attr: TokenStream, errors: &mut Errors) -> Metadata {
    let mut metadata = Metadata::default();
    parse_keys("prompt", KEYS, attr, errors, |key, meta| {
        metadata.parse_key(key, meta)
    });
    metadata.check_name_not_empty(errors);
    metadata.check(errors);
    metadata
}
