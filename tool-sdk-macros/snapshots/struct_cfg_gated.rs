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
#[doc(hidden)]
impl ::tool_sdk::__private::DeclaredFacts for Gated {
    const FACTS: ::tool_sdk::__private::Facts = ::tool_sdk::__private::Facts {
        read_only: ::tool_sdk::__private::DeclaredFlag::Always,
        ..::tool_sdk::__private::Facts::new(
            "Gated",
            "Only with the feature.",
            ::tool_sdk::__private::MaxResultSize::Unbounded,
        )
    };
}
#[cfg(feature = "gated")]
::tool_sdk::__private::inventory::submit! {
    ::tool_sdk::__private::ToolRegistration::of:: < Gated >
    (::tool_sdk::__private::DefinitionSite { file : ::core::file!(), line :
    ::core::line!(), module_path : ::core::module_path!(), }).output_schema({
    #[allow(unused_imports)] use ::tool_sdk::__private::OutputSchemaFallback as _; <
    ::tool_sdk::__private::OutputSchemaProbe < Gated >> ::OUTPUT_SCHEMA })
}
