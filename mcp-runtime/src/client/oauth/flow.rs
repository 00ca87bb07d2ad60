//! The flow: from a refusal to a token (in progress).

/// What the clones of one [`OAuth`](super::OAuth) share.
#[derive(Default)]
pub(crate) struct Shared {}
