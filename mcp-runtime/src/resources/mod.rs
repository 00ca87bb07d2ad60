//! Resources: what a server exposes to be read by URI.

pub(crate) mod template;
