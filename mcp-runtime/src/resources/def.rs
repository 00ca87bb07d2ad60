//! STUB (replaced by the macro branch): what `#[resource]` submits.
#![allow(dead_code, clippy::type_complexity)]

use crate::completion::def::ParamDef;
use crate::content::ResourceContents;
use crate::context::{Context, Requirement};
use crate::location::Location;
use crate::tools::def::BoxFuture;

#[doc(hidden)]
pub struct ResourceDef {
    pub uri: &'static str,
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: Option<&'static str>,
    pub mime_type: Option<&'static str>,
    pub default_mime_type: fn() -> Option<&'static str>,
    pub icons: &'static [&'static str],
    pub meta: Option<&'static str>,
    pub params: &'static [ParamDef],
    pub requirements: &'static [fn() -> Option<Requirement>],
    pub read: fn(ReadRequest, Context) -> BoxFuture<Result<Vec<ResourceContents>, ReadError>>,
    pub location: Location,
}

inventory::collect!(ResourceDef);

#[doc(hidden)]
pub struct ReadRequest {
    pub uri: String,
    pub vars: Vec<(String, String)>,
}

impl ReadRequest {
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[doc(hidden)]
#[derive(Debug)]
pub enum ReadError {
    NotFound,
    Failed(String),
}
