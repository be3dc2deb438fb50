//! `#[__hook_table]`: the one declaration of every optional hook of `tool_sdk::Tool`
//! (`tool-sdk/src/hooks.rs`), turned into each place that needs it.
//!
//! The table is a trait whose provided methods are the hooks, each written once: doc,
//! signature, default. A default reads the tool's declared facts (name, description, flags)
//! through a local `facts` (`tool_sdk`'s `HookFacts`). From it come:
//!
//! - `tool_hooks!()`: the hooks as methods of `Tool`, each default reading `facts` from the
//!   tool's constants;
//! - `tool_spec_hooks!()`: the `#[hook(spec)]` ones (the per-input flags, which `#[tool(...)]`
//!   on the struct may write) as methods of `ToolSpec`;
//! - `tool_call_hooks!()`: the per-call hooks as methods of the object-safe `ToolCall`
//!   (futures boxed, `&Self` read as `&dyn ToolCall`); a hook whose default reads `facts` is
//!   required there, since a run-time tool has no constants to read;
//! - `erased_call_hooks!()`: `ErasedCall`'s answers, the tool type's own method when its impl
//!   overrides the hook, else the default over the facts the erased call carries;
//! - `hook_fns!()`: `HookFns` (one `Option<fn>` per per-call hook, and `of::<T>()`) and
//!   `TypeHookFns` (the same for the hooks without `self`, with the default over the facts);
//! - `Hook` and `HOOK_NAMES`: the hooks an `Overrides` set can hold, in bit order.
//!
//! Generated paths name `crate::...` (the macro is only used inside `tool_sdk`); the table's
//! own tokens (types, bodies) resolve where each macro is invoked.

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{
    Attribute, FnArg, GenericArgument, ItemTrait, Pat, PathArguments, ReturnType, TraitItem,
    TraitItemFn, Type, TypeParamBound,
};

/// What a hook is, from its signature.
enum Kind {
    /// `&self` and a plain return: answered per call.
    Call,
    /// `&self` returning `impl Future<Output = X> + Send`: answered per call, boxed when erased.
    Future(Box<Type>),
    /// `&self, other: &Self`: compares two calls of one tool type.
    Pair,
    /// No `self`, no arguments: answered per tool type.
    Type,
    /// No `self`, with arguments (`map_result`): a `Tool` method only; the erased layer reads
    /// it through its own door (`OutputMapping`).
    Mapping,
}

struct HookDecl {
    method: TraitItemFn,
    docs: Vec<Attribute>,
    /// Declared `#[hook(spec)]`: a method of `ToolSpec`, in the flag set.
    spec: bool,
    kind: Kind,
    /// The default reads `facts`.
    reads_facts: bool,
    variant: Ident,
}

/// Expands the table (see the module docs).
pub(crate) fn expand(args: &TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !args.is_empty() {
        return Err(syn::Error::new_spanned(
            args,
            "`__hook_table` takes no arguments",
        ));
    }
    let table: ItemTrait = syn::parse2(item)?;
    let hooks = table
        .items
        .iter()
        .map(read_hook)
        .collect::<syn::Result<Vec<_>>>()?;
    let tool_hooks = hooks.iter().filter(|hook| !hook.spec).map(tool_method);
    let spec_hooks = hooks.iter().filter(|hook| hook.spec).map(tool_method);
    let call_hooks = hooks.iter().filter_map(tool_call_method);
    let erased_hooks = hooks.iter().filter_map(erased_method);
    let hook_fns = hook_fns(&hooks);
    let variants = hooks.iter().map(|hook| {
        let variant = &hook.variant;
        let doc = format!("`{}`", hook.method.sig.ident);
        quote!(#[doc = #doc] #variant,)
    });
    let names = hooks.iter().map(|hook| hook.method.sig.ident.to_string());
    Ok(quote! {
        /// The hooks an `Overrides` set can hold, in bit order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum Hook {
            #(#variants)*
        }

        /// The method name of each [`Hook`], indexed by its bit.
        pub(crate) const HOOK_NAMES: &[&str] = &[#(#names),*];

        /// The hooks as methods of `Tool`.
        macro_rules! tool_hooks {
            () => { #(#tool_hooks)* };
        }
        pub(crate) use tool_hooks;

        /// The per-input flag hooks as methods of `ToolSpec`.
        macro_rules! tool_spec_hooks {
            () => { #(#spec_hooks)* };
        }
        pub(crate) use tool_spec_hooks;

        /// The per-call hooks as methods of `ToolCall`.
        macro_rules! tool_call_hooks {
            () => { #(#call_hooks)* };
        }
        pub(crate) use tool_call_hooks;

        /// `ErasedCall`'s answers to the per-call hooks.
        macro_rules! erased_call_hooks {
            () => { #(#erased_hooks)* };
        }
        pub(crate) use erased_call_hooks;

        /// `HookFns` and `TypeHookFns`.
        macro_rules! hook_fns {
            () => { #hook_fns };
        }
        pub(crate) use hook_fns;
    })
}

fn read_hook(item: &TraitItem) -> syn::Result<HookDecl> {
    let TraitItem::Fn(method) = item else {
        return Err(syn::Error::new_spanned(
            item,
            "the hook table holds methods only",
        ));
    };
    let Some(body) = &method.default else {
        return Err(syn::Error::new_spanned(
            &method.sig,
            "every hook has a default: write its body",
        ));
    };
    let mut spec = false;
    let mut docs = Vec::new();
    for attr in &method.attrs {
        if attr.path().is_ident("hook") {
            let marker: Ident = attr.parse_args()?;
            if marker != "spec" {
                return Err(syn::Error::new_spanned(marker, "expected `#[hook(spec)]`"));
            }
            spec = true;
        } else {
            docs.push(attr.clone());
        }
    }
    check_signature(method)?;
    let has_self = method.sig.receiver().is_some();
    let args: Vec<&Type> = typed_args(method).map(|(_, ty)| ty).collect();
    let kind = if !has_self {
        if args.is_empty() {
            Kind::Type
        } else {
            Kind::Mapping
        }
    } else if let Some(output) = future_output(&method.sig.output) {
        Kind::Future(Box::new(output))
    } else if args.len() == 1 && is_ref_self(args[0]) {
        Kind::Pair
    } else {
        Kind::Call
    };
    let mut method = method.clone();
    method.attrs.clear();
    Ok(HookDecl {
        reads_facts: mentions(body.to_token_stream(), "facts"),
        variant: Ident::new(
            &camel(&method.sig.ident.to_string()),
            method.sig.ident.span(),
        ),
        method,
        docs,
        spec,
        kind,
    })
}

/// Whether `tokens` hold the identifier `name` anywhere.
fn mentions(tokens: TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => ident == name,
        TokenTree::Group(group) => mentions(group.stream(), name),
        _ => false,
    })
}

/// Refuses what the generated forms would not carry over: a receiver other than `&self`,
/// generics, `async`, a `where` clause, an argument that is not a plain name, `&mut`
/// arguments of a future hook, and `Self` anywhere but one `other: &Self`; and, in a hook
/// without `self`, a default that reads `Self` or `self` (the erased form has neither).
fn check_signature(method: &TraitItemFn) -> syn::Result<()> {
    let sig = &method.sig;
    let refuse = |tokens: &dyn ToTokens, what: &str| {
        Err(syn::Error::new_spanned(
            tokens,
            format!("a hook cannot have {what}"),
        ))
    };
    if let Some(receiver) = sig.receiver()
        && receiver.to_token_stream().to_string() != "& self"
    {
        return refuse(receiver, "a receiver other than `&self`");
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return refuse(&sig.generics, "generics or a `where` clause");
    }
    if let Some(asyncness) = &sig.asyncness {
        return refuse(
            asyncness,
            "`async`: return `impl Future<Output = ...> + Send`",
        );
    }
    let mut self_args = 0;
    for arg in &sig.inputs {
        let FnArg::Typed(typed) = arg else { continue };
        if !matches!(&*typed.pat, Pat::Ident(_)) {
            return refuse(&typed.pat, "an argument that is not a plain name");
        }
        if is_ref_self(&typed.ty) {
            self_args += 1;
        } else if mentions(typed.ty.to_token_stream(), "Self") && sig.receiver().is_some() {
            return refuse(&typed.ty, "`Self` in an argument other than `other: &Self`");
        }
        if let Type::Reference(reference) = &*typed.ty
            && reference.mutability.is_some()
            && future_output(&sig.output).is_some()
        {
            return refuse(&typed.ty, "a `&mut` argument in a future hook");
        }
    }
    if self_args > 0 && (self_args != 1 || sig.inputs.len() != 2) {
        return refuse(
            &sig.inputs,
            "`&Self` except as the one argument after `&self`",
        );
    }
    if sig.receiver().is_none()
        && sig.inputs.is_empty()
        && let Some(body) = &method.default
        && (mentions(body.to_token_stream(), "Self") || mentions(body.to_token_stream(), "self"))
    {
        return refuse(
            body,
            "a default reading `Self` or `self` without a receiver",
        );
    }
    Ok(())
}

/// `is_search_or_read_command` → `IsSearchOrReadCommand`.
fn camel(snake: &str) -> String {
    snake
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(chars).collect()
            })
        })
        .collect()
}

/// The arguments after `self`: name and type.
fn typed_args(method: &TraitItemFn) -> impl Iterator<Item = (&Ident, &Type)> {
    method.sig.inputs.iter().filter_map(|arg| match arg {
        FnArg::Typed(typed) => match &*typed.pat {
            Pat::Ident(pat) => Some((&pat.ident, &*typed.ty)),
            _ => None,
        },
        FnArg::Receiver(_) => None,
    })
}

fn is_ref_self(ty: &Type) -> bool {
    matches!(ty, Type::Reference(reference) if matches!(&*reference.elem, Type::Path(path) if path.path.is_ident("Self")))
}

/// `X` of `-> impl Future<Output = X> + Send`.
fn future_output(output: &ReturnType) -> Option<Type> {
    let ReturnType::Type(_, ty) = output else {
        return None;
    };
    let Type::ImplTrait(bounds) = &**ty else {
        return None;
    };
    bounds.bounds.iter().find_map(|bound| {
        let TypeParamBound::Trait(bound) = bound else {
            return None;
        };
        let segment = bound.path.segments.last()?;
        if segment.ident != "Future" {
            return None;
        }
        let PathArguments::AngleBracketed(args) = &segment.arguments else {
            return None;
        };
        args.args.iter().find_map(|arg| match arg {
            GenericArgument::AssocType(assoc) if assoc.ident == "Output" => Some(assoc.ty.clone()),
            _ => None,
        })
    })
}

/// `let facts = ...;` before a default that reads them, from `source`.
fn facts_prelude(hook: &HookDecl, source: TokenStream) -> TokenStream {
    if hook.reads_facts {
        quote!(let facts = #source;)
    } else {
        TokenStream::new()
    }
}

/// The default's statements, as a block's contents.
fn body(hook: &HookDecl) -> TokenStream {
    let stmts = &hook.method.default.as_ref().map(|block| &block.stmts);
    match stmts {
        Some(stmts) => quote!(#(#stmts)*),
        None => TokenStream::new(),
    }
}

/// The hook as a method of `Tool` (or `ToolSpec`).
fn tool_method(hook: &HookDecl) -> TokenStream {
    let docs = &hook.docs;
    let sig = &hook.method.sig;
    let prelude = facts_prelude(hook, quote!(const { crate::tool::HookFacts::of::<Self>() }));
    let body = body(hook);
    quote! {
        #(#docs)*
        #sig {
            #prelude
            #body
        }
    }
}

/// The arguments of a per-call hook's erased form: `&Self` as `&dyn ToolCall`, and for a
/// future every reference living as long as `'a`.
fn erased_args(hook: &HookDecl) -> Vec<TokenStream> {
    typed_args(&hook.method)
        .map(|(name, ty)| {
            let ty = match (&hook.kind, ty) {
                (Kind::Pair, _) => quote!(&dyn ToolCall),
                (Kind::Future(_), Type::Reference(reference)) => {
                    let elem = &reference.elem;
                    quote!(&'a #elem)
                }
                _ => quote!(#ty),
            };
            quote!(#name: #ty)
        })
        .collect()
}

/// The erased signature of a per-call hook, or `None` for the hooks without `self`.
fn erased_sig(hook: &HookDecl) -> Option<TokenStream> {
    let name = &hook.method.sig.ident;
    let args = erased_args(hook);
    let output = &hook.method.sig.output;
    Some(match &hook.kind {
        Kind::Future(output) => {
            quote!(fn #name<'a>(&'a self, #(#args),*) -> BoxFuture<'a, #output>)
        }
        Kind::Call | Kind::Pair => quote!(fn #name(&self, #(#args),*) #output),
        Kind::Type | Kind::Mapping => return None,
    })
}

/// The default as the erased form returns it: a future boxed.
fn erased_default(hook: &HookDecl) -> TokenStream {
    let body = body(hook);
    match hook.kind {
        Kind::Future(_) => quote!(Box::pin({ #body })),
        _ => quote!({ #body }),
    }
}

/// Whether `ToolCall` requires the hook: its default reads `facts` (a tool made at run time
/// has no constants), or it decides whether the call runs (the future hooks,
/// `validate_input` and `check_permissions`: such a tool states its own decision).
fn required_of_tool_call(hook: &HookDecl) -> bool {
    hook.reads_facts || matches!(hook.kind, Kind::Future(_))
}

/// The hook as a method of `ToolCall` (see [`required_of_tool_call`]).
fn tool_call_method(hook: &HookDecl) -> Option<TokenStream> {
    let sig = erased_sig(hook)?;
    let docs = &hook.docs;
    if required_of_tool_call(hook) {
        let note = "\n\nRequired of a `ToolCall`: the default above is a Rust tool type's, \
                    answered from its constants; a tool made at run time states its own answer.";
        return Some(quote!(#(#docs)* #[doc = #note] #sig;));
    }
    let default = erased_default(hook);
    Some(quote!(#(#docs)* #sig { #default }))
}

/// `ErasedCall`'s answer: the type's own method when overridden, else the default.
fn erased_method(hook: &HookDecl) -> Option<TokenStream> {
    let sig = erased_sig(hook)?;
    let name = &hook.method.sig.ident;
    let prelude = facts_prelude(hook, quote!(self.hook_facts()));
    let default = erased_default(hook);
    let arg_names: Vec<&Ident> = typed_args(&hook.method).map(|(name, _)| name).collect();
    let answer = if let Kind::Pair = hook.kind {
        let other = arg_names[0];
        quote! {
            let theirs: &dyn ::std::any::Any = #other;
            match (self.hooks().#name, theirs.downcast_ref::<Self>()) {
                (Some(hook), Some(theirs)) if self.input().type_id() == theirs.input().type_id() => {
                    hook(self.input(), theirs.input())
                }
                _ => { #prelude #default }
            }
        }
    } else {
        quote! {
            match self.hooks().#name {
                Some(hook) => hook(self.input(), #(#arg_names),*),
                None => { #prelude #default }
            }
        }
    };
    Some(quote!(#sig { #answer }))
}

/// `HookFns` and `TypeHookFns`, each with its `of::<T>()`.
fn hook_fns(hooks: &[HookDecl]) -> TokenStream {
    let mut call_fields = Vec::new();
    let mut call_inits = Vec::new();
    let mut type_fields = Vec::new();
    let mut type_inits = Vec::new();
    let mut type_answers = Vec::new();
    for hook in hooks {
        let name = &hook.method.sig.ident;
        let variant = &hook.variant;
        let set = if hook.spec {
            quote!(<T as crate::ToolSpec>::__FLAG_METHODS)
        } else {
            quote!(<T as crate::tool::ToolImpl>::__OVERRIDES)
        };
        let arg_types: Vec<TokenStream> = typed_args(&hook.method)
            .map(|(_, ty)| match (&hook.kind, ty) {
                (Kind::Pair, _) => quote!(&Input),
                (Kind::Future(_), Type::Reference(reference)) => {
                    let elem = &reference.elem;
                    quote!(&'a #elem)
                }
                _ => quote!(#ty),
            })
            .collect();
        let arg_names: Vec<&Ident> = typed_args(&hook.method).map(|(name, _)| name).collect();
        let ret = &hook.method.sig.output;
        let (field, closure) = match &hook.kind {
            Kind::Call => (
                quote!(fn(&Input, #(#arg_types),*) #ret),
                quote!(|i, #(#arg_names),*| this::<T>(i).#name(#(#arg_names),*)),
            ),
            Kind::Future(output) => (
                quote!(for<'a> fn(&'a Input, #(#arg_types),*) -> BoxFuture<'a, #output>),
                quote!(|i, #(#arg_names),*| Box::pin(this::<T>(i).#name(#(#arg_names),*))),
            ),
            Kind::Pair => (
                quote!(fn(&Input, &Input) #ret),
                quote!(|a, b| this::<T>(a).#name(this::<T>(b))),
            ),
            Kind::Type => {
                let doc = format!("`T::{name}` when `T` overrides it.");
                type_fields.push(quote!(#[doc = #doc] pub(crate) #name: Option<fn() #ret>,));
                type_inits.push(quote! {
                    #name: if #set.has(crate::hooks::Hook::#variant) { Some(T::#name) } else { None },
                });
                let default = body(hook);
                let answer_doc = format!("`T::{name}()`, or its default over `facts`.");
                type_answers.push(quote! {
                    #[doc = #answer_doc]
                    #[allow(unused_variables, dead_code)]
                    pub(crate) fn #name(&self, facts: &crate::tool::HookFacts) #ret {
                        match self.#name {
                            Some(hook) => hook(),
                            None => { #default }
                        }
                    }
                });
                continue;
            }
            Kind::Mapping => continue,
        };
        let doc = format!("`T::{name}` when `T` overrides it.");
        call_fields.push(quote!(#[doc = #doc] #name: Option<#field>,));
        call_inits.push(quote! {
            #name: if #set.has(crate::hooks::Hook::#variant) { Some(#closure) } else { None },
        });
    }
    quote! {
        /// `T`'s answers to the per-call hooks, one table per tool type: `Some` for the
        /// hooks `T` overrides, `None` where [`ErasedCall`] answers with the default. Each
        /// function reads its argument as `T` (the table and the input always come from the
        /// same type).
        pub(super) struct HookFns {
            #(#call_fields)*
        }

        impl HookFns {
            /// `T`'s table.
            pub(super) const fn of<T: crate::Tool>() -> Self {
                Self { #(#call_inits)* }
            }
        }

        /// `T`'s answers to the hooks without `self`, as [`HookFns`] for the per-call ones.
        pub(crate) struct TypeHookFns {
            #(#type_fields)*
        }

        impl TypeHookFns {
            /// `T`'s table.
            pub(crate) const fn of<T: crate::Tool>() -> Self {
                Self { #(#type_inits)* }
            }

            #(#type_answers)*
        }
    }
}
