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

/// Checks a parameter type. Projecting the field type through this trait
/// reports a type that is not `Deserialize + JsonSchema` once, under the
/// user's type, instead of a cascade from the derives.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a #[tool] parameter",
    label = "this type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive them: `#[derive(serde::Deserialize, schemars::JsonSchema)]`, \
            or take it from shared state with `State<T>`"
)]
pub trait ToolParam {
    type Type;
}

impl<T: serde::de::DeserializeOwned + schemars::JsonSchema> ToolParam for T {
    type Type = T;
}

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
