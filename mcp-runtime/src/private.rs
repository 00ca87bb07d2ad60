//! Not public API: what `#[tool]` expansions name, through
//! `::mcp_runtime::__private`, so that user crates need no direct dependency
//! on inventory, serde, serde_json or schemars. May change in any release.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

pub use inventory;
pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::context::{Context, Inject, Requirement};
pub use crate::output::{
    KindStructured, KindStructuredResult, KindText, KindUnsupported, Probe, RawOutput,
};
pub use crate::tool::{BoxFuture, Hints, Location, ToolDef};

use crate::output::CallToolResult;

/// A type a tool can take as an argument.
///
/// `#[tool]` wraps each parameter in a generated newtype whose `Deserialize`
/// and `JsonSchema` impls go through one [`ParamVTable`] per parameter, made
/// by a `ToolParam`-bounded const fn called once, spanned at the user's
/// type. A type that lacks an impl is then reported once, under that type,
/// with this trait's note; the derives on the arguments struct only see the
/// newtypes and add no cascade.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a #[tool] parameter",
    label = "this type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive them: `#[derive(serde::Deserialize, schemars::JsonSchema)]`, \
            or take it from shared state with `State<T>`"
)]
pub trait ToolParam: serde::de::DeserializeOwned + schemars::JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: serde::de::DeserializeOwned + schemars::JsonSchema> ToolParam for T {}

/// The operations a parameter newtype delegates to its parameter type.
pub struct ParamVTable<T> {
    parse: fn(serde_json::Value) -> Result<T, serde_json::Error>,
    json_schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
    non_optional_json_schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
    is_option: fn() -> bool,
}

pub const fn param_vtable<T: ToolParam>() -> ParamVTable<T> {
    ParamVTable {
        parse: serde_json::from_value::<T>,
        json_schema: T::json_schema,
        non_optional_json_schema: T::_schemars_private_non_optional_json_schema,
        is_option: T::_schemars_private_is_option,
    }
}

impl<T> ParamVTable<T> {
    /// Deserializes one parameter. A missing field arrives as `null`, so
    /// `Option` parameters become `None` (serde's own missing-field rule);
    /// required ones were already reported by schema validation.
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        &self,
        deserializer: D,
    ) -> Result<T, D::Error> {
        use serde::Deserialize as _;
        let value = Option::<serde_json::Value>::deserialize(deserializer)?
            .unwrap_or(serde_json::Value::Null);
        (self.parse)(value).map_err(serde::de::Error::custom)
    }

    pub fn json_schema(&self, generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        (self.json_schema)(generator)
    }

    pub fn non_optional_json_schema(
        &self,
        generator: &mut schemars::SchemaGenerator,
    ) -> schemars::Schema {
        (self.non_optional_json_schema)(generator)
    }

    pub fn is_option(&self) -> bool {
        (self.is_option)()
    }
}

/// Lets a parameter newtype serialize its value when the parameter type is
/// `Serialize`, so schemars can show `#[serde(default)]` values as
/// `default`; the inherent method wins over the trait's fallback.
pub struct SerializeProbe<'a, T>(pub &'a T);

impl<T: serde::Serialize> SerializeProbe<'_, T> {
    pub fn __mcp_to_value(&self) -> Result<serde_json::Value, String> {
        serde_json::to_value(self.0).map_err(|e| e.to_string())
    }
}

pub trait SerializeFallback {
    fn __mcp_to_value(&self) -> Result<serde_json::Value, String> {
        Err("this parameter type is not Serialize".into())
    }
}

impl<T> SerializeFallback for SerializeProbe<'_, T> {}

/// Deserializes the validated arguments into the generated struct.
pub fn parse_arguments<T: serde::de::DeserializeOwned>(
    arguments: serde_json::Value,
) -> Result<T, RawOutput> {
    serde_json::from_value(arguments).map_err(|error| {
        RawOutput::Done(CallToolResult::error(format!(
            "Invalid arguments: {error}. Correct the arguments and call the tool again."
        )))
    })
}

/// Requires the user's future to be `Send`; the call is spanned at the fn
/// name, so that is where the compiler reports a future that is not.
pub fn assert_send<F: Future + Send>(future: F) -> AssertSend<F> {
    AssertSend(future)
}

/// A future proven `Send` by [`assert_send`]. Its `Send` impl is
/// unconditional so that a failed check is reported once, not again where
/// the shim boxes the future; the only constructor requires `F: Send`.
pub struct AssertSend<F>(F);

// SAFETY: values are only created by `assert_send`, which requires `F: Send`.
unsafe impl<F> Send for AssertSend<F> {}

impl<F: Future> Future for AssertSend<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<F::Output> {
        // SAFETY: structural pinning of the only field; it is never moved.
        unsafe { self.map_unchecked_mut(|s| &mut s.0) }.poll(cx)
    }
}

/// Runs a synchronous tool on Tokio's blocking pool. A panic is resumed on
/// the calling task, where the runtime turns it into an error result.
pub async fn run_blocking<F, R>(f: F) -> Result<R, RawOutput>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(value) => Ok(value),
        Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        Err(_) => Err(RawOutput::Done(CallToolResult::error(
            "the tool was cancelled because the server is shutting down",
        ))),
    }
}
