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
    fn __run(
        self,
        __ctx: &::tool_sdk::__private::ToolUseContext,
    ) -> ::tool_sdk::__private::RunFuture<'_> {
        ::tool_sdk::__private::Box::pin(
            ::tool_sdk::__private::Finish::<
                Self,
                _,
            >::new(<Self as ::tool_sdk::__private::Tool>::call(self, __ctx), __ctx),
        )
    }
}
#[automatically_derived]
#[doc(hidden)]
impl ::tool_sdk::__private::ToolImpl for Glob {
    const __OVERRIDES: ::tool_sdk::__private::Overrides = ::tool_sdk::__private::Overrides::NONE
        .with("get_path")
        .with("validate_input");
}
