//! What a tool returns, and how it becomes a `CallToolResult`.
//!
//! The form of a tool's output is decided from its return *type* by
//! autoref-based dispatch in the generated code (see [`Probe`]): text-like
//! and content types pass through [`IntoCallToolResult`]; any other
//! `Serialize + JsonSchema` type becomes structured output with an
//! `outputSchema`. Because the compiler resolves the type, a type alias of a
//! struct is structured output too.

use std::fmt::Display;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::Content;

/// The result of `tools/call`.
///
/// Return it from a tool for full control: several content blocks together
/// with `structuredContent`, or an error result built by hand.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// The content blocks.
    pub content: Vec<Content>,
    /// Structured output conforming to the tool's `outputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the call failed; the content says why, for the model to read.
    #[serde(default)]
    pub is_error: bool,
}

impl CallToolResult {
    /// A structured value that is not an object put under `result`, as
    /// clients before 2026-07-28 require an object there (and as the
    /// runtime wraps declared non-object outputs); the text is unchanged.
    pub(crate) fn structured_as_object(mut self) -> Self {
        if let Some(value) = self.structured_content.take() {
            self.structured_content = Some(match value {
                Value::Object(_) => value,
                other => serde_json::json!({ "result": other }),
            });
        }
        self
    }

    /// A successful result with these blocks.
    pub fn success(content: Vec<Content>) -> Self {
        CallToolResult {
            content,
            structured_content: None,
            is_error: false,
        }
    }

    /// A failed result (`isError: true`) whose text the model reads and can act on.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![Content::text(message)],
            structured_content: None,
            is_error: true,
        }
    }

    /// A successful structured result: `value` as `structuredContent`, and
    /// the same JSON as a text block for clients that read only content.
    pub fn structured(value: Value) -> Self {
        let text = value.to_string();
        CallToolResult {
            content: vec![Content::text(text)],
            structured_content: Some(value),
            is_error: false,
        }
    }

    /// The text of all text blocks, joined by newlines (handy in tests).
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(Content::as_text)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Types a tool can return as content, without an `outputSchema`.
///
/// Implemented for `String`, `&str`, `Cow<str>`, `()`, [`Content`],
/// `Vec<Content>`, [`CallToolResult`], and `Result<T, E>` of these where
/// `E: Display` (an `Err` becomes `isError: true` with the error's text).
/// Any other `Serialize + JsonSchema` type is structured output instead.
pub trait IntoCallToolResult {
    /// Converts the value into a result.
    fn into_call_tool_result(self) -> CallToolResult;
}

impl IntoCallToolResult for CallToolResult {
    fn into_call_tool_result(self) -> CallToolResult {
        self
    }
}

impl IntoCallToolResult for Content {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![self])
    }
}

impl IntoCallToolResult for Vec<Content> {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::success(self)
    }
}

impl IntoCallToolResult for String {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![Content::text(self)])
    }
}

impl IntoCallToolResult for &str {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![Content::text(self)])
    }
}

impl IntoCallToolResult for std::borrow::Cow<'_, str> {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![Content::text(self)])
    }
}

impl IntoCallToolResult for () {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::success(Vec::new())
    }
}

impl<T: IntoCallToolResult, E: Display> IntoCallToolResult for Result<T, E> {
    fn into_call_tool_result(self) -> CallToolResult {
        match self {
            Ok(value) => value.into_call_tool_result(),
            Err(error) => CallToolResult::error(error_text(&error)),
        }
    }
}

/// An error's text; the alternate form shows the whole chain for error types
/// that support it (anyhow's "context: cause").
fn error_text(error: &dyn Display) -> String {
    format!("{error:#}")
}

/// What the generated call shim hands back to the runtime. Structured values
/// come serialized, once, as JSON text: the runtime wraps them (or not; it
/// knows from the schema whether the tool's output is an object) and writes
/// that text both as `structuredContent` and as the text block.
#[doc(hidden)]
pub enum RawOutput {
    Done(CallToolResult),
    Structured(Result<Box<serde_json::value::RawValue>, serde_json::Error>),
}

/// The probe of autoref-based dispatch on a return type `T`.
///
/// The generated code calls `(&&&&&&&&&Probe::<T>::new()).__mcp_kind()`;
/// method resolution picks the first kind whose bounds `T` meets, one `&`
/// fewer per step:
///
/// 1. [`KindText`]: `T: IntoCallToolResult`, content without a schema;
/// 2. [`KindStructuredResult`]: `Result<O, E>` with `O: Serialize +
///    JsonSchema` and `E: Display`, structured output or an error result;
/// 3. [`KindTextResultBadError`], 4. [`KindStructuredResultBadError`]: a
///    `Result` whose `Ok` type is fine, so its error type is not `Display`:
///    an error, even when the whole `Result` is `Serialize + JsonSchema`
///    (served as structured output, its `Err` would not be a tool error);
/// 5. [`KindStructured`]: `T: Serialize + JsonSchema`, structured output.
///
/// The steps other than 1, 2 and 5 are only reached by return types a tool
/// cannot have. Each picks a tag whose `convert` has a bound the type does
/// not meet, on a trait whose `#[diagnostic::on_unimplemented]` text says
/// what to write:
///
/// 6. [`KindResultBadOk`]: a `Result` whose `Ok` type is none of the above;
/// 7. [`KindSerializeOnly`], 8. [`KindJsonSchemaOnly`]: half of
///    `Serialize + JsonSchema`;
/// 9. [`KindUnsupported`]: anything else.
///
/// The chosen tag knows the schema and converts the value; the tags of
/// steps 3, 4 and 6 to 9 do neither, as their `convert` bound never holds.
#[doc(hidden)]
pub struct Probe<T>(PhantomData<fn() -> T>);

impl<T> Probe<T> {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Probe(PhantomData)
    }
}

/// Declares one step of the dispatch: a trait whose `__mcp_kind` is
/// implemented for `$probe` (a `Probe<..>` behind as many `&` as the step
/// needs) when the `where` bounds hold, returning `$tag`.
macro_rules! kind {
    ($kind:ident: <$($param:ident),*> $probe:ty => $tag:ty where $($bounds:tt)*) => {
        #[doc(hidden)]
        pub trait $kind {
            type Tag;
            fn __mcp_kind(&self) -> Self::Tag;
        }
        impl<$($param),*> $kind for $probe
        where
            $($bounds)*
        {
            type Tag = $tag;
            fn __mcp_kind(&self) -> Self::Tag {
                <$tag>::new()
            }
        }
    };
}

// The resource, prompt and text-parameter probes are built the same way.
pub(crate) use kind;

kind!(KindText: <T> &&&&&&&&Probe<T> => TextTag where T: IntoCallToolResult);
kind!(KindStructuredResult: <O, E> &&&&&&&Probe<Result<O, E>> => StructuredResultTag<O, E>
    where O: Serialize + JsonSchema, E: Display);
kind!(KindTextResultBadError: <T, E> &&&&&&Probe<Result<T, E>> => ErrorWithoutDisplay<E>
    where T: IntoCallToolResult);
kind!(KindStructuredResultBadError: <O, E> &&&&&Probe<Result<O, E>> => ErrorWithoutDisplay<E>
    where O: Serialize + JsonSchema);
kind!(KindStructured: <T> &&&&Probe<T> => StructuredTag<T> where T: Serialize + JsonSchema);
kind!(KindResultBadOk: <T, E> &&&Probe<Result<T, E>> => UnsupportedReturn<T> where);
kind!(KindSerializeOnly: <T> &&Probe<T> => MissingJsonSchema<T> where T: Serialize);
kind!(KindJsonSchemaOnly: <T> &Probe<T> => MissingSerialize<T> where T: JsonSchema);
kind!(KindUnsupported: <T> Probe<T> => UnsupportedReturn<T> where);

#[doc(hidden)]
pub struct TextTag;
impl TextTag {
    const fn new() -> Self {
        TextTag
    }
    pub fn output_schema(self, _: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    pub fn convert<T: IntoCallToolResult>(self, value: T) -> RawOutput {
        RawOutput::Done(value.into_call_tool_result())
    }
}

#[doc(hidden)]
pub struct StructuredResultTag<O, E>(PhantomData<fn() -> (O, E)>);
impl<O: Serialize + JsonSchema, E: Display> StructuredResultTag<O, E> {
    const fn new() -> Self {
        StructuredResultTag(PhantomData)
    }
    pub fn output_schema(self, generator: &mut SchemaGenerator) -> Option<Schema> {
        Some(generator.root_schema_for::<O>())
    }
    pub fn convert(self, value: Result<O, E>) -> RawOutput {
        match value {
            Ok(value) => RawOutput::Structured(serde_json::value::to_raw_value(&value)),
            Err(error) => RawOutput::Done(CallToolResult::error(error_text(&error))),
        }
    }
}

#[doc(hidden)]
pub struct StructuredTag<T>(PhantomData<fn() -> T>);
impl<T: Serialize + JsonSchema> StructuredTag<T> {
    const fn new() -> Self {
        StructuredTag(PhantomData)
    }
    pub fn output_schema(self, generator: &mut SchemaGenerator) -> Option<Schema> {
        Some(generator.root_schema_for::<T>())
    }
    pub fn convert(self, value: T) -> RawOutput {
        RawOutput::Structured(serde_json::value::to_raw_value(&value))
    }
}

// The tags of return types a tool cannot have. Their names, and the source
// of `convert` with its bound, appear in the compile error ("required by a
// bound in `MissingJsonSchema::<T>::convert`"), so each is named for the
// problem, and written out rather than made by a macro (whose source the
// error would show instead). `output_schema` has no bound: the error is
// reported once, by `convert`. They are re-exported (hidden) at the crate
// root and not `#[doc(hidden)]` themselves, so that rustc names them by
// their bare names.

/// The tag of a return type that is neither text, content nor
/// `Serialize + JsonSchema` (`T` is the `Ok` type of a `Result`).
pub struct UnsupportedReturn<T>(PhantomData<fn() -> T>);
impl<T> UnsupportedReturn<T> {
    const fn new() -> Self {
        UnsupportedReturn(PhantomData)
    }
    /// None: the tool does not compile.
    pub fn output_schema(self, _: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    /// Does not compile: its bound is what the error reports.
    pub fn convert<V>(self, _: V) -> RawOutput
    where
        T: SerializeAndJsonSchema,
    {
        unreachable!("SerializeAndJsonSchema is implemented for no type")
    }
}

/// The tag of a return type that is `Serialize` but not `JsonSchema`.
pub struct MissingJsonSchema<T>(PhantomData<fn() -> T>);
impl<T> MissingJsonSchema<T> {
    const fn new() -> Self {
        MissingJsonSchema(PhantomData)
    }
    /// None: the tool does not compile.
    pub fn output_schema(self, _: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    /// Does not compile: its bound is what the error reports.
    pub fn convert<V>(self, _: V) -> RawOutput
    where
        T: DeriveJsonSchema,
    {
        unreachable!("DeriveJsonSchema is implemented for no type")
    }
}

/// The tag of a return type that is `JsonSchema` but not `Serialize`.
pub struct MissingSerialize<T>(PhantomData<fn() -> T>);
impl<T> MissingSerialize<T> {
    const fn new() -> Self {
        MissingSerialize(PhantomData)
    }
    /// None: the tool does not compile.
    pub fn output_schema(self, _: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    /// Does not compile: its bound is what the error reports.
    pub fn convert<V>(self, _: V) -> RawOutput
    where
        T: DeriveSerialize,
    {
        unreachable!("DeriveSerialize is implemented for no type")
    }
}

/// The tag of a `Result` whose error type `E` is not `Display`.
pub struct ErrorWithoutDisplay<E>(PhantomData<fn() -> E>);
impl<E> ErrorWithoutDisplay<E> {
    const fn new() -> Self {
        ErrorWithoutDisplay(PhantomData)
    }
    /// None: the tool does not compile.
    pub fn output_schema(self, _: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    /// Does not compile: its bound is what the error reports.
    pub fn convert<V>(self, _: V) -> RawOutput
    where
        E: ToolError,
    {
        unreachable!("this tag is only chosen for error types that are not Display")
    }
}

/// Only here for its diagnostic: a return type that is none of the
/// supported forms. Never implemented, so the error names this trait and
/// carries this text, and nothing about other impls.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[tool]",
    label = "derive `serde::Serialize` and `schemars::JsonSchema` on your type to return it as structured output",
    note = "or return text or content: `String`, `&'static str`, `()`, `Content`, `Vec<Content>` or `CallToolResult`",
    note = "to report failures, return `Result<T, E>` where `T` is one of these or structured output and `E: std::fmt::Display`"
)]
pub trait SerializeAndJsonSchema {}

/// Never implemented; it only gives the traits above and below an impl whose
/// bound fails, so that rustc does not say they have no implementations.
#[doc(hidden)]
pub trait NeverImplemented {}

#[diagnostic::do_not_recommend]
impl<T: NeverImplemented> SerializeAndJsonSchema for T {}

/// Only here for its diagnostic: a return type that is `Serialize` but not
/// `JsonSchema`. Never implemented, like [`SerializeAndJsonSchema`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[tool]: it implements `Serialize` but not `JsonSchema`",
    label = "derive `schemars::JsonSchema` on your type too: the tool's `outputSchema` is generated from it",
    note = "structured output needs both: `#[derive(serde::Serialize, schemars::JsonSchema)]`"
)]
pub trait DeriveJsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: NeverImplemented> DeriveJsonSchema for T {}

/// Only here for its diagnostic: a return type that is `JsonSchema` but not
/// `Serialize`. Never implemented, like [`SerializeAndJsonSchema`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[tool]: it implements `JsonSchema` but not `Serialize`",
    label = "derive `serde::Serialize` on your type too: the tool's result is written with it",
    note = "structured output needs both: `#[derive(serde::Serialize, schemars::JsonSchema)]`"
)]
pub trait DeriveSerialize {}

#[diagnostic::do_not_recommend]
impl<T: NeverImplemented> DeriveSerialize for T {}

/// An error type a tool's `Result` can have: `Display`. Required of one that
/// is not, so that rustc reports the missing `Display` under this message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the error type of a #[tool]'s `Result`",
    label = "the error type must implement `std::fmt::Display`",
    note = "an `Err` is sent to the model as an error result (`isError: true`) with the error's `Display` text, so that it can correct the call",
    note = "implement `Display` for it (thiserror's `#[error(\"...\")]` does), or return `Result<_, String>` and convert errors with `map_err`"
)]
pub trait ToolError {}

impl<E: Display> ToolError for E {}
