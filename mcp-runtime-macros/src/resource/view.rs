//! `#[resource("ui://..", view(..))]`: the resource is an MCP Apps view,
//! HTML a host renders in a sandboxed frame. `view` alone takes the host's
//! default content security policy; `view(csp(..), permissions = [..],
//! prefers_border = .., domain = "..")` says what the view may reach and
//! use. Every domain is checked here as an origin, so a typo is a compile
//! error rather than a view whose requests the host blocks.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Ident, LitBool, LitStr};

use crate::common::call::{option_str, rt};
use crate::common::errors::Errors;
use crate::common::keys::parse_nested_keys;
use crate::common::ui::{check_view_uri, meta_sets, parse_str_list};

/// The MIME type of a view: hosts render a resource only with it.
pub const VIEW_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The keys `view(...)` accepts, in the order its messages list them.
const VIEW_KEYS: &[&str] = &["csp", "permissions", "prefers_border", "domain"];

/// The keys `csp(...)` accepts, each with its list's example.
const CSP_KEYS: &[(&str, &str)] = &[
    ("connect", "connect = [\"https://api.example.com\"]"),
    ("resources", "resources = [\"https://cdn.example.com\"]"),
    ("frames", "frames = [\"https://player.example.com\"]"),
    ("base_uri", "base_uri = [\"https://example.com\"]"),
];

/// The permissions a view may ask for, each with its `Permission` variant.
const PERMISSIONS: &[(&str, &str)] = &[
    ("camera", "Camera"),
    ("microphone", "Microphone"),
    ("geolocation", "Geolocation"),
    ("clipboard_write", "ClipboardWrite"),
];

/// The schemes a view's requests can use.
const SCHEMES: &[&str] = &["https", "http", "wss", "ws"];

/// The parsed `view` key of `#[resource]`.
pub struct ViewArgs {
    /// `csp(connect = [..], resources = [..], frames = [..], base_uri =
    /// [..])`, in `CSP_KEYS` order.
    csp: [Vec<LitStr>; 4],
    permissions: Vec<Ident>,
    prefers_border: Option<bool>,
    domain: Option<LitStr>,
}

impl ViewArgs {
    /// Parses `view` or `view(...)`.
    pub fn parse(meta: &ParseNestedMeta) -> syn::Result<ViewArgs> {
        let mut view = ViewArgs {
            csp: Default::default(),
            permissions: Vec::new(),
            prefers_border: None,
            domain: None,
        };
        if meta.input.peek(syn::Token![=]) {
            return Err(meta.error(
                "`view` takes no value: write `view` alone for the host's default content security policy, or its settings in parentheses, such as view(csp(connect = [\"https://api.example.com\"]))",
            ));
        }
        if !meta.input.peek(syn::token::Paren) {
            return Ok(view);
        }
        parse_nested_keys(meta, "`view(...)`", VIEW_KEYS, |key, inner| {
            match key {
                "csp" => view.csp = parse_csp(inner)?,
                "permissions" => view.permissions = parse_permissions(inner)?,
                "prefers_border" => {
                    view.prefers_border = Some(if inner.input.peek(syn::Token![=]) {
                        inner.value()?.parse::<LitBool>()?.value
                    } else {
                        true
                    });
                }
                "domain" => view.domain = Some(inner.value()?.parse()?),
                "size" | "width" | "height" | "preferred_size" => {
                    return Err(inner.error(format!(
                        "a view has no `{key}`: it measures itself and tells the host (`ui/notifications/size-changed`), and the host tells it how much room it has; remove `{key}`"
                    )));
                }
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(view)
    }

    /// Checks the view against its resource's URI, `mime_type` and `meta`,
    /// and each of its values. `uri` is `None` if it was refused already.
    pub fn check(
        &self,
        uri: Option<&LitStr>,
        mime_type: Option<&LitStr>,
        meta: Option<&LitStr>,
        errors: &mut Errors,
    ) {
        if let Some(uri) = uri
            && let Err(why) = check_view_uri(&uri.value())
        {
            errors.at(uri.span(), format!("invalid view URI: {why}"));
        }
        if let Some(mime) = mime_type
            && !is_view_type(&mime.value())
        {
            errors.at(
                mime.span(),
                format!(
                    "a `view` is served as {VIEW_MIME_TYPE:?}, the MIME type hosts render, not as {:?}; remove `mime_type`",
                    mime.value()
                ),
            );
        }
        if let Some(meta) = meta
            && let Some(key) = meta_sets(meta, &["ui"])
        {
            errors.at(
                meta.span(),
                format!(
                    "`meta` sets {key:?}, which `view` writes itself from its settings; remove {key:?} from `meta` and say it in view(..)"
                ),
            );
        }
        for (domains, (key, _)) in self.csp.iter().zip(CSP_KEYS) {
            for (i, lit) in domains.iter().enumerate() {
                let text = lit.value();
                if let Err(why) = check_origin(&text) {
                    errors.at(
                        lit.span(),
                        format!("invalid domain in `csp({key} = ..)`: {why}"),
                    );
                } else if domains[..i].iter().any(|earlier| earlier.value() == text) {
                    errors.at(
                        lit.span(),
                        format!("the domain {text:?} is listed twice; remove one"),
                    );
                }
            }
        }
        for (i, permission) in self.permissions.iter().enumerate() {
            if self.permissions[..i].contains(permission) {
                errors.spanned(
                    permission,
                    format!("the permission `{permission}` is listed twice; remove one"),
                );
            }
        }
        if let Some(domain) = &self.domain {
            let text = domain.value();
            if text.trim().is_empty() {
                errors.at(domain.span(), "`domain` must not be empty; leave it out to let the host choose the view's origin");
            } else if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
                errors.at(
                    domain.span(),
                    format!(
                        "invalid `domain` {text:?}: a domain has no spaces or control characters"
                    ),
                );
            }
        }
    }

    /// The `view` field of the resource's definition.
    pub fn tokens(&self) -> TokenStream {
        let rt = rt();
        let [connect, resources, frames, base_uri] = &self.csp;
        let permissions = self.permissions.iter().map(|ident| {
            let name = ident.to_string();
            let variant = PERMISSIONS
                .iter()
                .find(|(known, _)| *known == name)
                .map_or("Camera", |(_, variant)| variant);
            let variant = Ident::new(variant, Span::call_site());
            quote!(#rt::Permission::#variant)
        });
        let prefers_border = match self.prefers_border {
            Some(value) => quote!(::core::option::Option::Some(#value)),
            None => quote!(::core::option::Option::None),
        };
        let domain = option_str(self.domain.as_ref().map(LitStr::value));
        quote! {
            ::core::option::Option::Some(#rt::ViewDef {
                connect_domains: &[#(#connect),*],
                resource_domains: &[#(#resources),*],
                frame_domains: &[#(#frames),*],
                base_uri_domains: &[#(#base_uri),*],
                permissions: &[#(#permissions),*],
                prefers_border: #prefers_border,
                domain: #domain,
            })
        }
    }
}

/// Parses `csp(connect = [..], ...)` into lists in `CSP_KEYS` order.
fn parse_csp(meta: &ParseNestedMeta) -> syn::Result<[Vec<LitStr>; 4]> {
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(
            "`csp` takes its lists of domains in parentheses, such as csp(connect = [\"https://api.example.com\"])",
        ));
    }
    let keys: Vec<&str> = CSP_KEYS.iter().map(|(key, _)| *key).collect();
    let mut csp: [Vec<LitStr>; 4] = Default::default();
    parse_nested_keys(meta, "`csp(...)`", &keys, |key, inner| {
        let Some(at) = CSP_KEYS.iter().position(|(known, _)| *known == key) else {
            return Ok(false);
        };
        csp[at] = parse_str_list(inner.value()?, CSP_KEYS[at].1)?;
        Ok(true)
    })?;
    Ok(csp)
}

/// Parses `permissions = [camera, microphone, ..]`.
fn parse_permissions(meta: &ParseNestedMeta) -> syn::Result<Vec<Ident>> {
    let known = PERMISSIONS
        .iter()
        .map(|(name, _)| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let value = meta.value()?;
    if !value.peek(syn::token::Bracket) {
        return Err(value.error(format!(
            "expected a list of permissions in brackets, even for one, such as permissions = [camera]; each is one of: {known}"
        )));
    }
    let content;
    syn::bracketed!(content in value);
    let items = Punctuated::<Expr, syn::Token![,]>::parse_terminated(&content)?;
    items
        .into_iter()
        .map(|item| permission(item, &known))
        .collect()
}

/// One item of `permissions = [..]`: a known permission's name.
fn permission(item: Expr, known: &str) -> syn::Result<Ident> {
    if let Expr::Path(path) = &item
        && let Some(ident) = path.path.get_ident()
    {
        if PERMISSIONS.iter().any(|(name, _)| ident == name) {
            return Ok(ident.clone());
        }
        return Err(syn::Error::new(
            ident.span(),
            format!("unknown permission `{ident}`; expected one of: {known}"),
        ));
    }
    let message = match &item {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) if PERMISSIONS.iter().any(|(name, _)| lit.value() == *name) => {
            format!("write the permission without quotes: `{}`", lit.value())
        }
        _ => format!("expected a permission, one of: {known}"),
    };
    Err(syn::Error::new(item.span(), message))
}

/// Whether `text` is the view MIME type, ignoring case and the spaces
/// around its parameter (as the runtime does).
fn is_view_type(text: &str) -> bool {
    let normalized: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    normalized.eq_ignore_ascii_case(VIEW_MIME_TYPE)
}

/// Checks that `text` is an origin a content security policy can name:
/// `scheme://host` or `scheme://host:port`, with `http`, `https`, `ws` or
/// `wss`, and `*.` only as the host's first label (any subdomain).
pub fn check_origin(text: &str) -> Result<(), String> {
    let example = "such as \"https://api.example.com\" or \"https://*.example.com\"";
    let Some((scheme, rest)) = text.split_once("://") else {
        return Err(format!(
            "{text:?} is not an origin: write `scheme://host` or `scheme://host:port`, {example}"
        ));
    };
    if !SCHEMES.contains(&scheme) {
        return Err(format!(
            "{text:?} has the scheme `{scheme}`; a view reaches only https, http, wss and ws origins"
        ));
    }
    if let Some(at) = rest.find(['/', '?', '#']) {
        let authority = &rest[..at];
        if &rest[at..] == "/" {
            return Err(format!(
                "{text:?} ends with `/`: an origin has no path; write \"{scheme}://{authority}\""
            ));
        }
        return Err(format!(
            "{text:?} has a path, query or fragment: a content security policy names origins only; write \"{scheme}://{authority}\""
        ));
    }
    if rest.contains('@') {
        return Err(format!(
            "{text:?} has user information (`@`): an origin is `scheme://host[:port]`"
        ));
    }
    let (host, port) = if let Some(inner) = rest.strip_prefix('[') {
        let Some((address, after)) = inner.split_once(']') else {
            return Err(format!(
                "{text:?}: the `[` of its IPv6 address is never closed"
            ));
        };
        if address.is_empty()
            || !address
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
        {
            return Err(format!("{text:?}: `[{address}]` is not an IPv6 address"));
        }
        match after {
            "" => (None, None),
            _ => match after.strip_prefix(':') {
                Some(port) => (None, Some(port)),
                None => return Err(format!("{text:?}: expected `:port` or nothing after `]`")),
            },
        }
    } else {
        match rest.rsplit_once(':') {
            Some((host, port)) => (Some(host), Some(port)),
            None => (Some(rest), None),
        }
    };
    if let Some(port) = port
        && !(port.len() <= 5
            && port.chars().all(|c| c.is_ascii_digit())
            && port.parse::<u16>().is_ok_and(|p| p > 0))
    {
        return Err(format!(
            "{text:?} has the port `{port}`; a port is a number from 1 to 65535"
        ));
    }
    let Some(host) = host else {
        return Ok(());
    };
    let labels = host.strip_prefix("*.").unwrap_or(host);
    if labels.is_empty() {
        return Err(format!("{text:?} has no host, {example}"));
    }
    if labels.contains('*') {
        return Err(format!(
            "{text:?}: `*` may only be the whole first label of the host, as in \"https://*.example.com\" (any subdomain of example.com)"
        ));
    }
    if !labels.is_ascii() {
        return Err(format!(
            "{text:?} has a host that is not ASCII; write it in its punycode form (`xn--...`)"
        ));
    }
    for label in labels.split('.') {
        if label.is_empty() {
            return Err(format!(
                "{text:?} has an empty label in its host (`..`, or a leading or trailing `.`)"
            ));
        }
        if let Some(bad) = label
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '-'))
        {
            return Err(format!(
                "{text:?}: {bad:?} cannot be part of a host name; a host has letters, digits, `-` and `.`"
            ));
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Err(format!(
                "{text:?}: the host's label `{label}` starts or ends with `-`, which a host name cannot"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> String {
        check_origin(text).expect_err(text)
    }

    #[test]
    fn view_types() {
        assert!(is_view_type("text/html;profile=mcp-app"));
        assert!(is_view_type("text/html; profile=mcp-app"));
        assert!(is_view_type("Text/HTML;Profile=MCP-App"));
        assert!(!is_view_type("text/html"));
        assert!(!is_view_type("text/html;profile=other"));
    }

    #[test]
    fn origins() {
        for ok in [
            "https://api.example.com",
            "https://*.example.com",
            "http://localhost:3000",
            "http://127.0.0.1:8080",
            "wss://live.example.com:443",
            "ws://[::1]:9000",
            "https://[2001:db8::1]",
            "https://EXAMPLE.com",
            "https://xn--bcher-kva.example",
        ] {
            assert_eq!(check_origin(ok), Ok(()), "{ok}");
        }
        assert!(refused("api.example.com").contains("not an origin"));
        assert!(refused("ftp://example.com").contains("scheme `ftp`"));
        assert!(refused("HTTPS://example.com").contains("scheme"));
        assert!(refused("https://example.com/").contains("ends with `/`"));
        assert!(refused("https://example.com/api").contains("path"));
        assert!(refused("https://example.com?x=1").contains("path, query"));
        assert!(refused("https://example.com#x").contains("fragment"));
        assert!(refused("https://user@example.com").contains("user information"));
        assert!(refused("https://example.com:0").contains("port"));
        assert!(refused("https://example.com:65536").contains("port"));
        assert!(refused("https://example.com:").contains("port"));
        assert!(refused("https://example.com:http").contains("port"));
        assert!(refused("https://").contains("no host"));
        assert!(refused("https://*.").contains("no host"));
        assert!(refused("https://*").contains("`*`"));
        assert!(refused("https://api.*.example.com").contains("`*`"));
        assert!(refused("https://*example.com").contains("`*`"));
        assert!(refused("https://bücher.example").contains("punycode"));
        assert!(refused("https://a..b").contains("empty label"));
        assert!(refused("https://example.com.").contains("empty label"));
        assert!(refused("https://ex_ample.com").contains("'_'"));
        assert!(refused("https://-a.com").contains("`-`"));
        assert!(refused("https://[::1").contains("never closed"));
        assert!(refused("https://[zz]").contains("IPv6"));
        assert!(refused("https://[::1]x").contains("after `]`"));
    }
}
