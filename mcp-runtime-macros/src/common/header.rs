//! `#[header("Name")]` on a `#[tool]` parameter: the parameter is mirrored
//! into the HTTP header `Mcp-Param-Name` (the 2026-07-28 era's
//! `x-mcp-header`). Checked here: the name is an HTTP token (RFC 9110
//! `tchar`s), written once per parameter, on an argument, and no two
//! parameters share it (case-insensitively, as header names compare). The
//! parameter's type is checked by the expansion, with a trait bound.

use syn::{Attribute, LitStr};

use super::errors::Errors;

/// The header name of a parameter's `#[header("...")]` attributes (`attrs`),
/// where the attribute applies and is written once with a valid name.
/// `refusal`: why `#[header]` is refused on every parameter of this
/// attribute, if it is (see `params::Rules::header`); `injected`: the
/// parameter is one the runtime injects.
pub fn parse_header(
    attrs: &[Attribute],
    injected: bool,
    refusal: Option<&'static str>,
    errors: &mut Errors,
) -> Option<LitStr> {
    let first = attrs.first()?;
    if let Some(refusal) = refusal {
        errors.spanned(first, refusal);
        return None;
    }
    if injected {
        errors.spanned(
            first,
            "#[header] does not apply here: this parameter is injected by the runtime, not given by the client; put it on a parameter that is not `Context` or `State<T>`",
        );
        return None;
    }
    for extra in &attrs[1..] {
        errors.spanned(
            extra,
            "a parameter is mirrored into one header: remove the second #[header(...)]",
        );
    }
    let Ok(name) = first.parse_args::<LitStr>() else {
        errors.spanned(
            first,
            "#[header(...)] takes the header's name as a string, such as #[header(\"Region\")] for the header `Mcp-Param-Region`",
        );
        return None;
    };
    match check_name(&name.value()) {
        Ok(()) => Some(name),
        Err(why) => {
            errors.spanned(&name, why);
            None
        }
    }
}

/// Checks a header name against RFC 9110's `token` (`1*tchar`).
pub fn check_name(name: &str) -> Result<(), String> {
    const HELP: &str = "a header name is an HTTP token: ASCII letters, digits and any of !#$%&'*+-.^_`|~, such as \"Region\"";
    if name.is_empty() {
        return Err(format!("the header name is empty; {HELP}"));
    }
    match name.chars().find(|c| !is_tchar(*c)) {
        Some(bad) => Err(format!(
            "invalid header name {name:?}: {bad:?} is not allowed; {HELP}"
        )),
        None => Ok(()),
    }
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Refuses two parameters mirrored into the same header (`headers`, the
/// names of a function's parameters in order): names compare
/// case-insensitively, as HTTP's do.
pub fn check_unique<'a>(headers: impl IntoIterator<Item = &'a LitStr>, errors: &mut Errors) {
    let headers: Vec<&LitStr> = headers.into_iter().collect();
    for (at, later) in headers.iter().enumerate() {
        let name = later.value();
        if let Some(earlier) = headers[..at]
            .iter()
            .find(|h| h.value().eq_ignore_ascii_case(&name))
        {
            errors.spanned(
                later,
                format!(
                    "two parameters are mirrored into the header `Mcp-Param-{name}` (header names are case-insensitive, and {:?} is already used); give each parameter a header of its own",
                    earlier.value()
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_names_are_tokens() {
        assert!(check_name("Region").is_ok());
        assert!(check_name("x-Tenant_ID.2").is_ok());
        assert!(check_name("!#$%&'*+-.^_`|~").is_ok());
        assert!(check_name("").is_err());
        assert!(check_name("has space").is_err());
        assert!(check_name("colon:").is_err());
        assert!(check_name("line\nbreak").is_err());
        assert!(check_name("Région").is_err());
    }
}
