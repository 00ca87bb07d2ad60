//! An independent model of what the server must answer to a sequence of
//! lines, shared by the property tests (`tests/properties.rs`) and the
//! dispatch fuzz target (`fuzz/fuzz_targets/dispatch.rs`).
//!
//! It reads each line with serde_json on its own terms and predicts, per
//! response id, how many responses may come: exactly one for a well-formed
//! request, none for a notification or a client's response, one with a
//! `null` id for a line that is not JSON. Where the model cannot be sure
//! (numbers serde_json will not hold, very deep nesting, calls named by a
//! later cancel), it allows a range instead of guessing.

#![allow(dead_code)]

/// The tools both users serve (collected by inventory once linked).
pub mod tools;

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// The members a message is read from; a repeat of one makes the object
/// not a message.
const KNOWN: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];

/// Nesting below which the model trusts serde_json's reading of a line (the
/// server's limit is 128; serde_json's own recursion limit is close to it).
const TRUSTED_DEPTH: usize = 100;

/// The key responses are counted under: `"null"` or the id as JSON text
/// after a round trip through `Value` (so `"\u0061"` and `"a"` are one key).
pub fn key_of(id: &Value) -> String {
    id.to_string()
}

fn key_of_raw(raw: &str) -> String {
    serde_json::from_str::<Value>(raw)
        .map(|v| key_of(&v))
        .unwrap_or_else(|_| raw.to_owned())
}

/// How many responses may come under one key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    pub min: usize,
    pub max: usize,
}

/// What the model expects of the whole exchange.
#[derive(Debug, Default)]
pub struct Expectation {
    pub bounds: BTreeMap<String, Bounds>,
    /// Batch lines: each may be answered by at most one array.
    pub batches: usize,
    /// Keys of `tools/call` requests, which a cancel may silence.
    calls: Vec<String>,
    /// Keys named by `notifications/cancelled`.
    cancelled: Vec<String>,
}

impl Expectation {
    fn exactly(&mut self, key: String) {
        let b = self.bounds.entry(key).or_default();
        b.min += 1;
        b.max += 1;
    }

    fn maybe(&mut self, key: String) {
        self.bounds.entry(key).or_default().max += 1;
    }

    /// A call may be silenced by a cancel naming its id; loosen its minimum.
    fn finish(&mut self) {
        for key in &self.cancelled {
            let calls = self.calls.iter().filter(|k| *k == key).count();
            if let Some(b) = self.bounds.get_mut(key) {
                b.min = b.min.saturating_sub(calls);
            }
        }
    }
}

/// Whether the session serves batches: `Some(true)` for 2025-03-26,
/// `Some(false)` for other versions and before `initialize`... unless an
/// `initialize` inside the exchange may change it, in which case `None`.
pub type BatchSupport = Option<bool>;

/// The model's reading of one line.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// Empty or JSON whitespace only: ignored.
    Blank,
    /// Not UTF-8 or not JSON at all: one -32700 with a null id.
    NotJson,
    /// JSON, but the model cannot predict the answer exactly: at most one
    /// response, with the id (if one can be read) or null.
    Unsure { id: Option<String> },
    /// One error response with this id (`None`: null).
    Invalid { id: Option<String> },
    /// A well-formed request: exactly one response with this id.
    Request { id: String, method: String },
    /// A notification, or a response from the client: no answer.
    Silent { cancels: Option<String> },
    /// An array.
    Batch(Vec<Reading>),
}

/// Reads one line (without its newline).
pub fn read_line(line: &[u8]) -> Reading {
    let Ok(text) = std::str::from_utf8(line) else {
        return Reading::NotJson;
    };
    if text
        .bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    {
        return Reading::Blank;
    }
    if serde_json::from_str::<IgnoredAny>(text).is_err() {
        return Reading::NotJson;
    }
    // Where serde_json cannot hold the line as a `Value` (a number out of
    // range, deep nesting), the answer is not predicted exactly; the id, if
    // one can be read, may still be echoed.
    let unsure = || Reading::Unsure {
        id: readable_id(text),
    };
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return unsure();
    };
    if depth(&value) > TRUSTED_DEPTH {
        return unsure();
    }
    match value {
        Value::Array(items) => {
            // Re-read each item from its own text (members may repeat).
            let raws: Vec<Box<RawValue>> = match serde_json::from_str(text) {
                Ok(raws) => raws,
                Err(_) => return Reading::Unsure { id: None },
            };
            debug_assert_eq!(raws.len(), items.len());
            Reading::Batch(raws.iter().map(|raw| read_message(raw.get())).collect())
        }
        _ => read_message(text),
    }
}

fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// The top-level members of an object, in order, repeats kept.
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> serde::Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    members.push((key, map.next_value::<Box<RawValue>>()?));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(V)
    }
}

/// The id of an object whose members can be read, if it is a valid one.
fn readable_id(text: &str) -> Option<String> {
    let Members(members) = serde_json::from_str::<Members>(text).ok()?;
    let mut ids = members.iter().filter(|(k, _)| k == "id");
    let (_, id) = ids.next()?;
    (ids.next().is_none() && valid_id(id.get())).then(|| key_of_raw(id.get()))
}

/// A request id must be a string or an integer (any size).
fn valid_id(raw: &str) -> bool {
    if raw.starts_with('"') {
        return true;
    }
    let digits = raw.strip_prefix('-').unwrap_or(raw);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Reads one message (an array item or a whole line) already known to be
/// JSON that serde_json holds as a `Value`.
fn read_message(text: &str) -> Reading {
    let Ok(Members(members)) = serde_json::from_str::<Members>(text) else {
        // Not an object: invalid, and there is no id to read.
        return Reading::Invalid { id: None };
    };
    for name in KNOWN {
        if members.iter().filter(|(k, _)| k == name).count() > 1 {
            return Reading::Invalid { id: None };
        }
    }
    let get = |name: &str| {
        members
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.get())
    };
    let id = get("id");
    let readable = id.filter(|raw| valid_id(raw)).map(key_of_raw);
    if get("jsonrpc") != Some("\"2.0\"") {
        return Reading::Invalid { id: readable };
    }
    let Some(method) = get("method") else {
        if id.is_some() && (get("result").is_some() || get("error").is_some()) {
            return Reading::Silent { cancels: None };
        }
        return Reading::Invalid { id: readable };
    };
    let Ok(method) = serde_json::from_str::<String>(method) else {
        return Reading::Invalid { id: readable };
    };
    match (id, readable) {
        (None, _) => {
            let cancels = (method == "notifications/cancelled")
                .then(|| get("params"))
                .flatten()
                .and_then(|p| serde_json::from_str::<Value>(p).ok())
                .and_then(|p| p.get("requestId").cloned())
                .map(|id| key_of(&id));
            Reading::Silent { cancels }
        }
        (Some(_), Some(id)) => Reading::Request { id, method },
        (Some(_), None) => Reading::Invalid { id: None },
    }
}

/// Predicts the answers to `lines`, sent in order to a session that serves
/// batches or not (`None`: unknown).
pub fn expect(lines: &[Vec<u8>], batches: BatchSupport) -> Expectation {
    let mut expectation = Expectation::default();
    let null = key_of(&Value::Null);
    for line in lines {
        match read_line(line) {
            Reading::Blank => {}
            Reading::NotJson => expectation.exactly(null.clone()),
            Reading::Batch(items) => {
                expectation.batches += 1;
                match batches {
                    Some(false) => expectation.exactly(null.clone()),
                    _ if items.is_empty() => expectation.exactly(null.clone()),
                    Some(true) => {
                        for item in items {
                            single(&mut expectation, item, true);
                        }
                    }
                    None => {
                        // Either one error for the whole array, or answers
                        // for its items: allow both.
                        expectation.maybe(null.clone());
                        for item in items {
                            single(&mut expectation, item, false);
                        }
                    }
                }
            }
            reading => single(&mut expectation, reading, true),
        }
    }
    expectation.finish();
    expectation
}

fn single(expectation: &mut Expectation, reading: Reading, sure: bool) {
    let null = key_of(&Value::Null);
    match reading {
        Reading::Blank => {}
        Reading::NotJson | Reading::Batch(_) => expectation.maybe(null),
        Reading::Unsure { id } => {
            expectation.maybe(id.unwrap_or_else(|| null.clone()));
            // A response with a null id is possible too (as a parse error).
            expectation.maybe(null);
        }
        Reading::Invalid { id } => {
            let key = id.unwrap_or(null);
            if sure {
                expectation.exactly(key)
            } else {
                expectation.maybe(key)
            }
        }
        Reading::Request { id, method } => {
            if method == "tools/call" {
                expectation.calls.push(id.clone());
            }
            if sure {
                expectation.exactly(id)
            } else {
                expectation.maybe(id)
            }
        }
        Reading::Silent { cancels } => {
            if let Some(key) = cancels {
                expectation.cancelled.push(key);
            }
        }
    }
}

/// Checks the server's messages against the expectation; `Err` says what
/// broke. Arrays (batch answers) are checked item by item.
pub fn check(expectation: &Expectation, messages: &[Value]) -> Result<(), String> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut arrays = 0;
    for message in messages {
        match message {
            Value::Array(items) => {
                arrays += 1;
                if items.is_empty() {
                    return Err("an empty array was sent".into());
                }
                for item in items {
                    let key = check_response(item)?;
                    *counts.entry(key).or_default() += 1;
                }
            }
            Value::Object(object) if object.contains_key("method") => {
                check_notification(message)?;
            }
            _ => {
                let key = check_response(message)?;
                *counts.entry(key).or_default() += 1;
            }
        }
    }
    if arrays > expectation.batches {
        return Err(format!(
            "{arrays} arrays answered {} batches",
            expectation.batches
        ));
    }
    for (key, count) in &counts {
        let bounds = expectation.bounds.get(key).copied().unwrap_or_default();
        if *count < bounds.min || *count > bounds.max {
            return Err(format!(
                "{count} responses with id {key}, expected {}..={}",
                bounds.min, bounds.max
            ));
        }
    }
    for (key, bounds) in &expectation.bounds {
        if bounds.min > 0 && !counts.contains_key(key) {
            return Err(format!(
                "no response with id {key}, expected {}..={}",
                bounds.min, bounds.max
            ));
        }
    }
    Ok(())
}

/// A response: `jsonrpc` 2.0, an id, exactly one of `result` and `error`
/// (an error with an integer code and a string message). Returns its key.
pub fn check_response(message: &Value) -> Result<String, String> {
    let object = message
        .as_object()
        .ok_or_else(|| format!("not an object: {message}"))?;
    if object.get("jsonrpc") != Some(&Value::from("2.0")) {
        return Err(format!("no jsonrpc 2.0: {message}"));
    }
    let id = object
        .get("id")
        .ok_or_else(|| format!("no id: {message}"))?;
    if !(id.is_null() || id.is_string() || id.is_number()) {
        return Err(format!("bad id: {message}"));
    }
    match (object.get("result"), object.get("error")) {
        (Some(_), None) => {}
        (None, Some(error)) => {
            if !error["code"].is_i64() || !error["message"].is_string() {
                return Err(format!("malformed error: {message}"));
            }
        }
        _ => return Err(format!("not exactly one of result and error: {message}")),
    }
    if object
        .keys()
        .any(|k| !matches!(k.as_str(), "jsonrpc" | "id" | "result" | "error"))
    {
        return Err(format!("unexpected member: {message}"));
    }
    Ok(key_of(id))
}

fn check_notification(message: &Value) -> Result<(), String> {
    let method = message["method"].as_str().unwrap_or_default();
    if message.get("id").is_some() || !method.starts_with("notifications/") {
        return Err(format!("the server sent a request: {message}"));
    }
    Ok(())
}
