//! [`Errors`]: every problem found in one attribute, reported together.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// Accumulates errors so that one build reports every problem at once.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(existing) => existing.combine(error),
            None => self.0 = Some(error),
        }
    }

    pub fn spanned(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn at(&mut self, span: Span, message: impl std::fmt::Display) {
        self.push(syn::Error::new(span, message));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    pub fn into_compile_errors(self) -> Option<TokenStream> {
        self.0.map(|e| e.to_compile_error())
    }
}
