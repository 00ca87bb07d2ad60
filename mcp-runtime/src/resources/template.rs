//! URI templates for resource templates: the subset of RFC 6570 that MCP
//! servers use, with matching (a concrete URI to its variables) as well as
//! expansion.
//!
//! Two kinds of expression are supported:
//! - `{name}` (level 1): one or more characters, none of them `/`, `?` or
//!   `#`, up to the literal that follows;
//! - `{+name}` (reserved expansion, as in `file:///{+path}`): one or more
//!   characters, `/` included, as many as leave room for what follows.
//!
//! Both values are percent-decoded when matched, and percent-encoded when
//! expanded. A value that is empty, whose percent-encoding is broken (`%zz`)
//! or that decodes to invalid UTF-8 does not match. Every other RFC 6570
//! form (operators such as `{?q}`, lists, modifiers) is refused when the
//! template is parsed, as are templates whose matches would be ambiguous:
//! a variable named twice, or two expressions with nothing between them.
//!
//! Unlike RFC 6570, `{+name}` encodes a `%` in the value (as `%25`) instead
//! of passing percent-encoded triplets through: expansion is then the exact
//! inverse of matching, which decodes.
//!
//! # Why not a crate
//! RFC 6570 defines only expansion, and so do most of its implementations.
//! Looked at on crates.io:
//! - `iri-string` (0.7): its `template` module parses and expands, and
//!   matches nothing;
//! - `uritemplate-next` (0.2, last released 2020) and `uritemplate` (0.1):
//!   expansion only;
//! - `uri-template` (0.1, with `uri-template-core`) and `rfc6570-level-2`
//!   (1.2, last released 2021): parsing and expansion only;
//! - `uri-template-system` (0.1): AGPL-3.0-only, which this MIT/Apache
//!   crate cannot depend on, and despite its description it expands only;
//! - `uri-template-ex` (0.0.2): the one that matches, by compiling the
//!   template to a `regex` (pulling in `regex`, `regex-syntax`,
//!   `parse-display` and `serde_json`), but a level-1 value may be empty and
//!   may only hold unreserved characters and `%` (a raw `:`, `@` or
//!   non-ASCII character fails to match), and it neither refuses ambiguous
//!   templates nor reports parse errors by position.
//!
//! What is needed is small (two kinds of expression, a backtracking match),
//! so it is written here.
//!
//! # Matching
//! The literal before the first expression must start the URI, and the one
//! after the last must end it. In between, a `{name}` takes the shortest
//! value the rest of the template can follow and a `{+name}` the longest,
//! backtracking over the other places where the following literal occurs
//! (so `a/{+p}/end` matches `a/x/end/y/end` with `p` = `x/end/y`). Splits
//! already known not to lead to a match are remembered, so a match takes
//! time polynomial in the URI's length, never exponential.

use std::cmp::Reverse;
use std::collections::HashSet;
use std::fmt;

/// A parsed URI template: literals and `{name}` / `{+name}` expressions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UriTemplate {
    text: String,
    /// The literal before the first expression (the whole text when there
    /// is none).
    prefix: String,
    /// Each expression, with the literal that follows it; that literal is
    /// empty only after the last expression.
    parts: Vec<(Expression, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Expression {
    name: String,
    /// `{+name}`: the value may contain `/` (and `?`, `#`).
    reserved: bool,
    /// Where the expression's `{` is, in characters counted from 1; for
    /// error messages.
    at: usize,
}

/// Why a text is not a supported URI template. Positions count characters
/// from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TemplateError {
    /// A `{` with no `}` before the end or before the next `{`.
    #[error("unbalanced brace: the `{{` at character {at} has no matching `}}`")]
    Unclosed { at: usize },
    /// A `}` outside any expression.
    #[error("unbalanced brace: the `}}` at character {at} closes no `{{`")]
    UnmatchedClose { at: usize },
    /// `{}` or `{+}`.
    #[error("the expression at character {at} has an empty variable name")]
    EmptyName { at: usize },
    /// A name with characters other than `[A-Za-z0-9_]`.
    #[error(
        "invalid variable name `{name}` in the expression at character {at}: \
         names are made of ASCII letters, digits and `_`"
    )]
    InvalidName { name: String, at: usize },
    /// Another RFC 6570 form: an operator, a list or a modifier.
    #[error(
        "unsupported expression `{expression}` at character {at} ({what}): \
         only {{name}} and {{+name}} are supported"
    )]
    Unsupported {
        expression: String,
        what: String,
        at: usize,
    },
    /// The same variable twice.
    #[error("the variable `{name}` appears twice, at characters {first} and {at}")]
    Duplicate {
        name: String,
        first: usize,
        at: usize,
    },
    /// `{a}{b}`: where one value would end and the next begin is ambiguous.
    #[error(
        "the expressions at characters {first} and {at} have nothing between them, \
         so where one value ends and the next begins would be ambiguous"
    )]
    Adjacent { first: usize, at: usize },
}

/// How specific a template is, to choose among several that match the same
/// URI: the greater wins. More literal characters first, then fewer
/// `{+name}` expressions, then (so that the choice never depends on the
/// order templates were registered in) the template text that sorts first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Specificity<'a> {
    literal_chars: usize,
    fewer_reserved: Reverse<usize>,
    text: Reverse<&'a str>,
}

impl UriTemplate {
    /// Parses `text`, refusing what is not a literal, `{name}` or `{+name}`,
    /// and templates whose matches would be ambiguous.
    pub(crate) fn parse(text: &str) -> Result<UriTemplate, TemplateError> {
        let position = |byte: usize| text[..byte].chars().count() + 1;
        let mut template = UriTemplate {
            text: text.to_owned(),
            prefix: String::new(),
            parts: Vec::new(),
        };
        let mut literal_start = 0;
        while let Some(offset) = text[literal_start..].find(['{', '}']) {
            let open = literal_start + offset;
            if text.as_bytes()[open] == b'}' {
                return Err(TemplateError::UnmatchedClose { at: position(open) });
            }
            let close = match text[open + 1..].find(['{', '}']) {
                Some(offset) if text.as_bytes()[open + 1 + offset] == b'}' => open + 1 + offset,
                _ => return Err(TemplateError::Unclosed { at: position(open) }),
            };
            let at = position(open);
            let expression = Expression::parse(&text[open..=close], at)?;
            if let Some((earlier, _)) = template
                .parts
                .iter()
                .find(|(earlier, _)| earlier.name == expression.name)
            {
                return Err(TemplateError::Duplicate {
                    name: expression.name,
                    first: earlier.at,
                    at,
                });
            }
            let literal = &text[literal_start..open];
            match template.parts.last_mut() {
                Some((previous, _)) if literal.is_empty() => {
                    return Err(TemplateError::Adjacent {
                        first: previous.at,
                        at,
                    });
                }
                Some((_, following)) => following.push_str(literal),
                None => template.prefix.push_str(literal),
            }
            template.parts.push((expression, String::new()));
            literal_start = close + 1;
        }
        let literal = &text[literal_start..];
        match template.parts.last_mut() {
            Some((_, following)) => following.push_str(literal),
            None => template.prefix.push_str(literal),
        }
        Ok(template)
    }

    /// The template as written.
    #[cfg(test)]
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether there is at least one expression (otherwise the "template"
    /// is a plain URI, which matches only itself).
    pub(crate) fn is_template(&self) -> bool {
        !self.parts.is_empty()
    }

    /// The variables' names, in the order they appear.
    pub(crate) fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts
            .iter()
            .map(|(expression, _)| expression.name.as_str())
    }

    /// See [`Specificity`].
    pub(crate) fn specificity(&self) -> Specificity<'_> {
        let literal_chars = self.prefix.chars().count()
            + self
                .parts
                .iter()
                .map(|(_, literal)| literal.chars().count())
                .sum::<usize>();
        let reserved = self.parts.iter().filter(|(e, _)| e.reserved).count();
        Specificity {
            literal_chars,
            fewer_reserved: Reverse(reserved),
            text: Reverse(&self.text),
        }
    }

    /// The template with each variable's value percent-encoded in place: a
    /// `{name}` keeps only unreserved characters (`A-Za-z0-9-._~`), a
    /// `{+name}` reserved ones (`:/?#[]@!$&'()*+,;=`) too. A variable not in
    /// `vars` expands to nothing (which then does not match).
    #[cfg(test)]
    pub(crate) fn expand(&self, vars: &[(&str, &str)]) -> String {
        let mut uri = self.prefix.clone();
        for (expression, literal) in &self.parts {
            if let Some((_, value)) = vars.iter().find(|(name, _)| *name == expression.name) {
                encode(value, expression.reserved, &mut uri);
            }
            uri.push_str(literal);
        }
        uri
    }

    /// If `uri` is an instance of the template, each variable's name and
    /// percent-decoded value, in the template's order. See the module
    /// documentation for the rules.
    pub(crate) fn matches(&self, uri: &str) -> Option<Vec<(&str, String)>> {
        if self.parts.is_empty() {
            return (uri == self.prefix).then(Vec::new);
        }
        uri.strip_prefix(self.prefix.as_str())?;
        let subject = Subject::new(uri);
        let mut dead_ends = HashSet::new();
        let mut values = self.bind(&subject, 0, self.prefix.len(), &mut dead_ends)?;
        // `bind` collects the values from the last expression back.
        values.reverse();
        Some(self.variables().zip(values).collect())
    }

    /// Matches the expressions from `index` on against `uri[start..]`;
    /// their decoded values, last first. `dead_ends` holds the
    /// `(index, start)` pairs already known to match nothing.
    fn bind(
        &self,
        subject: &Subject<'_>,
        index: usize,
        start: usize,
        dead_ends: &mut HashSet<(usize, usize)>,
    ) -> Option<Vec<String>> {
        let (expression, literal) = &self.parts[index];
        let rest = &subject.uri[start..];
        if index + 1 == self.parts.len() {
            // The last literal ends the URI, so the value is what precedes it.
            let raw = rest.strip_suffix(literal.as_str())?;
            let end = start + raw.len();
            return (expression.may_be(raw) && subject.well_encoded(start, end))
                .then(|| decode(raw))
                .flatten()
                .map(|value| vec![value]);
        }
        if dead_ends.contains(&(index, start)) {
            return None;
        }
        // Where the value may end: before an occurrence of the literal, at
        // least one character in, and for `{name}` not past a `/`, `?` or
        // `#`. Shortest first for `{name}`, longest first for `{+name}`.
        let candidates = occurrences(rest, literal).filter(|&end| end > 0);
        let ends: Vec<usize> = if expression.reserved {
            let mut ends: Vec<usize> = candidates.collect();
            ends.reverse();
            ends
        } else {
            let limit = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            candidates.take_while(|&end| end <= limit).collect()
        };
        for end in ends {
            if !subject.well_encoded(start, start + end) {
                continue;
            }
            let next = start + end + literal.len();
            let Some(mut values) = self.bind(subject, index + 1, next, dead_ends) else {
                continue;
            };
            // Decoded only once the rest matched: most candidates never are.
            if let Some(value) = decode(&rest[..end]) {
                values.push(value);
                return Some(values);
            }
        }
        dead_ends.insert((index, start));
        None
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Expression {
    /// Parses `{...}` (braces included), which starts at character `at`.
    fn parse(source: &str, at: usize) -> Result<Expression, TemplateError> {
        let inner = &source[1..source.len() - 1];
        let unsupported = |what: String| TemplateError::Unsupported {
            expression: source.to_owned(),
            what,
            at,
        };
        let (reserved, name) = match inner.strip_prefix('+') {
            Some(name) => (true, name),
            None => (false, inner),
        };
        // The other operators, and those RFC 6570 reserves for later.
        if let Some(operator) = inner.chars().next().filter(|c| "#./;?&=!@|".contains(*c)) {
            return Err(unsupported(format!("the `{operator}` operator")));
        }
        if name.contains(',') {
            return Err(unsupported("a list of variables".to_owned()));
        }
        if name.contains('*') {
            return Err(unsupported("the `*` modifier".to_owned()));
        }
        if name.contains(':') {
            return Err(unsupported("a prefix modifier `:N`".to_owned()));
        }
        if name.is_empty() {
            return Err(TemplateError::EmptyName { at });
        }
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(TemplateError::InvalidName {
                name: name.to_owned(),
                at,
            });
        }
        Ok(Expression {
            name: name.to_owned(),
            reserved,
            at,
        })
    }

    /// Whether the raw (still encoded) text may be this expression's value,
    /// percent-encoding aside.
    fn may_be(&self, raw: &str) -> bool {
        !raw.is_empty() && (self.reserved || !raw.contains(['/', '?', '#']))
    }
}

/// A URI being matched, with what makes checking the percent-encoding of
/// any of its slices take constant time.
struct Subject<'a> {
    uri: &'a str,
    /// `broken[i]`: how many `%` before byte `i` are not followed by two hex
    /// digits. Empty when the URI has no `%`.
    broken: Vec<usize>,
}

impl<'a> Subject<'a> {
    fn new(uri: &'a str) -> Subject<'a> {
        if !uri.contains('%') {
            return Subject {
                uri,
                broken: Vec::new(),
            };
        }
        let bytes = uri.as_bytes();
        let mut broken = Vec::with_capacity(bytes.len() + 1);
        let mut count = 0;
        broken.push(count);
        for (i, &byte) in bytes.iter().enumerate() {
            if byte == b'%' && !is_triplet(&bytes[i..]) {
                count += 1;
            }
            broken.push(count);
        }
        Subject { uri, broken }
    }

    /// Whether every `%` in `uri[start..end]` starts a triplet (`%` and two
    /// hex digits) that ends inside it. Hex digits are never `%`, so these
    /// triplets are the ones a decoder reading left to right would find.
    fn well_encoded(&self, start: usize, end: usize) -> bool {
        if self.broken.is_empty() {
            return true;
        }
        let bytes = self.uri.as_bytes();
        self.broken[end] == self.broken[start]
            && !(end > start && bytes[end - 1] == b'%')
            && !(end > start + 1 && bytes[end - 2] == b'%')
    }
}

fn is_triplet(bytes: &[u8]) -> bool {
    matches!(bytes, [b'%', high, low, ..] if high.is_ascii_hexdigit() && low.is_ascii_hexdigit())
}

/// Where `needle` (not empty) starts in `haystack`, overlapping occurrences
/// included, in increasing order.
fn occurrences<'h>(haystack: &'h str, needle: &'h str) -> impl Iterator<Item = usize> + 'h {
    let step = needle.chars().next().map_or(1, char::len_utf8);
    let mut from = 0;
    std::iter::from_fn(move || {
        let found = from + haystack.get(from..)?.find(needle)?;
        from = found + step;
        Some(found)
    })
}

/// Percent-decodes `raw`: `None` when a `%` is not followed by two hex
/// digits, or the bytes are not UTF-8.
fn decode(raw: &str) -> Option<String> {
    if !raw.contains('%') {
        return Some(raw.to_owned());
    }
    let bytes = raw.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if !is_triplet(&bytes[i..]) {
                return None;
            }
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

/// Appends `value` percent-encoded: every byte but unreserved characters,
/// and with `reserved` also reserved ones, becomes `%XX`.
#[cfg(test)]
fn encode(value: &str, reserved: bool, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &byte in value.as_bytes() {
        let keep = byte.is_ascii_alphanumeric()
            || b"-._~".contains(&byte)
            || (reserved && b":/?#[]@!$&'()*+,;=".contains(&byte));
        if keep {
            out.push(char::from(byte));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xF)]));
        }
    }
}

#[cfg(test)]
mod tests;
