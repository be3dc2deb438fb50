//! The shipped middleware layers beyond `Timeout`: `ConcurrencyLimit` under 1,000 concurrent
//! calls, `RateLimit`, `Retry` (idempotent tools, passing errors, no reported progress) and
//! `Log`'s redaction. (`middleware.rs` has the timeout, what a layer sees, and misbehaving
//! layers.)

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{Observe, all_tools, blocks, texts};
use serde_json::{Value, json};
use tool_registry::orchestration::middleware::{
    ConcurrencyLimit, Log, RateLimit, Retry, Timeout, ToolRequest,
};
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::prelude::*;
use tool_sdk::{DynTool, dyn_tool};

fn run(orchestrator: &Orchestrator, calls: Value) -> tool_registry::orchestration::TurnOutcome {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(
        orchestrator
            .run_tools(blocks(calls), TurnState::default())
            .collect_results(),
    )
}

fn ids(outcome: &tool_registry::orchestration::TurnOutcome) -> Vec<&str> {
    outcome
        .results
        .iter()
        .map(|result| result.tool_use_id.as_str())
        .collect()
}

/// Counts the calls of the `Gate` tool running at once, and the most seen.
static RUNNING: AtomicUsize = AtomicUsize::new(0);
static MOST: AtomicUsize = AtomicUsize::new(0);

/// Waits a moment, counting how many of its calls run at once.
#[tool(
    name = "Gate",
    read_only,
    concurrency_safe,
    max_result_size_chars = 100
)]
#[derive(Debug, Deserialize, JsonSchema)]
struct Gate {
    /// Its number.
    n: u64,
}

#[tool]
impl Tool for Gate {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let now = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
        MOST.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(2)).await;
        RUNNING.fetch_sub(1, Ordering::SeqCst);
        Ok(ToolResult::new(format!("gate {}", self.n)))
    }
}

#[test]
fn a_concurrency_limit_holds_under_a_thousand_concurrent_calls() {
    let tools: Vec<Arc<dyn DynTool>> = vec![dyn_tool::<Gate>()];
    let config = OrchestratorConfig {
        max_concurrency: 1000,
        ..OrchestratorConfig::default()
    };
    let orchestrator = Orchestrator::new(&tools, config).layer(ConcurrencyLimit::per_tool(3));
    let calls: Vec<Value> = (0..1000)
        .map(|n| json!({"id": format!("toolu_{n}"), "name": "Gate", "input": {"n": n}}))
        .collect();
    let outcome = run(&orchestrator, Value::Array(calls));
    assert_eq!(outcome.results.len(), 1000);
    for (n, (result, text)) in outcome.results.iter().zip(texts(&outcome)).enumerate() {
        assert_eq!(result.tool_use_id, format!("toolu_{n}"));
        assert_eq!(text, format!("gate {n}"), "{result:?}");
    }
    assert_eq!(
        MOST.load(Ordering::SeqCst),
        3,
        "at most 3 at once, and 3 reached"
    );
}

#[test]
fn the_log_layer_redacts_the_named_keys_at_any_depth() {
    let redacted = Log::new().redact(["token"]);
    let orchestrator =
        Orchestrator::new(&all_tools(), OrchestratorConfig::default()).layer(redacted);
    let lines = Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
    let writer = {
        let lines = Arc::clone(&lines);
        move || SharedWriter(Arc::clone(&lines))
    };
    let subscriber = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let block =
        blocks(json!([{"id": "toolu_t", "name": "Bash", "input": {"command": "curl -H token"}}]))
            .pop()
            .unwrap();
    let _ = runtime.block_on(orchestrator.run_tool_use(
        orchestrator.prepare(block.clone()),
        &TurnState::default(),
        None,
    ));
    let text = String::from_utf8(lines.lock().unwrap().clone()).unwrap();
    assert!(
        text.contains("call started") && text.contains("call ended"),
        "{text}"
    );
    assert!(
        text.contains(r#"input={"command":"curl -H token"}"#),
        "{text}"
    );
    // A key named in the list is hidden.
    let hidden = Log::new().redact(["command"]);
    let orchestrator = Orchestrator::new(&all_tools(), OrchestratorConfig::default()).layer(hidden);
    lines.lock().unwrap().clear();
    let _ = runtime.block_on(orchestrator.run_tool_use(
        orchestrator.prepare(block),
        &TurnState::default(),
        None,
    ));
    let text = String::from_utf8(lines.lock().unwrap().clone()).unwrap();
    assert!(text.contains(r#"input={"command":"[redacted]"}"#), "{text}");
    assert!(!text.contains("curl"), "{text}");
}

struct SharedWriter(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for SharedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// How many times each `Flaky` key was called.
static RUNS: std::sync::Mutex<Vec<(String, usize)>> = std::sync::Mutex::new(Vec::new());

fn runs_of(key: &str) -> usize {
    RUNS.lock()
        .unwrap()
        .iter()
        .find(|(k, _)| k == key)
        .map_or(0, |(_, n)| *n)
}

/// Fails its first `fail` runs (passing errors when `passing`), reporting progress first
/// when `progress`; hangs on its first run when `hang`. Declared idempotent.
#[tool(name = "Flaky", read_only, idempotent, max_result_size_chars = 100)]
#[derive(Debug, Deserialize, JsonSchema)]
struct Flaky {
    /// Counts runs apart.
    key: String,
    /// Runs that fail.
    fail: usize,
    /// The failures say the call may succeed if made again.
    passing: bool,
    /// Report progress before failing.
    #[serde(default)]
    progress: bool,
    /// Hang on the first run.
    #[serde(default)]
    hang: bool,
}

#[tool]
impl Tool for Flaky {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let run = {
            let mut runs = RUNS.lock().unwrap();
            if let Some(entry) = runs.iter_mut().find(|(k, _)| *k == self.key) {
                entry.1 += 1;
                entry.1
            } else {
                runs.push((self.key.clone(), 1));
                1
            }
        };
        if self.hang && run == 1 {
            ctx.abort().cancelled().await;
            return Err(ToolError::aborted("stopped"));
        }
        assert!(
            !ctx.is_aborted(),
            "a new run starts with a fresh abort signal"
        );
        if run <= self.fail {
            if self.progress {
                ctx.report_progress(&json!({"wrote": run}));
            }
            let error = ToolError::new(format!("busy (run {run})"));
            return Err(if self.passing {
                error.retryable()
            } else {
                error
            });
        }
        Ok(ToolResult::new(format!("ok after {run} runs")))
    }
}

/// The same as `Flaky`, not declared idempotent.
#[tool(name = "FlakyWrite", max_result_size_chars = 100)]
#[derive(Debug, Deserialize, JsonSchema)]
struct FlakyWrite {
    /// Counts runs apart.
    key: String,
}

#[tool]
impl Tool for FlakyWrite {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        RUNS.lock().unwrap().push((self.key.clone(), 1));
        Err(ToolError::new("busy").retryable())
    }
}

#[test]
fn retry_runs_an_idempotent_call_again_only_after_a_passing_error_and_no_progress() {
    let tools: Vec<Arc<dyn DynTool>> = vec![dyn_tool::<Flaky>(), dyn_tool::<FlakyWrite>()];
    let orchestrator = Orchestrator::new(&tools, OrchestratorConfig::default())
        .layer(Retry::new(3).with_backoff(Duration::from_millis(5)))
        .layer(Timeout::per_tool_only().with_tool("Flaky", Duration::from_millis(200)));
    let outcome = run(
        &orchestrator,
        json!([
            {"id": "toolu_passes", "name": "Flaky", "input": {"key": "passes", "fail": 2, "passing": true}},
            {"id": "toolu_spent", "name": "Flaky", "input": {"key": "spent", "fail": 9, "passing": true}},
            {"id": "toolu_final", "name": "Flaky", "input": {"key": "final", "fail": 1, "passing": false}},
            {"id": "toolu_effect", "name": "Flaky", "input": {"key": "effect", "fail": 1, "passing": true, "progress": true}},
            {"id": "toolu_hung", "name": "Flaky", "input": {"key": "hung", "fail": 0, "passing": true, "hang": true}},
            {"id": "toolu_write", "name": "FlakyWrite", "input": {"key": "write"}},
        ]),
    );
    assert_eq!(
        ids(&outcome),
        [
            "toolu_passes",
            "toolu_spent",
            "toolu_final",
            "toolu_effect",
            "toolu_hung",
            "toolu_write"
        ]
    );
    let texts = texts(&outcome);
    assert_eq!(texts[0], "ok after 3 runs");
    assert_eq!(
        (runs_of("passes"), runs_of("spent")),
        (3, 4),
        "1 run + 3 retries at most"
    );
    assert!(
        outcome.results[1].is_error && texts[1].contains("busy (run 4)"),
        "{}",
        texts[1]
    );
    assert_eq!(runs_of("final"), 1, "an error not marked passing is final");
    assert_eq!(
        runs_of("effect"),
        1,
        "a call that reported progress is never run again"
    );
    // Stopped by the timeout inside the retry layer, then run again with a fresh signal.
    assert_eq!(texts[4], "ok after 2 runs");
    assert_eq!(runs_of("hung"), 2);
    assert_eq!(
        runs_of("write"),
        1,
        "a tool not declared idempotent is never run again"
    );
}

#[test]
fn a_rate_limit_spaces_the_starts_of_one_tools_calls() {
    let starts = Arc::new(std::sync::Mutex::new(Vec::new()));
    let orchestrator = Orchestrator::new(&all_tools(), OrchestratorConfig::default())
        .layer(RateLimit::per_tool(20.0))
        .layer({
            // When each call gets past the layers before it.
            let starts = Arc::clone(&starts);
            Observe(move |request: &ToolRequest| {
                starts
                    .lock()
                    .unwrap()
                    .push((request.name().to_owned(), Instant::now()));
            })
        });
    let started = Instant::now();
    let calls: Vec<Value> = (0..6)
        .map(|n| json!({"id": format!("toolu_{n}"), "name": "Sleep", "input": {"ms": 0, "tag": n.to_string()}}))
        .chain([json!({"id": "toolu_other", "name": "Bash", "input": {"command": "other"}})])
        .collect();
    let outcome = run(&orchestrator, Value::Array(calls));
    assert_eq!(outcome.results.len(), 7);
    assert!(outcome.results.iter().all(|result| !result.is_error));
    let mut sleeps: Vec<Duration> = starts
        .lock()
        .unwrap()
        .iter()
        .filter(|(tool, _)| tool == "Sleep")
        .map(|(_, at)| at.duration_since(started))
        .collect();
    sleeps.sort();
    // 20 a second: 50 ms apart, the first at once.
    for (n, at) in sleeps.iter().enumerate() {
        let due = Duration::from_millis(50) * u32::try_from(n).unwrap();
        assert!(
            *at + Duration::from_millis(5) >= due,
            "call {n} started at {at:?}, before {due:?}"
        );
    }
    // Another tool has its own budget: it starts at once, not seventh in Sleep's line (300 ms).
    let other = starts
        .lock()
        .unwrap()
        .iter()
        .find(|(tool, _)| tool == "Bash")
        .unwrap()
        .1;
    assert!(other.duration_since(started) < Duration::from_millis(250));
}
