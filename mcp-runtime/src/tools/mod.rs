//! Tools: what `#[tool]` submits and how a call runs (`def`), how a
//! served tool is built from it (`build`), what a tool
//! returns (`output`), tools defined at run time (`dynamic`), and
//! progressive discovery (`search`).

pub(crate) mod build;
pub(crate) mod def;
pub(crate) mod dynamic;
pub(crate) mod output;
pub(crate) mod search;
