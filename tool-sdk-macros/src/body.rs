//! An item's tokens passed on as written, with one part changed: the `{ ... }` it ends with (a
//! struct's fields, an impl block's items, an fn's body) rewritten, or attributes added after
//! its own.

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

/// The item's tokens as written, with `extra` between its outer attributes and the rest (its
/// visibility and keyword): later attributes, which come after the author's own.
pub(crate) fn after_outer_attributes(item: TokenStream, extra: TokenStream) -> TokenStream {
    let mut tokens = item.into_iter().peekable();
    let mut out = TokenStream::new();
    while let Some(TokenTree::Punct(pound)) = tokens.peek() {
        if pound.as_char() != '#' {
            break;
        }
        out.extend(tokens.next()); // `#`
        out.extend(tokens.next()); // `[...]`
    }
    out.extend(extra);
    out.extend(tokens);
    out
}
