//! `#[tool]`: an async or plain fn served through `tools/list` and `tools/call`.

mod expand;
mod parse;

pub use expand::tool;
