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
/// The generated code calls `(&&&&Probe::<T>::new()).__mcp_kind()`; method
/// resolution picks the first kind whose bounds `T` meets, in this order:
/// [`KindText`], [`KindStructuredResult`], [`KindStructured`],
/// [`KindUnsupported`]. The chosen tag then knows the schema and converts
/// the value.
#[doc(hidden)]
pub struct Probe<T>(PhantomData<fn() -> T>);

impl<T> Probe<T> {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Probe(PhantomData)
    }
}

#[doc(hidden)]
pub trait KindText {
    fn __mcp_kind(&self) -> TextTag;
}
impl<T: IntoCallToolResult> KindText for &&&Probe<T> {
    fn __mcp_kind(&self) -> TextTag {
        TextTag
    }
}

#[doc(hidden)]
pub trait KindStructuredResult {
    type Tag;
    fn __mcp_kind(&self) -> Self::Tag;
}
impl<O: Serialize + JsonSchema, E: Display> KindStructuredResult for &&Probe<Result<O, E>> {
    type Tag = StructuredResultTag<O, E>;
    fn __mcp_kind(&self) -> Self::Tag {
        StructuredResultTag(PhantomData)
    }
}

#[doc(hidden)]
pub trait KindStructured {
    type Tag;
    fn __mcp_kind(&self) -> Self::Tag;
}
impl<T: Serialize + JsonSchema> KindStructured for &Probe<T> {
    type Tag = StructuredTag<T>;
    fn __mcp_kind(&self) -> Self::Tag {
        StructuredTag(PhantomData)
    }
}

#[doc(hidden)]
pub trait KindUnsupported {
    type Tag;
    fn __mcp_kind(&self) -> Self::Tag;
}
impl<T> KindUnsupported for Probe<T> {
    type Tag = UnsupportedTag<T>;
    fn __mcp_kind(&self) -> Self::Tag {
        UnsupportedTag(PhantomData)
    }
}

#[doc(hidden)]
pub struct TextTag;
impl TextTag {
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
    pub fn output_schema(self, generator: &mut SchemaGenerator) -> Option<Schema> {
        Some(generator.root_schema_for::<T>())
    }
    pub fn convert(self, value: T) -> RawOutput {
        RawOutput::Structured(serde_json::value::to_raw_value(&value))
    }
}

#[doc(hidden)]
pub struct UnsupportedTag<T>(PhantomData<fn() -> T>);
impl<T> UnsupportedTag<T> {
    pub fn output_schema(self, _: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    pub fn convert(self, _: T) -> RawOutput
    where
        T: ToolReturn,
    {
        unreachable!("ToolReturn is implemented for no type")
    }
}

/// Only here for its diagnostic: reached when a return type is none of the
/// supported forms.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[tool]",
    label = "unsupported return type",
    note = "a tool returns a type that implements `Serialize + JsonSchema` (structured output), \
            `String`, `&'static str`, `()`, `Content`, `Vec<Content>` or `CallToolResult`, \
            or a `Result<T, E>` of one of these where `E: Display`"
)]
pub trait ToolReturn {}

/// Never implemented; it only gives [`ToolReturn`] an impl whose bound fails,
/// so that rustc prints the note above and nothing about other impls.
#[doc(hidden)]
pub trait NeverImplemented {}

#[diagnostic::do_not_recommend]
impl<T: NeverImplemented> ToolReturn for T {}
