//! The outline of an absolute URI (RFC 3986): a scheme, a colon, and
//! something after it, with no whitespace. Enough to catch a relative path,
//! a missing scheme or a stray space at compile time; the runtime does not
//! need more. View URIs (`ui://`, MCP Apps) get the whole RFC 3986
//! character rule.

/// Checks `text` is an absolute URI; the error says what is wrong.
pub fn check_absolute_uri(text: &str) -> Result<(), String> {
    let rest = strip_scheme(text)?;
    if rest.is_empty() {
        return Err(format!("{text:?} has nothing after its scheme"));
    }
    check_characters(text)
}

/// The text after `scheme:`, or why there is no scheme. A scheme is a
/// letter, then letters, digits, `+`, `-` or `.`.
pub fn strip_scheme(text: &str) -> Result<&str, String> {
    let no_scheme = || {
        format!(
            "{text:?} is not an absolute URI: it must start with a scheme, such as `file:///` or `https://`"
        )
    };
    let Some((scheme, rest)) = text.split_once(':') else {
        return Err(no_scheme());
    };
    let mut chars = scheme.chars();
    let starts_with_letter = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    if !starts_with_letter
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return Err(no_scheme());
    }
    Ok(rest)
}

/// Refuses whitespace and control characters, which a URI never contains.
pub fn check_characters(text: &str) -> Result<(), String> {
    match text
        .char_indices()
        .find(|(_, c)| c.is_whitespace() || c.is_control())
    {
        None => Ok(()),
        Some((at, ' ')) => Err(format!(
            "{text:?} contains a space (at byte {at}); write it percent-encoded, as `%20`"
        )),
        Some((at, c)) => Err(format!(
            "{text:?} contains {c:?} (at byte {at}), which a URI cannot contain; percent-encode it"
        )),
    }
}

/// Refuses what RFC 3986 does not allow in a URI: characters outside its
/// unreserved and reserved sets, and a `%` not followed by two hex digits.
/// Stricter than [`check_characters`], which resource URIs keep (a view's
/// URI is new, so it gets the whole rule).
pub fn check_rfc3986_characters(uri: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "-._~:/?#[]@!$&'()*+,;=%".contains(c);
    if let Some((at, c)) = uri.char_indices().find(|(_, c)| !allowed(*c)) {
        let hint = if c == ' ' {
            "write it percent-encoded, as `%20`"
        } else {
            "percent-encode it"
        };
        return Err(format!(
            "{uri:?} is not a valid URI: it contains {c:?} (at byte {at}), which a URI cannot contain; {hint}"
        ));
    }
    let bytes = uri.as_bytes();
    for (at, _) in uri.match_indices('%') {
        let hex = bytes.get(at + 1..at + 3);
        if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
            return Err(format!(
                "{uri:?} is not a valid URI: the `%` at byte {at} is not followed by two hex digits; a literal `%` is written `%25`"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_uris() {
        assert!(check_absolute_uri("config://app").is_ok());
        assert!(check_absolute_uri("file:///a/b.txt").is_ok());
        assert!(check_absolute_uri("urn:isbn:0451450523").is_ok());
        assert!(check_absolute_uri("data:image/png;base64,AAA=").is_ok());
        assert!(check_absolute_uri("x-my.app+v1:thing").is_ok());
        assert!(check_absolute_uri("").is_err());
        assert!(check_absolute_uri("/etc/passwd").is_err());
        assert!(check_absolute_uri("config").is_err());
        assert!(check_absolute_uri("config:").is_err());
        assert!(check_absolute_uri("1abc://x").is_err());
        assert!(check_absolute_uri("://x").is_err());
        assert!(check_absolute_uri("my app://x").is_err());
        let space = check_absolute_uri("file:///my file").unwrap_err();
        assert!(space.contains("%20"), "{space}");
        assert!(check_absolute_uri("file:///a\tb").is_err());
    }
}
