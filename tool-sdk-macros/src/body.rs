//! The `{ ... }` an item ends with (a struct's fields, an impl block's items), rewritten while
//! the rest of the item's tokens are passed on as written.

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};

/// `tokens` with the brace group they end with replaced by `rewrite(its contents)`, spanned as
/// the original group; `Err(tokens)`, unchanged, when they do not end with a brace group.
pub(crate) fn rewrite_body(
    tokens: TokenStream,
    rewrite: impl FnOnce(TokenStream) -> TokenStream,
) -> Result<TokenStream, TokenStream> {
    let mut trees: Vec<TokenTree> = tokens.into_iter().collect();
    match trees.last_mut() {
        Some(TokenTree::Group(body)) if body.delimiter() == Delimiter::Brace => {
            *body = braces(rewrite(body.stream()), body.span());
            Ok(trees.into_iter().collect())
        }
        _ => Err(trees.into_iter().collect()),
    }
}

/// `{ stream }` spanned at `span`.
pub(crate) fn braces(stream: TokenStream, span: Span) -> Group {
    let mut group = Group::new(Delimiter::Brace, stream);
    group.set_span(span);
    group
}
