/// Reports the time.
/**
# Tool

Registered with `#[tool]` as **`Now`**.

| property | value |
|---|---|
| read-only | no (default, not declared) |
| concurrency-safe | no (default, not declared) |
| destructive | no (default, not declared) |
| result size limit | 100 chars |
| deferred | no (default) |*/
async fn now() -> Result<ToolResult<String>, String> {
    Ok(ToolResult::new("noon".to_owned()))
}
///The tool type of [`now()`](fn@now), registered as `Now`: its input as the model sends it.
#[allow(non_camel_case_types, deprecated)]
struct now {
    __input: ::tool_sdk::__private::NoInput,
}
#[automatically_derived]
#[diagnostic::do_not_recommend]
#[allow(deprecated)]
impl ::tool_sdk::__private::ToolInput for now {
    #[inline(always)]
    fn __deserialize<'de, __D: ::tool_sdk::__private::Deserializer<'de>>(
        __deserializer: __D,
    ) -> ::tool_sdk::__private::Result<Self, __D::Error> {
        match <::tool_sdk::__private::NoInput as ::tool_sdk::__private::ToolInput>::__deserialize(
            __deserializer,
        ) {
            ::tool_sdk::__private::Result::Ok(__input) => {
                ::tool_sdk::__private::Result::Ok(Self { __input })
            }
            ::tool_sdk::__private::Result::Err(__error) => {
                ::tool_sdk::__private::Result::Err(__error)
            }
        }
    }
    const __SCHEMA: ::tool_sdk::__private::SchemaFns = <::tool_sdk::__private::NoInput as ::tool_sdk::__private::ToolInput>::__SCHEMA;
}
#[automatically_derived]
#[doc(hidden)]
impl ::tool_sdk::__private::FnTool for now {
    type Output = String;
    type Return = Result<ToolResult<String>, String>;
    const FACTS: ::tool_sdk::__private::Facts = ::tool_sdk::__private::Facts::new(
        "Now",
        "Reports the time.",
        ::tool_sdk::__private::MaxResultSize::Chars(100usize),
    );
    #[inline]
    #[allow(deprecated)]
    fn __call(
        self,
        __ctx: &::tool_sdk::__private::ToolUseContext,
    ) -> impl ::tool_sdk::__private::Future<
        Output = Result<ToolResult<String>, String>,
    > + ::tool_sdk::__private::Send {
        let _ = &__ctx;
        now()
    }
}
::tool_sdk::__private::inventory::submit! {
    ::tool_sdk::__private::ToolRegistration::of:: < now >
    (::tool_sdk::__private::DefinitionSite { file : ::core::file!(), line :
    ::core::line!(), module_path : ::core::module_path!(), }).output_schema({
    #[allow(unused_imports)] use ::tool_sdk::__private::OutputSchemaFallback as _; <
    ::tool_sdk::__private::OutputSchemaProbe < now >> ::OUTPUT_SCHEMA })
}
