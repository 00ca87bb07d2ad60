//! `#[resource("uri")]`: an async or plain fn served through
//! `resources/list` (or `resources/templates/list` when the URI has
//! variables) and `resources/read`.

mod expand;
mod parse;
mod uri;
mod view;

pub use expand::resource;
