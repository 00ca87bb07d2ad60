//! The protocol's versions (`version`) and the shaping of results for each
//! of them (`shape`): a client is never sent a field its version does not
//! define.

pub(crate) mod cache;
pub(crate) mod capabilities;
pub(crate) mod info;
pub(crate) mod listing;
pub(crate) mod messages;
pub(crate) mod shape;
pub(crate) mod version;
