impl Tool for Glob {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.pattern))
    }
    fn get_path(&self) -> Option<&std::path::Path> {
        None
    }
    async fn validate_input(&self, _ctx: &ToolUseContext) -> ValidationResult {
        ValidationResult::Ok
    }
    #[doc(hidden)]
    const __OVERRIDES: ::tool_sdk::__private::Overrides = ::tool_sdk::__private::Overrides::NONE
        .with("get_path")
        .with("validate_input");
    #[doc(hidden)]
    const __RUN: ::tool_sdk::__private::Option<::tool_sdk::__private::RunFn<Self>> = ::tool_sdk::__private::Option::Some(|
        __tool,
        __ctx|
    {
        ::tool_sdk::__private::Box::pin(async move {
            let __result = <Self as ::tool_sdk::__private::Tool>::call(__tool, &__ctx)
                .await;
            ::tool_sdk::__private::finish(
                __result,
                &__ctx,
                const { ::tool_sdk::__private::map_fn::<Self>() },
            )
        })
    });
}
