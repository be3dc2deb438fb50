//! `#[tool]` on `impl Tool for X`: the block as written, plus the set of hooks it overrides,
//! so the tool compiles only those (`tool_sdk::overrides`). The attribute takes no arguments
//! there: the tool's keys go on its input struct.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::quote;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{ImplItem, ItemImpl};

use crate::body::{braces, rewrite_body};
use crate::paths::Private;

/// The block as written with `fn __run` added at the end of its body (its tokens are passed
/// on, not printed again from the syntax tree), followed by `impl ToolImpl for X` (with the
/// block's generics, where clause and `cfg`s) holding the set of hooks the block overrides
/// (`__OVERRIDES`). Or, for a block this attribute refuses, the block and the error (and,
/// for an `impl Tool` with arguments, its `ToolImpl` all the same, so that the one error
/// shown is the one about the arguments).
///
/// `Tool` has `ToolImpl` as a supertrait, so an `impl Tool` without this attribute does not
/// compile (its error says to add `#[tool]`): there is no form of a tool that silently
/// compiles every hook. The set is a constant of its own impl, which needs nothing of `Tool`;
/// the runner in the block does (a tool whose struct lacks `#[tool(...)]` or a derive gets
/// the error at the impl header and the same one again at `#[tool]`, from the runner).
///
/// `__run` is the call and its result mapping as one boxed future, written here, in the
/// tool's own impl: rustc compiles a method with its self type, so what depends on the call's
/// body (the future wrapping it, its drop glue) is rebuilt with the tool's own code when the
/// tool is edited, not in a unit of code the SDK's generic runner shares with every other
/// tool. A method rather than a constant holding a closure: a constant's code is written into
/// the crate's metadata for other crates to use, a method of a non-generic impl is not.
pub(crate) fn generate(args: &TokenStream, block: &ItemImpl, tokens: TokenStream) -> TokenStream {
    if let Err(error) = check(args, block) {
        let error = error.to_compile_error();
        let tool_impl = if is_tool_impl(block) {
            tool_impl(block, &quote!(#Private::Overrides::ALL))
        } else {
            TokenStream::new()
        };
        return quote!(#tokens #tool_impl #error);
    }
    let tool_impl = tool_impl(block, &overrides(block));
    let block = append_to_body(tokens, run_method());
    quote!(#block #tool_impl)
}

/// `impl ToolImpl for X` with the block's generics, where clause and `cfg`s.
fn tool_impl(block: &ItemImpl, set: &TokenStream) -> TokenStream {
    let (impl_generics, _, where_clause) = block.generics.split_for_impl();
    let self_ty = &block.self_ty;
    let cfgs = block
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"));
    quote! {
        #(#cfgs)*
        #[automatically_derived]
        #[doc(hidden)]
        impl #impl_generics #Private::ToolImpl for #self_ty #where_clause {
            const __OVERRIDES: #Private::Overrides = #set;
        }
    }
}

/// `tokens`, an item ending in its `{ ... }` body, with `added` at the end of the body.
fn append_to_body(tokens: TokenStream, added: TokenStream) -> TokenStream {
    rewrite_body(tokens, |mut items| {
        items.extend(added);
        items
    })
    .unwrap_or_else(|_| {
        unreachable!("syn parsed the tokens as an impl block, which ends with its body")
    })
}

/// The impl block's tokens with every brace group at the top level of its body (the methods'
/// bodies, a macro's braces, a constant's braced value) emptied: what [`generate`] reads (the
/// header, each item's kind and name) parses the same, without parsing the code, whose
/// tokens are passed on as written and left to the compiler.
pub(crate) fn outline(tokens: TokenStream) -> TokenStream {
    let emptied = |items: TokenStream| {
        items
            .into_iter()
            .map(|tree| match tree {
                TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => {
                    TokenTree::Group(braces(TokenStream::new(), group.span()))
                }
                other => other,
            })
            .collect()
    };
    // Tokens that are no impl block are left for syn to report.
    rewrite_body(tokens, emptied).unwrap_or_else(|tokens| tokens)
}

/// `fn __run` of an `impl Tool` block (see [`generate`]); the fn form's impl has it too.
pub(crate) fn run_method() -> TokenStream {
    quote! {
        #[doc(hidden)]
        fn __run(
            self,
            __ctx: &#Private::ToolUseContext,
        ) -> #Private::RunFuture<'_> {
            #Private::Box::pin(#Private::Finish::<Self, _>::new(
                <Self as #Private::Tool>::call(self, __ctx),
                __ctx,
            ))
        }
    }
}

/// Refuses arguments, a negative impl, and an impl that is not of a trait named `Tool` (the
/// trait is recognised by its name, as written: through an alias such as `use tool_sdk::Tool
/// as T`, the block is refused).
fn check(args: &TokenStream, block: &ItemImpl) -> syn::Result<()> {
    if !args.is_empty() {
        return Err(syn::Error::new_spanned(
            args,
            "on `impl Tool for ...`, `#[tool]` takes no arguments: write `#[tool]` here and put the tool's keys (`name = \"...\"`, `max_result_size_chars = ...`) in `#[tool(...)]` on its input struct",
        ));
    }
    if let Some(bang) = &block.modifiers.polarity {
        return Err(syn::Error::new_spanned(
            bang,
            "`#[tool]` goes on `impl Tool for YourInput`, not on a negative impl; remove `#[tool]` from it",
        ));
    }
    if !is_tool_impl(block) {
        let span = match &block.trait_ {
            Some((path, _)) => path.span(),
            None => block.self_ty.span(),
        };
        return Err(syn::Error::new(
            span,
            "`#[tool]` goes on a struct, an `async fn`, or an `impl Tool for YourInput` block; this `impl` is not of `Tool`, so remove `#[tool]` from it",
        ));
    }
    Ok(())
}

/// Whether the block implements a trait named `Tool`.
fn is_tool_impl(block: &ItemImpl) -> bool {
    block
        .trait_
        .as_ref()
        .and_then(|(path, _)| path.segments.last())
        .is_some_and(|segment| segment.ident == "Tool")
}

/// `Overrides::NONE.with("validate_input")...`: the methods the block defines, by their names
/// without `r#` (`call` and names that are no hook are ignored by `with`). Whatever may still
/// add or rename methods after this macro has read the block makes every hook count as
/// overridden: a macro call among the items, or an attribute macro on the block that runs
/// after this one (any attribute but the built-in ones below).
fn overrides(block: &ItemImpl) -> TokenStream {
    let macro_item = block
        .items
        .iter()
        .any(|item| matches!(item, ImplItem::Macro(_) | ImplItem::Verbatim(_)));
    if macro_item || block.attrs.iter().any(|attr| !is_built_in(attr)) {
        return quote!(#Private::Overrides::ALL);
    }
    let names = block.items.iter().filter_map(|item| match item {
        ImplItem::Fn(method) => {
            let name = method.sig.ident.unraw().to_string();
            (name != "call").then_some(name)
        }
        _ => None,
    });
    quote!(#Private::Overrides::NONE #(.with(#names))*)
}

/// An attribute the compiler itself reads, which cannot add or rename methods.
fn is_built_in(attr: &syn::Attribute) -> bool {
    const BUILT_IN: &[&str] = &[
        "doc",
        "cfg",
        "cfg_attr",
        "allow",
        "warn",
        "deny",
        "forbid",
        "expect",
        "automatically_derived",
        "diagnostic",
        "rustfmt",
        "clippy",
        "deprecated",
        "must_use",
    ];
    attr.path()
        .segments
        .first()
        .is_some_and(|segment| BUILT_IN.iter().any(|name| segment.ident == name))
}
