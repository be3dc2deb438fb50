//! A tool only code may call (`callers = ["programmatic"]`) served over MCP, which has no
//! `allowed_callers`: it is left out of `tools/list`, and a `tools/call` of it is refused as an
//! unknown tool, while a tool the model may call is listed and runs.
#![cfg(feature = "mcp-server")]
#![allow(deprecated)]

use std::sync::Arc;

use serde_json::json;
use tool_registry::OrchestratorConfig;
use tool_sdk::prelude::*;

mod mcp_serve_support;
use mcp_serve_support::{call, connect, serve_pool};

/// Runs a query for code.
#[tool(name = "query_database", callers = ["programmatic"], max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
struct QueryDatabase {
    /// The query.
    sql: String,
}

#[tool]
impl Tool for QueryDatabase {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(format!("ran {}", self.sql)))
    }
}

/// Runs a query for the model or its code.
#[tool(name = "query_both", callers = ["direct", "programmatic"], max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
struct QueryBoth {
    /// The query.
    sql: String,
}

#[tool]
impl Tool for QueryBoth {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(format!("ran {}", self.sql)))
    }
}

#[tokio::test]
async fn a_tool_only_code_may_call_is_not_listed_and_calling_it_is_an_unknown_tool() {
    let tools: Vec<Arc<dyn DynTool>> = vec![
        tool_sdk::dyn_tool::<QueryDatabase>(),
        tool_sdk::dyn_tool::<QueryBoth>(),
    ];
    let server = serve_pool(&tools, OrchestratorConfig::default());
    let (client, _) = connect(&server).await;
    let listed = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = listed.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["query_both"]);
    let refused = client
        .call_tool(call("query_database", json!({"sql": "SELECT 1"})))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("Unknown tool: query_database"),
        "{refused}"
    );
    let ran = client
        .call_tool(call("query_both", json!({"sql": "SELECT 1"})))
        .await
        .unwrap();
    assert_ne!(ran.is_error, Some(true), "{ran:?}");
    client.cancel().await.unwrap();
}
