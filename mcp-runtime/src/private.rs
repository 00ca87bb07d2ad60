//! Not public API: what `#[tool]` expansions name, through
//! `::mcp_runtime::__private`, so that user crates need no direct dependency
//! on inventory, serde, serde_json or schemars. May change in any release.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context as TaskContext, Poll};

pub use inventory;
pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::apps::{__view_file as view_file, Permission, ToolUi, ViewDef, Visibility};
pub use crate::context::{Context, Inject, Requirement};
pub use crate::tools::def::{BoxFuture, Hints, Location, TaskSupport, ToolDef};
pub use crate::tools::output::{
    KindJsonSchemaOnly, KindResultBadOk, KindSerializeOnly, KindStructured, KindStructuredResult,
    KindStructuredResultBadError, KindText, KindTextResultBadError, KindUnsupported, Probe,
    RawOutput,
};
pub use crate::tools::params::{
    DeserializeAndJsonSchema, HeaderParam, ParamVTable, SerializeFallback, SerializeProbe,
    ToolParam, arguments_object, params_schema, parse_arguments,
};

// What `#[resource]`, `#[prompt]` and `#[complete]` expansions name.
pub use crate::completion::{Arguments, CompleteFn, CompleteRequest, Completer, ParamDef};
pub use crate::content::ResourceContents;
pub use crate::prompts::{
    GetPromptResult, PromptDef, PromptError, PromptKindBadError, PromptKindMessages,
    PromptKindResultUnsupported, PromptKindUnsupported, PromptProbe,
};
pub use crate::resources::{
    ReadError, ReadRequest, ReadResult, ResourceDef, ResourceKindBadErrorContents,
    ResourceKindBadErrorJson, ResourceKindBadErrorOptionContents, ResourceKindContents,
    ResourceKindJson, ResourceKindOptionContents, ResourceKindOptionJson,
    ResourceKindOptionUnsupported, ResourceKindResultContents, ResourceKindResultJson,
    ResourceKindResultOptionContents, ResourceKindResultOptionJson,
    ResourceKindResultOptionUnsupported, ResourceKindResultUnsupported, ResourceKindUnsupported,
    ResourceProbe,
};
pub use crate::text_param::{
    EnumProbe, EnumValuesNone, EnumValuesOptional, EnumValuesSchema, TextDeserialize, TextFromStr,
    TextOptionalDeserialize, TextOptionalFromStr, TextOptionalUnparseable, TextParamError,
    TextProbe, TextUnparseable,
};

/// What `#[derive(Elicit)]` expansions name.
pub mod elicit {
    pub use crate::asking::elicit::{
        Choice, Choices, ElicitEnum, ElicitField, Form, FormBuilder, Number, Text, choice_json,
        choose, one_of,
    };
}

use crate::tools::output::CallToolResult;

/// Requires the user's future to be `Send`. The call is spanned at the fn
/// name, so that is where the compiler reports a future that is not: with
/// rustc's own explanation (which value is held across which `.await`), and
/// a note that names this function and shows its `Send` bound line, comment
/// included, so that comment says why and what to do. rustc cuts snippet
/// lines at 140 columns (fewer in a narrow terminal): keep it short.
pub fn tool_future_must_be_send<F>(future: F) -> SendFuture<F>
where
    F: Future + Send, // calls run on several threads: hold no `Rc` or std `MutexGuard` across `.await` (use `Arc`, tokio's `Mutex`)
{
    SendFuture(future)
}

/// [`tool_future_must_be_send`] for resources and prompts, whose errors
/// should not speak of tools.
pub fn future_must_be_send<F>(future: F) -> SendFuture<F>
where
    F: Future + Send, // calls run on several threads: hold no `Rc` or std `MutexGuard` across `.await` (use `Arc`, tokio's `Mutex`)
{
    SendFuture(future)
}

/// A future proven `Send` by [`tool_future_must_be_send`] (or
/// [`future_must_be_send`]). Its `Send` impl
/// is unconditional so that a failed check is reported once, not again where
/// the shim boxes the future; both constructors require `F: Send`.
pub struct SendFuture<F>(F);

// SAFETY: values are only created by `tool_future_must_be_send` and
// `future_must_be_send`, which require `F: Send`.
unsafe impl<F> Send for SendFuture<F> {}

impl<F: Future> Future for SendFuture<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<F::Output> {
        // SAFETY: structural pinning of the only field; it is never moved.
        unsafe { self.map_unchecked_mut(|s| &mut s.0) }.poll(cx)
    }
}

/// Synchronous tool calls running on the blocking pool right now. Unlike
/// async calls they cannot be stopped, and a Tokio runtime waits for them
/// when it is dropped; the stdio transport checks this at shutdown.
static BLOCKING_CALLS: AtomicUsize = AtomicUsize::new(0);

pub(crate) fn blocking_calls_running() -> usize {
    BLOCKING_CALLS.load(Ordering::SeqCst)
}

/// Counts one running synchronous call, until dropped (returned or panicked).
struct RunningBlocking;

impl RunningBlocking {
    fn start() -> Self {
        BLOCKING_CALLS.fetch_add(1, Ordering::SeqCst);
        RunningBlocking
    }
}

impl Drop for RunningBlocking {
    fn drop(&mut self) {
        BLOCKING_CALLS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Runs a synchronous tool on Tokio's blocking pool. A panic is resumed on
/// the calling task, where the runtime turns it into an error result.
pub async fn run_blocking<F, R>(f: F) -> Result<R, RawOutput>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let task = move || {
        let _running = RunningBlocking::start();
        f()
    };
    match tokio::task::spawn_blocking(task).await {
        Ok(value) => Ok(value),
        Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        Err(_) => Err(RawOutput::Done(CallToolResult::error(
            "the tool was cancelled because the server is shutting down",
        ))),
    }
}
