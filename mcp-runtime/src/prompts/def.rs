//! STUB (replaced by the macro branch): what `#[prompt]` submits.
#![allow(dead_code, clippy::type_complexity)]

use crate::completion::def::{Arguments, ParamDef};
use crate::context::{Context, Requirement};
use crate::location::Location;
use crate::prompts::message::GetPromptResult;
use crate::tools::def::BoxFuture;

#[doc(hidden)]
pub struct PromptDef {
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: Option<&'static str>,
    pub icons: &'static [&'static str],
    pub meta: Option<&'static str>,
    pub arguments: &'static [ParamDef],
    pub requirements: &'static [fn() -> Option<Requirement>],
    pub get: fn(Arguments, Context) -> BoxFuture<Result<GetPromptResult, PromptError>>,
    pub location: Location,
}

inventory::collect!(PromptDef);

#[doc(hidden)]
#[derive(Debug)]
pub struct PromptError(pub String);
