//! Tools, resources, resource templates and prompts in two private modules
//! of a library: a binary that links this crate serves all of them without
//! naming any.

mod math;
mod notes;

pub use notes::Notebook;
