//! `#[prompt]`: an async or plain fn served through `prompts/list` and
//! `prompts/get`.

mod expand;
mod parse;

pub use expand::prompt;
