//! A JSON Schema (2020-12) validator for the subset of the specification
//! that tool input schemas use.
//!
//! A schema is compiled once ([`Schema::compile`]) into a graph of nodes
//! (one per subschema, `$ref`s as edges); a value is then checked in two
//! passes: [`Schema::is_valid`] answers without allocating, and only when it
//! says no does [`Schema::errors`] walk again to collect every violation
//! ([`Error`]) with its JSON path. Error texts, and the order in which errors
//! are reported, follow the `jsonschema` crate, which the runtime used
//! before, except for members rejected by a schema in
//! `unevaluatedProperties`: they get that schema's errors, as with
//! `additionalProperties`, rather than being called unexpected.
//!
//! Keywords outside the supported subset are refused at compile time with
//! their location, rather than silently not checked.
//!
//! The parts, each depending only on those above it:
//! - `graph`: the compiled form ([`Schema`], its nodes and checks);
//! - `pointer`: JSON Pointers, into values and into the schema;
//! - `values`: comparing JSON values as JSON Schema does (numbers, equality,
//!   `multipleOf`, types);
//! - `error`: the violations and their messages;
//! - `compile`: from the document to the graph (subschemas, `$ref`s, loops);
//! - `keywords`: what each keyword compiles to, in which order checks run;
//! - `validate`: the verdict;
//! - `evaluated`: the members `unevaluatedProperties` sees as evaluated;
//! - `collect`: the errors.
//!
//! `compile` and `keywords`, and `validate` and `evaluated`, call each
//! other's methods, as the recursion of schemas requires (an object's
//! keywords compile subschemas; `unevaluatedProperties` asks which branches
//! are valid), but import only in that order.

mod collect;
mod compile;
mod error;
mod evaluated;
mod graph;
mod keywords;
pub(crate) mod pointer;
mod validate;
mod values;

pub(crate) use error::{Error, ErrorKind};
pub(crate) use graph::Schema;

#[cfg(test)]
mod differential;
#[cfg(test)]
mod tests;
