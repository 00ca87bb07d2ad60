//! The static [`PromptDef`] each `#[prompt]` submits, and what its get shim
//! may fail with.

use std::fmt;

use crate::completion::{Arguments, ParamDef};
use crate::context::{Context, Requirement};
use crate::location::Location;
use crate::text_param::TextParamError;
use crate::tools::def::BoxFuture;

use super::message::GetPromptResult;

/// What `#[prompt]` submits. Not public API: its fields may change in any
/// release.
#[doc(hidden)]
pub struct PromptDef {
    /// `name = ".."`, else the fn name.
    pub name: &'static str,
    pub title: Option<&'static str>,
    /// `description = ".."`, else the doc comment; `None` if neither.
    pub description: Option<&'static str>,
    /// `icons = [..]`: icon URLs.
    pub icons: &'static [&'static str],
    /// `meta = ".."`: JSON object text, checked by the runtime at start-up.
    pub meta: Option<&'static str>,
    /// `scopes = [..]`: OAuth scopes a caller needs (checked by the macro,
    /// and again at start-up).
    pub scopes: &'static [&'static str],
    /// One per parameter other than `Context` and `State<T>`, in order.
    pub arguments: &'static [ParamDef],
    pub requirements: &'static [fn() -> Option<Requirement>],
    pub get: fn(Arguments, Context) -> BoxFuture<Result<GetPromptResult, PromptError>>,
    pub location: Location,
}

inventory::collect!(PromptDef);

impl fmt::Debug for PromptDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptDef")
            .field("name", &self.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// Why a prompt produced no messages: a missing or invalid argument, or the
/// function's `Err`. Answered as invalid params (-32602) with this text.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptError(pub String);

impl PromptError {
    /// The error of an argument of `prompt` that is missing or does not parse.
    #[doc(hidden)]
    pub fn argument(error: TextParamError, argument: &str, prompt: &str) -> Self {
        PromptError(match error {
            TextParamError::Missing => {
                format!("missing required argument `{argument}` of prompt `{prompt}`")
            }
            TextParamError::Invalid { value, error } => format!(
                "invalid value {value:?} for argument `{argument}` of prompt `{prompt}`: {error}"
            ),
        })
    }

    /// An injected parameter could not be provided: the server's state
    /// lacks what the start-up check should have required.
    #[doc(hidden)]
    pub fn misconfigured() -> Self {
        PromptError("internal error: the server is misconfigured".into())
    }

    /// A plain fn could not run: the blocking pool is shutting down.
    #[doc(hidden)]
    pub fn shutting_down() -> Self {
        PromptError("the prompt was cancelled because the server is shutting down".into())
    }
}

impl fmt::Display for PromptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PromptError {}
