//! The function form: `#[tool(...)] async fn name(input: Args, ctx: &ToolUseContext) ->
//! Result<T, E>`.
//!
//! The tool's type is a braced struct named like the fn (`struct name { .. }`): a braced struct
//! lives only in the type namespace, so it sits beside the fn without a clash, as Rocket's
//! route structs do. It wraps the input (or `NoInput` for a tool without parameters) and
//! implements `ToolInput` by forwarding to it (reading and the schema functions), so the
//! schema is exactly the input's; it is not itself `Deserialize` or `JsonSchema` (generic code
//! reads it through `tool_sdk::tool::InputOf`). Its one other impl is `FnTool` (the output and
//! return types, the facts as one `Facts` constant, the call of the function): the SDK's
//! blanket impls over `FnTool` give it `ToolSpec` and `Tool`, so a function-form tool puts few
//! items in the user's crate, which an edit of any tool's body re-checks.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, GenericArgument, PathArguments, Type};

use crate::ast::ToolFn;
use crate::body::after_outer_attributes;
use crate::docs::tool_section;
use crate::input_shape::{NamedFieldsCheck, named_fields_check};
use crate::paths::{Private, private_at};
use crate::spec::gen_facts;
use crate::valid::Model;

/// The fn with its "Tool" docs section, the tool type, its `ToolInput` forwarding and its
/// `FnTool` impl.
pub(crate) fn generate(
    model: &Model<'_>,
    function: &ToolFn<'_>,
    cfg: &[&Attribute],
    tokens: TokenStream,
) -> TokenStream {
    let original = function.original;
    let docs = tool_section(model);
    let vis = &original.vis;
    let ident = &original.sig.ident;
    let input = input_type(function);
    let type_doc = format!(
        "The tool type of [`{ident}()`](fn@{ident}), registered as `{}`: its input as the model sends it.",
        model.name
    );
    let check = function.input.and_then(named_fields_check);
    let input_impl = gen_input_delegation(ident, &input, check.as_ref());
    let tool_impl = gen_fn_tool_impl(model, function);
    // The function as written (its tokens, not its syntax tree printed again: the body was
    // never parsed), with the "Tool" docs section after its own attributes.
    let function = after_outer_attributes(tokens, quote!(#[doc = #docs]));
    quote! {
        #function

        // The input type is named here and in the `ToolInput` impl: a `#[deprecated]` on it is
        // reported where the user's function names it, once, not again in the generated code.
        #(#cfg)*
        #[doc = #type_doc]
        #[allow(non_camel_case_types, deprecated)]
        #vis struct #ident {
            __input: #input,
        }

        #(#cfg)*
        #input_impl

        #(#cfg)*
        #tool_impl
    }
}

/// `tokens` with every token located at `span` (groups and their contents too), each keeping
/// its own name resolution.
fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let proc_macro2::TokenTree::Group(group) = &tree {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                tree = proc_macro2::TokenTree::Group(inner);
            } else {
                tree.set_span(tree.span().located_at(span));
            }
            tree
        })
        .collect()
}

/// `T` of the fn's `Result<T, E>`, or `X` when `T` is `ToolResult<X>`.
pub(crate) fn output_type(function: &ToolFn<'_>) -> TokenStream {
    let output = function.output;
    match tool_result_payload(output) {
        Some(payload) => quote!(#payload),
        None => quote!(#output),
    }
}

fn tool_result_payload(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "ToolResult" {
        return None;
    }
    let PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return None;
    };
    match arguments.args.first()? {
        GenericArgument::Type(payload) => Some(payload),
        _ => None,
    }
}

/// The span of `E` in a `Result<T, E>` return type.
fn error_type_span(output: &syn::ReturnType) -> Option<proc_macro2::Span> {
    let syn::ReturnType::Type(_, ty) = output else {
        return None;
    };
    let Type::Path(path) = &**ty else { return None };
    let PathArguments::AngleBracketed(arguments) = &path.path.segments.last()?.arguments else {
        return None;
    };
    arguments.args.iter().nth(1).map(Spanned::span)
}

fn input_type(function: &ToolFn<'_>) -> TokenStream {
    match function.input {
        Some(ty) => quote!(#ty),
        None => quote!(#Private::NoInput),
    }
}

fn gen_input_delegation(
    ident: &syn::Ident,
    input: &TokenStream,
    check: Option<&NamedFieldsCheck>,
) -> TokenStream {
    // Every use goes through `ToolInput` and is spanned on the input type, so a missing derive
    // is reported once, on the parameter, with `ToolInput`'s message naming the fix. The tool
    // type implements `ToolInput` itself (it is neither `Deserialize` nor `JsonSchema`, so the
    // blanket impl does not apply): its schema functions are the input type's own (`__SCHEMA`),
    // so the tool adds no schema function of its own, and reading it adds no closure. The
    // input's named-fields check sits in these two items (the parsed value matched against a
    // braced pattern, the rest in the constant's block), so it adds no item of its own.
    // `__deserialize` is `#[inline(always)]`: rustc then compiles it into its caller (the
    // SDK's generic input parsing, instantiated for the tool), not beside the crate's own
    // generic code, which an edit of any tool's body compiles again.
    let span = input.span();
    let input = quote_spanned!(span=> <#input as #Private::ToolInput>);
    let (pattern, schema) = match check {
        Some(check) => {
            let pattern = &check.pattern;
            let statements = &check.statements;
            (
                quote!(__input @ #pattern),
                quote!({
                    #statements
                    #input::__SCHEMA
                }),
            )
        }
        None => (quote!(__input), quote!(#input::__SCHEMA)),
    };
    quote! {
        #[automatically_derived]
        #[diagnostic::do_not_recommend]
        #[allow(deprecated)]
        impl #Private::ToolInput for #ident {
            #[inline(always)]
            fn __deserialize<'de, __D: #Private::Deserializer<'de>>(
                __deserializer: __D,
            ) -> #Private::Result<Self, __D::Error> {
                match #input::__deserialize(__deserializer) {
                    #Private::Result::Ok(#pattern) => #Private::Result::Ok(Self { __input }),
                    #Private::Result::Err(__error) => #Private::Result::Err(__error),
                }
            }
            const __SCHEMA: #Private::SchemaFns = #schema;
        }
    }
}

/// The one `FnTool` impl: the output and return types, the facts, the call of the function.
/// `ToolSpec`, `Tool` and `ToolImpl` come from the SDK's blanket impls over `FnTool`.
fn gen_fn_tool_impl(model: &Model<'_>, function: &ToolFn<'_>) -> TokenStream {
    let sig = &function.original.sig;
    let ident = &sig.ident;
    let output = output_type(function);
    let spec = gen_facts(model);
    let syn::ReturnType::Type(_, returned) = &sig.output else {
        unreachable!("the fn form's return type was checked to be a `Result`")
    };
    let ctx = format_ident!("__ctx");
    let args = match (function.input.is_some(), function.takes_ctx) {
        (true, true) => quote!(self.__input, #ctx),
        (true, false) => quote!(self.__input),
        (false, true) => quote!(#ctx),
        (false, false) => quote!(),
    };
    // The function's error type is checked once, where `Return` is named (spanned on the
    // error type, so one without `Into<ToolError>` is reported there); `FnCall` and
    // `FinishFn` carry no bound that could report it again.
    let span = error_type_span(&sig.output).unwrap_or_else(|| function.output.span());
    let returned = respan(quote!(#returned), span);
    let return_item = quote_spanned!(span=> type Return = #returned;);
    // Spanned on the function's name, so a future that is not `Send` is reported there, once.
    let name_span = ident.span();
    let name_private = private_at(name_span);
    let call_future = quote_spanned!(name_span=>
        impl #name_private::Future<Output = #returned> + #name_private::Send
    );
    quote! {
        #[automatically_derived]
        #[doc(hidden)]
        impl #Private::FnTool for #ident {
            type Output = #output;
            #return_item
            const FACTS: #Private::Facts = #spec;

            // The tool calls the function it was made from: a `#[deprecated]` on that function
            // is for other callers.
            #[inline]
            #[allow(deprecated)]
            fn __call(self, #ctx: &#Private::ToolUseContext) -> #call_future {
                let _ = &#ctx;
                #ident(#args)
            }
        }
    }
}
