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

/// A type a tool can take as an argument: `Deserialize + JsonSchema`.
///
/// `#[tool]` wraps each parameter in a generated newtype whose `Deserialize`
/// and `JsonSchema` impls go through the parameter type's [`ParamVTable`],
/// read once as `<T as DeserializeAndJsonSchema>::VTABLE` spanned at the
/// user's type. A type that lacks an impl is then reported once, under that
/// type, with this trait's text; naming a trait item with the type as `Self`
/// (rather than calling a bounded fn) adds no "required by a bound in" note.
/// The derives on the arguments struct only see the newtypes and add no
/// cascade.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a #[tool] parameter",
    label = "this type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive both on your type: `#[derive(serde::Deserialize, schemars::JsonSchema)]`",
    note = "or, if the client should not send it, share it with `Server::state` and take `State<T>`"
)]
pub trait DeserializeAndJsonSchema: Sized {
    /// The operations the parameter newtype delegates to `Self`.
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

/// The operations a parameter newtype delegates to its parameter type.
pub struct ParamVTable<T> {
    parse: fn(serde_json::Value) -> Result<T, serde_json::Error>,
    json_schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
    non_optional_json_schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
    is_option: fn() -> bool,
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
    // JSON Schema counts `3.0` and `1e2` as integers, so they pass
    // validation, but serde refuses a float for an integer type. Only when
    // such numbers are present (rarely) and only if serde refuses them as
    // they are, read them as the integers they are.
    let parsed = if has_integral_float(&arguments) {
        T::deserialize(&arguments)
            .or_else(|_| serde_json::from_value(integral_floats_as_integers(arguments)))
    } else {
        serde_json::from_value(arguments)
    };
    parsed.map_err(|error| {
        RawOutput::Done(CallToolResult::error(format!(
            "Invalid arguments: {error}. Correct the arguments and call the tool again."
        )))
    })
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

fn has_integral_float(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::Number(n) => as_integer(n).is_some(),
        serde_json::Value::Array(items) => items.iter().any(has_integral_float),
        serde_json::Value::Object(map) => map.values().any(has_integral_float),
        _ => false,
    }
}

fn integral_floats_as_integers(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
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
}
