//! Resources: what a server exposes to be read by URI. What `#[resource]`
//! submits (`def`), URI templates and their matching (`template`), and the
//! served resource built from either (`build`).

pub(crate) mod build;
pub(crate) mod def;
pub(crate) mod dynamic;
pub(crate) mod template;
