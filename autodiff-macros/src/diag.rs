//! Diagnostics: every error the macro finds is collected and reported at once, each at the
//! span of the user's code it is about (serde's `Ctxt` pattern). The macro never panics.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

#[derive(Default)]
pub struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    pub fn push(&mut self, span: Span, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(span, message));
    }
    pub fn push_spanned(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }
    pub fn extend(&mut self, other: Errors) {
        self.errors.extend(other.errors);
    }
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }
    pub fn to_compile_errors(&self) -> TokenStream {
        self.errors
            .iter()
            .map(syn::Error::to_compile_error)
            .collect()
    }
}
