//! What the programmatic-calling tests share: the fixtures of `tests/data/programmatic` and a
//! turn run through the orchestrator.

use std::sync::Arc;

use serde_json::Value;
use tool_registry::providers::ToolCalls;
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::{DynTool, ToolResultBlock};

/// The fixture `name` of `tests/data/programmatic` (its README cites each one's source).
pub fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/tests/data/programmatic/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The results of the runnable `calls`, run as one batch over `pool`.
pub async fn run(calls: &ToolCalls, pool: &[Arc<dyn DynTool>]) -> Vec<ToolResultBlock> {
    Orchestrator::new(pool, OrchestratorConfig::default())
        .run_tools(calls.runnable(), TurnState::default())
        .collect_results()
        .await
        .results
}
