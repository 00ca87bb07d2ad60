//! Resources: what `#[resource]` submits ([`ResourceDef`]), and how a
//! resource function's return value becomes the contents of
//! `resources/read`.

mod def;
mod output;

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
