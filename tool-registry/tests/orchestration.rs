//! Orchestration over real tools: batching, ordering, panics, errors and context modifiers.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::Log;
use serde_json::json;
use tool_registry::orchestration::Batch;
use tool_registry::orchestration::TurnOutcome;
use tool_registry::test_support::partition_tool_calls;
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::prelude::*;
use tool_sdk::{DynTool, ToolUseBlock, dyn_tool};

/// Sleeps `ms`, then returns `tag`; panics when `tag` is "panic".
#[tool(
    name = "Slow",
    read_only,
    concurrency_safe,
    max_result_size_chars = 1_000
)]
#[derive(Deserialize, JsonSchema)]
struct Slow {
    /// Milliseconds to sleep.
    ms: u64,
    /// Text to return.
    tag: String,
}

#[tool]
impl Tool for Slow {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        tokio::time::sleep(Duration::from_millis(self.ms)).await;
        assert!(self.tag != "panic", "boom in {}", self.tag);
        Ok(ToolResult::new(self.tag))
    }
}

/// Appends `entry` to the log through a context modifier; fails when `fail` is set.
#[tool(name = "Append", max_result_size_chars = 1_000, concurrency_safe = Self::safe)]
#[derive(Deserialize, JsonSchema)]
struct Append {
    /// What to append.
    entry: String,
    /// Run in parallel with other safe calls.
    #[serde(default)]
    parallel: bool,
    /// Return an error instead.
    #[serde(default)]
    fail: bool,
}

impl Append {
    fn safe(&self) -> bool {
        self.parallel
    }
}

#[tool]
impl Tool for Append {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        if self.fail {
            return Err(ToolError::new(format!("could not append {}", self.entry)));
        }
        let seen = ctx.get::<Log>().cloned().unwrap_or_default().0.join(",");
        let entry = self.entry;
        if entry == "first-slow" {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(
            ToolResult::new(format!("saw [{seen}]")).with_context_modifier(move |ext| {
                let mut log = ext.get::<Log>().cloned().unwrap_or_default();
                log.0.push(entry);
                ext.insert(log);
            }),
        )
    }
}

fn tools() -> Vec<Arc<dyn DynTool>> {
    vec![dyn_tool::<Slow>(), dyn_tool::<Append>()]
}

async fn run(
    batch: &[ToolUseBlock],
    tools: &[Arc<dyn DynTool>],
    state: TurnState,
    config: &OrchestratorConfig,
) -> TurnOutcome {
    Orchestrator::new(tools, config.clone())
        .run_tools(batch.to_vec(), state)
        .collect_results()
        .await
}

fn blocks(value: serde_json::Value) -> Vec<ToolUseBlock> {
    serde_json::from_value(value).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_in_a_parallel_batch_of_five_costs_one_result_only() {
    let batch = blocks(json!([
        {"id": "t1", "name": "Slow", "input": {"ms": 30, "tag": "a"}},
        {"id": "t2", "name": "Slow", "input": {"ms": 10, "tag": "b"}},
        {"id": "t3", "name": "Slow", "input": {"ms": 5, "tag": "panic"}},
        {"id": "t4", "name": "Slow", "input": {"ms": 20, "tag": "d"}},
        {"id": "t5", "name": "Slow", "input": {"ms": 1, "tag": "e"}},
    ]));
    let results = run(
        &batch,
        &tools(),
        TurnState::default(),
        &OrchestratorConfig::default(),
    )
    .await
    .results;
    let ids: Vec<&str> = results.iter().map(|r| r.tool_use_id.as_str()).collect();
    assert_eq!(ids, ["t1", "t2", "t3", "t4", "t5"]);
    assert_eq!(results.iter().filter(|r| r.is_error).count(), 1);
    assert!(results[2].is_error);
    assert_eq!(
        results[2].text(),
        "<tool_use_error>Error calling tool (Slow): the tool panicked: boom in panic</tool_use_error>"
    );
    assert_eq!(results[0].text(), "a");
    assert_eq!(results[4].text(), "e");
}

#[test]
fn partition_groups_consecutive_safe_calls_only() {
    let batch = blocks(json!([
        {"id": "1", "name": "Slow", "input": {"ms": 1, "tag": "x"}},
        {"id": "2", "name": "Slow", "input": {"ms": 1, "tag": "y"}},
        {"id": "3", "name": "Append", "input": {"entry": "e"}},
        {"id": "4", "name": "Append", "input": {"entry": "f"}},
        {"id": "5", "name": "Slow", "input": {"ms": "bad", "tag": "z"}},
        {"id": "6", "name": "Missing", "input": {}},
        {"id": "7", "name": "Append", "input": {"entry": "g", "parallel": true}},
        {"id": "8", "name": "Slow", "input": {"ms": 1, "tag": "w"}},
    ]));
    let plan = Batch::describe_all(&partition_tool_calls(&batch, &tools()));
    assert_eq!(
        plan,
        "batch 1: concurrent [Slow 1, Slow 2]\n\
         batch 2: serial [Append 3]\n\
         batch 3: serial [Append 4]\n\
         batch 4: serial [Slow 5]\n\
         batch 5: serial [Missing 6]\n\
         batch 6: concurrent [Append 7, Slow 8]\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_failure_kind_gets_its_own_result_and_siblings_survive() {
    let batch = blocks(json!([
        {"id": "a", "name": "Nope", "input": {}},
        {"id": "b", "name": "Slow", "input": {"ms": "soon", "tag": 3, "extra": true}},
        {"id": "c", "name": "Append", "input": {"entry": "x", "fail": true}},
        {"id": "d", "name": "Slow", "input": {"ms": 1}},
        {"id": "e", "name": "Slow", "input": {"ms": 1, "tag": "fine"}},
    ]));
    let results = run(
        &batch,
        &tools(),
        TurnState::default(),
        &OrchestratorConfig::default(),
    )
    .await
    .results;
    let texts: Vec<String> = results
        .iter()
        .map(tool_sdk::ToolResultBlock::text)
        .collect();
    assert_eq!(
        texts[0],
        "<tool_use_error>Error: No such tool available: Nope</tool_use_error>"
    );
    assert_eq!(
        texts[1],
        "<tool_use_error>InputValidationError: Slow cannot run because of the following input issues:\n\
         Parameter `extra` is not part of the input schema (accepted: `ms`, `tag`)\n\
         Parameter `ms` must be of type `integer`, but a value of type `string` was provided\n\
         Parameter `tag` must be of type `string`, but a value of type `number` was provided</tool_use_error>"
    );
    assert_eq!(texts[2], "could not append x");
    assert_eq!(
        texts[3],
        "<tool_use_error>InputValidationError: Slow cannot run because of the following input issue:\n\
         Required parameter `tag` is missing</tool_use_error>"
    );
    assert_eq!(texts[4], "fine");
    assert_eq!(
        results.iter().map(|r| r.is_error).collect::<Vec<_>>(),
        [true, true, true, true, false]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modifiers_apply_in_block_order_after_a_safe_batch_and_at_once_after_a_serial_call() {
    let batch = blocks(json!([
        {"id": "1", "name": "Append", "input": {"entry": "first-slow", "parallel": true}},
        {"id": "2", "name": "Append", "input": {"entry": "second", "parallel": true}},
        {"id": "3", "name": "Append", "input": {"entry": "third"}},
        {"id": "4", "name": "Append", "input": {"entry": "fourth"}},
    ]));
    let outcome = run(
        &batch,
        &tools(),
        TurnState::default(),
        &OrchestratorConfig::default(),
    )
    .await;
    let results = outcome.results;
    let texts: Vec<String> = results
        .iter()
        .map(tool_sdk::ToolResultBlock::text)
        .collect();
    // Both safe calls saw the state from before their batch.
    assert_eq!(
        texts,
        [
            "saw []",
            "saw []",
            "saw [first-slow,second]",
            "saw [first-slow,second,third]"
        ]
    );
    assert_eq!(
        outcome.extensions.get::<Log>().unwrap().0,
        ["first-slow", "second", "third", "fourth"]
    );
}

static RUNNING: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// Counts how many calls run at once (used by one test only).
#[tool(
    name = "Gauge",
    read_only,
    concurrency_safe,
    max_result_size_chars = 1_000
)]
#[derive(Deserialize, JsonSchema)]
struct Gauge {}

#[tool]
impl Tool for Gauge {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let now = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
        PEAK.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(20)).await;
        RUNNING.fetch_sub(1, Ordering::SeqCst);
        Ok(ToolResult::new("ok".to_owned()))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_concurrency_cap_bounds_parallel_calls() {
    let batch: Vec<ToolUseBlock> = (0..12)
        .map(|i| ToolUseBlock {
            id: format!("t{i}"),
            name: "Gauge".into(),
            input: json!({}),
        })
        .collect();
    let config = OrchestratorConfig {
        max_concurrency: 3,
        ..OrchestratorConfig::default()
    };
    let results = run(
        &batch,
        &[dyn_tool::<Gauge>()],
        TurnState::default(),
        &config,
    )
    .await
    .results;
    assert_eq!(results.len(), 12);
    assert!(
        PEAK.load(Ordering::SeqCst) <= 3,
        "peak {}",
        PEAK.load(Ordering::SeqCst)
    );
    assert!(PEAK.load(Ordering::SeqCst) >= 2);
}

#[tokio::test]
async fn a_cancelled_turn_still_answers_every_call() {
    let batch = blocks(json!([
        {"id": "1", "name": "Slow", "input": {"ms": 1, "tag": "x"}},
        {"id": "2", "name": "Append", "input": {"entry": "y"}},
    ]));
    let state = TurnState::default();
    state.abort.cancel();
    let results = run(&batch, &tools(), state, &OrchestratorConfig::default())
        .await
        .results;
    assert_eq!(results.len(), 2);
    assert!(
        results
            .iter()
            .all(|r| r.is_error && r.text() == tool_registry::test_support::CANCEL_MESSAGE)
    );
}

/// Returns only whitespace.
#[tool(name = "Quiet", read_only, max_result_size_chars = 100)]
#[derive(Deserialize, JsonSchema)]
struct Quiet {}

#[tool]
impl Tool for Quiet {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("  \n".to_owned()))
    }
}

#[tokio::test]
async fn an_empty_result_names_the_tool() {
    let batch = blocks(json!([{"id": "q", "name": "Quiet", "input": {}}]));
    let results = run(
        &batch,
        &[dyn_tool::<Quiet>()],
        TurnState::default(),
        &OrchestratorConfig::default(),
    )
    .await
    .results;
    assert_eq!(results[0].text(), "(Quiet completed with no output)");
    assert!(!results[0].is_error);
}
