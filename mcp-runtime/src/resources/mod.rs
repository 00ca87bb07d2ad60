//! Resources: what `#[resource]` submits ([`ResourceDef`]) and how a
//! resource function's return value becomes the contents of
//! `resources/read` (`output`); URI templates and their matching
//! (`template`); resources defined at run time (`dynamic`); and the served
//! resource built from either (`build`).

pub(crate) mod build;
pub(crate) mod def;
pub(crate) mod dynamic;
pub(crate) mod output;
pub(crate) mod template;

pub use def::{ReadError, ReadRequest, ReadResult, ResourceDef};
pub use output::{
    Blob, ResourceErrorWithoutDisplay, ResourceFnError, ResourceFnReturn,
    ResourceKindBadErrorContents, ResourceKindBadErrorJson, ResourceKindBadErrorOptionContents,
    ResourceKindContents, ResourceKindJson, ResourceKindOptionContents, ResourceKindOptionJson,
    ResourceKindOptionUnsupported, ResourceKindResultContents, ResourceKindResultJson,
    ResourceKindResultOptionContents, ResourceKindResultOptionJson,
    ResourceKindResultOptionUnsupported, ResourceKindResultUnsupported, ResourceKindUnsupported,
    ResourceProbe, UnsupportedResourceReturn,
};

#[cfg(test)]
mod tests;
