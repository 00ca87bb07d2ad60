//! Prompt arguments and template variables arrive as text. This module
//! turns that text into the parameter's type, and lists the values a
//! unit-only enum parameter can take (for completion).
//!
//! Both are decided from the parameter's *type* by autoref dispatch in the
//! generated code, as a tool's output is (see [`crate::tools::output::Probe`]):
//!
//! 1. `Option<T>` with `T: FromStr`, 2. `Option<T>` with
//!    `T: DeserializeOwned`: an optional argument, `None` when absent;
//! 3. `T: FromStr` (`String`, numbers, `bool`, ...), 4. `T:
//!    DeserializeOwned` read from a string (a unit-only enum, by its serde
//!    names): a required one;
//! 5. `Option<T>`, 6. anything else: a type that cannot be parsed from text,
//!    reported under the parameter's type by the bound of
//!    [`UnparseableText`]'s method, with the text of [`PromptArgument`] or
//!    [`TemplateVariable`] (whichever method the attribute calls).
//!
//! `FromStr` comes first so that a type with both keeps its own text form.

use std::fmt::Display;
use std::marker::PhantomData;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::de::{DeserializeOwned, IntoDeserializer};
use serde_json::Value;

use crate::tools::output::{NeverImplemented, kind};

/// Why a text value could not become a parameter.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextParamError {
    /// A required value is absent.
    Missing,
    /// The value does not parse.
    Invalid {
        /// The value as given.
        value: String,
        /// What the parser said.
        error: String,
    },
}

/// The probe of autoref-based dispatch on a text parameter's type `T`.
#[doc(hidden)]
pub struct TextProbe<T>(PhantomData<fn() -> T>);

impl<T> TextProbe<T> {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        TextProbe(PhantomData)
    }
}

kind!(TextOptionalFromStr: <T> &&&&&TextProbe<Option<T>> => Optional<ByFromStr, T>
    where T: FromStr, T::Err: Display);
kind!(TextOptionalDeserialize: <T> &&&&TextProbe<Option<T>> => Optional<ByDeserialize, T>
    where T: DeserializeOwned);
kind!(TextFromStr: <T> &&&TextProbe<T> => Required<ByFromStr, T> where T: FromStr, T::Err: Display);
kind!(TextDeserialize: <T> &&TextProbe<T> => Required<ByDeserialize, T> where T: DeserializeOwned);
kind!(TextOptionalUnparseable: <T> &TextProbe<Option<T>> => UnparseableText<T> where);
kind!(TextUnparseable: <T> TextProbe<T> => UnparseableText<T> where);

/// How a type is read from text.
#[doc(hidden)]
pub trait Parser<T> {
    fn parse(text: &str) -> Result<T, String>;
}

/// With `FromStr`.
#[doc(hidden)]
pub struct ByFromStr;

impl<T: FromStr> Parser<T> for ByFromStr
where
    T::Err: Display,
{
    fn parse(text: &str) -> Result<T, String> {
        text.parse().map_err(|e: T::Err| e.to_string())
    }
}

/// With `Deserialize`, from a string: a unit-only enum by a variant's serde name.
#[doc(hidden)]
pub struct ByDeserialize;

impl<T: DeserializeOwned> Parser<T> for ByDeserialize {
    fn parse(text: &str) -> Result<T, String> {
        let deserializer: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
            text.into_deserializer();
        T::deserialize(deserializer).map_err(|e| e.to_string())
    }
}

/// The tag of a required parameter read with `P`.
#[doc(hidden)]
pub struct Required<P, T>(PhantomData<fn() -> (P, T)>);

impl<P: Parser<T>, T> Required<P, T> {
    const fn new() -> Self {
        Required(PhantomData)
    }

    /// Parses a prompt argument; absent is [`TextParamError::Missing`].
    pub fn parse_argument(self, text: Option<&str>) -> Result<T, TextParamError> {
        let text = text.ok_or(TextParamError::Missing)?;
        P::parse(text).map_err(|error| TextParamError::Invalid {
            value: text.to_owned(),
            error,
        })
    }

    /// Parses a template variable, as a prompt argument.
    pub fn parse_variable(self, text: Option<&str>) -> Result<T, TextParamError> {
        self.parse_argument(text)
    }
}

/// The tag of an `Option<T>` parameter, `T` read with `P`.
#[doc(hidden)]
pub struct Optional<P, T>(PhantomData<fn() -> (P, T)>);

impl<P: Parser<T>, T> Optional<P, T> {
    const fn new() -> Self {
        Optional(PhantomData)
    }

    /// Parses an optional prompt argument: absent is `None`.
    pub fn parse_argument(self, text: Option<&str>) -> Result<Option<T>, TextParamError> {
        text.map(|text| Required::<P, T>::new().parse_argument(Some(text)))
            .transpose()
    }

    /// Parses a template variable, as a prompt argument (a variable of a
    /// matched template is always present).
    pub fn parse_variable(self, text: Option<&str>) -> Result<Option<T>, TextParamError> {
        self.parse_argument(text)
    }
}

/// The tag of a type that cannot be parsed from text. Its methods do not
/// compile: their bounds are what the error reports. Re-exported (hidden)
/// at the crate root, and not `#[doc(hidden)]` itself, so that rustc names
/// it by its bare name.
pub struct UnparseableText<T>(PhantomData<fn() -> T>);

impl<T> UnparseableText<T> {
    const fn new() -> Self {
        UnparseableText(PhantomData)
    }

    /// Does not compile: its bound is what the error reports.
    pub fn parse_argument(self, _: Option<&str>) -> Result<T, TextParamError>
    where
        T: PromptArgument,
    {
        unreachable!("PromptArgument is implemented for no type")
    }

    /// Does not compile: its bound is what the error reports.
    pub fn parse_variable(self, _: Option<&str>) -> Result<T, TextParamError>
    where
        T: TemplateVariable,
    {
        unreachable!("TemplateVariable is implemented for no type")
    }
}

/// Only here for its diagnostic: a prompt parameter whose type cannot be
/// read from text. Never implemented.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a #[prompt] argument: it must implement `FromStr` or `Deserialize` from a string",
    label = "prompt arguments are text: implement `FromStr` for this type, or derive `serde::Deserialize` on a unit-only enum",
    note = "`String`, numbers, `bool` and any `T: FromStr` work, a unit-only enum is given by its serde names, and `Option<T>` of these is an optional argument",
    note = "`Context` and `State<T>` parameters are injected instead, and are not arguments"
)]
pub trait PromptArgument {}

#[diagnostic::do_not_recommend]
impl<T: NeverImplemented> PromptArgument for T {}

/// Only here for its diagnostic: a template variable whose type cannot be
/// read from text. Never implemented.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a #[resource] template variable: it must implement `FromStr` or `Deserialize` from a string",
    label = "template variables are text from the URI: implement `FromStr` for this type, or derive `serde::Deserialize` on a unit-only enum",
    note = "`String`, numbers, `bool` and any `T: FromStr` work, and a unit-only enum is given by its serde names",
    note = "`Context` and `State<T>` parameters are injected instead, and are not variables"
)]
pub trait TemplateVariable {}

#[diagnostic::do_not_recommend]
impl<T: NeverImplemented> TemplateVariable for T {}

/// The probe of the values a parameter of type `T` can take: a unit-only
/// enum's serde names, read from its JSON Schema (`Option<T>` looks
/// through to `T`); `None` for any other type, or one without a schema.
#[doc(hidden)]
pub struct EnumProbe<T>(PhantomData<fn() -> T>);

impl<T> EnumProbe<T> {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        EnumProbe(PhantomData)
    }
}

kind!(EnumValuesOptional: <T> &&EnumProbe<Option<T>> => SchemaValues<T> where T: JsonSchema);
kind!(EnumValuesSchema: <T> &EnumProbe<T> => SchemaValues<T> where T: JsonSchema);
kind!(EnumValuesNone: <T> EnumProbe<T> => NoValues where);

/// Reads the values from `T`'s schema.
#[doc(hidden)]
pub struct SchemaValues<T>(PhantomData<fn() -> T>);

impl<T: JsonSchema> SchemaValues<T> {
    const fn new() -> Self {
        SchemaValues(PhantomData)
    }

    pub fn values(self) -> Option<Vec<String>> {
        // One generator per thread: making one is most of the cost of this
        // probe, which runs for every prompt argument and template variable
        // at start-up.
        thread_local! {
            static GENERATOR: std::cell::RefCell<schemars::SchemaGenerator> =
                std::cell::RefCell::new(schemars::SchemaGenerator::default());
        }
        GENERATOR.with_borrow_mut(|generator| {
            generator.definitions_mut().clear();
            enum_values(T::json_schema(generator).as_value())
        })
    }
}

/// A type without a schema has no known values.
#[doc(hidden)]
pub struct NoValues;

impl NoValues {
    const fn new() -> Self {
        NoValues
    }

    pub fn values(self) -> Option<Vec<String>> {
        None
    }
}

/// The strings a schema allows, if it allows only a list of strings:
/// `{"enum": [..]}`, or `oneOf`/`anyOf` of `const`s and `enum`s (what
/// schemars writes when some variants have doc comments: those without
/// come first, as one `enum`), in the schema's order.
fn enum_values(schema: &Value) -> Option<Vec<String>> {
    fn strings(items: &[Value], out: &mut Vec<String>) -> Option<()> {
        for item in items {
            out.push(item.as_str()?.to_owned());
        }
        Some(())
    }
    let object = schema.as_object()?;
    let mut values = Vec::new();
    if let Some(items) = object.get("enum") {
        strings(items.as_array()?, &mut values)?;
    } else {
        let alternatives = object.get("oneOf").or_else(|| object.get("anyOf"))?;
        for alternative in alternatives.as_array()? {
            let alternative = alternative.as_object()?;
            if let Some(value) = alternative.get("const") {
                values.push(value.as_str()?.to_owned());
            } else {
                strings(alternative.get("enum")?.as_array()?, &mut values)?;
            }
        }
    }
    (!values.is_empty()).then_some(values)
}

// The probes are called as the generated code calls them: with one `&` per
// step, which for a type that stops at an early step is more than needed.
#[cfg(test)]
#[allow(clippy::needless_borrow)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Plain {
        Rust,
        Python,
        #[serde(rename = "c++")]
        Cpp,
    }

    /// With doc comments on its variants, schemars writes a `oneOf`.
    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    enum Documented {
        /// Fast.
        Fast,
        /// Slow.
        Slow,
        Undocumented,
    }

    #[test]
    fn from_str_comes_first_and_reports_the_value() {
        let probe = &&&&&&TextProbe::<u8>::new();
        assert_eq!(probe.__mcp_kind().parse_argument(Some("7")), Ok(7));
        assert_eq!(
            probe.__mcp_kind().parse_argument(Some("x")),
            Err(TextParamError::Invalid {
                value: "x".into(),
                error: "invalid digit found in string".into()
            })
        );
        assert_eq!(
            probe.__mcp_kind().parse_argument(None),
            Err(TextParamError::Missing)
        );
        let text = (&&&&&&TextProbe::<String>::new()).__mcp_kind();
        assert_eq!(text.parse_variable(Some("a/b")), Ok("a/b".to_owned()));
    }

    #[test]
    fn options_are_optional() {
        let probe = (&&&&&&TextProbe::<Option<u8>>::new()).__mcp_kind();
        assert_eq!(probe.parse_argument(None), Ok(None));
        let probe = (&&&&&&TextProbe::<Option<u8>>::new()).__mcp_kind();
        assert_eq!(probe.parse_argument(Some("3")), Ok(Some(3)));
        let probe = (&&&&&&TextProbe::<Option<Plain>>::new()).__mcp_kind();
        assert_eq!(probe.parse_argument(None), Ok(None));
        let probe = (&&&&&&TextProbe::<Option<Plain>>::new()).__mcp_kind();
        assert_eq!(probe.parse_argument(Some("c++")), Ok(Some(Plain::Cpp)));
    }

    #[test]
    fn unit_enums_are_read_by_their_serde_names() {
        let probe = &&&&&&TextProbe::<Plain>::new();
        assert_eq!(
            probe.__mcp_kind().parse_argument(Some("rust")),
            Ok(Plain::Rust)
        );
        let Err(TextParamError::Invalid { error, .. }) =
            probe.__mcp_kind().parse_argument(Some("Rust"))
        else {
            panic!("`Rust` is not a serde name");
        };
        assert!(error.contains("unknown variant `Rust`"), "{error}");
        assert!(error.contains("`rust`, `python`, `c++`"), "{error}");
    }

    #[test]
    fn enum_values_of_unit_enums() {
        let values = |probe: Option<Vec<String>>| probe;
        assert_eq!(
            values((&&&EnumProbe::<Plain>::new()).__mcp_kind().values()),
            Some(vec!["rust".into(), "python".into(), "c++".into()])
        );
        assert_eq!(
            values((&&&EnumProbe::<Documented>::new()).__mcp_kind().values()),
            // schemars lists the variants without docs first.
            Some(vec!["Undocumented".into(), "Fast".into(), "Slow".into()])
        );
        assert_eq!(
            values((&&&EnumProbe::<Option<Plain>>::new()).__mcp_kind().values()),
            Some(vec!["rust".into(), "python".into(), "c++".into()])
        );
        assert_eq!((&&&EnumProbe::<String>::new()).__mcp_kind().values(), None);
        assert_eq!((&&&EnumProbe::<u32>::new()).__mcp_kind().values(), None);
        struct NoSchema;
        assert_eq!(
            (&&&EnumProbe::<NoSchema>::new()).__mcp_kind().values(),
            None
        );
    }

    #[test]
    fn enum_values_need_only_strings() {
        assert_eq!(enum_values(&json!({"enum": ["a", 1]})), None);
        assert_eq!(
            enum_values(&json!({"oneOf": [{"const": "a"}, {"type": "string"}]})),
            None
        );
        assert_eq!(
            enum_values(&json!({"anyOf": [{"const": "a"}, {"enum": ["b", "c"]}]})),
            Some(vec!["a".into(), "b".into(), "c".into()])
        );
        assert_eq!(enum_values(&json!({"enum": []})), None);
        assert_eq!(enum_values(&json!(true)), None);
    }
}
