//! `#[derive(Elicit)]`: a struct becomes a form a tool can ask its
//! client's user to fill in; a unit-only enum, choices a field offers.

mod expand;
mod parse;

use proc_macro2::TokenStream;

use crate::common::errors::Errors;

pub fn derive(input: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Errors::default();
    let parsed = parse::parse(input, &mut errors);
    if let Some(errors) = errors.into_compile_errors() {
        return errors;
    }
    match parsed {
        Some(parse::Input::Form(form)) => expand::form(&form),
        Some(parse::Input::Choices(choices)) => expand::choices(&choices),
        None => TokenStream::new(),
    }
}
