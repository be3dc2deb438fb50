//! Middleware layers around every call (`Orchestrator::layer`): the shipped `Timeout`, what a
//! layer sees, and layers that misbehave (panic in `poll_ready` or in their future, fail,
//! answer for another id, never answer). Whatever a layer does, every `tool_use` gets exactly
//! one result, in order, and a sibling's result is never lost. (`middleware_layers.rs` has the
//! other shipped layers.)

mod common;

use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use common::{Observe, all_tools, blocks, texts};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tool_registry::orchestration::CallOutcome;
use tool_registry::orchestration::middleware::{Timeout, ToolRequest, ToolService};
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};

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

#[test]
fn a_call_past_its_time_limit_is_stopped_with_an_error_naming_the_limit() {
    let orchestrator = Orchestrator::new(&all_tools(), OrchestratorConfig::default()).layer(
        Timeout::new(Duration::from_secs(30)).with_tool("Sleep", Duration::from_millis(100)),
    );
    let started = Instant::now();
    let outcome = run(
        &orchestrator,
        json!([
            {"id": "toolu_slow", "name": "Sleep", "input": {"ms": 5000, "tag": "late"}},
            {"id": "toolu_fast", "name": "Bash", "input": {"command": "echo fine", "ms": 10}},
        ]),
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(ids(&outcome), ["toolu_slow", "toolu_fast"]);
    let texts = texts(&outcome);
    assert!(outcome.results[0].is_error);
    assert_eq!(
        texts[0],
        "<tool_use_error>Error calling tool (Sleep): the call did not finish within its time \
         limit of 100ms and was stopped</tool_use_error>"
    );
    assert!(!outcome.results[1].is_error, "{}", texts[1]);
    assert_eq!(texts[1], "echo fine");
}

/// A layer that misbehaves on the calls of one tool, as `how` says, and passes every other
/// call on.
#[derive(Clone)]
struct Misbehave {
    tool: &'static str,
    how: &'static str,
}

#[derive(Clone)]
struct MisbehaveService {
    layer: Misbehave,
    inner: ToolService,
}

impl tower::Layer<ToolService> for Misbehave {
    type Service = MisbehaveService;
    fn layer(&self, inner: ToolService) -> MisbehaveService {
        MisbehaveService {
            layer: self.clone(),
            inner,
        }
    }
}

impl tower::Service<ToolRequest> for MisbehaveService {
    type Response = CallOutcome;
    type Error = tower::BoxError;
    type Future = BoxFuture<'static, Result<CallOutcome, tower::BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        if self.layer.how == "panic-ready" {
            panic!("the layer's poll_ready blew up");
        }
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: ToolRequest) -> Self::Future {
        use tower::ServiceExt as _;
        let inner = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, inner);
        if request.name() != self.layer.tool {
            return Box::pin(inner.oneshot(request));
        }
        match self.layer.how {
            "panic" => panic!("the layer blew up"),
            "panic-later" => Box::pin(async { panic!("the layer's future blew up") }),
            "fail" => Box::pin(async { Err("the quota of this tool is spent".into()) }),
            "wrong-id" => Box::pin(async {
                Ok(CallOutcome::error(
                    "toolu_someone_else",
                    "cached".to_owned(),
                ))
            }),
            "hang" => Box::pin(futures::future::pending()),
            _ => Box::pin(inner.oneshot(request)),
        }
    }
}

#[test]
fn a_misbehaving_layer_fails_its_call_alone() {
    for (how, expected) in [
        (
            "panic",
            "<tool_use_error>Error calling tool (Sleep): a middleware layer panicked: the layer blew up</tool_use_error>",
        ),
        (
            "panic-later",
            "<tool_use_error>Error calling tool (Sleep): a middleware layer panicked: the layer's future blew up</tool_use_error>",
        ),
        (
            "fail",
            "<tool_use_error>Error calling tool (Sleep): the quota of this tool is spent</tool_use_error>",
        ),
    ] {
        let orchestrator = Orchestrator::new(&all_tools(), OrchestratorConfig::default())
            .layer(Misbehave { tool: "Sleep", how });
        let outcome = run(
            &orchestrator,
            json!([
                {"id": "toolu_a", "name": "Bash", "input": {"command": "first", "ms": 5}},
                {"id": "toolu_b", "name": "Sleep", "input": {"ms": 1, "tag": "b"}},
                {"id": "toolu_c", "name": "Bash", "input": {"command": "third", "ms": 5}},
            ]),
        );
        assert_eq!(ids(&outcome), ["toolu_a", "toolu_b", "toolu_c"], "{how}");
        let texts = texts(&outcome);
        assert_eq!(texts[1], expected, "{how}");
        assert!(outcome.results[1].is_error);
        assert_eq!(
            (texts[0].as_str(), texts[2].as_str()),
            ("first", "third"),
            "{how}"
        );
    }
}

#[test]
fn a_layer_that_never_answers_is_cut_off_with_the_turn() {
    let orchestrator =
        Orchestrator::new(&all_tools(), OrchestratorConfig::default()).layer(Misbehave {
            tool: "Sleep",
            how: "hang",
        });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let turn = TurnState::default();
    let abort = turn.abort.clone();
    let started = Instant::now();
    let outcome = runtime.block_on(async {
        let stream = orchestrator.run_tools(
            blocks(json!([
                {"id": "toolu_a", "name": "Bash", "input": {"command": "done", "ms": 1}},
                {"id": "toolu_b", "name": "Sleep", "input": {"ms": 1, "tag": "b"}},
            ])),
            turn,
        );
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            abort.cancel();
        });
        stream.collect_results().await
    });
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(ids(&outcome), ["toolu_a", "toolu_b"]);
    assert!(
        !outcome.results[0].is_error,
        "the sibling answered before the abort"
    );
    assert!(
        outcome.results[1].is_error,
        "the hung call ends with the turn"
    );
}

#[test]
fn a_panic_in_poll_ready_fails_each_call_with_one_result_apiece() {
    let orchestrator =
        Orchestrator::new(&all_tools(), OrchestratorConfig::default()).layer(Misbehave {
            tool: "Sleep",
            how: "panic-ready",
        });
    let outcome = run(
        &orchestrator,
        json!([
            {"id": "toolu_a", "name": "Bash", "input": {"command": "a"}},
            {"id": "toolu_b", "name": "Sleep", "input": {"ms": 1, "tag": "b"}},
        ]),
    );
    assert_eq!(ids(&outcome), ["toolu_a", "toolu_b"]);
    for (result, text) in outcome.results.iter().zip(texts(&outcome)) {
        assert!(result.is_error);
        assert!(
            text.ends_with(
                "a middleware layer panicked: the layer's poll_ready blew up</tool_use_error>"
            ),
            "{text}"
        );
    }
}

#[test]
fn layers_see_each_valid_call_once_with_its_tool_input_and_context() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let peek = {
        let seen = Arc::clone(&seen);
        Observe(move |request: &ToolRequest| {
            seen.lock().unwrap().push(format!(
                "{} {} read_only={:?} server={:?} input={}",
                request.name(),
                request.context().tool_use_id(),
                request.meta().read_only,
                request.mcp_server(),
                request.input()
            ));
        })
    };
    let orchestrator = Orchestrator::new(&all_tools(), OrchestratorConfig::default()).layer(peek);
    let outcome = run(
        &orchestrator,
        json!([
            {"id": "toolu_ok", "name": "Sleep", "input": {"ms": 1, "tag": "x"}},
            {"id": "toolu_bad", "name": "Sleep", "input": {"ms": "soon", "tag": "x"}},
            {"id": "toolu_none", "name": "Nope", "input": {}},
        ]),
    );
    assert_eq!(ids(&outcome), ["toolu_ok", "toolu_bad", "toolu_none"]);
    // Invalid input and unknown tools are answered before the layers.
    assert_eq!(
        *seen.lock().unwrap(),
        [r#"Sleep toolu_ok read_only=Always server=None input={"ms":1,"tag":"x"}"#]
    );
}

#[test]
fn a_layers_answer_is_always_for_the_call_it_was_given() {
    let orchestrator =
        Orchestrator::new(&all_tools(), OrchestratorConfig::default()).layer(Misbehave {
            tool: "Sleep",
            how: "wrong-id",
        });
    let outcome = run(
        &orchestrator,
        json!([
            {"id": "toolu_a", "name": "Sleep", "input": {"ms": 1, "tag": "a"}},
            {"id": "toolu_b", "name": "Bash", "input": {"command": "b"}},
        ]),
    );
    assert_eq!(ids(&outcome), ["toolu_a", "toolu_b"]);
    assert_eq!(texts(&outcome)[0], "cached");
}
