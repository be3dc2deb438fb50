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
