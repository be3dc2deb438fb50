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
#[allow(non_camel_case_types)]
struct now {
    __input: ::tool_sdk::__private::NoInput,
}
#[automatically_derived]
impl<'de> ::tool_sdk::__private::Deserialize<'de> for now {
    fn deserialize<__D: ::tool_sdk::__private::Deserializer<'de>>(
        __deserializer: __D,
    ) -> ::tool_sdk::__private::Result<Self, __D::Error> {
        ::tool_sdk::__private::Result::map(
            <::tool_sdk::__private::NoInput as ::tool_sdk::__private::ToolInput>::__deserialize(
                __deserializer,
            ),
            |__input| Self { __input },
        )
    }
}
#[automatically_derived]
impl ::tool_sdk::__private::JsonSchema for now {
    fn schema_name() -> ::tool_sdk::__private::Cow<'static, ::tool_sdk::__private::str> {
        <::tool_sdk::__private::NoInput as ::tool_sdk::__private::ToolInput>::__schema_name()
    }
    fn schema_id() -> ::tool_sdk::__private::Cow<'static, ::tool_sdk::__private::str> {
        <::tool_sdk::__private::NoInput as ::tool_sdk::__private::ToolInput>::__schema_id()
    }
    fn json_schema(
        __generator: &mut ::tool_sdk::__private::SchemaGenerator,
    ) -> ::tool_sdk::__private::Schema {
        <::tool_sdk::__private::NoInput as ::tool_sdk::__private::ToolInput>::__json_schema(
            __generator,
        )
    }
    fn inline_schema() -> ::tool_sdk::__private::bool {
        <::tool_sdk::__private::NoInput as ::tool_sdk::__private::ToolInput>::__inline_schema()
    }
}
#[automatically_derived]
#[doc(hidden)]
impl ::tool_sdk::__private::ToolImpl for now {
    const __OVERRIDES: ::tool_sdk::__private::Overrides = ::tool_sdk::__private::Overrides::NONE;
}
#[automatically_derived]
impl ::tool_sdk::__private::Tool for now {
    type Output = String;
    #[doc(hidden)]
    fn __run(
        self,
        __ctx: &::tool_sdk::__private::ToolUseContext,
    ) -> ::tool_sdk::__private::BoxFuture<
        '_,
        ::tool_sdk::__private::Result<
            ::tool_sdk::__private::ToolOutput,
            ::tool_sdk::__private::ToolError,
        >,
    > {
        ::tool_sdk::__private::Box::pin(
            ::tool_sdk::__private::Finish::<
                Self,
                _,
            >::new(<Self as ::tool_sdk::__private::Tool>::call(self, __ctx), __ctx),
        )
    }
    async fn call(
        self,
        __ctx: &::tool_sdk::__private::ToolUseContext,
    ) -> ::tool_sdk::__private::Result<
        ::tool_sdk::__private::ToolResult<String>,
        ::tool_sdk::__private::ToolError,
    > {
        let _ = &__ctx;
        let __result = now().await;
        match __result {
            ::tool_sdk::__private::Result::Ok(__output) => {
                ::tool_sdk::__private::Result::Ok(
                    <::tool_sdk::__private::ToolResult<
                        String,
                    > as ::tool_sdk::__private::From<_>>::from(__output),
                )
            }
            ::tool_sdk::__private::Result::Err(__error) => {
                ::tool_sdk::__private::Result::Err(
                    ::core::convert::Into::<
                        ::tool_sdk::__private::ToolError,
                    >::into(__error),
                )
            }
        }
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
const _: () = {
    ::tool_sdk::__private::inventory::submit! {
        ::tool_sdk::__private::ToolRegistration::of:: < now >
        (::tool_sdk::__private::DefinitionSite { file : ::core::file!(), line :
        ::core::line!(), module_path : ::core::module_path!(), }).output_schema(|| {
        #[allow(unused_imports)] use ::tool_sdk::__private:: { OutputSchemaFallback as _,
        OutputSchemaViaJsonSchema as _ }; ::tool_sdk::__private::output_schema_from((&
        ::tool_sdk::__private::OutputSchemaProbe:: < String >
        (::tool_sdk::__private::PhantomData)).output_schema_fn()) })
    }
};
