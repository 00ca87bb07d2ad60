//! Completion (`completion/complete`): the arguments of prompts and the
//! variables of resource templates, each described by a [`ParamDef`], the
//! completion functions `#[complete(path)]` names (`def`), and the served
//! parameter that completes (`complete`), and what a client's request
//! completes (`reference`).

pub(crate) mod complete;
pub(crate) mod def;
mod reference;

pub use def::{Arguments, CompleteFn, CompleteRequest, Completer, ParamDef};
pub use reference::CompletionRef;
