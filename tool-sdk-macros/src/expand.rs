//! Code generation. Every check has already run, so nothing here can fail; the top-level
//! [`tool`] reads as parse, check, then a list of `gen_*` calls.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};
use syn::{Attribute, DeriveInput, ItemFn};

use crate::ast::{AnnotatedItem, ToolItem};
use crate::attr::ToolArgs;
use crate::body::{after_outer_attributes, rewrite_body};
use crate::docs::{
    derives_json_schema, field_metadata, is_doc_value, schema_metadata, tool_section,
};
use crate::fn_form;
use crate::impl_form;
use crate::paths::{Private, private_at};
use crate::spec::gen_struct_facts;
use crate::valid::{Model, check};

/// The item `#[tool]` was given, parsed as a struct (or enum or union), an fn or an impl
/// block. What is emitted is always the item's own tokens, never this tree printed again.
enum Item {
    Struct(DeriveInput),
    /// An fn, its body emptied (the code is never parsed here).
    Fn(ItemFn),
    /// `impl Tool for X`, its methods' bodies emptied ([`impl_form::outline`]).
    Impl(syn::ItemImpl),
}

/// `#[tool(args)] item`: the item with a "Tool" docs section, its facts (`impl DeclaredFacts`,
/// or `impl ToolSpec` for a struct with a flag decided per input; for the function form, the
/// tool type, its `ToolInput` and `impl FnTool`), and the registration. On any error: the item
/// unchanged, a stub `impl ToolSpec` (so the user's `impl Tool` keeps type-checking) and every
/// error.
pub(crate) fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let parsed = match parse_item(item.clone()) {
        Ok(parsed) => parsed,
        Err(error) => {
            let error = error.to_compile_error();
            return quote!(#item #error);
        }
    };
    let input = match &parsed {
        Item::Struct(derive) => AnnotatedItem::from_struct(derive),
        Item::Fn(function) => AnnotatedItem::from_fn(function),
        Item::Impl(block) => return impl_form::generate(&args, block, item),
    };
    let mut errors = darling::Error::accumulator();
    let args = ToolArgs::parse(args, &mut errors);
    let input = errors.handle(input);
    let model = match (args, input) {
        (Some(args), Some(input)) => errors.handle(check(args, input)),
        _ => None,
    };
    match (model, errors.finish()) {
        (Some(model), Ok(())) => generate(&model, item),
        (_, Err(error)) => fallback(&parsed, item, error),
        (None, Ok(())) => unreachable!("a failed stage always records an error"),
    }
}

/// The item as a struct (or enum or union: `ast.rs` refuses those with a precise message), an
/// fn or an impl block; anything else is refused here, spanned on its keyword.
fn parse_item(item: TokenStream) -> syn::Result<Item> {
    // A struct, enum or union is parsed once, as what a derive reads; anything else as an item.
    if item_keyword_is(&item, &["struct", "enum", "union"]) {
        return syn::parse2::<DeriveInput>(item).map(Item::Struct);
    }
    // An impl block is read for its header and the names of its items, not its code.
    if item_keyword_is(&item, &["impl"]) {
        return syn::parse2::<syn::ItemImpl>(impl_form::outline(item)).map(Item::Impl);
    }
    // Any other item is read without its code: the brace group it ends with (an fn's body) is
    // emptied first. What is read (an fn's attributes and signature, or the keyword of an item
    // refused) parses the same; the body's tokens are passed on as written and left to the
    // compiler, so a long body costs no parsing here.
    let outline = rewrite_body(item.clone(), |_| TokenStream::new()).unwrap_or_else(|item| item);
    match syn::parse2::<syn::Item>(outline)? {
        syn::Item::Fn(function) => Ok(Item::Fn(function)),
        // An impl block the keyword scan does not know (`unsafe impl`): read as above, its
        // items kept.
        syn::Item::Impl(_) => {
            syn::parse2::<syn::ItemImpl>(impl_form::outline(item)).map(Item::Impl)
        }
        // A shape the keyword scan does not know (syn does): read as a derive reads it.
        syn::Item::Struct(_) | syn::Item::Enum(_) | syn::Item::Union(_) => {
            syn::parse2::<DeriveInput>(item).map(Item::Struct)
        }
        other => {
            let (what, span) = item_keyword(&other);
            Err(syn::Error::new(
                span,
                format!(
                    "#[tool] cannot go on {what}; put it on a struct with named fields (the tool's input), such as `struct Glob {{ pattern: String }}`, on an `async fn`, or on its `impl Tool for ...` block"
                ),
            ))
        }
    }
}

/// Whether the item's keyword, after its outer attributes and visibility, is one of `keywords`.
fn item_keyword_is(item: &TokenStream, keywords: &[&str]) -> bool {
    let mut tokens = item.clone().into_iter();
    while let Some(token) = tokens.next() {
        match token {
            TokenTree::Punct(pound) if pound.as_char() == '#' => {
                tokens.next(); // the attribute's brackets
            }
            TokenTree::Ident(ident) if ident == "pub" => {}
            TokenTree::Group(group) if group.delimiter() == Delimiter::Parenthesis => {} // pub(..)
            // A `macro_rules!` `$vis:vis` arrives as an invisible group, empty or not.
            TokenTree::Group(group) if group.delimiter() == Delimiter::None => {}
            TokenTree::Ident(ident) => return keywords.iter().any(|keyword| ident == keyword),
            _ => return false,
        }
    }
    false
}

/// "a `const`" and the span of its keyword, for the item kinds `#[tool]` refuses.
fn item_keyword(item: &syn::Item) -> (&'static str, Span) {
    use syn::spanned::Spanned;
    match item {
        syn::Item::Const(item) => ("a `const`", item.const_token.span),
        syn::Item::Static(item) => ("a `static`", item.static_token.span),
        syn::Item::Impl(item) => ("an `impl` block", item.impl_token.span),
        syn::Item::Trait(item) => ("a `trait`", item.trait_token.span),
        syn::Item::Mod(item) => ("a `mod`", item.mod_token.span),
        syn::Item::Type(item) => ("a `type` alias", item.type_token.span),
        syn::Item::Use(item) => ("a `use`", item.use_token.span),
        syn::Item::ExternCrate(item) => ("an `extern crate`", item.extern_token.span),
        syn::Item::ForeignMod(item) => ("an `extern` block", item.abi.extern_token.span),
        syn::Item::Macro(item) => ("a macro invocation", item.mac.path.span()),
        other => ("this item", other.span()),
    }
}

fn generate(model: &Model<'_>, tokens: TokenStream) -> TokenStream {
    let cfg = cfg_attrs(model.input.attrs());
    let registration = gen_registration(model);
    // The function form's facts are a constant of its `FnTool` impl (`fn_form`), read by the
    // SDK's one blanket `ToolSpec` impl.
    let (item, spec) = match &model.input.item {
        ToolItem::Struct(item) => {
            let spec = gen_struct_facts(model);
            (
                gen_struct_with_docs(model, item, tokens),
                quote!(#(#cfg)* #spec),
            )
        }
        ToolItem::Fn(function) => (
            fn_form::generate(model, function, &cfg, tokens),
            TokenStream::new(),
        ),
    };
    quote! {
        #item
        #spec
        #(#cfg)*
        #registration
    }
}

/// The item's `#[cfg(...)]` attributes, repeated on every generated item so that a tool
/// compiled out is compiled out whole, registration included (SPEC §7, first layer).
pub(crate) fn cfg_attrs(attrs: &[Attribute]) -> Vec<&Attribute> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"))
        .collect()
}

/// The struct as written (its tokens are passed on, not printed again from the syntax tree),
/// with the schema metadata and the "Tool" docs section after its own attributes and, when it
/// derives `JsonSchema`, each documented field's metadata after the field's attributes. The
/// section is `#[cfg_attr(doc, doc = ..)]`: rustdoc shows it, while a build removes it before
/// the derives read the struct, so they do not read its text again on every build. On a struct
/// with no doc comment of its own (its description given as `description = ".."`) it is a
/// plain `#[doc]`, which documents the struct for `missing_docs` too.
fn gen_struct_with_docs(model: &Model<'_>, item: &DeriveInput, tokens: TokenStream) -> TokenStream {
    let docs = tool_section(model);
    let schema_metadata = schema_metadata(&item.attrs);
    let section = if item.attrs.iter().any(is_doc_value) {
        quote!(#[cfg_attr(doc, doc = #docs)])
    } else {
        quote!(#[doc = #docs])
    };
    let tokens = after_outer_attributes(
        tokens,
        quote! {
            #schema_metadata
            #section
        },
    );
    match &item.data {
        syn::Data::Struct(syn::DataStruct {
            fields: syn::Fields::Named(fields),
            ..
        }) if derives_json_schema(&item.attrs) => with_field_metadata(tokens, fields),
        _ => tokens,
    }
}

/// The struct's tokens with its `{ fields }` group written again from `fields`, each field
/// with [`field_metadata`] after its own attributes; unchanged when no field gets any.
fn with_field_metadata(tokens: TokenStream, fields: &syn::FieldsNamed) -> TokenStream {
    let metadata: Vec<Option<TokenStream>> = fields
        .named
        .iter()
        .map(|field| field_metadata(&field.attrs))
        .collect();
    if metadata.iter().all(Option::is_none) {
        return tokens;
    }
    let written = fields.named.iter().zip(&metadata).map(|(field, metadata)| {
        let syn::Field {
            attrs,
            vis,
            ident,
            colon_token,
            ty,
            ..
        } = field;
        quote!(#(#attrs)* #metadata #vis #ident #colon_token #ty)
    });
    let written = quote!(#(#written),*);
    rewrite_body(tokens, |_| written)
        .unwrap_or_else(|_| unreachable!("a struct with named fields ends with its braces"))
}

fn gen_registration(model: &Model<'_>) -> TokenStream {
    let ident = model.input.ident();
    // Spanned on the item's name, so a missing `impl Tool` is reported there.
    let of = quote_spanned!(ident.span()=> #Private::ToolRegistration::of::<#ident>);
    let mut checks = TokenStream::new();
    let mut modifiers = TokenStream::new();
    if let Some(path) = &model.enabled_if {
        // Coerced to a fn pointer spanned on the user's path, so a wrong signature reads
        // "expected fn pointer `fn() -> bool`, found ..." under the path.
        let span = syn::spanned::Spanned::span(path);
        let ty = quote_spanned!(span=> fn() -> #Private::bool);
        checks.extend(quote_spanned!(span=> const __ENABLED_IF: #ty = #path;));
        modifiers.extend(quote!(.enabled_if(__ENABLED_IF)));
    }
    if model.test_only {
        modifiers.extend(quote!(.test_only()));
    }
    if model.opt_in {
        modifiers.extend(quote!(.opt_in()));
    }
    // The output schema function, a constant chosen by type (see `OutputSchemaProbe`): data
    // in the registration, no function per tool. Every token is spanned like `of` for the
    // struct form, so rustc reports a missing `impl Tool` once.
    let span = match &model.input.item {
        ToolItem::Struct(_) => ident.span(),
        ToolItem::Fn(_) => Span::call_site(),
    };
    let private = private_at(span);
    let output_schema = quote_spanned! {span=>
        {
            #[allow(unused_imports)]
            use #private::OutputSchemaFallback as _;
            <#private::OutputSchemaProbe<#ident>>::OUTPUT_SCHEMA
        }
    };
    let submit = quote! {
        #Private::inventory::submit! {
            #of(#Private::DefinitionSite {
                file: ::core::file!(),
                line: ::core::line!(),
                module_path: ::core::module_path!(),
            })
            #modifiers
            .output_schema(#output_schema)
        }
    };
    // `submit!` is an anonymous constant of its own; a second one around it only when there
    // are checks to keep out of the user's namespace (an item less per tool otherwise).
    if checks.is_empty() {
        submit
    } else {
        quote! {
            const _: () = {
                #checks
                #submit
            };
        }
    }
}

/// The item as written, every error and, for a non-generic struct (or enum or union), a stub
/// `impl ToolSpec`.
fn fallback(item: &Item, tokens: TokenStream, error: darling::Error) -> TokenStream {
    // In source order, so a list of mistakes reads left to right.
    let mut all: Vec<darling::Error> = error.flatten().into_iter().collect();
    all.sort_by_key(|error| {
        let start = error.span().start();
        (start.line, start.column)
    });
    let errors = darling::Error::multiple(all).write_errors();
    let stub = match item {
        // Any non-generic item gets the stub (an enum too), so a user's `impl Tool` next to it
        // adds no "`ToolSpec` is not satisfied" error to the primary one.
        Item::Struct(derive) if derive.generics.params.is_empty() => {
            gen_stub_spec(&derive.ident, &cfg_attrs(&derive.attrs))
        }
        _ => TokenStream::new(),
    };
    quote! {
        #tokens
        #stub
        #errors
    }
}

/// A `ToolSpec` with empty values, so an `impl Tool` next to a broken attribute reports only
/// the attribute's errors.
fn gen_stub_spec(ident: &syn::Ident, cfg: &[&Attribute]) -> TokenStream {
    quote! {
        #(#cfg)*
        #[automatically_derived]
        impl #Private::ToolSpec for #ident {
            const NAME: &'static #Private::str = "";
            const DESCRIPTION: &'static #Private::str = "";
            const MAX_RESULT_SIZE_CHARS: #Private::MaxResultSize = #Private::MaxResultSize::Unbounded;
        }
    }
}
