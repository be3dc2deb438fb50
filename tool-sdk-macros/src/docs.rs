//! The "Tool" section `#[tool]` appends to the input struct's rustdoc.

use crate::attr::{FlagValue, MaxSize};
use crate::valid::Model;

/// The section's Markdown, one `#[doc]` attribute's value: its lines joined with newlines,
/// starting with an empty one. On a struct it is written for rustdoc only (see
/// `expand::gen_struct_with_docs`).
pub(crate) fn tool_section(model: &Model<'_>) -> String {
    let mut lines = vec![
        String::new(),
        "# Tool".to_owned(),
        String::new(),
        format!("Registered with `#[tool]` as **`{}`**.", model.name),
        String::new(),
        "| property | value |".to_owned(),
        "|---|---|".to_owned(),
    ];
    if !model.aliases.is_empty() {
        let aliases: Vec<String> = model.aliases.iter().map(|a| format!("`{a}`")).collect();
        lines.push(format!("| aliases | {} |", aliases.join(", ")));
    }
    lines.push(format!(
        "| read-only | {} |",
        flag_cell(model.read_only.as_ref())
    ));
    lines.push(format!(
        "| concurrency-safe | {} |",
        flag_cell(model.concurrency_safe.as_ref())
    ));
    lines.push(format!(
        "| destructive | {} |",
        flag_cell(model.destructive.as_ref())
    ));
    lines.push(format!(
        "| result size limit | {} |",
        match model.max_result_size_chars {
            MaxSize::Chars(chars) => format!("{chars} chars"),
            MaxSize::Unbounded => "unbounded (never persisted)".to_owned(),
        }
    ));
    if let Some(hint) = &model.search_hint {
        lines.push(format!("| search hint | {hint} |"));
    }
    lines.push(format!(
        "| deferred | {} |",
        if model.should_defer {
            "yes: loaded through ToolSearch"
        } else {
            "no (default)"
        }
    ));
    if let Some(task) = model.task {
        lines.push(format!(
            "| runs as a task | {} (MCP tasks extension) |",
            if task == "Required" {
                "always"
            } else {
                "when still running after a moment"
            }
        ));
    }
    if !model.scopes.is_empty() {
        let scopes: Vec<String> = model
            .scopes
            .iter()
            .map(|scope| format!("`{scope}`"))
            .collect();
        lines.push(format!(
            "| OAuth scopes a call needs | {} |",
            scopes.join(" ")
        ));
    }
    if let Some(callers) = model.callers {
        lines.push(format!(
            "| callers | {} (programmatic tool calling) |",
            if callers == "Programmatic" {
                "code the model runs only"
            } else {
                "the model and code it runs"
            }
        ));
    }
    if model.always_load {
        lines.push("| always load | yes |".to_owned());
    }
    if model.strict {
        lines.push("| strict schema | yes |".to_owned());
    }
    if let Some(path) = &model.enabled_if {
        lines.push(format!(
            "| registered | when `{}()` returns `true` at collection |",
            path_text(path)
        ));
    }
    if model.test_only {
        lines.push("| registered | in test environments only |".to_owned());
    }
    if model.opt_in {
        lines.push("| registered | only when a host adds it (not collected) |".to_owned());
    }
    if !model.examples.is_empty() {
        lines.push(String::new());
        lines.push("Example inputs (exported as Anthropic `input_examples`):".to_owned());
        for example in &model.examples {
            lines.push(String::new());
            lines.push("```json".to_owned());
            lines.extend(example.value().trim().lines().map(str::to_owned));
            lines.push("```".to_owned());
        }
    }
    lines.join("\n")
}

fn flag_cell(flag: Option<&FlagValue>) -> String {
    match flag {
        None => "no (default, not declared)".to_owned(),
        Some(FlagValue::Const { value: true, .. }) => "yes".to_owned(),
        Some(FlagValue::Const { value: false, .. }) => "no".to_owned(),
        Some(FlagValue::Method(path)) => format!("per input: `{}`", path_text(path)),
    }
}

fn path_text(path: &syn::Path) -> String {
    quote::ToTokens::to_token_stream(path)
        .to_string()
        .replace(' ', "")
}

/// `#[schemars(title = .., description = ..)]` holding only the item's own doc comment, for a
/// struct that derives `JsonSchema`. Without it, schemars' derive emits a constant that splits
/// the doc comment at compile time; and wherever the "Tool" section above is part of the doc
/// comment (under rustdoc, and on a struct with no doc comment of its own) the section would
/// reach the schema. The doc comment is read as schemars reads it: list-form
/// attributes such as `#[doc(hidden)]` are skipped, and the `#[doc = ..]` values are joined
/// with newlines. The title and description are split as schemars splits them (a first line
/// starting with `#` is the title): here when every value is a string literal, and otherwise
/// (`#[doc = include_str!(..)]`, `#[doc = concat!(..)]`) at compile time in the user's crate, by
/// a `const fn` over `concat!` of the values. A key the author already set in a
/// `#[schemars(...)]` attribute is left to them; nothing is emitted when the struct does not
/// visibly derive `JsonSchema` (the attribute would not be known).
pub(crate) fn schema_metadata(attrs: &[syn::Attribute]) -> Option<proc_macro2::TokenStream> {
    if !derives_json_schema(attrs) {
        return None;
    }
    let (has_title, has_description) = schemars_keys(attrs);
    match read_doc(attrs) {
        Doc::Computed(parts) => {
            let private = crate::paths::Private;
            let split =
                quote::quote!(#private::doc_title_and_description(::core::concat!(#(#parts),*)));
            // An empty title is not written, so the author's title, or none, wins over the
            // section's.
            keys_attribute(
                (!has_title).then(|| quote::quote!(#split.0)),
                (!has_description).then(|| quote::quote!(#split.1)),
            )
        }
        Doc::Text(doc) => {
            let (title, description) = title_and_description(&doc);
            // Written even when empty (schemars then writes no title): with both keys set,
            // schemars evaluates no constant over the doc text at compile time, and the
            // section's `# Tool` heading (read by the derive where the section is a plain
            // `#[doc]`: on a struct with no doc comment of its own, and under rustdoc) can
            // never become the title. Not when a `cfg_attr` (expanded only after this macro)
            // may set one: then only where the section would make a title, the whole text
            // starting with `#` exactly when the author's own is empty or does.
            let section_makes_a_title = doc.trim_ascii().is_empty() || !title.is_empty();
            let write_title = !has_title && (section_makes_a_title || !has_cfg_attr(attrs));
            keys_attribute(
                write_title.then(|| quote::quote!(#title)),
                (!has_description).then(|| quote::quote!(#description)),
            )
        }
    }
}

/// `#[schemars(title = .., description = ..)]` for a field of a struct that derives
/// `JsonSchema`, from the field's own doc comment, as schemars itself would compute them; the
/// keys the author set are left out. With both keys present schemars evaluates no constant at
/// compile time to split the comment (one per documented field otherwise). `None` when the
/// field has no doc comment, when a value is not a string literal (schemars then splits it
/// itself), when the author set both keys, or when the field has a `cfg_attr` (expanded only
/// after this macro, it may add a doc line or a key).
pub(crate) fn field_metadata(attrs: &[syn::Attribute]) -> Option<proc_macro2::TokenStream> {
    if has_cfg_attr(attrs) || !attrs.iter().any(is_doc_value) {
        return None;
    }
    let Doc::Text(doc) = read_doc(attrs) else {
        return None;
    };
    let (title, description) = title_and_description(&doc);
    let (has_title, has_description) = schemars_keys(attrs);
    keys_attribute(
        (!has_title).then(|| quote::quote!(#title)),
        (!has_description).then(|| quote::quote!(#description)),
    )
}

/// A doc comment as schemars reads it: the `#[doc = ..]` values (list forms such as
/// `#[doc(hidden)]` skipped), one leading space removed from each, joined with newlines.
enum Doc {
    /// Every value is a string literal: the joined text.
    Text(String),
    /// Some value is computed (`include_str!`, `concat!`): the values to `concat!`, with the
    /// newlines between them.
    Computed(Vec<proc_macro2::TokenStream>),
}

/// Whether `attr` is a `#[doc = ..]` value (not a list form such as `#[doc(hidden)]`).
pub(crate) fn is_doc_value(attr: &syn::Attribute) -> bool {
    attr.path().is_ident("doc") && matches!(attr.meta, syn::Meta::NameValue(_))
}

/// The item's doc comment, see [`Doc`].
fn read_doc(attrs: &[syn::Attribute]) -> Doc {
    let mut lines = Vec::new();
    let mut parts = Vec::new();
    let mut computed = false;
    for attr in attrs.iter().filter(|attr| is_doc_value(attr)) {
        let syn::Meta::NameValue(pair) = &attr.meta else {
            continue;
        };
        if !parts.is_empty() {
            parts.push(quote::quote!("\n"));
        }
        if let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) = &pair.value
        {
            let text = text.value();
            let text = text.strip_prefix(' ').map_or(text.clone(), str::to_owned);
            parts.push(quote::quote!(#text));
            lines.push(text);
        } else {
            computed = true;
            parts.push(quote::ToTokens::to_token_stream(&pair.value));
        }
    }
    if computed {
        Doc::Computed(parts)
    } else {
        Doc::Text(lines.join("\n"))
    }
}

/// `#[schemars(title = .., description = ..)]` with the keys given; `None` when neither is.
fn keys_attribute(
    title: Option<proc_macro2::TokenStream>,
    description: Option<proc_macro2::TokenStream>,
) -> Option<proc_macro2::TokenStream> {
    let title = title.map(|value| quote::quote!(title = #value));
    let description = description.map(|value| quote::quote!(description = #value));
    let keys: Vec<_> = title.into_iter().chain(description).collect();
    if keys.is_empty() {
        return None;
    }
    Some(quote::quote!(#[schemars(#(#keys),*)]))
}

/// Whether any attribute is a `cfg_attr`: an attribute macro sees it unexpanded, the derives
/// after it see what it expands to.
fn has_cfg_attr(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| attr.path().is_ident("cfg_attr"))
}

/// schemars' split of a doc comment: when the trimmed text starts with `#`, its first line
/// without the `#`s is the title and the rest the description; otherwise no title.
fn title_and_description(doc: &str) -> (String, String) {
    let doc = doc.trim_ascii();
    if doc.starts_with('#') {
        let (first, rest) = doc.split_once('\n').unwrap_or((doc, ""));
        (
            first.trim_start_matches('#').trim_ascii().to_owned(),
            rest.trim_ascii().to_owned(),
        )
    } else {
        (String::new(), doc.to_owned())
    }
}

/// Whether a `#[derive(...)]` on the item lists `JsonSchema` (by any path ending in it).
pub(crate) fn derives_json_schema(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("derive"))
        .any(|attr| {
            attr.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            )
            .is_ok_and(|paths| {
                paths.iter().any(|path| {
                    path.segments
                        .last()
                        .is_some_and(|s| s.ident == "JsonSchema")
                })
            })
        })
}

/// Whether the item's `#[schemars(...)]` attributes already set `title` and `description`.
fn schemars_keys(attrs: &[syn::Attribute]) -> (bool, bool) {
    let (mut title, mut description) = (false, false);
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("schemars")) {
        let syn::Meta::List(list) = &attr.meta else {
            continue;
        };
        // Each top-level, comma-separated entry starts with its key.
        let mut at_key = true;
        for token in list.tokens.clone() {
            match token {
                proc_macro2::TokenTree::Punct(punct) if punct.as_char() == ',' => at_key = true,
                proc_macro2::TokenTree::Ident(ident) if at_key => {
                    title |= ident == "title";
                    description |= ident == "description";
                    at_key = false;
                }
                _ => at_key = false,
            }
        }
    }
    (title, description)
}
