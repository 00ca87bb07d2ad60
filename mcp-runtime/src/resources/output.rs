//! What a resource returns, and how it becomes the contents of
//! `resources/read`.
//!
//! As for tools (see [`crate::tools::output::Probe`]), the form is decided from the
//! return *type* by autoref dispatch in the generated code:
//! `(&&&&&&&&&&&&&&&ResourceProbe::<T>::new()).__mcp_kind()` picks the
//! first step whose bounds `T` meets, one `&` fewer per step. A return type
//! is a *shape* ([`Plain`] `T`, [`Optional`] `Option<T>`, [`Fallible`]
//! `Result<T, E>`, [`FallibleOptional`] `Result<Option<T>, E>`) around a
//! value read as contents ([`AsContents`]: text, [`Blob`],
//! [`ResourceContents`]) or as JSON text ([`AsJson`]: any `Serialize`):
//!
//! - steps 1 to 4: contents, `Option`, `Result` and `Result<Option<_>>` of
//!   contents;
//! - steps 5 to 7: `Result<Option<_>>`, `Result` and `Option` of JSON
//!   (before step 11, which would serialize `None` as `null`);
//! - steps 8 to 10: a `Result` whose `Ok` type is fine, so its error type
//!   is not `Display`: an error (before step 11, which would serialize the
//!   `Result`);
//! - step 11: JSON;
//! - steps 12 to 15: anything else, an error under the return type naming
//!   the type that cannot be returned (inside `Result` and `Option`).
//!
//! The steps that do not compile pick a tag whose `convert` has a bound the
//! type does not meet, on a trait whose `#[diagnostic::on_unimplemented]`
//! text says what to write.

use std::fmt::{self, Display};
use std::marker::PhantomData;

use serde::Serialize;

use super::def::{ReadError, ReadResult};
use crate::content::ResourceContents;
use crate::tools::output::{NeverImplemented, kind};

/// The bytes of a binary resource, sent base64-encoded as `blob`.
///
/// ```
/// use mcp_runtime::{resource, Blob};
///
/// /// The logo.
/// #[resource("assets://logo.png", mime_type = "image/png")]
/// fn logo() -> Blob {
///     Blob::new(vec![0x89, b'P', b'N', b'G'])
/// }
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Blob {
    bytes: Vec<u8>,
    mime_type: Option<String>,
}

impl Blob {
    /// The bytes, with no MIME type of their own: the resource's
    /// `mime_type` applies.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        Blob {
            bytes: bytes.into(),
            mime_type: None,
        }
    }

    /// Sets the MIME type of these bytes, which takes precedence over the
    /// resource's `mime_type`: it is the more specific of the two.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The MIME type set with [`Blob::with_mime_type`].
    pub fn mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }
}

impl fmt::Debug for Blob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Blob")
            .field("len", &self.bytes.len())
            .field("mime_type", &self.mime_type)
            .finish()
    }
}

/// Types a resource returns as contents rather than as JSON: text, [`Blob`]
/// and [`ResourceContents`].
#[doc(hidden)]
pub trait IntoResourceContents {
    /// The MIME type to list when the attribute sets none.
    fn default_mime_type() -> Option<&'static str>;
    /// The contents of a read of `uri`; `mime_type` is the attribute's.
    fn into_contents(self, uri: &str, mime_type: Option<&'static str>) -> Vec<ResourceContents>;
}

/// One text item; `text/plain` unless `mime_type` says otherwise.
pub(crate) fn text_contents(
    uri: &str,
    mime_type: Option<&'static str>,
    text: String,
) -> Vec<ResourceContents> {
    vec![ResourceContents::Text {
        uri: uri.to_owned(),
        mime_type: Some(mime_type.unwrap_or("text/plain").to_owned()),
        text,
        meta: None,
    }]
}

impl IntoResourceContents for String {
    fn default_mime_type() -> Option<&'static str> {
        Some("text/plain")
    }
    fn into_contents(self, uri: &str, mime_type: Option<&'static str>) -> Vec<ResourceContents> {
        text_contents(uri, mime_type, self)
    }
}

impl IntoResourceContents for &str {
    fn default_mime_type() -> Option<&'static str> {
        Some("text/plain")
    }
    fn into_contents(self, uri: &str, mime_type: Option<&'static str>) -> Vec<ResourceContents> {
        text_contents(uri, mime_type, self.to_owned())
    }
}

impl IntoResourceContents for Blob {
    fn default_mime_type() -> Option<&'static str> {
        None
    }
    fn into_contents(self, uri: &str, mime_type: Option<&'static str>) -> Vec<ResourceContents> {
        let contents = ResourceContents::blob(uri, &self.bytes);
        let mime_type = self.mime_type.or(mime_type.map(str::to_owned));
        vec![match mime_type {
            Some(mime_type) => contents.with_mime_type(mime_type),
            None => contents,
        }]
    }
}

/// Contents built by hand keep their own MIME type; one without gets the
/// attribute's.
fn fill_mime_type(contents: ResourceContents, mime_type: Option<&'static str>) -> ResourceContents {
    match (contents.mime_type(), mime_type) {
        (None, Some(mime_type)) => contents.with_mime_type(mime_type),
        _ => contents,
    }
}

impl IntoResourceContents for ResourceContents {
    fn default_mime_type() -> Option<&'static str> {
        None
    }
    fn into_contents(self, _: &str, mime_type: Option<&'static str>) -> Vec<ResourceContents> {
        vec![fill_mime_type(self, mime_type)]
    }
}

impl IntoResourceContents for Vec<ResourceContents> {
    fn default_mime_type() -> Option<&'static str> {
        None
    }
    fn into_contents(self, _: &str, mime_type: Option<&'static str>) -> Vec<ResourceContents> {
        self.into_iter()
            .map(|contents| fill_mime_type(contents, mime_type))
            .collect()
    }
}

/// How a return type wraps the value: opened into the value, or into the
/// read's error.
#[doc(hidden)]
pub trait Shape<V> {
    type Inner;
    fn open(value: V) -> Result<Self::Inner, ReadError>;
}

/// `T`: always a value.
#[doc(hidden)]
pub struct Plain;
/// `Option<T>`: `None` is [`ReadError::NotFound`].
#[doc(hidden)]
pub struct Optional;
/// `Result<T, E>`: `Err(e)` is [`ReadError::Failed`] with `e`'s text.
#[doc(hidden)]
pub struct Fallible;
/// `Result<Option<T>, E>`: both.
#[doc(hidden)]
pub struct FallibleOptional;

/// An error's text; the alternate form shows the whole chain for error
/// types that support it (anyhow's "context: cause").
fn failed(error: impl Display) -> ReadError {
    ReadError::Failed(format!("{error:#}"))
}

impl<T> Shape<T> for Plain {
    type Inner = T;
    fn open(value: T) -> Result<T, ReadError> {
        Ok(value)
    }
}

impl<T> Shape<Option<T>> for Optional {
    type Inner = T;
    fn open(value: Option<T>) -> Result<T, ReadError> {
        value.ok_or(ReadError::NotFound)
    }
}

impl<T, E: Display> Shape<Result<T, E>> for Fallible {
    type Inner = T;
    fn open(value: Result<T, E>) -> Result<T, ReadError> {
        value.map_err(failed)
    }
}

impl<T, E: Display> Shape<Result<Option<T>, E>> for FallibleOptional {
    type Inner = T;
    fn open(value: Result<Option<T>, E>) -> Result<T, ReadError> {
        value.map_err(failed)?.ok_or(ReadError::NotFound)
    }
}

/// How the value inside the shape becomes contents.
#[doc(hidden)]
pub trait Leaf<T> {
    fn default_mime_type() -> Option<&'static str>;
    fn contents(value: T, uri: &str, mime_type: Option<&'static str>) -> ReadResult;
}

/// Text, a [`Blob`] or [`ResourceContents`], as they are.
#[doc(hidden)]
pub struct AsContents;
/// Any `Serialize` value, as JSON text.
#[doc(hidden)]
pub struct AsJson;

impl<T: IntoResourceContents> Leaf<T> for AsContents {
    fn default_mime_type() -> Option<&'static str> {
        T::default_mime_type()
    }
    fn contents(value: T, uri: &str, mime_type: Option<&'static str>) -> ReadResult {
        Ok(value.into_contents(uri, mime_type))
    }
}

impl<T: Serialize> Leaf<T> for AsJson {
    fn default_mime_type() -> Option<&'static str> {
        Some("application/json")
    }
    fn contents(value: T, uri: &str, mime_type: Option<&'static str>) -> ReadResult {
        let text = serde_json::to_string(&value).map_err(|error| {
            tracing::error!(%uri, %error, "resource contents could not be serialized");
            ReadError::Failed(format!("the resource {uri} could not be serialized"))
        })?;
        Ok(vec![ResourceContents::Text {
            uri: uri.to_owned(),
            mime_type: Some(mime_type.unwrap_or("application/json").to_owned()),
            text,
            meta: None,
        }])
    }
}

/// The probe of autoref-based dispatch on a resource's return type `T`.
#[doc(hidden)]
pub struct ResourceProbe<T>(PhantomData<fn() -> T>);

impl<T> ResourceProbe<T> {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        ResourceProbe(PhantomData)
    }
}

kind!(ResourceKindContents: <T> &&&&&&&&&&&&&&ResourceProbe<T>
    => ResourceTag<T, Plain, AsContents> where T: IntoResourceContents);
kind!(ResourceKindOptionContents: <T> &&&&&&&&&&&&&ResourceProbe<Option<T>>
    => ResourceTag<Option<T>, Optional, AsContents> where T: IntoResourceContents);
kind!(ResourceKindResultContents: <T, E> &&&&&&&&&&&&ResourceProbe<Result<T, E>>
    => ResourceTag<Result<T, E>, Fallible, AsContents> where T: IntoResourceContents, E: Display);
kind!(ResourceKindResultOptionContents: <T, E> &&&&&&&&&&&ResourceProbe<Result<Option<T>, E>>
    => ResourceTag<Result<Option<T>, E>, FallibleOptional, AsContents>
    where T: IntoResourceContents, E: Display);
kind!(ResourceKindResultOptionJson: <T, E> &&&&&&&&&&ResourceProbe<Result<Option<T>, E>>
    => ResourceTag<Result<Option<T>, E>, FallibleOptional, AsJson> where T: Serialize, E: Display);
kind!(ResourceKindResultJson: <T, E> &&&&&&&&&ResourceProbe<Result<T, E>>
    => ResourceTag<Result<T, E>, Fallible, AsJson> where T: Serialize, E: Display);
kind!(ResourceKindOptionJson: <T> &&&&&&&&ResourceProbe<Option<T>>
    => ResourceTag<Option<T>, Optional, AsJson> where T: Serialize);
kind!(ResourceKindBadErrorContents: <T, E> &&&&&&&ResourceProbe<Result<T, E>>
    => ResourceErrorWithoutDisplay<E> where T: IntoResourceContents);
kind!(ResourceKindBadErrorOptionContents: <T, E> &&&&&&ResourceProbe<Result<Option<T>, E>>
    => ResourceErrorWithoutDisplay<E> where T: IntoResourceContents);
kind!(ResourceKindBadErrorJson: <T, E> &&&&&ResourceProbe<Result<T, E>>
    => ResourceErrorWithoutDisplay<E> where T: Serialize);
kind!(ResourceKindJson: <T> &&&&ResourceProbe<T> => ResourceTag<T, Plain, AsJson> where T: Serialize);
kind!(ResourceKindResultOptionUnsupported: <T, E> &&&ResourceProbe<Result<Option<T>, E>>
    => UnsupportedResourceReturn<T> where);
kind!(ResourceKindResultUnsupported: <T, E> &&ResourceProbe<Result<T, E>>
    => UnsupportedResourceReturn<T> where);
kind!(ResourceKindOptionUnsupported: <T> &ResourceProbe<Option<T>>
    => UnsupportedResourceReturn<T> where);
kind!(ResourceKindUnsupported: <T> ResourceProbe<T> => UnsupportedResourceReturn<T> where);

/// The tag of a return type `V` that a resource can have: shape `S` around
/// a value read as `L`.
#[doc(hidden)]
pub struct ResourceTag<V, S, L>(PhantomData<fn() -> V>, PhantomData<(S, L)>);

impl<V, S: Shape<V>, L: Leaf<S::Inner>> ResourceTag<V, S, L> {
    const fn new() -> Self {
        ResourceTag(PhantomData, PhantomData)
    }

    /// The MIME type to list when the attribute sets none.
    pub fn default_mime_type(self) -> Option<&'static str> {
        L::default_mime_type()
    }

    /// The contents of a read of `uri`; `mime_type` is the attribute's.
    pub fn convert(self, value: V, uri: &str, mime_type: Option<&'static str>) -> ReadResult {
        L::contents(S::open(value)?, uri, mime_type)
    }
}

// The tags of return types a resource cannot have. Their names, and the
// source of `convert` with its bound, appear in the compile error, so each
// is named for the problem. They are re-exported (hidden) at the crate root
// and not `#[doc(hidden)]` themselves, so that rustc names them by their
// bare names. `default_mime_type` has no bound: the error is reported
// once, by `convert`.

/// The tag of a return type that is neither contents nor `Serialize` (`T`
/// is the type inside `Option` and `Result`).
pub struct UnsupportedResourceReturn<T>(PhantomData<fn() -> T>);
impl<T> UnsupportedResourceReturn<T> {
    const fn new() -> Self {
        UnsupportedResourceReturn(PhantomData)
    }
    /// None: the resource does not compile.
    pub fn default_mime_type(self) -> Option<&'static str> {
        None
    }
    /// Does not compile: its bound is what the error reports.
    pub fn convert<V>(self, _: V, _: &str, _: Option<&'static str>) -> ReadResult
    where
        T: ResourceFnReturn,
    {
        unreachable!("ResourceFnReturn is implemented for no type")
    }
}

/// The tag of a `Result` whose error type `E` is not `Display`.
pub struct ResourceErrorWithoutDisplay<E>(PhantomData<fn() -> E>);
impl<E> ResourceErrorWithoutDisplay<E> {
    const fn new() -> Self {
        ResourceErrorWithoutDisplay(PhantomData)
    }
    /// None: the resource does not compile.
    pub fn default_mime_type(self) -> Option<&'static str> {
        None
    }
    /// Does not compile: its bound is what the error reports.
    pub fn convert<V>(self, _: V, _: &str, _: Option<&'static str>) -> ReadResult
    where
        E: ResourceFnError,
    {
        unreachable!("this tag is only chosen for error types that are not Display")
    }
}

/// Only here for its diagnostic: a return type that is none of the
/// supported forms. Never implemented.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[resource]",
    label = "derive `serde::Serialize` on your type to return it as JSON text",
    note = "or return text or bytes: `String`, `&'static str`, `Blob`, `ResourceContents` or `Vec<ResourceContents>`",
    note = "return `Option<T>` for a resource that may not exist (`None` is \"resource not found\"), and `Result<T, E>` with `E: std::fmt::Display` to report failures"
)]
pub trait ResourceFnReturn {}

#[diagnostic::do_not_recommend]
impl<T: NeverImplemented> ResourceFnReturn for T {}

/// An error type a resource's `Result` can have: `Display`. Required of one
/// that is not, so that rustc reports the missing `Display` under this
/// message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the error type of a #[resource]'s `Result`",
    label = "the error type must implement `std::fmt::Display`",
    note = "an `Err` is answered with an error whose message is the error's `Display` text",
    note = "implement `Display` for it (thiserror's `#[error(\"...\")]` does), or return `Result<_, String>` and convert errors with `map_err`"
)]
pub trait ResourceFnError {}

impl<E: Display> ResourceFnError for E {}
