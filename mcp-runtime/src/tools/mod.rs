//! Tools: what `#[tool]` submits and how a call runs (`def`), how a
//! served tool is built from it (`build`), its parameters (`params`), what a tool
//! returns (`output`), tools defined at run time (`dynamic`), tools
//! served transformed (`transform`, applied by `derived`, arguments
//! mapped back by `argmap`), and progressive discovery (`search`).

pub(crate) mod argmap;
pub(crate) mod build;
pub(crate) mod def;
pub(crate) mod derived;
pub(crate) mod dynamic;
pub(crate) mod output;
pub(crate) mod params;
pub(crate) mod search;
pub(crate) mod transform;
