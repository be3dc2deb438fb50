//! The one place that names the runtime crate: everything generated goes through
//! `::tool_sdk::__private`.

use std::cell::RefCell;

use proc_macro2::{TokenStream, TokenTree};
use quote::{ToTokens, quote};

/// `::tool_sdk::__private`, as tokens.
pub(crate) struct Private;

thread_local! {
    /// [`Private`]'s tokens, made once per expansion and copied at each use (a copy of a token
    /// is cheaper than a new one, made through the compiler); emptied by [`Expansion`], since
    /// a token's span belongs to one expansion.
    static PRIVATE: RefCell<Vec<TokenTree>> = const { RefCell::new(Vec::new()) };
}

impl ToTokens for Private {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        PRIVATE.with(|cached| {
            let mut cached = cached.borrow_mut();
            if cached.is_empty() {
                cached.extend(quote!(::tool_sdk::__private));
            }
            tokens.extend(cached.iter().cloned());
        });
    }
}

/// One macro expansion: [`Private`]'s tokens are made anew in it and dropped with it (also
/// when the expansion panics).
pub(crate) struct Expansion(());

impl Expansion {
    pub(crate) fn start() -> Self {
        PRIVATE.with(|cached| cached.borrow_mut().clear());
        Self(())
    }
}

impl Drop for Expansion {
    fn drop(&mut self) {
        PRIVATE.with(|cached| cached.borrow_mut().clear());
    }
}

/// `::tool_sdk::__private` with every token spanned at `span`, for generated code whose
/// errors must all point at one place of the user's code (rustc merges identical errors only
/// at the same span).
pub(crate) fn private_at(span: proc_macro2::Span) -> TokenStream {
    quote::quote_spanned!(span=> ::tool_sdk::__private)
}
