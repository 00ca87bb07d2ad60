//! Completion of prompt arguments and template variables: what the
//! attributes submit (`def`) and the served parameter that completes
//! (`complete`).

pub(crate) mod complete;
pub(crate) mod def;
