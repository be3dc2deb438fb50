//! A tool's declared facts as one constant: what `#[tool(...)]` writes for a tool whose flags
//! are fixed per tool (every function-form tool, and a struct-form tool without a flag decided
//! per input), and the one [`ToolSpec`] impl that reads them.
//!
//! A [`ToolSpec`] impl has one item per declared fact; [`DeclaredFacts`] has one, whatever the
//! attribute declares. An edit of one tool's body re-checks every tool's items in the crate, so
//! fewer items per tool keeps that rebuild short.

use crate::callers::Callers;
use crate::overrides::Overrides;
use crate::tool::{DeclaredFlag, MaxResultSize, TaskSupport, ToolSpec};

/// A tool's facts, as its `#[tool(...)]` attribute declares them: one constant per tool
/// ([`DeclaredFacts::FACTS`]) rather than one [`ToolSpec`] constant each. Each field is the
/// [`ToolSpec`] constant of the same name, in lower case, and [`Facts::new`] gives every
/// optional one the trait's default. Public (hidden) for the code `#[tool]` writes; not meant
/// to be written by hand.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Facts {
    /// [`ToolSpec::NAME`].
    pub name: &'static str,
    /// [`ToolSpec::ALIASES`].
    pub aliases: &'static [&'static str],
    /// [`ToolSpec::DESCRIPTION`].
    pub description: &'static str,
    /// [`ToolSpec::SEARCH_HINT`].
    pub search_hint: Option<&'static str>,
    /// [`ToolSpec::MAX_RESULT_SIZE_CHARS`].
    pub max_result_size_chars: MaxResultSize,
    /// [`ToolSpec::SHOULD_DEFER`].
    pub should_defer: bool,
    /// [`ToolSpec::ALWAYS_LOAD`].
    pub always_load: bool,
    /// [`ToolSpec::READ_ONLY`]: never [`DeclaredFlag::PerInput`] (a tool whose flag is decided
    /// per input has its own `ToolSpec` impl, with the method).
    pub read_only: DeclaredFlag,
    /// [`ToolSpec::CONCURRENCY_SAFE`], fixed per tool.
    pub concurrency_safe: DeclaredFlag,
    /// [`ToolSpec::DESTRUCTIVE`], fixed per tool.
    pub destructive: DeclaredFlag,
    /// [`ToolSpec::OPEN_WORLD`].
    pub open_world: DeclaredFlag,
    /// [`ToolSpec::IDEMPOTENT`].
    pub idempotent: DeclaredFlag,
    /// [`ToolSpec::TITLE`].
    pub title: Option<&'static str>,
    /// [`ToolSpec::TASK`].
    pub task: TaskSupport,
    /// [`ToolSpec::SCOPES`].
    pub scopes: &'static [&'static str],
    /// [`ToolSpec::CALLERS`].
    pub callers: Callers,
    /// [`ToolSpec::EXAMPLES`].
    pub examples: &'static [&'static str],
    /// [`ToolSpec::EXAMPLES_IN_DESCRIPTION`].
    pub examples_in_description: bool,
    /// [`ToolSpec::STRICT`].
    pub strict: bool,
}

impl Facts {
    /// The three facts every tool declares, every other one at [`ToolSpec`]'s default.
    pub const fn new(
        name: &'static str,
        description: &'static str,
        max_result_size_chars: MaxResultSize,
    ) -> Self {
        Self {
            name,
            aliases: &[],
            description,
            search_hint: None,
            max_result_size_chars,
            should_defer: false,
            always_load: false,
            read_only: DeclaredFlag::Default,
            concurrency_safe: DeclaredFlag::Default,
            destructive: DeclaredFlag::Default,
            open_world: DeclaredFlag::Default,
            idempotent: DeclaredFlag::Default,
            title: None,
            task: TaskSupport::Forbidden,
            scopes: &[],
            callers: Callers::Direct,
            examples: &[],
            examples_in_description: false,
            strict: false,
        }
    }
}

/// A tool's [`Facts`], as `#[tool(...)]` writes them on a struct whose flags are fixed (a
/// function-form tool has it through its `FnTool` impl): [`ToolSpec`] follows from them
/// through one blanket impl. Public (hidden) for the code `#[tool]` writes; not meant to be
/// implemented by hand (a hand-written tool implements [`ToolSpec`] itself).
#[doc(hidden)]
pub trait DeclaredFacts: Send + Sync + 'static {
    /// The tool's facts.
    const FACTS: Facts;
}

/// A tool's facts, read from its [`DeclaredFacts`]. `do_not_recommend`, so that a struct
/// without `#[tool(...)]` is still reported as `ToolSpec`'s own message says, not as a
/// missing `DeclaredFacts`.
#[diagnostic::do_not_recommend]
impl<T: DeclaredFacts> ToolSpec for T {
    const NAME: &'static str = T::FACTS.name;
    const ALIASES: &'static [&'static str] = T::FACTS.aliases;
    const DESCRIPTION: &'static str = T::FACTS.description;
    const SEARCH_HINT: Option<&'static str> = T::FACTS.search_hint;
    const MAX_RESULT_SIZE_CHARS: MaxResultSize = T::FACTS.max_result_size_chars;
    const SHOULD_DEFER: bool = T::FACTS.should_defer;
    const ALWAYS_LOAD: bool = T::FACTS.always_load;
    const READ_ONLY: DeclaredFlag = T::FACTS.read_only;
    const CONCURRENCY_SAFE: DeclaredFlag = T::FACTS.concurrency_safe;
    const DESTRUCTIVE: DeclaredFlag = T::FACTS.destructive;
    const OPEN_WORLD: DeclaredFlag = T::FACTS.open_world;
    const IDEMPOTENT: DeclaredFlag = T::FACTS.idempotent;
    const TITLE: Option<&'static str> = T::FACTS.title;
    const TASK: TaskSupport = T::FACTS.task;
    const SCOPES: &'static [&'static str] = T::FACTS.scopes;
    const CALLERS: Callers = T::FACTS.callers;
    const EXAMPLES: &'static [&'static str] = T::FACTS.examples;
    const EXAMPLES_IN_DESCRIPTION: bool = T::FACTS.examples_in_description;
    const STRICT: bool = T::FACTS.strict;
    const __FLAG_METHODS: Overrides = Overrides::NONE;
}

#[cfg(test)]
mod tests {
    use super::Facts;
    use crate::tool::{MaxResultSize, ToolSpec};

    struct Plain;

    impl ToolSpec for Plain {
        const NAME: &'static str = "Plain";
        const DESCRIPTION: &'static str = "A tool with the three required facts only.";
        const MAX_RESULT_SIZE_CHARS: MaxResultSize = MaxResultSize::Chars(10);
    }

    /// `Facts::new` gives every optional fact the trait's default: a tool written through
    /// `DeclaredFacts` that declares nothing optional has the facts of a hand-written
    /// `ToolSpec` that declares nothing optional. The pattern names every field, so a new
    /// fact must be added here too.
    #[test]
    fn new_gives_the_trait_defaults() {
        let Facts {
            name,
            aliases,
            description,
            search_hint,
            max_result_size_chars,
            should_defer,
            always_load,
            read_only,
            concurrency_safe,
            destructive,
            open_world,
            idempotent,
            title,
            task,
            scopes,
            callers,
            examples,
            examples_in_description,
            strict,
        } = Facts::new(
            Plain::NAME,
            Plain::DESCRIPTION,
            Plain::MAX_RESULT_SIZE_CHARS,
        );
        assert_eq!(name, Plain::NAME);
        assert_eq!(aliases, Plain::ALIASES);
        assert_eq!(description, Plain::DESCRIPTION);
        assert_eq!(search_hint, Plain::SEARCH_HINT);
        assert_eq!(max_result_size_chars, Plain::MAX_RESULT_SIZE_CHARS);
        assert_eq!(should_defer, Plain::SHOULD_DEFER);
        assert_eq!(always_load, Plain::ALWAYS_LOAD);
        assert_eq!(read_only, Plain::READ_ONLY);
        assert_eq!(concurrency_safe, Plain::CONCURRENCY_SAFE);
        assert_eq!(destructive, Plain::DESTRUCTIVE);
        assert_eq!(open_world, Plain::OPEN_WORLD);
        assert_eq!(idempotent, Plain::IDEMPOTENT);
        assert_eq!(title, Plain::TITLE);
        assert_eq!(task, Plain::TASK);
        assert_eq!(scopes, Plain::SCOPES);
        assert_eq!(callers, Plain::CALLERS);
        assert_eq!(examples, Plain::EXAMPLES);
        assert_eq!(examples_in_description, Plain::EXAMPLES_IN_DESCRIPTION);
        assert_eq!(strict, Plain::STRICT);
    }
}
