//! `#[tool]`: an async or plain fn served through `tools/list` and `tools/call`.

mod arguments;
mod expand;
mod parse;
mod ui;

pub use expand::tool;
