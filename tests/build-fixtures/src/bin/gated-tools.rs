//! Three tools gated on the `gated` feature (off) and one that is always there.

use tool_sdk::prelude::*;

/// A gated struct tool, `#[cfg]` after `#[tool]`.
#[tool(name = "CfgGatedStructAfter", max_result_size_chars = 100)]
#[cfg(feature = "gated")]
#[derive(Deserialize, JsonSchema)]
pub struct CfgGatedStructAfter {}

#[cfg(feature = "gated")]
#[tool]
impl Tool for CfgGatedStructAfter {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(String::new()))
    }
}

/// A gated struct tool, `#[cfg]` before `#[tool]`.
#[cfg(feature = "gated")]
#[tool(name = "CfgGatedStructBefore", max_result_size_chars = 100)]
#[derive(Deserialize, JsonSchema)]
pub struct CfgGatedStructBefore {}

#[cfg(feature = "gated")]
#[tool]
impl Tool for CfgGatedStructBefore {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(String::new()))
    }
}

/// A gated function-form tool.
#[tool(name = "CfgGatedFunction", max_result_size_chars = 100)]
#[cfg(feature = "gated")]
async fn cfg_gated_function() -> Result<String, ToolError> {
    Ok(String::new())
}

/// Always compiled in: the control that shows the checks can see a tool that is there.
#[tool(name = "AlwaysCompiledIn", max_result_size_chars = 100)]
async fn always_compiled_in() -> Result<String, ToolError> {
    Ok(String::new())
}

fn main() {
    tool_sdk_build_fixtures::print_registered();
}
