//! What a prompt returns, and how it becomes the result of `prompts/get`.
//!
//! As for tools (see [`crate::tools::output::Probe`]), the form is decided from the
//! return *type* by autoref dispatch in the generated code:
//! `(&&&&PromptProbe::<T>::new()).__mcp_kind()` picks
//!
//! 1. `T: IntoGetPromptResult`: text, messages, a [`GetPromptResult`], or a
//!    `Result` of these whose error is `Display`;
//! 2. a `Result` whose `Ok` type is fine, so its error type is not
//!    `Display`: an error under the return type;
//! 3. a `Result` of anything else, 4. anything else: an error under the
//!    return type naming the type that cannot be returned.

use std::fmt::Display;
use std::marker::PhantomData;

use super::def::PromptError;
use super::message::{GetPromptResult, PromptMessage};
use crate::tools::output::{NeverImplemented, kind};

/// Types a prompt can return.
#[doc(hidden)]
pub trait IntoGetPromptResult {
    fn into_get_prompt_result(self) -> Result<GetPromptResult, PromptError>;
}

impl IntoGetPromptResult for GetPromptResult {
    fn into_get_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        Ok(self)
    }
}

impl IntoGetPromptResult for Vec<PromptMessage> {
    fn into_get_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        Ok(GetPromptResult::new(self))
    }
}

impl IntoGetPromptResult for PromptMessage {
    fn into_get_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        Ok(GetPromptResult::new(vec![self]))
    }
}

/// Text is one message from the user.
impl IntoGetPromptResult for String {
    fn into_get_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        PromptMessage::user(self).into_get_prompt_result()
    }
}

impl IntoGetPromptResult for &str {
    fn into_get_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        PromptMessage::user(self).into_get_prompt_result()
    }
}

/// `Err(e)` is a [`PromptError`] with `e`'s text; the alternate form shows
/// the whole chain for error types that support it.
impl<T: IntoGetPromptResult, E: Display> IntoGetPromptResult for Result<T, E> {
    fn into_get_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        self.map_err(|error| PromptError(format!("{error:#}")))?
            .into_get_prompt_result()
    }
}

/// The probe of autoref-based dispatch on a prompt's return type `T`.
#[doc(hidden)]
pub struct PromptProbe<T>(PhantomData<fn() -> T>);

impl<T> PromptProbe<T> {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        PromptProbe(PhantomData)
    }
}

kind!(PromptKindMessages: <T> &&&PromptProbe<T> => MessagesTag where T: IntoGetPromptResult);
kind!(PromptKindBadError: <T, E> &&PromptProbe<Result<T, E>> => PromptErrorWithoutDisplay<E>
    where T: IntoGetPromptResult);
kind!(PromptKindResultUnsupported: <T, E> &PromptProbe<Result<T, E>> => UnsupportedPromptReturn<T>
    where);
kind!(PromptKindUnsupported: <T> PromptProbe<T> => UnsupportedPromptReturn<T> where);

/// The tag of a return type a prompt can have.
#[doc(hidden)]
pub struct MessagesTag;

impl MessagesTag {
    const fn new() -> Self {
        MessagesTag
    }

    pub fn convert<T: IntoGetPromptResult>(self, value: T) -> Result<GetPromptResult, PromptError> {
        value.into_get_prompt_result()
    }
}

// The tags of return types a prompt cannot have, re-exported (hidden) at
// the crate root and not `#[doc(hidden)]` themselves, so that rustc names
// them by their bare names in the error.

/// The tag of a return type that is not text or messages (`T` is the `Ok`
/// type of a `Result`).
pub struct UnsupportedPromptReturn<T>(PhantomData<fn() -> T>);
impl<T> UnsupportedPromptReturn<T> {
    const fn new() -> Self {
        UnsupportedPromptReturn(PhantomData)
    }
    /// Does not compile: its bound is what the error reports.
    pub fn convert<V>(self, _: V) -> Result<GetPromptResult, PromptError>
    where
        T: PromptFnReturn,
    {
        unreachable!("PromptFnReturn is implemented for no type")
    }
}

/// The tag of a `Result` whose error type `E` is not `Display`.
pub struct PromptErrorWithoutDisplay<E>(PhantomData<fn() -> E>);
impl<E> PromptErrorWithoutDisplay<E> {
    const fn new() -> Self {
        PromptErrorWithoutDisplay(PhantomData)
    }
    /// Does not compile: its bound is what the error reports.
    pub fn convert<V>(self, _: V) -> Result<GetPromptResult, PromptError>
    where
        E: PromptFnError,
    {
        unreachable!("this tag is only chosen for error types that are not Display")
    }
}

/// Only here for its diagnostic: a return type that is none of the
/// supported forms. Never implemented.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[prompt]",
    label = "a prompt returns text or messages",
    note = "return `String` or `&'static str` (one message from the user), `PromptMessage`, `Vec<PromptMessage>` or `GetPromptResult`",
    note = "to report failures, return `Result<T, E>` where `T` is one of these and `E: std::fmt::Display`"
)]
pub trait PromptFnReturn {}

#[diagnostic::do_not_recommend]
impl<T: NeverImplemented> PromptFnReturn for T {}

/// An error type a prompt's `Result` can have: `Display`. Required of one
/// that is not, so that rustc reports the missing `Display` under this
/// message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the error type of a #[prompt]'s `Result`",
    label = "the error type must implement `std::fmt::Display`",
    note = "an `Err` is answered with an invalid-params error whose message is the error's `Display` text",
    note = "implement `Display` for it (thiserror's `#[error(\"...\")]` does), or return `Result<_, String>` and convert errors with `map_err`"
)]
pub trait PromptFnError {}

impl<E: Display> PromptFnError for E {}
