//! The tools of the suite's tasks-extension scenarios (SEP-2663): `greet` answers at once;
//! the others are declared `#[tool(task = ...)]`, so a client that follows tasks gets a task
//! for them and follows it with `tasks/get`, `tasks/update` and `tasks/cancel`.

use std::time::Duration;

use rmcp::ErrorData;
use serde_json::{Value, json};
use tool_sdk::elicitation::{Elicitation, ElicitationAnswer};
use tool_sdk::prelude::*;

use super::served;

/// Greets someone by name, at once (never a task).
#[tool(
    name = "greet",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    open_world = false
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Greet {
    /// Who to greet.
    pub name: String,
}

#[tool]
impl Tool for Greet {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(format!("Hello, {}!", self.name)))
    }
}

/// Works for `seconds` seconds, then reports what it computed; a task when it runs long.
#[tool(
    name = "slow_compute",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    open_world = false,
    task = "optional"
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SlowCompute {
    /// How long to work, in seconds (0: answer at once).
    pub seconds: u64,
    /// A label for the result.
    #[serde(default)]
    pub label: Option<String>,
}

#[tool]
impl Tool for SlowCompute {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        for second in 0..self.seconds {
            ctx.report_progress(&json!({
                "progress": second,
                "total": self.seconds,
                "message": format!("computing, {second} of {} seconds", self.seconds),
            }));
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        Ok(ToolResult::new(format!(
            "Computed {} after {} seconds",
            self.label.as_deref().unwrap_or("a result"),
            self.seconds
        )))
    }
}

/// Works for a second, then fails: a task that completes with an error result.
#[tool(
    name = "failing_job",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    open_world = false,
    task = "required"
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FailingJob {}

#[tool]
impl Tool for FailingJob {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        tokio::time::sleep(Duration::from_secs(1)).await;
        Err(ToolError::new("the job failed: the input data is corrupt"))
    }
}

/// Crashes the server's side of the call: a task that fails with a JSON-RPC error.
#[tool(
    name = "protocol_error_job",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    open_world = false,
    task = "required"
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ProtocolErrorJob {}

#[tool]
impl Tool for ProtocolErrorJob {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        served(ctx)?.fail(ErrorData::internal_error(
            "the job's worker crashed",
            Some(json!({ "job": "protocol_error_job" })),
        ));
        Err(ToolError::new("the job's worker crashed"))
    }
}

/// A yes/no question for the task's client.
fn confirmation(message: &str) -> Elicitation {
    Elicitation::new(
        message,
        json!({
            "type": "object",
            "properties": {
                "confirm": {"type": "boolean"},
                "name": {"type": "string"},
            },
        }),
    )
}

fn confirmed(answer: &ElicitationAnswer) -> bool {
    matches!(answer, ElicitationAnswer::Accept(content) if content.get("confirm") == Some(&Value::Bool(true)))
}

/// Deletes a file once the user confirms, asking inside the task.
#[tool(
    name = "confirm_delete",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    open_world = false,
    task = "optional"
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ConfirmDelete {
    /// The file to delete.
    pub filename: String,
}

#[tool]
impl Tool for ConfirmDelete {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        served(ctx)?.start_task().await;
        let answer = ctx
            .elicit(confirmation(&format!("Delete {}?", self.filename)))
            .await?;
        Ok(ToolResult::new(if confirmed(&answer) {
            format!("Deleted {}", self.filename)
        } else {
            format!("Kept {}", self.filename)
        }))
    }
}

/// Asks two questions at once, inside the task.
#[tool(
    name = "multi_input",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    open_world = false,
    task = "optional"
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MultiInput {}

#[tool]
impl Tool for MultiInput {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        served(ctx)?.start_task().await;
        let (first, second) = tokio::join!(
            ctx.elicit(confirmation("First question")),
            ctx.elicit(confirmation("Second question")),
        );
        let (first, second) = (first?, second?);
        Ok(ToolResult::new(format!(
            "Answers: {}, {}",
            confirmed(&first),
            confirmed(&second)
        )))
    }
}

/// Asks the user's name in the request, then works on as a task and greets them.
#[tool(
    name = "test_tool_with_task",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    open_world = false,
    task = "required"
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ToolWithTask {}

#[tool]
impl Tool for ToolWithTask {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let answer = ctx
            .elicit(
                Elicitation::new(
                    "What is your name?",
                    json!({
                        "type": "object",
                        "properties": {"name": {"type": "string"}},
                        "required": ["name"],
                    }),
                )
                .with_id("user_name"),
            )
            .await?;
        let name = match &answer {
            ElicitationAnswer::Accept(content) => content
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("stranger")
                .to_owned(),
            _ => "stranger".to_owned(),
        };
        // The long part, run as the task.
        tokio::time::sleep(Duration::from_millis(500)).await;
        Ok(ToolResult::new(format!(
            "Hello, {name}! Your report is ready."
        )))
    }
}

/// The tools of this module.
pub fn tools() -> Vec<std::sync::Arc<dyn DynTool>> {
    vec![
        tool_sdk::dyn_tool::<Greet>(),
        tool_sdk::dyn_tool::<SlowCompute>(),
        tool_sdk::dyn_tool::<FailingJob>(),
        tool_sdk::dyn_tool::<ProtocolErrorJob>(),
        tool_sdk::dyn_tool::<ConfirmDelete>(),
        tool_sdk::dyn_tool::<MultiInput>(),
        tool_sdk::dyn_tool::<ToolWithTask>(),
    ]
}
