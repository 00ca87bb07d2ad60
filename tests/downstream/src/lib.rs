//! Tools in two private modules of a library: a binary that links this
//! crate serves both without naming either.

mod math;
mod notes;

pub use notes::Notebook;
