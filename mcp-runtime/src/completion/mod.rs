//! Completion (`completion/complete`): the arguments of prompts and the
//! variables of resource templates, each described by a [`ParamDef`], the
//! completion functions `#[complete(path)]` names (`def`), and the served
//! parameter that completes (`complete`).

pub(crate) mod complete;
pub(crate) mod def;

pub use def::{Arguments, CompleteFn, CompleteRequest, Completer, ParamDef};
