/// Only with the feature.
#[cfg(feature = "gated")]
#[derive(Deserialize, JsonSchema)]
#[schemars(title = "", description = "Only with the feature.")]
#[cfg_attr(
    doc,
    doc = "\n# Tool\n\nRegistered with `#[tool]` as **`Gated`**.\n\n| property | value |\n|---|---|\n| read-only | yes |\n| concurrency-safe | no (default, not declared) |\n| destructive | no (default, not declared) |\n| result size limit | unbounded (never persisted) |\n| deferred | no (default) |"
)]
pub struct Gated {}
#[cfg(feature = "gated")]
#[automatically_derived]
impl ::tool_sdk::__private::ToolSpec for Gated {
    const NAME: &'static ::tool_sdk::__private::str = "Gated";
    const DESCRIPTION: &'static ::tool_sdk::__private::str = "Only with the feature.";
    const MAX_RESULT_SIZE_CHARS: ::tool_sdk::__private::MaxResultSize = ::tool_sdk::__private::MaxResultSize::Unbounded;
    const READ_ONLY: ::tool_sdk::__private::DeclaredFlag = ::tool_sdk::__private::DeclaredFlag::Always;
    #[doc(hidden)]
    const __FLAG_METHODS: ::tool_sdk::__private::Overrides = ::tool_sdk::__private::Overrides::NONE;
}
#[cfg(feature = "gated")]
::tool_sdk::__private::inventory::submit! {
    ::tool_sdk::__private::ToolRegistration::of:: < Gated >
    (::tool_sdk::__private::DefinitionSite { file : ::core::file!(), line :
    ::core::line!(), module_path : ::core::module_path!(), }).output_schema({
    #[allow(unused_imports)] use ::tool_sdk::__private::OutputSchemaFallback as _; <
    ::tool_sdk::__private::OutputSchemaProbe < Gated >> ::OUTPUT_SCHEMA })
}
