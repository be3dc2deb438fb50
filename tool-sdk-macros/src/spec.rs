//! A tool's facts as the attribute declares them (name, description, result-size limit, flags,
//! and the optional rest), written two ways from one list: as one `Facts` value (every
//! function-form tool, and a struct-form tool whose flags are fixed), which the SDK's one
//! `ToolSpec` impl over `DeclaredFacts` reads, and as `ToolSpec` constants with a method for
//! each flag decided per input (a struct-form tool that has one).

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

use crate::attr::{FlagValue, MaxSize};
use crate::paths::Private;
use crate::valid::Model;

/// The struct form's facts: `impl DeclaredFacts` (one `Facts` constant) when every flag is
/// fixed, else `impl ToolSpec` with the required constants, the optional ones that differ from
/// the trait's defaults, and a method for each flag decided per input.
pub(crate) fn gen_struct_facts(model: &Model<'_>) -> TokenStream {
    let ident = model.input.ident();
    let per_input: Vec<&str> = [
        ("is_read_only", model.read_only.as_ref()),
        ("is_concurrency_safe", model.concurrency_safe.as_ref()),
        ("is_destructive", model.destructive.as_ref()),
    ]
    .into_iter()
    .filter(|(_, flag)| matches!(flag, Some(FlagValue::Method(_))))
    .map(|(method, _)| method)
    .collect();
    if per_input.is_empty() {
        let facts = gen_facts(model);
        return quote! {
            #[automatically_derived]
            #[doc(hidden)]
            impl #Private::DeclaredFacts for #ident {
                const FACTS: #Private::Facts = #facts;
            }
        };
    }
    let (name, description, max) = required_facts(model);
    let optional = optional_facts(model)
        .into_iter()
        .map(|Fact { name, ty, value }| {
            let name = syn::Ident::new(name, Span::call_site());
            quote!(const #name: #ty = #value;)
        });
    let read_only = gen_flag("is_read_only", model.read_only.as_ref());
    let concurrency_safe = gen_flag("is_concurrency_safe", model.concurrency_safe.as_ref());
    let destructive = gen_flag("is_destructive", model.destructive.as_ref());
    quote! {
        #[automatically_derived]
        impl #Private::ToolSpec for #ident {
            const NAME: &'static #Private::str = #name;
            const DESCRIPTION: &'static #Private::str = #description;
            const MAX_RESULT_SIZE_CHARS: #Private::MaxResultSize = #max;
            #(#optional)*
            #[doc(hidden)]
            const __FLAG_METHODS: #Private::Overrides = #Private::Overrides::NONE #(.with(#per_input))*;
            #read_only
            #concurrency_safe
            #destructive
        }
    }
}

/// A tool's facts as one `Facts` value, the same facts a `ToolSpec` impl holds as constants
/// (for a tool whose flags are fixed per tool: there are no flag methods).
pub(crate) fn gen_facts(model: &Model<'_>) -> TokenStream {
    let (name, description, max) = required_facts(model);
    let optional: Vec<TokenStream> = optional_facts(model)
        .into_iter()
        .map(|Fact { name, value, .. }| {
            let field = syn::Ident::new(&name.to_ascii_lowercase(), Span::call_site());
            quote!(#field: #value,)
        })
        .collect();
    let facts = quote!(#Private::Facts::new(#name, #description, #max));
    if optional.is_empty() {
        return facts;
    }
    quote! {
        #Private::Facts {
            #(#optional)*
            ..#facts
        }
    }
}

/// The name, the description and the result-size limit, which every tool declares.
fn required_facts<'m>(model: &'m Model<'_>) -> (&'m str, &'m str, TokenStream) {
    let max = match model.max_result_size_chars {
        MaxSize::Chars(chars) => {
            let chars = usize::try_from(chars).unwrap_or(usize::MAX);
            quote!(#Private::MaxResultSize::Chars(#chars))
        }
        MaxSize::Unbounded => quote!(#Private::MaxResultSize::Unbounded),
    };
    (&model.name, &model.description, max)
}

/// One optional fact the attribute declares: the `ToolSpec` constant's name (the `Facts`
/// field's, in lower case), its type and its value.
struct Fact {
    name: &'static str,
    ty: TokenStream,
    value: TokenStream,
}

/// The facts whose trait default is right unless the attribute says otherwise; only the ones
/// that differ are listed, so the generated code says what a person would write.
fn optional_facts(model: &Model<'_>) -> Vec<Fact> {
    let mut out = Vec::new();
    let mut fact = |name, ty, value| out.push(Fact { name, ty, value });
    let str_list = quote!(&'static [&'static #Private::str]);
    let opt_str = quote!(#Private::Option<&'static #Private::str>);
    let bool_ty = quote!(#Private::bool);
    let flag_ty = quote!(#Private::DeclaredFlag);
    if !model.aliases.is_empty() {
        let aliases = &model.aliases;
        fact("ALIASES", str_list.clone(), quote!(&[#(#aliases),*]));
    }
    if let Some(hint) = &model.search_hint {
        fact(
            "SEARCH_HINT",
            opt_str.clone(),
            quote!(#Private::Option::Some(#hint)),
        );
    }
    if model.should_defer {
        fact("SHOULD_DEFER", bool_ty.clone(), quote!(true));
    }
    if model.always_load {
        fact("ALWAYS_LOAD", bool_ty.clone(), quote!(true));
    }
    if model.strict {
        fact("STRICT", bool_ty.clone(), quote!(true));
    }
    for (name, declared) in [
        ("OPEN_WORLD", model.open_world),
        ("IDEMPOTENT", model.idempotent),
    ] {
        if let Some(value) = declared {
            let declared = if value {
                quote!(#Private::DeclaredFlag::Always)
            } else {
                quote!(#Private::DeclaredFlag::Never)
            };
            fact(name, flag_ty.clone(), declared);
        }
    }
    if !model.examples.is_empty() {
        let examples = &model.examples;
        fact("EXAMPLES", str_list.clone(), quote!(&[#(#examples),*]));
    }
    if model.examples_in_description {
        fact("EXAMPLES_IN_DESCRIPTION", bool_ty, quote!(true));
    }
    if let Some(title) = &model.title {
        fact("TITLE", opt_str, quote!(#Private::Option::Some(#title)));
    }
    if let Some(task) = model.task {
        let task = syn::Ident::new(task, Span::call_site());
        fact(
            "TASK",
            quote!(#Private::TaskSupport),
            quote!(#Private::TaskSupport::#task),
        );
    }
    if let Some(callers) = model.callers {
        let callers = syn::Ident::new(callers, Span::call_site());
        fact(
            "CALLERS",
            quote!(#Private::Callers),
            quote!(#Private::Callers::#callers),
        );
    }
    if !model.scopes.is_empty() {
        let scopes = &model.scopes;
        fact("SCOPES", str_list, quote!(&[#(#scopes),*]));
    }
    for (name, flag) in [
        ("READ_ONLY", model.read_only.as_ref()),
        ("CONCURRENCY_SAFE", model.concurrency_safe.as_ref()),
        ("DESTRUCTIVE", model.destructive.as_ref()),
    ] {
        if let Some(flag) = flag {
            fact(name, flag_ty.clone(), gen_declared(flag));
        }
    }
    out
}

fn gen_declared(flag: &FlagValue) -> TokenStream {
    match flag {
        FlagValue::Const { value: true, .. } => quote!(#Private::DeclaredFlag::Always),
        FlagValue::Const { value: false, .. } => quote!(#Private::DeclaredFlag::Never),
        FlagValue::Method(_) => quote!(#Private::DeclaredFlag::PerInput),
    }
}

/// A flag declared for every input (or absent) is answered by the trait's default method from
/// the flag's constant; only a flag decided per input gets a method here.
fn gen_flag(method: &str, flag: Option<&FlagValue>) -> TokenStream {
    let method = syn::Ident::new(method, Span::call_site());
    match flag {
        None | Some(FlagValue::Const { .. }) => TokenStream::new(),
        Some(FlagValue::Method(path)) => {
            // Coerced to a fn pointer spanned on the user's path, so a wrong signature reads
            // "expected fn pointer `fn(&Glob) -> bool`, found ..." under the whole path.
            let span = syn::spanned::Spanned::span(path);
            let ty = quote_spanned!(span=> fn(&Self) -> #Private::bool);
            let check = quote_spanned!(span=> let __method: #ty = #path;);
            quote! {
                #[inline]
                fn #method(&self) -> #Private::bool {
                    #check
                    __method(self)
                }
            }
        }
    }
}
