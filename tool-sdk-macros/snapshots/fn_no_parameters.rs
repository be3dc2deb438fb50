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
    type Return = Result<ToolResult<String>, String>;
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
#[automatically_derived]
impl ::tool_sdk::__private::Tool for now {
    type Output = String;
    #[doc(hidden)]
    fn __run(
        self,
        __ctx: &::tool_sdk::__private::ToolUseContext,
    ) -> ::tool_sdk::__private::RunFuture<'_> {
        ::tool_sdk::__private::Box::pin(
            ::tool_sdk::__private::FinishFn::<
                Self,
                _,
            >::new(<Self as ::tool_sdk::__private::FnTool>::__call(self, __ctx), __ctx),
        )
    }
    #[inline]
    fn call(
        self,
        __ctx: &::tool_sdk::__private::ToolUseContext,
    ) -> impl ::tool_sdk::__private::Future<
        Output = ::tool_sdk::__private::CallResult<String>,
    > + ::tool_sdk::__private::Send {
        ::tool_sdk::__private::FnCall::<
            Self,
            _,
        >::new(<Self as ::tool_sdk::__private::FnTool>::__call(self, __ctx))
    }
}
#[automatically_derived]
impl ::tool_sdk::__private::ToolSpec for now {
    const NAME: &'static ::tool_sdk::__private::str = "Now";
    const DESCRIPTION: &'static ::tool_sdk::__private::str = "Reports the time.";
    const MAX_RESULT_SIZE_CHARS: ::tool_sdk::__private::MaxResultSize = ::tool_sdk::__private::MaxResultSize::Chars(
        100usize,
    );
    #[doc(hidden)]
    const __FLAG_METHODS: ::tool_sdk::__private::Overrides = ::tool_sdk::__private::Overrides::NONE;
}
::tool_sdk::__private::inventory::submit! {
    ::tool_sdk::__private::ToolRegistration::of:: < now >
    (::tool_sdk::__private::DefinitionSite { file : ::core::file!(), line :
    ::core::line!(), module_path : ::core::module_path!(), }).output_schema({
    #[allow(unused_imports)] use ::tool_sdk::__private::OutputSchemaFallback as _; <
    ::tool_sdk::__private::OutputSchemaProbe < now >> ::OUTPUT_SCHEMA })
}
