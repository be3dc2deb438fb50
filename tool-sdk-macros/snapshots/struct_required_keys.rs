/// Finds files by name.
#[derive(Deserialize, JsonSchema)]
#[schemars(title = "", description = "Finds files by name.")]
#[cfg_attr(
    doc,
    doc = "\n# Tool\n\nRegistered with `#[tool]` as **`Glob`**.\n\n| property | value |\n|---|---|\n| read-only | no (default, not declared) |\n| concurrency-safe | no (default, not declared) |\n| destructive | no (default, not declared) |\n| result size limit | 100000 chars |\n| deferred | no (default) |"
)]
pub struct Glob {
    /// The pattern.
    #[schemars(title = "", description = "The pattern.")]
    pub pattern: String,
}
#[automatically_derived]
#[doc(hidden)]
impl ::tool_sdk::__private::DeclaredFacts for Glob {
    const FACTS: ::tool_sdk::__private::Facts = ::tool_sdk::__private::Facts::new(
        "Glob",
        "Finds files by name.",
        ::tool_sdk::__private::MaxResultSize::Chars(100000usize),
    );
}
::tool_sdk::__private::inventory::submit! {
    ::tool_sdk::__private::ToolRegistration::of:: < Glob >
    (::tool_sdk::__private::DefinitionSite { file : ::core::file!(), line :
    ::core::line!(), module_path : ::core::module_path!(), }).output_schema({
    #[allow(unused_imports)] use ::tool_sdk::__private::OutputSchemaFallback as _; <
    ::tool_sdk::__private::OutputSchemaProbe < Glob >> ::OUTPUT_SCHEMA })
}
