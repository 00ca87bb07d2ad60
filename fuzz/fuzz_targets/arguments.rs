//! Argument validation: arbitrary JSON arguments for tools whose schemas
//! use what `#[tool]` parameters can express (ranges, lengths, patterns,
//! enums of every tagging, options, defaults, renames, flatten, maps,
//! tuples, arrays, nested structs), called through `Registry::call`.
//!
//! Checks, for every input:
//! - arguments the input schema accepts deserialize into the parameters
//!   (otherwise a client following the schema is refused), except numbers
//!   beyond the parameter type's range, which are refused by validation,
//!   with their path;
//! - the tool body sees only values its schema promises (each body checks
//!   its constraints and reports a violation);
//! - arguments the schema refuses get the validator's message, and the
//!   tool never runs;
//! - what the published input schema (compiled on its own through the
//!   `__fuzz` hook) refuses, the call refuses too.
//!
//! Input: byte 0 picks the tool; the rest is JSON if it parses as JSON,
//! otherwise it drives a small generator of JSON values.

#![no_main]
// The parameter types exist for their schemas; the tool bodies read only
// what they check.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::OnceLock;

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use mcp_runtime::__fuzz::InputSchema;
use mcp_runtime::{Registry, Server, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

fn violation(what: impl std::fmt::Display) -> Result<String, String> {
    Err(format!("VIOLATION: {what}"))
}

/// Numbers of every width, with a range.
#[tool]
async fn numbers(
    /// 1 to 7.
    #[schemars(range(min = 1, max = 7))]
    small: u8,
    /// A signed 16-bit integer.
    signed: i16,
    /// An unsigned 64-bit integer.
    big: u64,
    /// A 32-bit float.
    ratio: f32,
    /// Optional, -100 to 100.
    #[schemars(range(min = -100, max = 100))]
    maybe: Option<i32>,
    /// Defaults to 0.
    #[serde(default)]
    count: u32,
) -> Result<String, String> {
    if !(1..=7).contains(&small) {
        return violation(format!("small = {small}"));
    }
    if maybe.is_some_and(|m| !(-100..=100).contains(&m)) {
        return violation(format!("maybe = {maybe:?}"));
    }
    Ok(format!("{small} {signed} {big} {ratio} {maybe:?} {count}"))
}

/// Strings with a length, a pattern and a single character.
#[tool]
async fn strings(
    /// 1 to 5 characters.
    #[schemars(length(min = 1, max = 5))]
    name: String,
    /// Lowercase ASCII letters only.
    #[schemars(regex(pattern = r"^[a-z]+$"))]
    code: String,
    /// One character.
    letter: char,
    /// Optional text of at most 3 characters.
    #[schemars(length(max = 3))]
    note: Option<String>,
) -> Result<String, String> {
    let chars = name.chars().count();
    if !(1..=5).contains(&chars) {
        return violation(format!("name has {chars} characters"));
    }
    if code.is_empty() || !code.bytes().all(|b| b.is_ascii_lowercase()) {
        return violation(format!("code = {code:?}"));
    }
    if note.as_ref().is_some_and(|n| n.chars().count() > 3) {
        return violation(format!("note = {note:?}"));
    }
    Ok(format!("{name} {code} {letter}"))
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle {
        #[schemars(range(min = 0.0))]
        radius: f64,
    },
    Rect {
        width: u16,
        height: u16,
    },
    Dot,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Either {
    Number(i64),
    Text(String),
    List(Vec<bool>),
}

#[derive(Debug, Deserialize, JsonSchema)]
enum External {
    Plain,
    Wrapped(u8),
    Pair(u8, u8),
    Named { x: i8 },
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    A(String),
    B { on: bool },
}

/// Enums of every tagging.
#[tool]
async fn enums(
    /// A unit.
    unit: Unit,
    /// Internally tagged.
    shape: Shape,
    /// Untagged.
    either: Either,
    /// Externally tagged.
    external: Option<External>,
    /// Adjacently tagged.
    adjacent: Option<Adjacent>,
) -> Result<String, String> {
    if let Shape::Circle { radius } = shape
        && (radius.is_nan() || radius < 0.0)
    {
        return violation(format!("radius = {radius}"));
    }
    Ok(format!("{unit:?} {either:?} {external:?} {adjacent:?}"))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Nested {
    /// 0 to 10.
    #[schemars(range(max = 10))]
    level: u8,
    /// Tags.
    tags: Vec<String>,
    #[serde(default)]
    extra: Option<bool>,
    child: Option<Box<Nested>>,
}

impl Nested {
    fn check(&self) -> Result<(), String> {
        if self.level > 10 {
            return Err(format!("level = {}", self.level));
        }
        match &self.child {
            Some(child) => child.check(),
            None => Ok(()),
        }
    }
}

/// Collections and a recursive struct.
#[tool]
async fn collections(
    /// At most 4 items.
    #[schemars(length(max = 4))]
    items: Vec<u32>,
    /// A set.
    set: BTreeSet<String>,
    /// A pair.
    pair: (u8, String),
    /// Exactly three.
    fixed: [i8; 3],
    /// A map of small numbers.
    map: HashMap<String, u16>,
    /// Integer keys.
    by_number: Option<BTreeMap<u32, bool>>,
    /// A recursive struct.
    nested: Nested,
) -> Result<String, String> {
    if items.len() > 4 {
        return violation(format!("{} items", items.len()));
    }
    if let Err(e) = nested.check() {
        return violation(e);
    }
    Ok(format!(
        "{items:?} {set:?} {pair:?} {fixed:?} {} {by_number:?}",
        map.len()
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Paging {
    /// 1 to 100.
    #[schemars(range(min = 1, max = 100))]
    limit: u8,
    /// Where to start.
    offset: Option<u64>,
}

fn default_greeting() -> String {
    "hello".into()
}

/// Renames, defaults and a flattened struct.
#[tool]
async fn shaped(
    /// Renamed.
    #[serde(rename = "camelCase")]
    snake_case: bool,
    /// A default from a function.
    #[serde(default = "default_greeting")]
    greeting: String,
    /// Flattened into the arguments.
    #[serde(flatten)]
    paging: Paging,
) -> Result<String, String> {
    if !(1..=100).contains(&paging.limit) {
        return violation(format!("limit = {}", paging.limit));
    }
    Ok(format!("{snake_case} {greeting} {paging:?}"))
}

/// No arguments at all.
#[tool]
async fn nothing() -> &'static str {
    "ok"
}

const TOOLS: [&str; 6] = [
    "numbers",
    "strings",
    "enums",
    "collections",
    "shaped",
    "nothing",
];

/// Property names of every tool above, for the generator.
const KEYS: &[&str] = &[
    "small",
    "signed",
    "big",
    "ratio",
    "maybe",
    "count",
    "name",
    "code",
    "letter",
    "note",
    "unit",
    "shape",
    "either",
    "external",
    "adjacent",
    "kind",
    "radius",
    "width",
    "height",
    "Plain",
    "Wrapped",
    "Pair",
    "Named",
    "x",
    "t",
    "c",
    "A",
    "B",
    "on",
    "items",
    "set",
    "pair",
    "fixed",
    "map",
    "by_number",
    "nested",
    "level",
    "tags",
    "extra",
    "child",
    "camelCase",
    "snake_case",
    "greeting",
    "limit",
    "offset",
    "circle",
    "rect",
    "dot",
    "celsius",
    "fahrenheit",
    "",
];

struct Fixture {
    registry: Registry,
    schemas: Vec<InputSchema>,
    runtime: tokio::runtime::Runtime,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let registry = Server::new("fuzz", "0")
            .registry()
            .expect("the tools build");
        let schemas = TOOLS
            .iter()
            .map(|name| {
                let tool = registry.get(name).expect("the tool exists");
                InputSchema::compile(tool.input_schema()).expect("the schema compiles")
            })
            .collect();
        Fixture {
            registry,
            schemas,
            runtime: tokio::runtime::Builder::new_current_thread()
                .build()
                .expect("a runtime"),
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let [pick, rest @ ..] = data else {
        return;
    };
    let index = usize::from(*pick) % TOOLS.len();
    let name = TOOLS[index];
    let arguments = match serde_json::from_slice::<Value>(rest) {
        Ok(value) => value,
        Err(_) => generate(&mut Unstructured::new(rest), 0),
    };
    let fixture = fixture();
    // `Registry::call` takes `null` as no arguments, as `tools/call` does.
    let checked = if arguments.is_null() {
        Value::Object(Map::new())
    } else {
        arguments.clone()
    };
    let verdict = fixture.schemas[index].validate(name, &checked);
    let result = fixture
        .runtime
        .block_on(fixture.registry.call(name, arguments.clone()));
    let Ok(result) = result else {
        assert!(!checked.is_object(), "{name}: call refused for {arguments}");
        return;
    };
    let text = result.text();
    let validator_message = format!("Invalid arguments for tool `{name}`:\n- ");
    match verdict {
        Ok(()) if result.is_error => {
            // The published schema accepts the arguments; the server may
            // still refuse a number the parameter's type cannot hold (it
            // validates with the type's range added), but only that, and
            // only as a validation error with its path.
            let problems: Vec<&str> = text
                .strip_prefix(&validator_message)
                .unwrap_or_else(|| {
                    panic!("{name}: the schema accepts {arguments} but the call failed: {text}")
                })
                .lines()
                .filter(|l| !l.starts_with("Correct the arguments"))
                .collect();
            assert!(
                problems
                    .iter()
                    .all(|p| p.contains(" is greater than the maximum of ")
                        || p.contains(" is less than the minimum of ")),
                "{name}: the schema accepts {arguments} but the call failed: {text}"
            );
        }
        Ok(()) => {}
        Err(message) => {
            assert!(result.is_error, "{name}: ran with invalid {arguments}");
            assert!(message.starts_with(&validator_message), "{message}");
            assert!(
                text.starts_with(&validator_message),
                "{name}: {arguments}: {text}"
            );
        }
    }
});

/// A JSON value driven by the input: objects keyed mostly by the tools'
/// property names, numbers mostly at the edges of the tools' ranges.
fn generate(u: &mut Unstructured<'_>, depth: usize) -> Value {
    let choice = if depth == 0 {
        7 // the arguments: an object, mostly
    } else {
        u.int_in_range(0..=8).unwrap_or(0)
    };
    match choice {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary().unwrap_or_default()),
        2 => {
            const EDGES: &[i64] = &[
                0,
                1,
                2,
                3,
                7,
                8,
                10,
                11,
                100,
                101,
                -1,
                -100,
                -101,
                127,
                128,
                -128,
                -129,
                255,
                256,
                32767,
                32768,
                -32768,
                -32769,
                65535,
                65536,
                4294967295,
                4294967296,
                i64::MAX,
                i64::MIN,
            ];
            let n = match u.int_in_range(0..=3).unwrap_or(0) {
                0 => *u.choose(EDGES).unwrap_or(&0),
                _ => u.arbitrary().unwrap_or_default(),
            };
            Value::from(n)
        }
        3 => {
            let f: f64 = match u.int_in_range(0..=3).unwrap_or(0) {
                0 => *u
                    .choose(&[
                        0.0, -0.0, 0.5, 1.0, 3.0, 7.0, 7.5, 1e2, 1e10, 1e39, -1.0, 1e300,
                    ])
                    .unwrap_or(&0.0),
                _ => u.arbitrary().unwrap_or_default(),
            };
            serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
        }
        4 => Value::from(u64::MAX - u.int_in_range(0..=3).unwrap_or(0)),
        5 | 6 => {
            let s: String = match u.int_in_range(0..=2).unwrap_or(0) {
                0 => (*u.choose(KEYS).unwrap_or(&"")).to_owned(),
                _ => u.arbitrary().unwrap_or_default(),
            };
            Value::String(s)
        }
        7 if depth < 6 => {
            let len = u.int_in_range(0..=6).unwrap_or(0);
            let mut map = Map::new();
            for _ in 0..len {
                let key = match u.int_in_range(0..=4).unwrap_or(0) {
                    0 => u.arbitrary().unwrap_or_default(),
                    _ => (*u.choose(KEYS).unwrap_or(&"")).to_owned(),
                };
                map.insert(key, generate(u, depth + 1));
            }
            Value::Object(map)
        }
        _ if depth < 6 => {
            let len = u.int_in_range(0..=4).unwrap_or(0);
            Value::Array((0..len).map(|_| generate(u, depth + 1)).collect())
        }
        _ => Value::Null,
    }
}
