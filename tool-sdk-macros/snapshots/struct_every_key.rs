/// Runs a shell command.
#[derive(Deserialize, JsonSchema)]
#[schemars(title = "", description = "Runs a shell command.")]
#[cfg_attr(
    doc,
    doc = "\n# Tool\n\nRegistered with `#[tool]` as **`Bash`**.\n\n| property | value |\n|---|---|\n| aliases | `Shell` |\n| read-only | per input: `Self::is_read_only_command` |\n| concurrency-safe | per input: `Self::is_read_only_command` |\n| destructive | no |\n| result size limit | 30000 chars |\n| search hint | execute shell commands |\n| deferred | yes: loaded through ToolSearch |\n| strict schema | yes |\n| registered | when `crate::bash_enabled()` returns `true` at collection |\n| registered | in test environments only |"
)]
pub struct Bash {
    /// The command.
    #[schemars(title = "", description = "The command.")]
    pub command: String,
}
#[automatically_derived]
impl ::tool_sdk::__private::ToolSpec for Bash {
    const NAME: &'static ::tool_sdk::__private::str = "Bash";
    const DESCRIPTION: &'static ::tool_sdk::__private::str = "Runs a shell command.";
    const MAX_RESULT_SIZE_CHARS: ::tool_sdk::__private::MaxResultSize = ::tool_sdk::__private::MaxResultSize::Chars(
        30000usize,
    );
    const ALIASES: &'static [&'static ::tool_sdk::__private::str] = &["Shell"];
    const SEARCH_HINT: ::tool_sdk::__private::Option<
        &'static ::tool_sdk::__private::str,
    > = ::tool_sdk::__private::Option::Some("execute shell commands");
    const SHOULD_DEFER: ::tool_sdk::__private::bool = true;
    const STRICT: ::tool_sdk::__private::bool = true;
    const READ_ONLY: ::tool_sdk::__private::DeclaredFlag = ::tool_sdk::__private::DeclaredFlag::PerInput;
    const CONCURRENCY_SAFE: ::tool_sdk::__private::DeclaredFlag = ::tool_sdk::__private::DeclaredFlag::PerInput;
    const DESTRUCTIVE: ::tool_sdk::__private::DeclaredFlag = ::tool_sdk::__private::DeclaredFlag::Never;
    #[doc(hidden)]
    const __FLAG_METHODS: ::tool_sdk::__private::Overrides = ::tool_sdk::__private::Overrides::NONE
        .with("is_read_only")
        .with("is_concurrency_safe");
    #[inline]
    fn is_read_only(&self) -> ::tool_sdk::__private::bool {
        let __method: fn(&Self) -> ::tool_sdk::__private::bool = Self::is_read_only_command;
        __method(self)
    }
    #[inline]
    fn is_concurrency_safe(&self) -> ::tool_sdk::__private::bool {
        let __method: fn(&Self) -> ::tool_sdk::__private::bool = Self::is_read_only_command;
        __method(self)
    }
}
const _: () = {
    const __ENABLED_IF: fn() -> ::tool_sdk::__private::bool = crate::bash_enabled;
    ::tool_sdk::__private::inventory::submit! {
        ::tool_sdk::__private::ToolRegistration::of:: < Bash >
        (::tool_sdk::__private::DefinitionSite { file : ::core::file!(), line :
        ::core::line!(), module_path : ::core::module_path!(), })
        .enabled_if(__ENABLED_IF).test_only().output_schema({ #[allow(unused_imports)]
        use ::tool_sdk::__private::OutputSchemaFallback as _; <
        ::tool_sdk::__private::OutputSchemaProbe < Bash >> ::OUTPUT_SCHEMA })
    }
};
