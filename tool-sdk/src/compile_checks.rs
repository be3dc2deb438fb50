//! Compile-time checks that `#[tool]` generates on the user's types. Each is a bound on a
//! zero-sized item, evaluated in a `const _` and spanned on the user's type, so a mistake is
//! one error there, in our words, and nothing remains at run time.

/// The fallback value the function form's input check finds when the input type has nothing
/// in the value namespace, as is the case for a struct with named fields.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct NamedFields;

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
