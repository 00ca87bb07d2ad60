//! Parsing of `#[resource("uri", ...)]`, the checks of the URI and of the
//! template variables against the parameters, and what `#[resource]` says
//! about a misused function.

use proc_macro2::TokenStream;
use syn::LitStr;
use syn::parse::{ParseStream, Parser};

use super::uri::template_variables;
use super::view::{VIEW_MIME_TYPE, ViewArgs};
use crate::common::errors::Errors;
use crate::common::keys::{Metadata, parse_keys};
use crate::common::params::{AnnotatedFn, Rules};

/// The keys `#[resource(...)]` accepts after the URI, in the order the
/// error message lists them.
pub const KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "mime_type",
    "view",
    "icons",
    "meta",
    "scopes",
];

/// What `#[resource]` says about a misused function or parameter.
pub const RULES: Rules = Rules {
    attr: "resource",
    not_generic: "its template variables are parsed into one set of concrete types",
    named_return: "the runtime decides from it how to turn the value into resource contents",
    no_self: "a resource is a free function; share data with `State<T>` instead",
    plain_names: "each name is the name of a variable of the URI template",
    no_cfg: "the URI template's variables must not depend on the build configuration",
    concrete_param: "name a concrete type that implements `FromStr` or `Deserialize`",
    owned_params: "template variables are parsed from the URI into owned values",
    serde_attrs: Some(
        "#[resource] parameters are parsed from the URI's text with `FromStr` (or `Deserialize` for a unit-only enum), so #[serde] and #[schemars] on a parameter have no effect; put them on the type",
    ),
    complete: None,
    header: Some(
        "#[header] applies to #[tool] parameters: only a tool call's arguments are mirrored into HTTP headers",
    ),
};

/// The parsed arguments of `#[resource(...)]`.
#[derive(Default)]
pub struct ResourceArgs {
    /// The URI or URI template; `None` (an error) if missing.
    pub uri: Option<LitStr>,
    /// The template's variables, in order (empty for a plain URI); `None`
    /// if the URI is missing or invalid, which is reported already.
    pub variables: Option<Vec<String>>,
    pub metadata: Metadata,
    pub mime_type: Option<LitStr>,
    /// `view` or `view(...)`: the resource is an MCP Apps view.
    pub view: Option<ViewArgs>,
}

impl ResourceArgs {
    pub fn parse(attr: TokenStream, errors: &mut Errors) -> ResourceArgs {
        let mut args = ResourceArgs::default();
        let split = |input: ParseStream| -> syn::Result<(LitStr, TokenStream)> {
            if !input.peek(LitStr) {
                return Err(input.error(
                    "#[resource] takes the resource's URI first, as a string: #[resource(\"config://app\")], or a template such as #[resource(\"users://{id}/profile\")]",
                ));
            }
            let uri: LitStr = input.parse()?;
            if !input.is_empty() {
                input.parse::<syn::Token![,]>()?;
            }
            Ok((uri, input.parse()?))
        };
        let rest = match split.parse2(attr) {
            Ok((uri, rest)) => {
                args.uri = Some(uri);
                rest
            }
            Err(e) => {
                errors.push(e);
                return args;
            }
        };
        parse_keys("resource", KEYS, rest, errors, |key, meta| {
            match key {
                "mime_type" => args.mime_type = Some(meta.value()?.parse()?),
                "view" => args.view = Some(ViewArgs::parse(meta)?),
                _ => return args.metadata.parse_key(key, meta),
            }
            Ok(true)
        });
        args.check(errors);
        args
    }

    fn check(&mut self, errors: &mut Errors) {
        if let Some(uri) = &self.uri {
            match template_variables(&uri.value()) {
                Ok(variables) => self.variables = Some(variables),
                Err(why) => errors.at(uri.span(), format!("invalid resource URI: {why}")),
            }
        }
        if let Some(view) = &self.view {
            let uri = self.uri.as_ref().filter(|_| self.variables.is_some());
            view.check(
                uri,
                self.mime_type.as_ref(),
                self.metadata.meta.as_ref(),
                errors,
            );
        }
        self.metadata.check_name_not_empty(errors);
        self.metadata.check(errors);
        if let Some(mime) = &self.mime_type
            && self.view.is_none()
            && let Err(why) = check_mime_type(&mime.value())
        {
            errors.at(mime.span(), why);
        }
    }

    /// The MIME type the resource is served as: a view's, else the
    /// `mime_type` key's value.
    pub fn mime_type(&self) -> Option<String> {
        match &self.view {
            Some(_) => Some(VIEW_MIME_TYPE.to_owned()),
            None => self.mime_type.as_ref().map(LitStr::value),
        }
    }

    /// Every template variable must have a parameter of its name, and every
    /// parameter that is not injected must be a variable: the runtime binds
    /// one to the other by name.
    pub fn check_variables(&self, function: &AnnotatedFn, errors: &mut Errors) {
        let (Some(uri), Some(variables)) = (&self.uri, &self.variables) else {
            return;
        };
        let arguments: Vec<_> = function.arguments().collect();
        for variable in variables {
            if !arguments.iter().any(|p| p.name() == *variable) {
                errors.at(
                    uri.span(),
                    format!(
                        "the URI template has the variable `{variable}`, but the function has no parameter `{variable}`; add one, such as `{variable}: String` (any type that implements `FromStr` works)"
                    ),
                );
            }
        }
        for param in arguments {
            let name = param.name();
            if !variables.contains(&name) {
                errors.spanned(
                    &param.ident,
                    format!(
                        "the parameter `{name}` is not a variable of the URI {:?}: each parameter other than `Context` and `State<T>` is bound to the URI template's variable of the same name; add `{{{name}}}` to the URI (`{{+{name}}}` if its value may contain `/`), or remove the parameter",
                        uri.value()
                    ),
                );
            }
        }
    }
}

/// Checks a MIME type's outline: `type/subtype`, optionally followed by
/// `;` parameters.
fn check_mime_type(text: &str) -> Result<(), String> {
    let essence = text.split(';').next().unwrap_or_default().trim();
    let token = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "!#$&^_.+-".contains(c))
    };
    match essence.split_once('/') {
        Some((kind, subtype)) if token(kind) && token(subtype) => Ok(()),
        _ => Err(format!(
            "invalid MIME type {text:?}: write `type/subtype`, such as `image/png`, `text/markdown` or `application/json`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_types() {
        assert!(check_mime_type("image/png").is_ok());
        assert!(check_mime_type("text/plain; charset=utf-8").is_ok());
        assert!(check_mime_type("application/vnd.api+json").is_ok());
        assert!(check_mime_type("png").is_err());
        assert!(check_mime_type("image/").is_err());
        assert!(check_mime_type("/png").is_err());
        assert!(check_mime_type("image/png/x").is_err());
        assert!(check_mime_type("image /png").is_err());
    }
}
