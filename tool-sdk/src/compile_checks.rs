//! Compile-time checks that `#[tool]` generates on the user's types. Each is a bound on a
//! zero-sized item, evaluated in a `const _` and spanned on the user's type, so a mistake is
//! one error there, in our words, and nothing remains at run time. Also the `const fn` that
//! splits a computed doc comment for the schema metadata `#[tool]` writes.

/// The fallback value the function form's input check finds when the input type has nothing
/// in the value namespace, as is the case for a struct with named fields.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct NamedFields;

/// What the function form's input check glob-imports: `__ToolInput`, the [`NamedFields`]
/// value, which an explicit `use Input as __ToolInput` shadows in the value namespace exactly
/// when the input type has something there (a tuple struct's constructor, a unit struct's
/// value). One module for every tool, so a tool adds no module of its own.
#[doc(hidden)]
pub mod named_fields {
    /// The fallback value (see the module).
    #[allow(non_upper_case_globals)]
    pub const __ToolInput: super::NamedFields = super::NamedFields;
}

/// Implemented only by [`NamedFields`]: a tuple struct's constructor or a unit struct's value
/// found in its place means the input is not a struct with named fields.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{T}` cannot be a #[tool] fn's input: it is a tuple struct or a unit struct",
    label = "the input must be a struct with named fields",
    note = "the model sends a JSON object, one key per field: declare `struct {T} {{ name: Type }}` (`{T} {{}}` for a tool without parameters)"
)]
pub trait InputHasNamedFields<T: ?Sized> {}

impl<T: ?Sized> InputHasNamedFields<T> for NamedFields {}

/// Compiles only when `found` is [`NamedFields`]; `T` is the input type, for the message.
#[doc(hidden)]
pub const fn assert_named_fields<T: ?Sized, V: InputHasNamedFields<T>>(found: &V) {
    let _ = found;
}

/// schemars' split of a doc comment into title and description, for the `#[schemars(title =
/// .., description = ..)]` that `#[tool]` writes when a doc attribute is not a string literal
/// (`#[doc = include_str!(..)]`): when the trimmed text starts with `#`, its first line without
/// the `#`s is the title and the rest the description; otherwise no title. Both trimmed.
#[doc(hidden)]
#[must_use]
pub const fn doc_title_and_description(doc: &str) -> (&str, &str) {
    let bytes = doc.as_bytes().trim_ascii();
    if bytes.is_empty() || bytes[0] != b'#' {
        return ("", utf8(bytes));
    }
    let mut end = 0;
    while end < bytes.len() && bytes[end] != b'\n' {
        end += 1;
    }
    let (first, rest) = bytes.split_at(end);
    let mut start = 0;
    while start < first.len() && first[start] == b'#' {
        start += 1;
    }
    let (_, title) = first.split_at(start);
    (utf8(title.trim_ascii()), utf8(rest.trim_ascii()))
}

/// `bytes` as text: only ever split next to an ASCII byte, so always whole characters.
const fn utf8(bytes: &[u8]) -> &str {
    match core::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => panic!("a doc comment split next to an ASCII byte is valid UTF-8"),
    }
}

#[cfg(test)]
mod tests {
    use super::doc_title_and_description as split;

    #[test]
    fn splits_doc_comments_as_schemars_does() {
        assert_eq!(split("  Finds files.\n"), ("", "Finds files."));
        assert_eq!(
            split("# Glob\n\nFinds files. ✓"),
            ("Glob", "Finds files. ✓")
        );
        assert_eq!(split("## Només títol"), ("Només títol", ""));
        assert_eq!(split(""), ("", ""));
        const SPLIT: (&str, &str) = split(concat!("# A", "\n", "b"));
        assert_eq!(SPLIT, ("A", "b"));
    }
}
