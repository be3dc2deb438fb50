//! Answering `tool_use` blocks: one [`Host`] holds the tool pool, the runtime, the progress
//! display and the host state (the workspace with the files read so far, the todo list,
//! background shells), carried from one turn to the next.

use std::sync::Arc;

use tool_examples::tools::BackgroundShells;
use tool_examples::workspace::Workspace;
use tool_registry::orchestration::Batch;
use tool_registry::{Orchestrator, OrchestratorConfig, ToolPermissionContext, TurnState};
use tool_sdk::{DynTool, Extensions, ToolResultBlock, ToolUseBlock};

use crate::progress::{Display, Progress};

/// Runs turns over one pool and one workspace.
pub struct Host {
    runtime: tokio::runtime::Runtime,
    orchestrator: Orchestrator,
    extensions: Extensions,
    progress: Arc<Progress>,
}

impl Host {
    /// A host over `tools`, with `workspace` as the file tools' root, checking every call
    /// against `permissions` and showing progress as `display` says.
    pub fn new(
        tools: &[Arc<dyn DynTool>],
        workspace: Workspace,
        permissions: ToolPermissionContext,
        display: Display,
    ) -> Result<Self, String> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|error| format!("cannot start the async runtime: {error}"))?;
        let progress = Arc::new(Progress::new(display));
        let orchestrator = Orchestrator::new(tools, OrchestratorConfig::from_env())
            .with_permissions(permissions)
            .with_observer(progress.clone());
        let extensions = Extensions::new()
            .with(crate::mcp::client_roots(workspace.root()))
            .with(workspace)
            .with(BackgroundShells::default());
        Ok(Self {
            runtime,
            orchestrator,
            extensions,
            progress,
        })
    }

    /// The batch plan of `blocks`, one line per batch.
    pub fn plan(&self, blocks: &[ToolUseBlock]) -> String {
        Batch::describe_all(&self.orchestrator.partition(blocks))
    }

    /// Answers `blocks`: one result per block, in block order. Context modifiers the tools
    /// returned are kept for the next turn.
    pub fn answer(&mut self, blocks: &[ToolUseBlock]) -> Vec<ToolResultBlock> {
        let turn = TurnState {
            extensions: self.extensions.clone(),
            ..TurnState::default()
        };
        // The turn's span, parent of its calls' `execute_tool` spans (OpenTelemetry GenAI
        // conventions: an agent's run is `invoke_agent {gen_ai.agent.name}`).
        let span = tracing::info_span!(
            "invoke_agent",
            otel.name = "invoke_agent tool-host",
            otel.kind = "internal",
            gen_ai.operation.name = "invoke_agent",
            gen_ai.agent.name = "tool-host",
        );
        let stream = span.in_scope(|| self.orchestrator.run_tools(blocks.to_vec(), turn));
        let outcome = self.runtime.block_on(tracing::Instrument::instrument(
            stream.collect_results(),
            span,
        ));
        self.extensions = outcome.extensions;
        self.progress.finish_unfinished(&outcome.results);
        outcome.results
    }

    /// Prints `line` on stderr without breaking the progress display.
    pub fn println(&self, line: &str) {
        self.progress.println(line);
    }
}

/// One line for stderr: how many calls were answered and which failed, e.g.
/// `answered 3 tool_use blocks: 2 ok, 1 error (Bash toolu_02)`.
pub fn summary(blocks: &[ToolUseBlock], results: &[ToolResultBlock]) -> String {
    let failed: Vec<String> = results
        .iter()
        .filter(|result| result.is_error)
        .map(|result| {
            let name = blocks
                .iter()
                .find(|block| block.id == result.tool_use_id)
                .map_or("?", |block| block.name.as_str());
            format!("{name} {}", result.tool_use_id)
        })
        .collect();
    let which = if failed.is_empty() {
        String::new()
    } else {
        format!(" ({})", failed.join(", "))
    };
    format!(
        "answered {} tool_use block{}: {} ok, {} error{}{which}",
        results.len(),
        if results.len() == 1 { "" } else { "s" },
        results.len() - failed.len(),
        failed.len(),
        if failed.len() == 1 { "" } else { "s" },
    )
}
