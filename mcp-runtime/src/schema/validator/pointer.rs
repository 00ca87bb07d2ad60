//! JSON Pointers: to the value at fault in an error, and to a place in the
//! schema (for `$ref`s and for the messages of refused schemas).

pub(super) fn escape(segment: &str, into: &mut String) {
    // Nearly every segment is a keyword or a property name with neither.
    if !segment.contains(['~', '/']) {
        into.push_str(segment);
        return;
    }
    for c in segment.chars() {
        match c {
            '~' => into.push_str("~0"),
            '/' => into.push_str("~1"),
            c => into.push(c),
        }
    }
}

pub(super) fn join(location: &str, segment: &str) -> String {
    let mut out = String::with_capacity(location.len() + segment.len() + 1);
    out.push_str(location);
    out.push('/');
    escape(segment, &mut out);
    out
}

pub(super) fn shown(location: &str) -> String {
    if location.is_empty() {
        "the root".to_owned()
    } else {
        format!("`{location}`")
    }
}

pub(crate) fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}
