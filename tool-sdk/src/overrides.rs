//! Which optional hooks a tool type overrides: [`Overrides`], the set that lets a tool type
//! compile only the hooks it wrote.
//!
//! A [`Tool`](crate::Tool) hook the author does not override answers with the trait's
//! default. Calling that default through the type would compile one copy of it per tool type;
//! when the set says a hook is not overridden, the erased tool answers with the same default
//! from the tool's constants instead, written once. `#[tool]` on `impl Tool for X` fills the
//! set in from the methods the block defines; without it every hook counts as overridden,
//! which is always right and only costs compile time.

/// A set of hook names (the method names of [`Tool`](crate::Tool) other than `call`, and the
/// per-input flag methods of [`ToolSpec`](crate::ToolSpec)). Generated code builds it with
/// [`Overrides::NONE`] and [`Overrides::with`]; not meant to be written by hand.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overrides(u32);

/// The hooks an [`Overrides`] set can hold, in bit order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hook {
    IsReadOnly,
    IsConcurrencySafe,
    IsDestructive,
    ValidateInput,
    CheckPermissions,
    MapResult,
    Prompt,
    UserFacingName,
    IsEnabled,
    Description,
    InputsEquivalent,
    InterruptBehavior,
    IsOpenWorld,
    RequiresUserInteraction,
    IsSearchOrReadCommand,
    GetPath,
    BackfillObservableInput,
    PreparePermissionMatcher,
    ToAutoClassifierInput,
    OutputSchema,
    RenderToolUseMessage,
    RenderToolUseProgressMessage,
    RenderToolResultMessage,
    RenderToolUseRejectedMessage,
    RenderToolUseErrorMessage,
}

/// The method name of each [`Hook`], indexed by its bit.
const NAMES: [&str; 25] = [
    "is_read_only",
    "is_concurrency_safe",
    "is_destructive",
    "validate_input",
    "check_permissions",
    "map_result",
    "prompt",
    "user_facing_name",
    "is_enabled",
    "description",
    "inputs_equivalent",
    "interrupt_behavior",
    "is_open_world",
    "requires_user_interaction",
    "is_search_or_read_command",
    "get_path",
    "backfill_observable_input",
    "prepare_permission_matcher",
    "to_auto_classifier_input",
    "output_schema",
    "render_tool_use_message",
    "render_tool_use_progress_message",
    "render_tool_result_message",
    "render_tool_use_rejected_message",
    "render_tool_use_error_message",
];

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
        assert!(Overrides::NONE.with("is_read_only").has(Hook::IsReadOnly));
        assert_eq!(Overrides::NONE.with("call"), Overrides::NONE);
        assert_eq!(Overrides::NONE.with("validate_inpu"), Overrides::NONE);
        assert!(Overrides::ALL.has(Hook::OutputSchema));
    }

    #[test]
    fn each_hook_is_set_by_its_own_name_and_no_other() {
        let hooks = [
            (Hook::IsReadOnly, "is_read_only"),
            (Hook::IsConcurrencySafe, "is_concurrency_safe"),
            (Hook::IsDestructive, "is_destructive"),
            (Hook::ValidateInput, "validate_input"),
            (Hook::CheckPermissions, "check_permissions"),
            (Hook::MapResult, "map_result"),
            (Hook::Prompt, "prompt"),
            (Hook::UserFacingName, "user_facing_name"),
            (Hook::IsEnabled, "is_enabled"),
            (Hook::Description, "description"),
            (Hook::InputsEquivalent, "inputs_equivalent"),
            (Hook::InterruptBehavior, "interrupt_behavior"),
            (Hook::IsOpenWorld, "is_open_world"),
            (Hook::RequiresUserInteraction, "requires_user_interaction"),
            (Hook::IsSearchOrReadCommand, "is_search_or_read_command"),
            (Hook::GetPath, "get_path"),
            (Hook::BackfillObservableInput, "backfill_observable_input"),
            (Hook::PreparePermissionMatcher, "prepare_permission_matcher"),
            (Hook::ToAutoClassifierInput, "to_auto_classifier_input"),
            (Hook::OutputSchema, "output_schema"),
            (Hook::RenderToolUseMessage, "render_tool_use_message"),
            (
                Hook::RenderToolUseProgressMessage,
                "render_tool_use_progress_message",
            ),
            (Hook::RenderToolResultMessage, "render_tool_result_message"),
            (
                Hook::RenderToolUseRejectedMessage,
                "render_tool_use_rejected_message",
            ),
            (
                Hook::RenderToolUseErrorMessage,
                "render_tool_use_error_message",
            ),
        ];
        assert_eq!(hooks.len(), NAMES.len());
        for (hook, name) in hooks {
            let set = Overrides::NONE.with(name);
            assert!(set.has(hook), "{name}");
            for (other, other_name) in hooks {
                assert_eq!(set.has(other), other == hook, "{name} sets {other_name}");
            }
        }
    }
}
