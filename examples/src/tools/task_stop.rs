//! [`TaskStop`] (alias `KillShell`): stop a command Bash started in the background.

use tool_sdk::prelude::*;

use super::bash::BackgroundShells;
use super::bash::background::StopError;

/// What a successful stop reports (the reference's `{message, shell_id}` object).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Stopped {
    /// A sentence naming the shell and its command.
    pub message: String,
    /// The id of the stopped shell.
    pub shell_id: String,
}

/// Stops a background shell started by Bash with run_in_background, killing every process
/// it started, by the id Bash returned (`bash_1`, ...).
#[tool(
    name = "TaskStop",
    aliases = ["KillShell"],
    concurrency_safe,
    search_hint = "kill a running background task",
    max_result_size_chars = 100_000
)]
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct TaskStop {
    /// The ID of the background shell to kill
    pub shell_id: String,
}

#[tool]
impl Tool for TaskStop {
    type Output = Stopped;

    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<Stopped>, ToolError> {
        let shells = ctx.get::<BackgroundShells>().ok_or_else(|| {
            ToolError::new(
                "No background shells are kept by this host, so there is nothing to stop.",
            )
        })?;
        match shells.stop(&self.shell_id).await {
            Ok(command) => Ok(ToolResult::new(Stopped {
                message: format!("Stopped shell {} ({command})", self.shell_id),
                shell_id: self.shell_id,
            })),
            Err(StopError::Unknown(id)) => Err(ToolError::new(format!(
                "No background shell has the id {id}; the running ones are: {}.",
                list_or_none(&shells.ids())
            ))),
            Err(StopError::Finished { id, exit_code }) => Err(ToolError::new(format!(
                "Shell {id} is not running: it already exited with code {exit_code}."
            ))),
        }
    }
}

fn list_or_none(ids: &[String]) -> String {
    if ids.is_empty() {
        "none".to_owned()
    } else {
        ids.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use serde_json::json;
    use tool_sdk::{CancellationToken, DynTool, Extensions, ToolUseContext, TypedTool};

    use super::*;
    use crate::tools::Bash;
    use crate::workspace::Workspace;

    async fn call<T: Tool>(
        ctx: &ToolUseContext,
        input: serde_json::Value,
    ) -> Result<String, String> {
        let tool = TypedTool::of::<T>(None);
        let call = tool
            .parse_input(&input)
            .map_err(|e| e.format_for(T::NAME))?;
        call.call(ctx)
            .await
            .map(|output| output.content.text())
            .map_err(|error| error.to_model_text())
    }

    #[tokio::test]
    async fn stops_a_background_run_and_everything_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = Workspace::new(dir.path()).unwrap();
        let root = workspace.root().to_path_buf();
        let extensions = Extensions::new()
            .with(workspace)
            .with(BackgroundShells::default());
        let ctx = ToolUseContext::new("toolu_bg", CancellationToken::new(), Arc::new(extensions));
        let started = call::<Bash>(
            &ctx,
            json!({"command": "sleep 60 & echo $! > pid.txt; wait", "run_in_background": true}),
        )
        .await
        .unwrap();
        assert_eq!(started, "Command running in background with ID: bash_1");
        let mut pid = None;
        for _ in 0..500 {
            if let Ok(text) = std::fs::read_to_string(root.join("pid.txt"))
                && let Ok(value) = text.trim().parse::<u32>()
            {
                pid = Some(value);
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let pid = pid.expect("the background command wrote its pid");
        // Called by its legacy name, as a recorded session would.
        let stopped = call::<TaskStop>(&ctx, json!({"shell_id": "bash_1"}))
            .await
            .unwrap();
        assert_eq!(
            stopped,
            json!({
                "message": "Stopped shell bash_1 (sleep 60 & echo $! > pid.txt; wait)",
                "shell_id": "bash_1"
            })
            .to_string()
        );
        let mut gone = false;
        for _ in 0..200 {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            if stat.is_empty()
                || stat
                    .rsplit_once(") ")
                    .is_some_and(|(_, s)| s.starts_with('Z'))
            {
                gone = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(gone, "the grandchild {pid} survived TaskStop");
        let again = call::<TaskStop>(&ctx, json!({"shell_id": "bash_1"}))
            .await
            .unwrap_err();
        assert_eq!(
            again,
            "No background shell has the id bash_1; the running ones are: none."
        );
    }

    #[test]
    fn answers_to_its_legacy_name() {
        assert_eq!(<TaskStop as ToolSpec>::ALIASES, ["KillShell"]);
    }
}
