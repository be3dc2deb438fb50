//! The one place that names the runtime crate: everything generated goes through
//! `::tool_sdk::__private`.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

/// `::tool_sdk::__private`, as tokens.
pub(crate) struct Private;

impl ToTokens for Private {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(quote!(::tool_sdk::__private));
    }
}

/// `::tool_sdk::__private` with every token spanned at `span`, for generated code whose
/// errors must all point at one place of the user's code (rustc merges identical errors only
/// at the same span).
pub(crate) fn private_at(span: proc_macro2::Span) -> TokenStream {
    quote::quote_spanned!(span=> ::tool_sdk::__private)
}
