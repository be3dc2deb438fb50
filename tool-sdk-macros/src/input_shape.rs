//! The function form's input type, checked as the struct form's is: the model sends a JSON
//! object, so the input must be a struct with named fields.
//!
//! The macro sees only the fn, not the definition of the input type, so the check has two
//! parts. Types whose shape shows in their syntax (a reference, tuple, slice, array, pointer,
//! `impl`/`dyn` trait, a primitive, `String`, a std collection, `Option`, a smart pointer) are
//! refused here, on the type, with a struct to write instead, or, for a reference, std pointer
//! or `Option` around another path (`&Args`, `Box<Args>`), with that path to take by value. A path to any other type gets a
//! generated check ([`named_fields_check`]) that costs nothing at run time: a struct with named
//! fields is the only kind of type that a braced pattern accepts (enums are refused there)
//! and that has nothing in the value namespace (a tuple struct has its constructor there, a
//! unit struct its value, and either fails a `NamedFields` bound whose message names the
//! fix).

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{PathArguments, Type};

use crate::paths::{Private, private_at};

/// Last path segments that name, in std or as a primitive, something other than a struct with
/// named fields, with what it is in the model's JSON.
const NOT_A_STRUCT: &[(&str, &str)] = &[
    ("bool", "a boolean"),
    ("char", "a string"),
    ("str", "a string"),
    ("String", "a string"),
    ("PathBuf", "a string"),
    ("OsString", "a string"),
    ("u8", "a number"),
    ("u16", "a number"),
    ("u32", "a number"),
    ("u64", "a number"),
    ("u128", "a number"),
    ("usize", "a number"),
    ("i8", "a number"),
    ("i16", "a number"),
    ("i32", "a number"),
    ("i64", "a number"),
    ("i128", "a number"),
    ("isize", "a number"),
    ("f32", "a number"),
    ("f64", "a number"),
    ("Vec", "an array"),
    ("VecDeque", "an array"),
    ("HashSet", "an array"),
    ("BTreeSet", "an array"),
    ("HashMap", "a map"),
    ("BTreeMap", "a map"),
    ("Option", "an optional value"),
    ("Box", "a pointer"),
    ("Rc", "a pointer"),
    ("Arc", "a pointer"),
    ("Cow", "a pointer"),
];

/// The error for an input type whose syntax shows it is not a struct with named fields, or
/// `None` for a path that [`named_fields_check`] has to settle. `pat` is the parameter's
/// pattern and `fn_name` the fn's name, both used in the suggested struct.
pub(crate) fn shape_error(
    fn_name: &syn::Ident,
    pat: &syn::Pat,
    ty: &Type,
    only_parameter: bool,
) -> Option<darling::Error> {
    if let Some(target) = by_value_target(ty) {
        return Some(by_value_error(pat, ty, target, only_parameter));
    }
    let what = match unwrap(ty) {
        Type::Reference(_) => "a reference; the input is parsed into a value the fn owns",
        Type::Tuple(tuple) if tuple.elems.is_empty() => {
            "`()`; leave the parameter out for a tool without input"
        }
        Type::Tuple(_) => "a tuple, which the model would send as an array",
        Type::Slice(_) | Type::Array(_) => "an array",
        Type::Ptr(_) => "a raw pointer",
        Type::FnPtr(_) | Type::ImplTrait(_) | Type::TraitObject(_) => "not a data type",
        Type::Never(_) | Type::Infer(_) => "not a data type",
        Type::Path(path) => return Some(error(fn_name, pat, ty, std_kind(path)?)),
        _ => return None,
    };
    Some(error(fn_name, pat, ty, what))
}

/// What the JSON of a path naming a std type or primitive is, from [`NOT_A_STRUCT`]; `None`
/// for any other path.
fn std_kind(path: &syn::TypePath) -> Option<&'static str> {
    if path.qself.is_some() {
        return None;
    }
    let segments = &path.path.segments;
    let std_path = segments.len() == 1
        || segments.first().is_some_and(|first| {
            ["std", "core", "alloc"]
                .iter()
                .any(|krate| first.ident == krate)
        });
    let last = segments.last()?;
    NOT_A_STRUCT
        .iter()
        .find(|(name, _)| std_path && last.ident == name)
        .map(|(_, kind)| *kind)
}

/// The pointers and wrappers that a by-value input replaces: their JSON is their referent's
/// (or `null` for `Option`), so the fix for `&Args`, `Box<Args>` or `Option<Args>` is `Args`
/// itself, not a struct around it (which would add a key to what the model sends).
const WRAPPERS: &[&str] = &["Box", "Rc", "Arc", "Cow", "Option"];

/// For a reference, or a std pointer or `Option`, around a path that is not a std type or
/// primitive (through any number of layers: `&Box<Args>`), that path: the type to take by
/// value. `None` for anything else, such as `&str` or `Box<[u8]>`.
fn by_value_target(ty: &Type) -> Option<&Type> {
    let mut inner = unwrap(ty);
    let mut layers = 0;
    loop {
        match inner {
            Type::Reference(reference) => inner = unwrap(&reference.elem),
            Type::Path(path)
                if std_kind(path).is_some()
                    && path
                        .path
                        .segments
                        .last()
                        .is_some_and(|last| WRAPPERS.iter().any(|name| last.ident == name)) =>
            {
                let PathArguments::AngleBracketed(arguments) =
                    &path.path.segments.last()?.arguments
                else {
                    return None;
                };
                let mut types = arguments.args.iter().filter_map(|argument| match argument {
                    syn::GenericArgument::Type(ty) => Some(ty),
                    _ => None,
                });
                inner = unwrap(types.next()?);
            }
            Type::Path(path) if layers > 0 && std_kind(path).is_none() => return Some(inner),
            _ => return None,
        }
        layers += 1;
    }
}

fn by_value_error(
    pat: &syn::Pat,
    ty: &Type,
    target: &Type,
    only_parameter: bool,
) -> darling::Error {
    let field = match pat {
        syn::Pat::Ident(ident) => ident.ident.to_string(),
        _ => "input".to_owned(),
    };
    let target = type_text(target);
    let what = match unwrap(ty) {
        Type::Reference(_) => "a reference",
        Type::Path(path)
            if path
                .path
                .segments
                .last()
                .is_some_and(|last| last.ident == "Option") =>
        {
            "optional, but the model always sends the input object"
        }
        _ => "a pointer",
    };
    let mut message = format!(
        "a #[tool] fn takes its input by value, parsed from the JSON object the model sends, and `{}` is {what}: take `{field}: {target}`",
        type_text(ty)
    );
    if what.starts_with("optional") {
        message.push_str(
            " and make its fields `Option<_>` for the parameters the model may leave out",
        );
    }
    if only_parameter && matches!(unwrap(ty), Type::Reference(_)) {
        message.push_str(&format!(
            "; if `{}` is the tool's context, write `&ToolUseContext` (the context parameter is recognised by that name, not through a type alias)",
            type_text(ty)
        ));
    }
    darling::Error::custom(message).with_span(ty)
}

fn error(fn_name: &syn::Ident, pat: &syn::Pat, ty: &Type, what: &str) -> darling::Error {
    let field = match pat {
        syn::Pat::Ident(ident) => ident.ident.to_string(),
        _ => "value".to_owned(),
    };
    let owned = type_text(&owned(unwrap(ty)));
    let args = format!("{}Args", camel_case(fn_name));
    let message = if matches!(unwrap(ty), Type::Tuple(tuple) if tuple.elems.is_empty()) {
        format!(
            "a #[tool] fn's input must be a struct with named fields, because the model sends a JSON object; `()` is {what}"
        )
    } else {
        format!(
            "a #[tool] fn's input must be a struct with named fields, because the model sends a JSON object, and `{}` is {what}: declare `#[derive(Deserialize, JsonSchema)] struct {args} {{ {field}: {owned} }}` and take `input: {args}`",
            type_text(ty)
        )
    };
    darling::Error::custom(message).with_span(ty)
}

/// What the suggested field holds: the referent of a reference, `String` for `str`, `Vec<T>`
/// for `[T]`.
fn owned(ty: &Type) -> Type {
    match ty {
        Type::Reference(reference) => match unwrap(&reference.elem) {
            Type::Path(path) if path.qself.is_none() && path.path.is_ident("str") => {
                syn::parse_quote!(String)
            }
            Type::Slice(slice) => {
                let elem = &slice.elem;
                syn::parse_quote!(Vec<#elem>)
            }
            other => owned(other),
        },
        other => other.clone(),
    }
}

/// A type as a person writes it: `Vec<String>`, `&str`, `(u32, u32)`.
fn type_text(ty: &Type) -> String {
    let text = ty.to_token_stream().to_string();
    [
        (" :: ", "::"),
        (":: ", "::"),
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        ("& ", "&"),
        (" ,", ","),
        ("( ", "("),
        (" )", ")"),
        ("[ ", "["),
        (" ]", "]"),
        (" ;", ";"),
    ]
    .iter()
    .fold(text, |text, (from, to)| text.replace(from, to))
}

/// `add_numbers` → `AddNumbers`.
pub(crate) fn camel_case(ident: &syn::Ident) -> String {
    ident
        .to_string()
        .trim_start_matches("r#")
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or_else(String::new, |c| {
                c.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

/// The type inside invisible groups and parentheses (as `macro_rules!` passes `$t:ty`).
fn unwrap(ty: &Type) -> &Type {
    match ty {
        Type::Group(group) => unwrap(&group.elem),
        Type::Paren(paren) => unwrap(&paren.elem),
        other => other,
    }
}

/// Whether a `&T` parameter is the context: `T`'s last path segment is `ToolUseContext`.
pub(crate) fn is_context(ty: &Type) -> bool {
    let Type::Reference(reference) = unwrap(ty) else {
        return false;
    };
    matches!(
        unwrap(&reference.elem),
        Type::Path(path) if path.path.segments.last().is_some_and(|last| last.ident == "ToolUseContext")
    )
}

/// The two parts of the check that an input type which is a plain path (`Args`,
/// `crate::args::Args`, `Wrapper<T>`) names a struct with named fields, with every error on the
/// type: a braced pattern (`Args { .. }`, which refuses an enum) for the tool type's reading of
/// its input to match the parsed value against, and the statements, for the block of the tool
/// type's `__SCHEMA` constant, that refuse a tuple struct or a unit struct. `None` for other
/// types (already refused, or not checkable). Both go in items the tool type has anyway, so
/// the check adds no item of its own.
pub(crate) struct NamedFieldsCheck {
    pub(crate) pattern: TokenStream,
    pub(crate) statements: TokenStream,
}

pub(crate) fn named_fields_check(ty: &Type) -> Option<NamedFieldsCheck> {
    let Type::Path(path) = unwrap(ty) else {
        return None;
    };
    if path.qself.is_some() {
        return None;
    }
    let mut bare = path.path.clone();
    for segment in &mut bare.segments {
        segment.arguments = PathArguments::None;
    }
    let span = ty.span();
    let private = private_at(span);
    let probe = syn::Ident::new("__ToolInput", span);
    // A glob import is shadowed, per namespace, by an explicit import in the same scope: the
    // fallback value is what `__ToolInput` means in the value namespace only when the input
    // type has nothing there, which is the case exactly for braced structs and enums.
    let value_check = quote_spanned! {span=>
        #private::assert_named_fields::<#ty, _>(&#probe);
    };
    let pattern = quote_spanned!(span=> #bare { .. });
    let statements = quote! {
        #[allow(unused_imports)]
        use #Private::named_fields::*;
        #[allow(unused_imports, unused_qualifications)]
        use #bare as #probe;
        #value_check
    };
    Some(NamedFieldsCheck {
        pattern,
        statements,
    })
}
