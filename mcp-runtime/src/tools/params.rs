//! A `#[tool]`'s parameters, as its expansion describes them: which types
//! may be parameters (`DeserializeAndJsonSchema`, `HeaderParam`), the
//! table of parameters the input schema is built from at start-up
//! (`ToolParam`, `params_schema`), and reading each argument from the
//! validated object (`ParamVTable::take`, or `parse_arguments` for a tool
//! whose parameters carry `#[serde]`/`#[schemars]` attributes).
//!
//! Everything here that is generic is generic over a parameter's *type*,
//! never over a tool: the compiled code is shared by every tool taking a
//! `String` or an `Option<u32>`, which keeps a crate of many tools quick to
//! check and build (issue 32; `bench/run --suite compile`).

use schemars::{Schema, SchemaGenerator};
use serde_json::{Map, Value};

use super::output::{CallToolResult, RawOutput};

/// A type a tool can take as an argument: `Deserialize + JsonSchema`.
///
/// `#[tool]` reads and describes each parameter through the type's
/// [`ParamVTable`], read once as `<T as DeserializeAndJsonSchema>::VTABLE`
/// spanned at the user's type. A type that lacks an impl is then reported
/// once, under that type, with this trait's text; naming a trait item with
/// the type as `Self` (rather than calling a bounded fn) adds no "required
/// by a bound in" note. Where derives describe the parameters, their
/// fields are newtypes delegating to the vtable, so they add no cascade.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a #[tool] parameter",
    label = "this type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive both on your type: `#[derive(serde::Deserialize, schemars::JsonSchema)]`",
    note = "or, if the client should not send it, share it with `Server::state` and take `State<T>`"
)]
pub trait DeserializeAndJsonSchema: Sized {
    /// The operations the expansion reads and describes `Self` with.
    const VTABLE: ParamVTable<Self>;
}

// The bounds are on the impl, not on the trait as supertraits, so that
// naming `VTABLE` requires the one trait above, with its message.
#[diagnostic::do_not_recommend]
impl<T: serde::de::DeserializeOwned + schemars::JsonSchema> DeserializeAndJsonSchema for T {
    const VTABLE: ParamVTable<T> = ParamVTable {
        parse: serde_json::from_value::<T>,
        json_schema: T::json_schema,
        non_optional_json_schema: T::_schemars_private_non_optional_json_schema,
        is_option: T::_schemars_private_is_option,
    };
}

/// A type a `#[header("Name")]` parameter can have: one whose value a
/// header can carry (a string, an integer, a bool), or an `Option` of one
/// (`None`: no header). MCP forbids mirroring numbers that are not integers
/// and anything structured. `#[tool]` names `<T as HeaderParam>::MIRRORED`
/// at the parameter's type, so a type without it is reported there.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be mirrored into an HTTP header",
    label = "a #[header] parameter must be a `String`, an integer or a `bool`, or an `Option` of one",
    note = "MCP mirrors only strings, integers and booleans into `Mcp-Param-*` headers: not floats, arrays or objects"
)]
pub trait HeaderParam {
    /// Named by the expansion; its value is of no interest.
    const MIRRORED: () = ();
}

macro_rules! header_params {
    ($($ty:ty),*) => {
        $(impl HeaderParam for $ty {})*
    };
}

header_params!(
    String, bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize
);

#[diagnostic::do_not_recommend]
impl<T: HeaderParam> HeaderParam for Option<T> {}

/// What the expansion needs of a parameter's type, read once per
/// parameter as `<T as DeserializeAndJsonSchema>::VTABLE`: the type's own
/// `from_value`, schema and option-ness, as plain function pointers.
pub struct ParamVTable<T> {
    parse: fn(Value) -> Result<T, serde_json::Error>,
    json_schema: fn(&mut SchemaGenerator) -> Schema,
    non_optional_json_schema: fn(&mut SchemaGenerator) -> Schema,
    is_option: fn() -> bool,
}

impl<T> ParamVTable<T> {
    /// The parameter's entry in its tool's table: `name` as the client
    /// sends it, `doc` its doc comment (`""` if none), `header` the name
    /// of `#[header("Name")]` (`""` if none).
    pub const fn param(
        &self,
        name: &'static str,
        doc: &'static str,
        header: &'static str,
    ) -> ToolParam {
        ToolParam {
            name,
            doc,
            header,
            json_schema: self.json_schema,
            is_option: self.is_option,
        }
    }

    /// Takes the argument `name` out of the validated arguments and reads
    /// it as `T`. A missing argument is read from `null`, so an `Option`
    /// is `None` (required ones were already reported by validation).
    pub fn take(&self, arguments: &mut Map<String, Value>, name: &str) -> Result<T, RawOutput> {
        let value = arguments.remove(name).unwrap_or(Value::Null);
        parse_value(self.parse, value).map_err(invalid_arguments)
    }

    /// [`take`](Self::take) for a parameter with a bare
    /// `#[serde(default)]`: a missing argument is `default()`.
    pub fn take_or(
        &self,
        arguments: &mut Map<String, Value>,
        name: &str,
        default: fn() -> T,
    ) -> Result<T, RawOutput> {
        match arguments.remove(name) {
            Some(value) => parse_value(self.parse, value).map_err(invalid_arguments),
            None => Ok(default()),
        }
    }

    /// Deserializes one parameter. A missing field arrives as `null`, so
    /// `Option` parameters become `None` (serde's own missing-field rule);
    /// required ones were already reported by schema validation.
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        &self,
        deserializer: D,
    ) -> Result<T, D::Error> {
        use serde::Deserialize as _;
        let value = Option::<Value>::deserialize(deserializer)?.unwrap_or(Value::Null);
        (self.parse)(value).map_err(serde::de::Error::custom)
    }

    /// The type's schema, for the parameter newtype's `JsonSchema`.
    pub fn json_schema(&self, generator: &mut SchemaGenerator) -> Schema {
        (self.json_schema)(generator)
    }

    /// The type's schema without its `Option`, for the newtype.
    pub fn non_optional_json_schema(&self, generator: &mut SchemaGenerator) -> Schema {
        (self.non_optional_json_schema)(generator)
    }

    /// Whether the type is an `Option`, for the newtype.
    pub fn is_option(&self) -> bool {
        (self.is_option)()
    }
}

/// Lets a parameter newtype serialize its value when the parameter type is
/// `Serialize`, so schemars can show `#[serde(default)]` values as
/// `default`; the inherent method wins over the trait's fallback.
pub struct SerializeProbe<'a, T>(pub &'a T);

impl<T: serde::Serialize> SerializeProbe<'_, T> {
    /// The value as JSON.
    pub fn __mcp_to_value(&self) -> Result<Value, String> {
        serde_json::to_value(self.0).map_err(|e| e.to_string())
    }
}

/// What [`SerializeProbe`] answers for a type that is not `Serialize`.
pub trait SerializeFallback {
    /// An error: the value cannot be shown.
    fn __mcp_to_value(&self) -> Result<Value, String> {
        Err("this parameter type is not Serialize".into())
    }
}

impl<T> SerializeFallback for SerializeProbe<'_, T> {}

/// One argument of a tool, for its input schema: built by
/// [`ParamVTable::param`] in a static table the expansion emits.
pub struct ToolParam {
    name: &'static str,
    doc: &'static str,
    header: &'static str,
    json_schema: fn(&mut SchemaGenerator) -> Schema,
    is_option: fn() -> bool,
}

/// The input schema of a tool whose arguments are `params`: the object
/// schema `#[derive(JsonSchema)]` would give a struct of these fields, and
/// what `SchemaGenerator::root_schema_for` adds around it (the generator's
/// definitions, its transforms). One function for every tool, rather than
/// two derives per tool.
pub fn params_schema(generator: &mut SchemaGenerator, params: &[ToolParam]) -> Schema {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in params {
        let mut schema = (param.json_schema)(generator);
        let (title, description) = title_and_description(param.doc);
        for (key, text) in [("title", title), ("description", description)] {
            if !text.is_empty() {
                schema.insert(key.into(), text.into());
            }
        }
        if !param.header.is_empty() {
            schema.insert("x-mcp-header".into(), param.header.into());
        }
        properties.insert(param.name.into(), schema.into());
        if !(generator.contract().is_deserialize() && (param.is_option)()) {
            required.push(Value::from(param.name));
        }
    }
    let mut object = Map::new();
    object.insert("type".into(), "object".into());
    if !params.is_empty() {
        object.insert("properties".into(), properties.into());
    }
    if !required.is_empty() {
        object.insert("required".into(), required.into());
    }
    add_definitions(generator, &mut object);
    let mut schema = Schema::from(object);
    for transform in generator.transforms_mut() {
        transform.transform(&mut schema);
    }
    schema
}

/// Puts the generator's definitions where its settings say (`/$defs`), as
/// `root_schema_for` does.
fn add_definitions(generator: &SchemaGenerator, object: &mut Map<String, Value>) {
    if generator.definitions().is_empty() {
        return;
    }
    let path = generator.settings().definitions_path.as_ref();
    let path = path.strip_prefix('#').unwrap_or(path);
    let path = path.strip_suffix('/').unwrap_or(path);
    let mut target = object;
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        let entry = target
            .entry(segment.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        match entry {
            Value::Object(next) => target = next,
            _ => return,
        }
    }
    target.extend(generator.definitions().clone());
}

/// A doc comment as schemars splits it: a first line starting with `#` is
/// the title, the rest the description; otherwise all of it is the
/// description.
fn title_and_description(doc: &str) -> (&str, &str) {
    let doc = doc.trim_ascii();
    match doc.strip_prefix('#') {
        Some(_) => {
            let (title, description) = doc.split_at(doc.find('\n').unwrap_or(doc.len()));
            (
                title.trim_start_matches('#').trim_ascii(),
                description.trim_ascii(),
            )
        }
        None => ("", doc),
    }
}

/// Deserializes the validated arguments into the struct a tool with
/// forwarded `#[serde]`/`#[schemars]` attributes parses them into.
pub fn parse_arguments<T: serde::de::DeserializeOwned>(arguments: Value) -> Result<T, RawOutput> {
    parse_value(serde_json::from_value::<T>, arguments).map_err(invalid_arguments)
}

/// Reads a value with `parse`. JSON Schema counts `3.0` and `1e2` as
/// integers, so they pass validation, but serde refuses a float for an
/// integer type. Only when such numbers are present (rarely) and only if
/// serde refuses them as they are, they are read as the integers they are.
/// Both reads go through the one `from_value`, so a type's deserializer is
/// compiled once, for `Value`.
fn parse_value<T>(
    parse: fn(Value) -> Result<T, serde_json::Error>,
    value: Value,
) -> Result<T, serde_json::Error> {
    if has_integral_float(&value) {
        let converted = integral_floats_as_integers(value.clone());
        parse(value).or_else(|_| parse(converted))
    } else {
        parse(value)
    }
}

fn invalid_arguments(error: serde_json::Error) -> RawOutput {
    RawOutput::Done(CallToolResult::error(format!(
        "Invalid arguments: {error}. Correct the arguments and call the tool again."
    )))
}

/// The arguments of a call, as an object to take each parameter from:
/// validation has already refused anything but an object.
pub fn arguments_object(arguments: Value) -> Map<String, Value> {
    match arguments {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// A float with no fractional part that fits an `i64` or a `u64`.
fn as_integer(number: &serde_json::Number) -> Option<serde_json::Number> {
    let f = number.as_f64().filter(|_| number.is_f64())?;
    // 2^63 and 2^64 are exact as floats; the casts below are in range.
    if f.fract() != 0.0
        || !(-9_223_372_036_854_775_808.0..18_446_744_073_709_551_616.0).contains(&f)
    {
        return None;
    }
    Some(if f < 0.0 {
        (f as i64).into()
    } else {
        (f as u64).into()
    })
}

fn has_integral_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => as_integer(n).is_some(),
        Value::Array(items) => items.iter().any(has_integral_float),
        Value::Object(map) => map.values().any(has_integral_float),
        _ => false,
    }
}

fn integral_floats_as_integers(value: Value) -> Value {
    match value {
        Value::Number(n) => Value::Number(as_integer(&n).unwrap_or(n)),
        Value::Array(items) => items.into_iter().map(integral_floats_as_integers).collect(),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, integral_floats_as_integers(v)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn integral_floats_become_integers_only_when_they_fit() {
        let n = |v: Value| match v {
            Value::Number(n) => n,
            _ => unreachable!(),
        };
        assert_eq!(as_integer(&n(json!(3.0))), Some(3.into()));
        assert_eq!(as_integer(&n(json!(-0.0))), Some(0.into()));
        assert_eq!(as_integer(&n(json!(-2.0))), Some((-2).into()));
        assert_eq!(
            as_integer(&n(json!(1e19))),
            Some(10_000_000_000_000_000_000u64.into())
        );
        assert_eq!(
            as_integer(&n(json!(-(2f64.powi(63))))),
            Some(i64::MIN.into())
        );
        assert_eq!(as_integer(&n(json!(2f64.powi(64)))), None);
        assert_eq!(as_integer(&n(json!(2.5))), None);
        assert_eq!(as_integer(&n(json!(3))), None); // already an integer
        assert!(has_integral_float(&json!({"a": [1, {"b": 7.0}]})));
        assert!(!has_integral_float(
            &json!({"a": [1, {"b": 7.5}], "c": "3.0"})
        ));
        assert_eq!(
            integral_floats_as_integers(json!({"a": [2.0, 2.5], "b": 1e2})),
            json!({"a": [2, 2.5], "b": 100})
        );
    }

    #[test]
    fn integral_floats_are_read_as_integers_only_where_needed() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Args {
            n: u8,
            x: f64,
            raw: Value,
        }
        let parsed: Args = parse_arguments(json!({"n": 3.0, "x": 2.0, "raw": 1.0}))
            .unwrap_or_else(|_| panic!("refused"));
        assert_eq!(parsed.n, 3);
        assert_eq!(parsed.x, 2.0);
        // A float where a float is fine stays a float.
        let parsed: Args = parse_arguments(json!({"n": 3, "x": 2.0, "raw": 1.0}))
            .unwrap_or_else(|_| panic!("refused"));
        assert_eq!(parsed.raw, json!(1.0));
        assert!(parse_arguments::<Args>(json!({"n": 3.5, "x": 2.0, "raw": 1})).is_err());
    }

    /// A struct deriving what `#[tool]` derived before the table: its
    /// schema is what the table must give.
    mod derived {
        #![allow(dead_code)]
        use schemars::JsonSchema;
        use serde::Deserialize;

        #[derive(Deserialize, JsonSchema)]
        pub struct Inner {
            /// # Inner title
            ///
            /// Inner text.
            pub depth: Option<u8>,
            pub tree: Vec<Node>,
        }

        #[derive(Deserialize, JsonSchema)]
        pub struct Node {
            pub children: Vec<Node>,
        }

        #[derive(Deserialize, JsonSchema)]
        pub enum Mode {
            Fast,
            Slow,
        }

        #[derive(Deserialize, JsonSchema)]
        pub struct Args {
            /// A key.
            pub key: String,
            /// # Limit
            ///
            /// At most this many.
            pub limit: Option<u32>,
            #[schemars(extend("x-mcp-header" = "Region"))]
            pub region: String,
            pub inner: Inner,
            /// How fast.
            pub mode: Option<Mode>,
            pub value: serde_json::Value,
        }

        #[derive(Deserialize, JsonSchema)]
        pub struct Empty {}
    }

    fn vtable<T: DeserializeAndJsonSchema>() -> ParamVTable<T> {
        T::VTABLE
    }

    #[test]
    fn the_table_gives_the_schema_the_derive_gives() {
        use crate::schema::generate::{input_generator, output_generator};
        let params = [
            vtable::<String>().param("key", "A key.", ""),
            vtable::<Option<u32>>().param("limit", "# Limit\n\nAt most this many.", ""),
            vtable::<String>().param("region", "", "Region"),
            vtable::<derived::Inner>().param("inner", "", ""),
            vtable::<Option<derived::Mode>>().param("mode", "How fast.", ""),
            vtable::<Value>().param("value", "", ""),
        ];
        for generator in [input_generator, output_generator] {
            let mut derived = generator().root_schema_for::<derived::Args>();
            let object = derived.as_object_mut().unwrap();
            object.shift_remove("title");
            object.shift_remove("$schema");
            let table = params_schema(&mut generator(), &params);
            assert_eq!(
                serde_json::to_string(&table).unwrap(),
                serde_json::to_string(&derived).unwrap()
            );
        }
        let mut empty = input_generator().root_schema_for::<derived::Empty>();
        empty.as_object_mut().unwrap().shift_remove("title");
        assert_eq!(params_schema(&mut input_generator(), &[]), empty);
    }

    #[test]
    fn doc_comments_split_as_schemars_splits_them() {
        for doc in [
            "",
            "  One line.  ",
            "# Title",
            "## Title\n\nText\nmore",
            "#Title\ntext",
            " # Spaced \n  \n text ",
            "Text with # inside",
            "\n# Late title",
        ] {
            assert_eq!(
                title_and_description(doc),
                schemars::_private::get_title_and_description(doc),
                "{doc:?}"
            );
        }
    }

    #[test]
    fn take_reads_an_argument_and_leaves_the_rest() {
        let mut arguments = arguments_object(json!({"n": 3.0, "s": "x", "o": 2}));
        assert_eq!(vtable::<u8>().take(&mut arguments, "n").ok(), Some(3));
        assert_eq!(
            vtable::<Option<u8>>().take(&mut arguments, "absent").ok(),
            Some(None)
        );
        assert!(vtable::<u8>().take(&mut arguments, "s").is_err());
        assert_eq!(arguments.len(), 1);
        assert!(arguments_object(json!(null)).is_empty());
        match vtable::<u8>().take(&mut arguments, "o") {
            Ok(2) => {}
            _ => panic!("o is 2"),
        }
        let error = match vtable::<u8>().take(&mut arguments_object(json!({"n": 2.5})), "n") {
            Err(RawOutput::Done(result)) => result,
            _ => panic!("2.5 is not a u8"),
        };
        assert!(error.is_error);
        assert!(
            serde_json::to_string(&error.content).unwrap().contains(
                "Invalid arguments: invalid type: floating point `2.5`, expected u8. Correct"
            ),
            "{:?}",
            error.content
        );
    }
}
