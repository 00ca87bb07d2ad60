//! Doc comments: a function's becomes the description the client reads, a
//! parameter's (or its item in a rustdoc `# Arguments` list) the
//! description of that argument.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// Collects the text of `#[doc = "..."]` attributes, with the common
/// indentation removed (as rustdoc does). With `flatten`, the result is one
/// line, as a property description should be.
pub fn take_docs(attrs: &[Attribute], flatten: bool) -> (String, Vec<Span>) {
    let mut lines = Vec::new();
    let mut spans = Vec::new();
    for attr in attrs {
        if let Meta::NameValue(nv) = &attr.meta
            && nv.path.is_ident("doc")
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
        {
            spans.push(attr.span());
            let value = s.value();
            // `///` alone is `#[doc = ""]`: a blank line that separates paragraphs.
            if value.is_empty() {
                lines.push(String::new());
            }
            lines.extend(value.lines().map(str::to_owned));
        }
    }
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let lines: Vec<&str> = lines
        .iter()
        .map(|l| {
            if l.len() >= indent {
                l[indent..].trim_end()
            } else {
                l.trim()
            }
        })
        .collect();
    let text = if flatten {
        lines
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        lines.join("\n").trim().to_owned()
    };
    (text, spans)
}

/// Splits a rustdoc `# Arguments` (or `# Parameters`) section out of a doc
/// text: returns the remaining description and `(name, description)` pairs
/// from list items such as ``* `city` - The city name.``.
pub fn split_arguments_section(doc: &str) -> (String, Vec<(String, String)>) {
    let mut description = Vec::new();
    let mut arguments: Vec<(String, String)> = Vec::new();
    let mut in_section = false;
    for line in doc.lines() {
        let trimmed = line.trim();
        if let Some(heading) = trimmed.strip_prefix('#') {
            let heading = heading.trim_start_matches('#').trim();
            in_section = heading.eq_ignore_ascii_case("arguments")
                || heading.eq_ignore_ascii_case("parameters");
            if in_section {
                continue;
            }
        }
        if !in_section {
            description.push(line);
            continue;
        }
        if let Some((name, text)) = parse_argument_item(trimmed) {
            arguments.push((name, text));
        } else if !trimmed.is_empty()
            && let Some((_, text)) = arguments.last_mut()
        {
            // A continuation line of the previous item.
            text.push(' ');
            text.push_str(trimmed);
        }
    }
    let description = description.join("\n").trim().to_owned();
    (description, arguments)
}

fn parse_argument_item(line: &str) -> Option<(String, String)> {
    let rest = line
        .strip_prefix("* ")
        .or_else(|| line.strip_prefix("- "))?
        .trim_start();
    let (name, rest) = if let Some(rest) = rest.strip_prefix('`') {
        let end = rest.find('`')?;
        (&rest[..end], &rest[end + 1..])
    } else {
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        (&rest[..end], &rest[end..])
    };
    if name.is_empty() {
        return None;
    }
    let text = rest
        .trim_start()
        .trim_start_matches(['-', ':', '–', '—'])
        .trim();
    Some((name.to_owned(), text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_section() {
        let doc = "Get the forecast.\n\nMore text.\n\n# Arguments\n\n* `city` - The city,\n  for example Paris.\n* days: How many days.\n\n# Examples\n\nnone";
        let (description, args) = split_arguments_section(doc);
        assert_eq!(
            description,
            "Get the forecast.\n\nMore text.\n\n# Examples\n\nnone"
        );
        assert_eq!(
            args,
            vec![
                ("city".to_owned(), "The city, for example Paris.".to_owned()),
                ("days".to_owned(), "How many days.".to_owned()),
            ]
        );
    }
}
