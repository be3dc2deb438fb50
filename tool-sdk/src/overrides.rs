//! Which optional hooks a tool type overrides: [`Overrides`], the set that lets a tool type
//! compile only the hooks it wrote.
//!
//! A [`Tool`](crate::Tool) hook the author does not override answers with the trait's
//! default. Calling that default through the type would compile one copy of it per tool type;
//! when the set says a hook is not overridden, the erased tool answers with the same default
//! from the tool's constants instead, written once. `#[tool]` on `impl Tool for X` (required)
//! fills the set in from the methods the block defines; when the block holds a macro call,
//! which may define any method, every hook counts as overridden, which is always right and
//! only costs compile time.

/// A set of hook names (the method names of [`Tool`](crate::Tool) other than `call`, and the
/// per-input flag methods of [`ToolSpec`](crate::ToolSpec)). Generated code builds it with
/// [`Overrides::NONE`] and [`Overrides::with`]; not meant to be written by hand.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overrides(u32);

use crate::hooks::HOOK_NAMES as NAMES;
pub(crate) use crate::hooks::Hook;

/// Every hook has a bit.
const _: () = assert!(NAMES.len() <= u32::BITS as usize);

impl Overrides {
    /// Every hook overridden: the answer for an impl nothing has read.
    pub const ALL: Self = Self(u32::MAX);
    /// No hook overridden.
    pub const NONE: Self = Self(0);

    /// The set plus the hook whose method is called `name`. A name that is no hook (the
    /// impl's `call`, or a method the trait does not have, which rustc refuses on its own) is
    /// ignored.
    #[must_use]
    pub const fn with(self, name: &str) -> Self {
        let mut bit = 0;
        while bit < NAMES.len() {
            if eq(NAMES[bit].as_bytes(), name.as_bytes()) {
                return Self(self.0 | (1 << bit));
            }
            bit += 1;
        }
        self
    }

    /// Whether `hook` is in the set.
    pub(crate) const fn has(self, hook: Hook) -> bool {
        self.0 & (1 << hook as u32) != 0
    }
}

/// Byte equality, in a `const fn`.
const fn eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_sets_its_own_hook() {
        assert!(
            Overrides::NONE
                .with("validate_input")
                .has(Hook::ValidateInput)
        );
        assert!(
            !Overrides::NONE
                .with("validate_input")
                .has(Hook::CheckPermissions)
        );
        assert!(
            Overrides::NONE
                .with("render_tool_use_error_message")
                .has(Hook::RenderToolUseErrorMessage)
        );
        // The names `#[tool(...)]` on a struct writes for per-input flags.
        assert!(Overrides::NONE.with("is_read_only").has(Hook::IsReadOnly));
        assert!(
            Overrides::NONE
                .with("is_concurrency_safe")
                .has(Hook::IsConcurrencySafe)
        );
        assert!(
            Overrides::NONE
                .with("is_destructive")
                .has(Hook::IsDestructive)
        );
        assert_eq!(Overrides::NONE.with("call"), Overrides::NONE);
        assert_eq!(Overrides::NONE.with("validate_inpu"), Overrides::NONE);
        assert!(Overrides::ALL.has(Hook::OutputSchema));
    }

    #[test]
    fn each_name_sets_its_own_bit_and_no_other() {
        for (bit, name) in NAMES.iter().enumerate() {
            assert_eq!(Overrides::NONE.with(name), Overrides(1 << bit), "{name}");
        }
        assert_eq!(NAMES[Hook::IsReadOnly as usize], "is_read_only");
        assert_eq!(
            NAMES[Hook::RenderToolUseErrorMessage as usize],
            "render_tool_use_error_message"
        );
    }
}
