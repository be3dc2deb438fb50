//! Tools shared by the orchestration tests: real `#[tool]` types exercising every outcome.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tool_registry::orchestration::TurnOutcome;
use tool_sdk::prelude::*;
use tool_sdk::{DynTool, InterruptBehavior, ToolUseBlock, dyn_tool};

/// Host state that records the order of writes: the ids or entries context modifiers
/// appended, so tests can check SPEC §5.2's modifier order.
#[derive(Debug, Default, Clone)]
pub struct Log(pub Vec<String>);

/// One to-do entry.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TodoItem {
    /// What to do.
    pub content: String,
    /// The same in the present continuous.
    #[serde(rename = "activeForm")]
    pub active_form: String,
}

/// Replaces the to-do list.
#[tool(name = "TodoWrite", aliases = ["Todo"], max_result_size_chars = 1_000)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TodoWrite {
    /// The new list.
    pub todos: Vec<TodoItem>,
    /// Most entries kept.
    pub limit: Option<u32>,
}

#[tool]
impl Tool for TodoWrite {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(format!("{} todos", self.todos.len())))
    }
}

/// Behaves as `mode` says: the test harness for every outcome of a call.
#[tool(name = "Probe", max_result_size_chars = 100)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Probe {
    /// What to do: ok, refuse, deny, ask, rewrite, fail, long, panic-validate, panic-call, empty.
    pub mode: String,
    /// Milliseconds to run (watching the abort signal).
    #[serde(default)]
    pub ms: u64,
    /// Stop at once on a user interrupt.
    #[serde(default)]
    pub cancel: bool,
    /// Progress reports to send first.
    #[serde(default)]
    pub progress: u32,
    /// Output size in chars, for `mode = "big"`.
    #[serde(default)]
    pub size: usize,
}

/// Progress a probe reports.
#[derive(Debug, Serialize)]
pub struct Step {
    /// 1-based.
    pub step: u32,
}

#[tool]
impl Tool for Probe {
    type Output = String;

    async fn validate_input(&self, _ctx: &ToolUseContext) -> ValidationResult {
        match self.mode.as_str() {
            "refuse" => ValidationResult::invalid("mode `refuse` is not accepted here"),
            "panic-validate" => panic!("validator blew up"),
            _ => ValidationResult::Ok,
        }
    }

    async fn check_permissions(&self, _ctx: &ToolUseContext) -> PermissionResult {
        match self.mode.as_str() {
            "deny" => PermissionResult::Deny {
                message: "Permission to use Probe has been denied.".into(),
            },
            "ask" => PermissionResult::Ask {
                message: "Probe wants to run.".into(),
            },
            "rewrite" => PermissionResult::Allow {
                updated_input: Some(serde_json::json!({"mode": "ok", "size": 7})),
            },
            "rewrite-bad" => PermissionResult::Allow {
                updated_input: Some(serde_json::json!({"mode": 1})),
            },
            _ => PermissionResult::allow(),
        }
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        if self.cancel {
            InterruptBehavior::Cancel
        } else {
            InterruptBehavior::Block
        }
    }

    fn backfill_observable_input(&self, input: &mut Value) {
        input["mode_length"] = Value::from(self.mode.len());
    }

    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        for step in 1..=self.progress {
            ctx.report_progress(&Step { step });
        }
        if self.ms > 0 {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(self.ms)) => {}
                () = ctx.abort().cancelled() => return Err(ToolError::aborted("")),
            }
        }
        match self.mode.as_str() {
            "fail" => Err(ToolError::new("the probe failed").with_output("out", "err")),
            "long" => Err(ToolError::new(format!(
                "{}{}",
                "x".repeat(6_000),
                "y".repeat(6_000)
            ))),
            "panic-call" => panic!("call blew up"),
            "empty" => Ok(ToolResult::new(" \n".to_owned())),
            "big" => Ok(ToolResult::new("z".repeat(self.size))),
            _ => Ok(ToolResult::new(format!(
                "ran {} size {}",
                self.mode, self.size
            ))),
        }
    }
}

/// All test tools.
pub fn tools() -> Vec<Arc<dyn DynTool>> {
    vec![dyn_tool::<TodoWrite>(), dyn_tool::<Probe>()]
}

/// Blocks from JSON.
pub fn blocks(value: Value) -> Vec<ToolUseBlock> {
    serde_json::from_value(value).unwrap()
}

/// The texts of a turn's results.
pub fn texts(outcome: &TurnOutcome) -> Vec<String> {
    outcome
        .results
        .iter()
        .map(tool_sdk::ToolResultBlock::text)
        .collect()
}

/// Sleeps `ms` (watching the abort signal), then returns `tag`; fails when `fail` is set.
#[tool(
    name = "Sleep",
    read_only,
    concurrency_safe,
    max_result_size_chars = 1_000
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Sleep {
    /// Milliseconds to sleep.
    pub ms: u64,
    /// Text to return.
    pub tag: String,
    /// Return an error instead.
    #[serde(default)]
    pub fail: bool,
}

#[tool]
impl Tool for Sleep {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(self.ms)) => {}
            () = ctx.abort().cancelled() => return Err(ToolError::aborted("")),
        }
        if self.fail {
            return Err(ToolError::new(format!("{} failed", self.tag)));
        }
        Ok(ToolResult::new(self.tag))
    }
}

/// A fake shell: `command` "fail" exits 1 after `ms`; anything else prints it.
#[tool(name = "Bash", concurrency_safe, max_result_size_chars = 30_000)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Bash {
    /// The command.
    pub command: String,
    /// Milliseconds it takes.
    #[serde(default)]
    pub ms: u64,
}

#[tool]
impl Tool for Bash {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        tokio::time::sleep(Duration::from_millis(self.ms)).await;
        if self.command.starts_with("fail") {
            return Err(ToolError::shell(1, false, "", "boom"));
        }
        Ok(ToolResult::new(self.command))
    }
}

/// Every test tool, including the streaming ones.
pub fn all_tools() -> Vec<Arc<dyn DynTool>> {
    vec![
        dyn_tool::<TodoWrite>(),
        dyn_tool::<Probe>(),
        dyn_tool::<Sleep>(),
        dyn_tool::<Bash>(),
    ]
}

/// A middleware layer that shows each call to `see`, then passes it on unchanged.
#[derive(Clone)]
pub struct Observe<F>(pub F);

impl<F> tower::Layer<tool_registry::orchestration::middleware::ToolService> for Observe<F>
where
    F: Fn(&tool_registry::orchestration::middleware::ToolRequest) + Clone + Send + Sync + 'static,
{
    type Service = tool_registry::orchestration::middleware::ToolService;

    fn layer(
        &self,
        inner: tool_registry::orchestration::middleware::ToolService,
    ) -> tool_registry::orchestration::middleware::ToolService {
        use tower::ServiceExt as _;
        let see = self.0.clone();
        tool_registry::orchestration::middleware::ToolService::new(tower::service_fn(
            move |request: tool_registry::orchestration::middleware::ToolRequest| {
                see(&request);
                inner.clone().oneshot(request)
            },
        ))
    }
}
