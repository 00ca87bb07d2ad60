//! STUB (replaced by the macro branch): completion definitions.
#![allow(dead_code, clippy::type_complexity)]

use crate::tools::def::BoxFuture;

#[doc(hidden)]
pub struct ParamDef {
    pub name: &'static str,
    pub description: Option<&'static str>,
    pub required: bool,
    pub complete: Option<CompleteFn>,
    pub enum_values: fn() -> Option<Vec<String>>,
}

#[doc(hidden)]
pub type CompleteFn = fn(CompleteRequest) -> BoxFuture<Vec<String>>;

#[doc(hidden)]
pub struct CompleteRequest {
    pub prefix: String,
    pub arguments: Arguments,
}

/// Arguments already given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Arguments(Vec<(String, String)>);

impl Arguments {
    /// The value of this argument.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl Arguments {
    /// Every argument, in the order given.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }
}

impl FromIterator<(String, String)> for Arguments {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Self {
        Arguments(iter.into_iter().collect())
    }
}
