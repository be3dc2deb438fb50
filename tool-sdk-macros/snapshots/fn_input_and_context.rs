/// Adds two numbers.
/**
# Tool

Registered with `#[tool]` as **`Add`**.

| property | value |
|---|---|
| read-only | yes |
| concurrency-safe | yes |
| destructive | no (default, not declared) |
| result size limit | 1000 chars |
| deferred | no (default) |*/
pub async fn add(input: AddArgs, ctx: &ToolUseContext) -> Result<i64, ToolError> {
    Ok(input.a + input.b)
}
///The tool type of [`add()`](fn@add), registered as `Add`: its input as the model sends it.
#[allow(non_camel_case_types, deprecated)]
pub struct add {
    __input: AddArgs,
}
#[automatically_derived]
#[diagnostic::do_not_recommend]
#[allow(deprecated)]
impl ::tool_sdk::__private::ToolInput for add {
    #[inline(always)]
    fn __deserialize<'de, __D: ::tool_sdk::__private::Deserializer<'de>>(
        __deserializer: __D,
    ) -> ::tool_sdk::__private::Result<Self, __D::Error> {
        match <AddArgs as ::tool_sdk::__private::ToolInput>::__deserialize(
            __deserializer,
        ) {
            ::tool_sdk::__private::Result::Ok(__input @ AddArgs { .. }) => {
                ::tool_sdk::__private::Result::Ok(Self { __input })
            }
            ::tool_sdk::__private::Result::Err(__error) => {
                ::tool_sdk::__private::Result::Err(__error)
            }
        }
    }
    const __SCHEMA: ::tool_sdk::__private::SchemaFns = {
        #[allow(unused_imports)]
        use ::tool_sdk::__private::named_fields::*;
        #[allow(unused_imports, unused_qualifications)]
        use AddArgs as __ToolInput;
        ::tool_sdk::__private::assert_named_fields::<AddArgs, _>(&__ToolInput);
        <AddArgs as ::tool_sdk::__private::ToolInput>::__SCHEMA
    };
}
#[automatically_derived]
#[doc(hidden)]
impl ::tool_sdk::__private::FnTool for add {
    type Output = i64;
    type Return = Result<i64, ToolError>;
    const FACTS: ::tool_sdk::__private::Facts = ::tool_sdk::__private::Facts {
        read_only: ::tool_sdk::__private::DeclaredFlag::Always,
        concurrency_safe: ::tool_sdk::__private::DeclaredFlag::Always,
        ..::tool_sdk::__private::Facts::new(
            "Add",
            "Adds two numbers.",
            ::tool_sdk::__private::MaxResultSize::Chars(1000usize),
        )
    };
    #[inline]
    #[allow(deprecated)]
    fn __call(
        self,
        __ctx: &::tool_sdk::__private::ToolUseContext,
    ) -> impl ::tool_sdk::__private::Future<
        Output = Result<i64, ToolError>,
    > + ::tool_sdk::__private::Send {
        let _ = &__ctx;
        add(self.__input, __ctx)
    }
}
::tool_sdk::__private::inventory::submit! {
    ::tool_sdk::__private::ToolRegistration::of:: < add >
    (::tool_sdk::__private::DefinitionSite { file : ::core::file!(), line :
    ::core::line!(), module_path : ::core::module_path!(), }).output_schema({
    #[allow(unused_imports)] use ::tool_sdk::__private::OutputSchemaFallback as _; <
    ::tool_sdk::__private::OutputSchemaProbe < add >> ::OUTPUT_SCHEMA })
}
