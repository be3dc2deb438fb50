//! The typed model of an annotated item: the input struct, its name and doc comment.

use syn::{Attribute, Data, DeriveInput, Expr, ExprLit, Fields, Lit, Meta};

/// A `#[tool]` input struct.
pub(crate) struct ToolInput<'a> {
    pub item: &'a DeriveInput,
    /// The doc comment, lines joined with `\n`, trimmed; empty when there is none.
    pub docs: String,
}

impl<'a> ToolInput<'a> {
    pub fn from_item(item: &'a DeriveInput) -> darling::Result<Self> {
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
            item,
            docs: doc_text(&item.attrs),
        })
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
