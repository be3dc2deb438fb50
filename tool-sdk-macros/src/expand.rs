//! Code generation. Every check has already run, so nothing here can fail.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::DeriveInput;

use crate::ast::ToolInput;
use crate::attr::{FlagValue, MaxSize, ToolArgs};
use crate::docs::tool_section;
use crate::paths::Private;
use crate::valid::{Model, check};

/// `#[tool(args)] item`: the item with a "Tool" docs section, `impl ToolSpec`, and the
/// registration. On any error: the item unchanged, a stub `impl ToolSpec` (so the user's
/// `impl Tool` keeps type-checking) and every error.
pub(crate) fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let derive: DeriveInput = match syn::parse2(item.clone()) {
        Ok(derive) => derive,
        Err(_) => {
            let error = syn::Error::new(
                Span::call_site(),
                "#[tool] goes on a struct with named fields (the tool's input), such as `struct Glob { pattern: String }`",
            );
            let error = error.to_compile_error();
            return quote!(#item #error);
        }
    };
    let mut errors = darling::Error::accumulator();
    let args = errors.handle(ToolArgs::parse(args));
    let input = errors.handle(ToolInput::from_item(&derive));
    let model = match (args, input) {
        (Some(args), Some(input)) => errors.handle(check(args, input)),
        _ => None,
    };
    match (model, errors.finish()) {
        (Some(model), Ok(())) => generate(&model),
        (_, Err(error)) => fallback(&derive, &error),
        (None, Ok(())) => unreachable!("a failed stage always records an error"),
    }
}

fn generate(model: &Model<'_>) -> TokenStream {
    let item = with_docs(model);
    let spec = gen_tool_spec(model);
    let registration = gen_registration(model);
    quote! {
        #item
        #spec
        #registration
    }
}

fn with_docs(model: &Model<'_>) -> TokenStream {
    let item = model.input.item;
    let docs = tool_section(model);
    let attrs = &item.attrs;
    let rest_vis = &item.vis;
    let ident = &item.ident;
    let generics = &item.generics;
    let syn::Data::Struct(data) = &item.data else {
        unreachable!("ast.rs accepts only structs")
    };
    let fields = &data.fields;
    let where_clause = &generics.where_clause;
    quote! {
        #(#attrs)*
        #(#[doc = #docs])*
        #rest_vis struct #ident #generics #where_clause #fields
    }
}

fn gen_tool_spec(model: &Model<'_>) -> TokenStream {
    let ident = &model.input.item.ident;
    let name = &model.name;
    let description = &model.description;
    let aliases = &model.aliases;
    let search_hint = match &model.search_hint {
        Some(hint) => quote!(::core::option::Option::Some(#hint)),
        None => quote!(::core::option::Option::None),
    };
    let max = match model.max_result_size_chars {
        MaxSize::Chars(chars) => {
            let chars = usize::try_from(chars).unwrap_or(usize::MAX);
            quote!(#Private::MaxResultSize::Chars(#chars))
        }
        MaxSize::Unbounded => quote!(#Private::MaxResultSize::Unbounded),
    };
    let should_defer = model.should_defer;
    let always_load = model.always_load;
    let declared_read_only = gen_declared(model.read_only.as_ref());
    let declared_concurrency_safe = gen_declared(model.concurrency_safe.as_ref());
    let declared_destructive = gen_declared(model.destructive.as_ref());
    let read_only = gen_flag("is_read_only", model.read_only.as_ref());
    let concurrency_safe = gen_flag("is_concurrency_safe", model.concurrency_safe.as_ref());
    let destructive = gen_flag("is_destructive", model.destructive.as_ref());
    quote! {
        #[automatically_derived]
        impl #Private::ToolSpec for #ident {
            const NAME: &'static #Private::str = #name;
            const ALIASES: &'static [&'static #Private::str] = &[#(#aliases),*];
            const DESCRIPTION: &'static #Private::str = #description;
            const SEARCH_HINT: ::core::option::Option<&'static #Private::str> = #search_hint;
            const MAX_RESULT_SIZE_CHARS: #Private::MaxResultSize = #max;
            const SHOULD_DEFER: #Private::bool = #should_defer;
            const ALWAYS_LOAD: #Private::bool = #always_load;
            const READ_ONLY: #Private::DeclaredFlag = #declared_read_only;
            const CONCURRENCY_SAFE: #Private::DeclaredFlag = #declared_concurrency_safe;
            const DESTRUCTIVE: #Private::DeclaredFlag = #declared_destructive;
            #read_only
            #concurrency_safe
            #destructive
        }
    }
}

fn gen_declared(flag: Option<&FlagValue>) -> TokenStream {
    match flag {
        None => quote!(#Private::DeclaredFlag::Default),
        Some(FlagValue::Const { value: true, .. }) => quote!(#Private::DeclaredFlag::Always),
        Some(FlagValue::Const { value: false, .. }) => quote!(#Private::DeclaredFlag::Never),
        Some(FlagValue::Method(_)) => quote!(#Private::DeclaredFlag::PerInput),
    }
}

/// An absent flag keeps the trait's fail-closed default (`false`).
fn gen_flag(method: &str, flag: Option<&FlagValue>) -> TokenStream {
    let method = syn::Ident::new(method, Span::call_site());
    match flag {
        None => TokenStream::new(),
        Some(FlagValue::Const { value, .. }) => quote! {
            #[inline]
            fn #method(&self) -> #Private::bool { #value }
        },
        Some(FlagValue::Method(path)) => {
            let call = quote_spanned!(path_span(path)=> #path(self));
            quote! {
                #[inline]
                fn #method(&self) -> #Private::bool { #call }
            }
        }
    }
}

fn path_span(path: &syn::Path) -> Span {
    syn::spanned::Spanned::span(path)
}

fn gen_registration(model: &Model<'_>) -> TokenStream {
    let ident = &model.input.item.ident;
    // Spanned on the struct's name, so a missing `impl Tool` is reported there.
    let of = quote_spanned!(ident.span()=> #Private::ToolRegistration::of::<#ident>);
    quote! {
        const _: () = {
            #Private::inventory::submit! {
                #of(#Private::DefinitionSite {
                    file: ::core::file!(),
                    line: ::core::line!(),
                    module_path: ::core::module_path!(),
                })
            }
        };
    }
}

fn fallback(item: &DeriveInput, error: &darling::Error) -> TokenStream {
    let errors = error.clone().write_errors();
    let stub = if matches!(item.data, syn::Data::Struct(_)) && item.generics.params.is_empty() {
        let ident = &item.ident;
        quote! {
            #[automatically_derived]
            impl #Private::ToolSpec for #ident {
                const NAME: &'static #Private::str = "";
                const DESCRIPTION: &'static #Private::str = "";
                const MAX_RESULT_SIZE_CHARS: #Private::MaxResultSize = #Private::MaxResultSize::Unbounded;
            }
        }
    } else {
        TokenStream::new()
    };
    quote! {
        #item
        #stub
        #errors
    }
}
