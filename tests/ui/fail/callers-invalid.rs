use tool_sdk::prelude::*;

/// Queries the sales database.
#[tool(name = "Query", callers = ["direct", "code_execution"], max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
pub struct Query {
    /// The SQL to run.
    pub sql: String,
}

#[tool]
impl Tool for Query {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.sql))
    }
}

/// Lists the regions.
#[tool(name = "Regions", callers = [], max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
pub struct Regions {}

#[tool]
impl Tool for Regions {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(String::new()))
    }
}

/// Sums the sales of a region.
#[tool(name = "Sum", callers = ["programmatic", "programmatic"], max_result_size_chars = 1_000)]
async fn sum(_ctx: &ToolUseContext) -> Result<u64, ToolError> {
    Ok(0)
}

/// Counts the orders.
#[tool(name = "Count", callers = "programmatic", max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
pub struct Count {}

#[tool]
impl Tool for Count {
    type Output = u64;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<u64>, ToolError> {
        Ok(ToolResult::new(0))
    }
}

fn main() {}
