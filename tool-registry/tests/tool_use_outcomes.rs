//! Every outcome of one call (SPEC §5.4), pinned to its exact model-facing text.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{blocks, texts, tools};
use futures::StreamExt as _;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tool_registry::orchestration::{PostToolUse, PreToolUse, PreToolUseDecision, ToolObserver};
use tool_registry::orchestration::{ToolUseUpdate, TurnOutcome};
use tool_registry::test_support::parse_max_concurrency;
use tool_registry::test_support::{CANCEL_MESSAGE, REJECT_MESSAGE};
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};

async fn run_with(orchestrator: &Orchestrator, input: Value) -> TurnOutcome {
    orchestrator
        .run_tools(blocks(input), TurnState::default())
        .collect_results()
        .await
}

async fn run(input: Value) -> TurnOutcome {
    run_with(
        &Orchestrator::new(&tools(), OrchestratorConfig::default()),
        input,
    )
    .await
}

async fn one(input: Value) -> (String, bool) {
    let outcome = run(json!([{"id": "t", "name": "Probe", "input": input}])).await;
    (outcome.results[0].text(), outcome.results[0].is_error)
}

#[tokio::test]
async fn unknown_tool_and_alias() {
    let outcome = run(json!([
        {"id": "a", "name": "Nope", "input": {}},
        {"id": "b", "name": "Todo", "input": {"todos": []}},
    ]))
    .await;
    assert_eq!(
        texts(&outcome),
        [
            "<tool_use_error>Error: No such tool available: Nope</tool_use_error>",
            "0 todos"
        ]
    );
    assert!(outcome.results[0].is_error && !outcome.results[1].is_error);
}

#[tokio::test]
async fn the_alias_fallback_answers_only_through_an_alias() {
    let pool = vec![tool_sdk::dyn_tool::<common::Probe>()];
    let orchestrator = Orchestrator::new(&pool, OrchestratorConfig::default())
        .with_alias_fallback(&[tool_sdk::dyn_tool::<common::TodoWrite>()]);
    let outcome = run_with(
        &orchestrator,
        json!([
            {"id": "a", "name": "Todo", "input": {"todos": []}},
            {"id": "b", "name": "TodoWrite", "input": {"todos": []}},
        ]),
    )
    .await;
    assert_eq!(
        texts(&outcome),
        [
            "0 todos",
            "<tool_use_error>Error: No such tool available: TodoWrite</tool_use_error>"
        ]
    );
}

#[tokio::test]
async fn input_validation_lists_missing_then_unexpected_then_mismatches_with_paths() {
    let outcome = run(json!([
        {"id": "a", "name": "TodoWrite", "input": {"todos": [{"content": "x"}]}},
        {"id": "b", "name": "TodoWrite", "input": {"todos": [], "limit": "3", "extra": 1}},
    ]))
    .await;
    assert_eq!(
        texts(&outcome),
        [
            "<tool_use_error>InputValidationError: TodoWrite cannot run because of the following input issue:\n\
             Required parameter `todos[0].activeForm` is missing</tool_use_error>",
            "<tool_use_error>InputValidationError: TodoWrite cannot run because of the following input issues:\n\
             Parameter `extra` is not part of the input schema (accepted: `todos`, `limit`)\n\
             Parameter `limit` must be of type `integer`, but a value of type `string` was provided</tool_use_error>",
        ]
    );
}

#[tokio::test]
async fn the_schema_hint_goes_inside_the_wrapper_after_the_issues() {
    let orchestrator = Orchestrator::new(&tools(), OrchestratorConfig::default()).with_schema_hint(
        |tool: &dyn tool_sdk::DynTool| {
            Some(format!(
                "\n\nLoad {} first with select:{}.",
                tool.name(),
                tool.name()
            ))
        },
    );
    let outcome = run_with(
        &orchestrator,
        json!([{"id": "a", "name": "TodoWrite", "input": {}}]),
    )
    .await;
    assert_eq!(
        texts(&outcome)[0],
        "<tool_use_error>InputValidationError: TodoWrite cannot run because of the following input issue:\n\
         Required parameter `todos` is missing\n\nLoad TodoWrite first with select:TodoWrite.</tool_use_error>"
    );
}

#[tokio::test]
async fn lenient_tools_drop_unknown_keys_strict_ones_reject_them() {
    let input = json!([{"id": "a", "name": "TodoWrite", "input": {"todos": [], "note": "hi"}}]);
    let strict = run(input.clone()).await;
    assert!(strict.results[0].is_error);
    let lenient = Orchestrator::new(
        &tools(),
        OrchestratorConfig::default().with_lenient_input("TodoWrite"),
    );
    assert_eq!(texts(&run_with(&lenient, input).await), ["0 todos"]);
}

#[tokio::test]
async fn validate_input_refusal_is_wrapped() {
    assert_eq!(
        one(json!({"mode": "refuse"})).await,
        (
            "<tool_use_error>mode `refuse` is not accepted here</tool_use_error>".to_owned(),
            true
        )
    );
}

#[tokio::test]
async fn permission_refusals_are_not_wrapped() {
    assert_eq!(
        one(json!({"mode": "deny"})).await,
        ("Permission to use Probe has been denied.".to_owned(), true)
    );
    assert_eq!(
        one(json!({"mode": "ask"})).await,
        (
            "Permission to use Probe was not granted: it needs approval and this host cannot ask for it. Probe wants to run."
                .to_owned(),
            true
        )
    );
    assert_eq!(
        one(json!({"mode": "rewrite"})).await,
        ("ran ok size 7".to_owned(), false)
    );
    assert_eq!(
        one(json!({"mode": "rewrite-bad"})).await.0,
        "<tool_use_error>InputValidationError: Probe cannot run because of the following input issue:\n\
         Parameter `mode` must be of type `string`, but a value of type `number` was provided</tool_use_error>"
    );
}

#[tokio::test]
async fn call_errors_are_formatted_and_truncated_unwrapped() {
    assert_eq!(
        one(json!({"mode": "fail"})).await,
        ("the probe failed\nerr\nout".to_owned(), true)
    );
    let (long, is_error) = one(json!({"mode": "long"})).await;
    assert!(is_error);
    assert_eq!(
        long,
        format!(
            "{}\n\n... [2000 characters truncated] ...\n\n{}",
            "x".repeat(5_000),
            "y".repeat(5_000)
        )
    );
}

#[tokio::test]
async fn panics_become_error_calling_tool() {
    assert_eq!(
        one(json!({"mode": "panic-validate"})).await,
        (
            "<tool_use_error>Error calling tool (Probe): the tool panicked: validator blew up</tool_use_error>".to_owned(),
            true
        )
    );
    assert_eq!(
        one(json!({"mode": "panic-call"})).await.0,
        "<tool_use_error>Error calling tool (Probe): the tool panicked: call blew up</tool_use_error>"
    );
}

#[tokio::test]
async fn empty_output_names_the_tool() {
    assert_eq!(
        one(json!({"mode": "empty"})).await,
        ("(Probe completed with no output)".to_owned(), false)
    );
}

#[tokio::test]
async fn aborted_before_start_gets_the_cancel_message() {
    let turn = TurnState::default();
    turn.abort.cancel();
    let outcome = Orchestrator::new(&tools(), OrchestratorConfig::default())
        .run_tools(
            blocks(json!([
                {"id": "a", "name": "Probe", "input": {"mode": "ok"}},
                {"id": "b", "name": "Nope", "input": {}},
            ])),
            turn,
        )
        .collect_results()
        .await;
    assert_eq!(
        texts(&outcome),
        [
            CANCEL_MESSAGE,
            "<tool_use_error>Error: No such tool available: Nope</tool_use_error>"
        ]
    );
    assert_eq!(
        CANCEL_MESSAGE,
        "The user does not want this action to happen right now. STOP what you are doing and wait until the user tells you how to continue."
    );
}

/// Records what it sees; stops `mode = "stop"`, rewrites `mode = "swap"` to `ok`, panics on
/// `mode = "observer-panic"`.
#[derive(Default)]
struct Recorder {
    seen: Mutex<Vec<Value>>,
    results: Mutex<Vec<String>>,
}

impl ToolObserver for Recorder {
    fn pre_tool_use<'a>(&'a self, event: &'a PreToolUse) -> BoxFuture<'a, PreToolUseDecision> {
        Box::pin(async move {
            self.seen.lock().unwrap().push(event.input.clone());
            match event.input["mode"].as_str() {
                Some("stop") => PreToolUseDecision::Stop {
                    reason: "test".into(),
                },
                Some("swap") => PreToolUseDecision::ReplaceInput(json!({"mode": "ok", "size": 3})),
                Some("observer-panic") => panic!("observer blew up"),
                _ => PreToolUseDecision::Continue,
            }
        })
    }

    fn post_tool_use<'a>(&'a self, event: &'a PostToolUse) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            self.results.lock().unwrap().push(format!(
                "{} {} {}",
                event.tool_name,
                event.input,
                event.result.text()
            ));
        })
    }
}

#[tokio::test]
async fn observers_see_the_backfilled_input_and_may_stop_or_replace() {
    let recorder = Arc::new(Recorder::default());
    let orchestrator = Orchestrator::new(&tools(), OrchestratorConfig::default())
        .with_observer(Arc::clone(&recorder) as Arc<dyn ToolObserver>);
    let outcome = run_with(
        &orchestrator,
        json!([
            {"id": "a", "name": "Probe", "input": {"mode": "echo"}},
            {"id": "b", "name": "Probe", "input": {"mode": "stop"}},
            {"id": "c", "name": "Probe", "input": {"mode": "swap"}},
            {"id": "d", "name": "Probe", "input": {"mode": "observer-panic"}},
        ]),
    )
    .await;
    assert_eq!(
        texts(&outcome),
        [
            "ran echo size 0",
            CANCEL_MESSAGE,
            "ran ok size 3",
            "<tool_use_error>Error calling tool (Probe): a PreToolUse observer panicked: observer blew up</tool_use_error>",
        ]
    );
    // The observer saw the derived field; the call got the original input (its text above).
    assert_eq!(
        recorder.seen.lock().unwrap()[0],
        json!({"mode": "echo", "mode_length": 4})
    );
    assert_eq!(
        *recorder.results.lock().unwrap(),
        [
            r#"Probe {"mode":"echo","mode_length":4} ran echo size 0"#,
            r#"Probe {"mode":"ok","size":3,"mode_length":2} ran ok size 3"#,
        ]
    );
}

#[tokio::test]
async fn progress_arrives_while_the_call_runs() {
    let mut stream = Orchestrator::new(&tools(), OrchestratorConfig::default()).run_tools(
        blocks(
            json!([{"id": "p", "name": "Probe", "input": {"mode": "ok", "progress": 2, "ms": 50}}]),
        ),
        TurnState::default(),
    );
    let mut kinds = Vec::new();
    while let Some(update) = stream.next().await {
        kinds.push(match update {
            ToolUseUpdate::Progress(progress) => {
                format!("progress {} {}", progress.tool_use_id, progress.data)
            }
            ToolUseUpdate::Result { index, result, .. } => {
                format!("result {index} {}", result.text())
            }
            ToolUseUpdate::ContextChanged(_) => "context".to_owned(),
        });
    }
    assert_eq!(
        kinds,
        [
            r#"progress p {"step":1}"#,
            r#"progress p {"step":2}"#,
            "result 0 ran ok size 0"
        ]
    );
}

#[tokio::test]
async fn an_interrupt_rejects_cancel_calls_and_lets_block_calls_finish() {
    let turn = TurnState::default();
    let interrupt = turn.interrupt.clone();
    let stream = Orchestrator::new(&tools(), OrchestratorConfig::default()).run_tools(
        blocks(json!([
            {"id": "c", "name": "Probe", "input": {"mode": "ok", "ms": 5_000, "cancel": true}},
            {"id": "b", "name": "Probe", "input": {"mode": "ok", "ms": 5_000}},
            {"id": "later", "name": "Probe", "input": {"mode": "ok"}},
        ])),
        turn,
    );
    let (outcome, ()) = tokio::join!(stream.collect_results(), async {
        tokio::time::sleep(Duration::from_millis(30)).await;
        interrupt.cancel();
    });
    // Probe is not concurrency-safe, so "b" starts only after "c" was rejected, and then runs
    // its full time; "later" was not started before the interrupt.
    assert_eq!(
        texts(&outcome),
        [REJECT_MESSAGE, CANCEL_MESSAGE, CANCEL_MESSAGE]
    );
}

#[tokio::test(start_paused = true)]
async fn an_abort_rejects_a_running_block_call() {
    let turn = TurnState::default();
    let abort = turn.abort.clone();
    let stream = Orchestrator::new(&tools(), OrchestratorConfig::default()).run_tools(
        blocks(json!([
            {"id": "b", "name": "Probe", "input": {"mode": "ok", "ms": 5_000}},
            {"id": "n", "name": "Probe", "input": {"mode": "ok"}},
        ])),
        turn,
    );
    let (outcome, ()) = tokio::join!(stream.collect_results(), async {
        tokio::time::sleep(Duration::from_millis(30)).await;
        abort.cancel();
    });
    assert_eq!(texts(&outcome), [REJECT_MESSAGE, CANCEL_MESSAGE]);
    assert!(outcome.results.iter().all(|r| r.is_error));
}

#[tokio::test]
async fn an_interrupt_lets_a_running_block_call_finish() {
    let turn = TurnState::default();
    let interrupt = turn.interrupt.clone();
    let stream = Orchestrator::new(&tools(), OrchestratorConfig::default()).run_tools(
        blocks(json!([{"id": "b", "name": "Probe", "input": {"mode": "ok", "ms": 80}}])),
        turn,
    );
    let (outcome, ()) = tokio::join!(stream.collect_results(), async {
        tokio::time::sleep(Duration::from_millis(10)).await;
        interrupt.cancel();
    });
    assert_eq!(texts(&outcome), ["ran ok size 0"]);
}

#[test]
fn concurrency_variable_parses_like_the_reference_with_a_floor() {
    assert_eq!(
        ["", "0", "2.9", "1e3", " 7", "-4", "x"].map(|v| parse_max_concurrency(Some(v))),
        [10, 10, 2, 1, 7, 10, 10]
    );
}

/// Approves every call it is asked about, with a replaced input.
struct ApproveAll;

impl tool_registry::permissions::CanUseTool for ApproveAll {
    fn can_use_tool<'a>(
        &'a self,
        request: tool_registry::permissions::PermissionRequest<'a>,
    ) -> BoxFuture<'a, tool_registry::permissions::HostAnswer> {
        let size = request.input["size"].as_u64().unwrap_or(0) + 1;
        Box::pin(async move {
            tool_registry::permissions::HostAnswer::Allow {
                updated_input: Some(json!({"mode": "approved", "size": size})),
            }
        })
    }
}

#[tokio::test]
async fn the_permission_pipeline_applies_rules_and_asks_the_host() {
    use tool_registry::ToolPermissionContext;
    use tool_registry::permissions::{AliasTable, PermissionBehavior, PermissionRuleSource};
    let denied = ToolPermissionContext::default().with_rule(
        PermissionRuleSource::CliArg,
        PermissionBehavior::Deny,
        "Probe",
        &AliasTable::new(),
    );
    let orchestrator =
        Orchestrator::new(&tools(), OrchestratorConfig::default()).with_permissions(denied);
    let outcome = run_with(
        &orchestrator,
        json!([{"id": "a", "name": "Probe", "input": {"mode": "ok"}}]),
    )
    .await;
    assert!(outcome.results[0].is_error);
    assert_eq!(
        texts(&outcome)[0],
        tool_registry::test_support::permission_denied_message("Probe")
    );
    let asking = Orchestrator::new(&tools(), OrchestratorConfig::default())
        .with_can_use_tool(Arc::new(ApproveAll));
    let outcome = run_with(
        &asking,
        json!([{"id": "a", "name": "Probe", "input": {"mode": "ask", "size": 4}}]),
    )
    .await;
    assert_eq!(texts(&outcome), ["ran approved size 5"]);
}
