//! Completion (`completion/complete`): the arguments of prompts and the
//! variables of resource templates, each described by a [`ParamDef`], and
//! the completion functions `#[complete(path)]` names.

mod def;

pub use def::{Arguments, CompleteFn, CompleteRequest, Completer, ParamDef};
