//! Framing and parsing: a byte stream split into lines exactly as the
//! stdio transport splits stdin (through a tiny read buffer, with a tiny
//! size limit, so line and buffer boundaries meet in every way), then each
//! line classified as the connection classifies it. Checks both against
//! simple models: the lines against `split(b'\n')`, the classification
//! against serde_json's own reading of the line.
//!
//! Input: byte 0 picks the read buffer (1..=32 bytes), byte 1 the size
//! limit (1..=64 bytes, or 1 MiB), the rest is the stream.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_runtime::__fuzz::{Classified, classify_line, split_lines};
use serde::de::IgnoredAny;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let [buffer, limit, stream @ ..] = data else {
        return;
    };
    let buffer = 1 + usize::from(*buffer) % 32;
    let max = if *limit >= 192 {
        1 << 20
    } else {
        1 + usize::from(*limit) % 64
    };
    let lines = split_lines(stream, buffer, max);
    assert_eq!(
        lines,
        model_lines(stream, max),
        "buffer {buffer}, max {max}"
    );
    for line in lines.into_iter().flatten() {
        check_classification(&line);
    }
});

/// What the transport must deliver: every `\n`-terminated line and a last
/// unterminated one, without one trailing `\r`; `None` for lines over `max`.
fn model_lines(stream: &[u8], max: usize) -> Vec<Option<Vec<u8>>> {
    let mut parts: Vec<&[u8]> = stream.split(|&b| b == b'\n').collect();
    let last = parts.pop().unwrap_or_default();
    if !last.is_empty() {
        parts.push(last);
    }
    parts
        .into_iter()
        .map(|part| (part.len() <= max).then(|| part.strip_suffix(b"\r").unwrap_or(part).to_vec()))
        .collect()
}

fn check_classification(line: &[u8]) {
    let classified = classify_line(line);
    let value = serde_json::from_slice::<Value>(line);
    let json = serde_json::from_slice::<IgnoredAny>(line).is_ok();
    let blank = line
        .iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
    match &classified {
        Classified::Blank => assert!(blank, "{classified:?}"),
        // Not JSON, or nested too deep for serde_json as well.
        Classified::ParseError => assert!(!blank && value.is_err(), "{classified:?}"),
        _ => assert!(json, "{classified:?}"),
    }
    // The rest is checked where serde_json can hold the whole line.
    let Ok(value) = value else { return };
    match &classified {
        Classified::Request { id, method } => {
            assert_eq!(value["jsonrpc"], "2.0");
            assert_eq!(value["method"], method.as_str());
            assert_eq!(id_value(id), value["id"], "{classified:?}");
        }
        Classified::Notification { method } => {
            assert_eq!(value["jsonrpc"], "2.0");
            assert_eq!(value["method"], method.as_str());
            assert!(value.get("id").is_none(), "{classified:?}");
        }
        Classified::Response => {
            assert!(value.get("method").is_none());
            assert!(value.get("result").is_some() || value.get("error").is_some());
        }
        Classified::Invalid { id: Some(id) } => {
            assert_eq!(id_value(id), value["id"], "{classified:?}");
        }
        Classified::Invalid { id: None } => {}
        Classified::Batch(items) => {
            assert_eq!(value.as_array().map(Vec::len), Some(items.len()));
        }
        Classified::Blank | Classified::ParseError => unreachable!(),
    }
}

/// An id as a value. Integers beyond 64 bits become floats, as they do in
/// `value`, so the two compare equal.
fn id_value(raw: &str) -> Value {
    let value: Value = serde_json::from_str(raw).expect("an id is JSON");
    assert!(
        value.is_string() || value.is_number() && !raw.contains(['.', 'e', 'E']),
        "id {raw} is neither a string nor an integer"
    );
    value
}
