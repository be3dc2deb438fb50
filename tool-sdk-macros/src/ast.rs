//! The typed model of an annotated item: an input struct, or an `async fn` (the function
//! form), with the doc comment and the nodes later stages span their errors on.

use syn::spanned::Spanned;

use crate::input_shape::{camel_case, is_context, shape_error};
use syn::{
    Attribute, Data, DeriveInput, Expr, ExprLit, Fields, FnArg, GenericArgument, ItemFn, Lit, Meta,
    PathArguments, ReturnType, Type,
};

/// The item `#[tool]` stands on.
pub(crate) enum ToolItem<'a> {
    /// `struct Glob { .. }`: the struct is the input; the author writes `impl Tool`.
    Struct(&'a DeriveInput),
    /// `async fn now(input: Args, ctx: &ToolUseContext) -> Result<T, E>`.
    Fn(ToolFn<'a>),
}

/// A `#[tool]` item with its doc comment.
pub(crate) struct AnnotatedItem<'a> {
    pub item: ToolItem<'a>,
    /// The doc comment, lines joined with `\n`, trimmed; empty when there is none.
    pub docs: String,
}

/// The function form, checked: at most one input parameter (by value) then at most one
/// context parameter (a reference), and a `Result<T, E>` return type.
pub(crate) struct ToolFn<'a> {
    pub original: &'a ItemFn,
    /// The input parameter's type; `None` for a tool without parameters.
    pub input: Option<&'a Type>,
    /// Whether the fn takes `&ToolUseContext`.
    pub takes_ctx: bool,
    /// `T` in `Result<T, E>`.
    pub output: &'a Type,
}

impl<'a> AnnotatedItem<'a> {
    pub fn from_struct(item: &'a DeriveInput) -> darling::Result<Self> {
        match &item.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(_) => {}
                Fields::Unnamed(_) | Fields::Unit => {
                    return Err(darling::Error::custom(
                        "a #[tool] input must be a struct with named fields, because the model sends a JSON object; write `struct Name { field: Type }` (an empty `{}` is fine for a tool without parameters)",
                    )
                    .with_span(&item.ident));
                }
            },
            Data::Enum(data) => {
                return Err(darling::Error::custom(
                    "a #[tool] input must be a struct with named fields, not an enum, because the model sends a JSON object; put the choice in a field, e.g. `struct Name { mode: Mode }`",
                )
                .with_span(&data.enum_token));
            }
            Data::Union(data) => {
                return Err(darling::Error::custom(
                    "a #[tool] input must be a struct with named fields, not a union",
                )
                .with_span(&data.union_token));
            }
        }
        Ok(Self {
            item: ToolItem::Struct(item),
            docs: doc_text(&item.attrs),
        })
    }

    pub fn from_fn(item: &'a ItemFn) -> darling::Result<Self> {
        Ok(Self {
            item: ToolItem::Fn(ToolFn::from_syn(item)?),
            docs: doc_text(&item.attrs),
        })
    }

    /// The user's name for the item: the struct's or the fn's identifier.
    pub fn ident(&self) -> &'a syn::Ident {
        match &self.item {
            ToolItem::Struct(item) => &item.ident,
            ToolItem::Fn(function) => &function.original.sig.ident,
        }
    }

    pub fn generics(&self) -> &'a syn::Generics {
        match &self.item {
            ToolItem::Struct(item) => &item.generics,
            ToolItem::Fn(function) => &function.original.sig.generics,
        }
    }

    /// The item's outer attributes.
    pub fn attrs(&self) -> &'a [Attribute] {
        match &self.item {
            ToolItem::Struct(item) => &item.attrs,
            ToolItem::Fn(function) => &function.original.attrs,
        }
    }
}

const FN_SHAPE: &str = "write `async fn name(input: Args, ctx: &ToolUseContext) -> Result<T, E>`; both parameters are optional, in that order";

impl<'a> ToolFn<'a> {
    fn from_syn(original: &'a ItemFn) -> darling::Result<Self> {
        let sig = &original.sig;
        let mut errors = darling::Error::accumulator();
        if sig.asyncness.is_none() {
            errors.push(
                darling::Error::custom(format!("a #[tool] fn must be `async`: {FN_SHAPE}"))
                    .with_span(&sig.fn_token),
            );
        }
        let mut input = None;
        let mut input_pat = None;
        let mut takes_ctx = false;
        let mut has_extra_parameters = false;
        for argument in &sig.inputs {
            match argument {
                FnArg::Receiver(receiver) => errors.push(
                    darling::Error::custom(
                        "a #[tool] fn must be a free function, not a method: move it out of the `impl` block and drop `self`",
                    )
                    .with_span(receiver),
                ),
                FnArg::Typed(typed) => match &*typed.ty {
                    // A reference first, other than the context, is an input by reference:
                    // refused below with the struct to write.
                    ty if input.is_none() && !takes_ctx && !is_context(ty) && is_reference(ty) => {
                        input = Some(ty);
                        input_pat = Some(&*typed.pat);
                    }
                    ty if is_reference(ty) && !takes_ctx => takes_ctx = true,
                    ty if is_reference(ty) => errors.push(
                        darling::Error::custom(format!(
                            "a #[tool] fn takes at most one `&ToolUseContext`; {FN_SHAPE}"
                        ))
                        .with_span(&typed.ty),
                    ),
                    ty if input.is_none() && !takes_ctx => {
                        input = Some(ty);
                        input_pat = Some(&*typed.pat);
                    }
                    _ => {
                        has_extra_parameters = true;
                        errors.push(
                            darling::Error::custom(extra_parameter(sig, input_pat, &typed.pat))
                                .with_span(typed),
                        );
                    }
                },
            }
        }
        // With extra parameters, their error already says to make one struct.
        if let (Some(ty), Some(pat), false) = (input, input_pat, has_extra_parameters)
            && let Some(error) = shape_error(&sig.ident, pat, ty, sig.inputs.len() == 1)
        {
            errors.push(error);
        }
        if let Some(variadic) = &sig.variadic {
            errors.push(darling::Error::custom(FN_SHAPE).with_span(variadic));
        }
        let output = result_ok_type(&sig.output).ok_or_else(|| {
            let error = darling::Error::custom(format!(
                "a #[tool] fn must return `Result<T, E>` (T: Serialize, E: Into<ToolError>); {FN_SHAPE}"
            ));
            match &sig.output {
                ReturnType::Default => error.with_span(&sig.ident),
                ReturnType::Type(_, ty) => error.with_span(&ty.span()),
            }
        });
        let output = errors.handle(output);
        errors.finish()?;
        Ok(Self {
            original,
            input,
            takes_ctx,
            output: output.expect("an error was recorded when there is no output type"),
        })
    }
}

/// "a #[tool] fn takes one input parameter: put `a` and `b` in one ... struct, e.g. `async fn
/// add(input: AddArgs, ctx: &ToolUseContext)`", naming the parameters as written.
fn extra_parameter(sig: &syn::Signature, first: Option<&syn::Pat>, extra: &syn::Pat) -> String {
    let name = |pat: &syn::Pat| match pat {
        syn::Pat::Ident(ident) => format!("`{}`", ident.ident),
        _ => "every parameter".to_owned(),
    };
    let names = match first {
        Some(first) => format!("{} and {}", name(first), name(extra)),
        None => name(extra),
    };
    let camel = camel_case(&sig.ident);
    format!(
        "a #[tool] fn takes one input parameter: put {names} in one `#[derive(Deserialize, JsonSchema)]` struct, e.g. `async fn {}(input: {camel}Args, ctx: &ToolUseContext)`",
        sig.ident
    )
}

/// `T` of a `Result<T, ..>` return type (any path ending in `Result`, such as
/// `std::io::Result<T>`).
fn result_ok_type(output: &ReturnType) -> Option<&Type> {
    let ReturnType::Type(_, ty) = output else {
        return None;
    };
    let Type::Path(path) = &**ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return None;
    };
    match arguments.args.first()? {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    }
}

/// The text of `///` comments: one leading space removed per line, outer blank lines trimmed.
pub(crate) fn doc_text(attrs: &[Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(pair) => match &pair.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text),
                    ..
                }) => Some(text.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|text| {
            text.lines()
                .map(|line| line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    lines.join("\n").trim().to_owned()
}

fn is_reference(ty: &Type) -> bool {
    match ty {
        Type::Reference(_) => true,
        Type::Group(group) => is_reference(&group.elem),
        Type::Paren(paren) => is_reference(&paren.elem),
        _ => false,
    }
}
