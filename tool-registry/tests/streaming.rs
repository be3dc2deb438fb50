//! The streaming executor (SPEC §5.5) over real tools.

mod common;

use std::time::Duration;

use common::{all_tools, blocks, texts};
use futures::StreamExt as _;
use serde_json::json;
use tool_registry::orchestration::ToolUseUpdate;
use tool_registry::test_support::call_description;
use tool_registry::test_support::{REJECT_MESSAGE, streaming_discarded};
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::ToolUseBlock;

fn orchestrator() -> Orchestrator {
    Orchestrator::new(&all_tools(), OrchestratorConfig::default())
}

fn block(id: &str, name: &str, input: serde_json::Value) -> ToolUseBlock {
    ToolUseBlock {
        id: id.into(),
        name: name.into(),
        input,
    }
}

/// Result indexes in the order the executor yields them.
async fn yield_order(
    executor: &mut tool_registry::orchestration::StreamingToolExecutor,
) -> Vec<(usize, String)> {
    let mut order = Vec::new();
    while let Some(update) = executor.updates().next().await {
        if let ToolUseUpdate::Result { index, result, .. } = update {
            order.push((index, result.text()));
        }
    }
    order
}

#[tokio::test]
async fn safe_calls_start_as_they_arrive_and_results_keep_arrival_order() {
    let mut executor = orchestrator().streaming(TurnState::default());
    executor.add_tool(block("a", "Sleep", json!({"ms": 60, "tag": "a"})));
    executor.add_tool(block("b", "Sleep", json!({"ms": 20, "tag": "b"})));
    executor.add_tool(block("u", "Nope", json!({})));
    executor.finish();
    let started = std::time::Instant::now();
    let order = yield_order(&mut executor).await;
    // Running safe calls do not hold back later results: the unknown tool is answered at
    // once, then the calls in the order they finish.
    assert_eq!(
        order,
        [
            (
                2,
                "<tool_use_error>Error: No such tool available: Nope</tool_use_error>".to_owned()
            ),
            (1, "b".to_owned()),
            (0, "a".to_owned()),
        ]
    );
    assert!(started.elapsed() < Duration::from_millis(500));
}

#[tokio::test]
async fn a_running_unsafe_call_holds_back_later_results() {
    let mut executor = orchestrator().streaming(TurnState::default());
    executor.add_tool(block("p", "Probe", json!({"mode": "ok", "ms": 40})));
    executor.add_tool(block("s", "Sleep", json!({"ms": 1, "tag": "s"})));
    executor.finish();
    let order = yield_order(&mut executor).await;
    assert_eq!(
        order,
        [(0, "ran ok size 0".to_owned()), (1, "s".to_owned())]
    );
}

#[tokio::test]
async fn a_failing_bash_cancels_unfinished_siblings_naming_itself() {
    let mut executor = orchestrator().streaming(TurnState::default());
    executor.add_tool(block("slow", "Sleep", json!({"ms": 5_000, "tag": "slow"})));
    executor.add_tool(block(
        "bash",
        "Bash",
        json!({"command": "fail now", "ms": 10}),
    ));
    executor.add_tool(block("done", "Sleep", json!({"ms": 1, "tag": "done"})));
    executor.finish();
    let outcome = executor.collect_results().await;
    assert_eq!(
        texts(&outcome),
        [
            "<tool_use_error>Cancelled: the parallel tool call Bash(fail now) failed</tool_use_error>",
            "Exit code 1\nboom",
            "done"
        ]
    );
}

#[tokio::test]
async fn other_tools_failing_do_not_cancel_siblings() {
    let mut executor = orchestrator().streaming(TurnState::default());
    executor.add_tool(block("slow", "Sleep", json!({"ms": 40, "tag": "slow"})));
    executor.add_tool(block(
        "bad",
        "Sleep",
        json!({"ms": 1, "tag": "bad", "fail": true}),
    ));
    let outcome = executor.collect_results().await;
    assert_eq!(texts(&outcome), ["slow", "bad failed"]);
}

#[tokio::test]
async fn the_shell_predicate_is_configurable() {
    let orchestrator = orchestrator().with_shell_tools(|name| name == "Sleep");
    let mut executor = orchestrator.streaming(TurnState::default());
    executor.add_tool(block("slow", "Sleep", json!({"ms": 5_000, "tag": "slow"})));
    executor.add_tool(block(
        "bad",
        "Sleep",
        json!({"ms": 1, "tag": "x".repeat(50), "fail": true}),
    ));
    let outcome = executor.collect_results().await;
    assert_eq!(
        texts(&outcome)[0],
        "<tool_use_error>Cancelled: a parallel tool call failed</tool_use_error>"
    );
}

#[test]
fn descriptions_use_command_then_file_path_then_pattern_cut_at_forty() {
    assert_eq!(
        call_description("Bash", &json!({"command": "ls", "file_path": "f"})).as_deref(),
        Some("Bash(ls)")
    );
    assert_eq!(
        call_description("Read", &json!({"file_path": "/a/b"})).as_deref(),
        Some("Read(/a/b)")
    );
    assert_eq!(
        call_description("Grep", &json!({"pattern": "p".repeat(41)})),
        Some(format!("Grep({}…)", "p".repeat(40)))
    );
    assert_eq!(
        call_description("Grep", &json!({"pattern": "p".repeat(40)})),
        Some(format!("Grep({})", "p".repeat(40)))
    );
    assert_eq!(call_description("X", &json!({"other": 1})), None);
}

#[tokio::test]
async fn discard_answers_every_unfinished_call() {
    let mut executor = orchestrator().streaming(TurnState::default());
    executor.add_tool(block("fast", "Sleep", json!({"ms": 1, "tag": "fast"})));
    executor.add_tool(block("slow", "Sleep", json!({"ms": 5_000, "tag": "slow"})));
    executor.add_tool(block("unsafe", "Probe", json!({"mode": "ok"})));
    tokio::time::sleep(Duration::from_millis(30)).await;
    executor.discard();
    executor.add_tool(block("late", "Sleep", json!({"ms": 1, "tag": "late"})));
    let outcome = executor.collect_results().await;
    let discarded = streaming_discarded();
    assert_eq!(
        texts(&outcome),
        ["fast", discarded.as_str(), discarded.as_str()]
    );
}

#[tokio::test]
async fn an_abort_rejects_running_streamed_calls() {
    let turn = TurnState::default();
    let abort = turn.abort.clone();
    let mut executor = orchestrator().streaming(turn);
    executor.add_tool(block("slow", "Sleep", json!({"ms": 5_000, "tag": "slow"})));
    executor.finish();
    let (outcome, ()) = tokio::join!(executor.collect_results(), async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        abort.cancel();
    });
    assert_eq!(texts(&outcome), [REJECT_MESSAGE]);
}

#[tokio::test]
async fn a_safe_then_unsafe_stream_answers_in_arrival_order() {
    let input = blocks(json!([
        {"id": "1", "name": "Sleep", "input": {"ms": 5, "tag": "x"}},
        {"id": "2", "name": "Probe", "input": {"mode": "ok"}},
    ]));
    let mut executor = orchestrator().streaming(TurnState::default());
    for block in input {
        executor.add_tool(block);
    }
    let outcome = executor.collect_results().await;
    assert_eq!(texts(&outcome), ["x", "ran ok size 0"]);
}
