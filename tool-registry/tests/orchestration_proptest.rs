//! Random batches of safe, unsafe, failing, panicking, slow, unknown and invalid calls with
//! random cancellation points, through a random stack of middleware layers (the shipped
//! `Log`, `Timeout` and `ConcurrencyLimit`, a delaying layer, and one that fails or panics on
//! the calls of 3 ms): every `tool_use` id gets exactly one result, results come back in block
//! order, batches follow SPEC §5.1 and context modifiers SPEC §5.2.

mod common;

use std::time::Duration;

use common::Log;
use futures::StreamExt as _;
use proptest::prelude::*;
use serde_json::json;
use tool_registry::orchestration::Batch;
use tool_registry::orchestration::CallOutcome;
use tool_registry::orchestration::ToolUseUpdate;
use tool_registry::orchestration::middleware::{
    ConcurrencyLimit, Log as LogLayer, Timeout, ToolRequest, ToolService,
};
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::prelude::*;
use tool_sdk::{ToolUseBlock, dyn_tool};

/// Sleeps, then answers with the log it saw and appends its id through a modifier.
#[tool(name = "Op", max_result_size_chars = 10_000, concurrency_safe = Self::safe)]
#[derive(Deserialize, JsonSchema)]
struct Op {
    /// Runs alongside other safe calls.
    safe: bool,
    /// Milliseconds to sleep.
    ms: u64,
    /// Return an error.
    fail: bool,
    /// Panic instead.
    panic: bool,
}

impl Op {
    fn safe(&self) -> bool {
        self.safe
    }
}

#[tool]
impl Tool for Op {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let seen = ctx.get::<Log>().cloned().unwrap_or_default().0.join(",");
        tokio::time::sleep(Duration::from_millis(self.ms)).await;
        assert!(!self.panic, "op panicked");
        if self.fail {
            return Err(ToolError::new("op failed"));
        }
        let id = ctx.tool_use_id().to_owned();
        Ok(
            ToolResult::new(format!("seen [{seen}]")).with_context_modifier(move |ext| {
                let mut log = ext.get::<Log>().cloned().unwrap_or_default();
                log.0.push(id);
                ext.insert(log);
            }),
        )
    }
}

#[derive(Debug, Clone)]
enum Kind {
    Op {
        safe: bool,
        ms: u64,
        fail: bool,
        panic: bool,
    },
    Unknown,
    Invalid,
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        6 => (any::<bool>(), 0u64..4, prop::bool::weighted(0.15), prop::bool::weighted(0.1))
            .prop_map(|(safe, ms, fail, panic)| Kind::Op { safe, ms, fail, panic }),
        1 => Just(Kind::Unknown),
        1 => Just(Kind::Invalid),
    ]
}

fn to_block(index: usize, kind: &Kind) -> ToolUseBlock {
    let (name, input) = match kind {
        Kind::Op {
            safe,
            ms,
            fail,
            panic,
        } => (
            "Op",
            json!({"safe": safe, "ms": ms, "fail": fail, "panic": panic}),
        ),
        Kind::Unknown => ("Gone", json!({})),
        Kind::Invalid => ("Op", json!({"safe": "yes"})),
    };
    ToolUseBlock {
        id: format!("t{index}"),
        name: name.into(),
        input,
    }
}

/// SPEC §5.1 by hand: the batch number of every block.
fn expected_batches(kinds: &[Kind]) -> Vec<usize> {
    let mut numbers = Vec::new();
    let mut batch = 0;
    let mut last_safe = false;
    for (index, kind) in kinds.iter().enumerate() {
        let safe = matches!(kind, Kind::Op { safe: true, .. });
        if index == 0 || !(safe && last_safe) {
            batch += 1;
        }
        numbers.push(batch);
        last_safe = safe;
    }
    numbers
}

#[derive(Debug, Clone, Copy)]
enum Stop {
    Never,
    Abort(u64),
    Interrupt(u64),
}

fn stop() -> impl Strategy<Value = Stop> {
    prop_oneof![
        2 => Just(Stop::Never),
        1 => (0u64..8).prop_map(Stop::Abort),
        1 => (0u64..8).prop_map(Stop::Interrupt),
    ]
}

/// A layer of the random stack.
#[derive(Debug, Clone, Copy)]
enum Layer {
    Log,
    /// A limit far above any call here: it never fires.
    Timeout,
    Limit(usize),
    Delay(u64),
    /// Fails (`false`) or panics (`true`) on every call of 3 ms, passes the others on.
    Chaos(bool),
}

fn layer() -> impl Strategy<Value = Layer> {
    prop_oneof![
        Just(Layer::Log),
        Just(Layer::Timeout),
        (1usize..3).prop_map(Layer::Limit),
        (0u64..3).prop_map(Layer::Delay),
        any::<bool>().prop_map(Layer::Chaos),
    ]
}

/// The service of the delaying and chaotic layers.
#[derive(Clone)]
struct Odd {
    how: Layer,
    inner: ToolService,
}

impl tower::Layer<ToolService> for Layer {
    type Service = Odd;
    fn layer(&self, inner: ToolService) -> Odd {
        Odd { how: *self, inner }
    }
}

impl tower::Service<ToolRequest> for Odd {
    type Response = CallOutcome;
    type Error = tower::BoxError;
    type Future = futures::future::BoxFuture<'static, Result<CallOutcome, tower::BoxError>>;
    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }
    fn call(&mut self, request: ToolRequest) -> Self::Future {
        use tower::ServiceExt as _;
        let inner = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, inner);
        let slow = request.input()["ms"] == 3;
        match self.how {
            Layer::Chaos(false) if slow => Box::pin(async { Err("chaos".into()) }),
            Layer::Chaos(true) if slow => panic!("chaos"),
            Layer::Delay(ms) => Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                inner.oneshot(request).await
            }),
            _ => Box::pin(inner.oneshot(request)),
        }
    }
}

fn with_layers(mut orchestrator: Orchestrator, layers: &[Layer]) -> Orchestrator {
    for layer in layers {
        orchestrator = match *layer {
            Layer::Log => orchestrator.layer(LogLayer::new()),
            Layer::Timeout => orchestrator.layer(Timeout::new(Duration::from_secs(60))),
            Layer::Limit(max) => orchestrator.layer(ConcurrencyLimit::per_tool(max)),
            odd => orchestrator.layer(odd),
        };
    }
    orchestrator
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_id_is_answered_once_in_order(
        kinds in prop::collection::vec(kind(), 1..12),
        stop in stop(),
        cap in 1usize..4,
        layers in prop::collection::vec(layer(), 0..4),
    ) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let blocks: Vec<ToolUseBlock> =
            kinds.iter().enumerate().map(|(i, k)| to_block(i, k)).collect();
        let config = OrchestratorConfig { max_concurrency: cap, ..OrchestratorConfig::default() };
        let orchestrator = with_layers(Orchestrator::new(&[dyn_tool::<Op>()], config), &layers);
        let chaos = layers.iter().any(|layer| matches!(layer, Layer::Chaos(_)));

        // Batches as SPEC §5.1.
        let plan = Batch::describe_all(&orchestrator.partition(&blocks));
        let numbers = expected_batches(&kinds);
        let mut expected_plan = String::new();
        for batch in 1..=numbers.last().copied().unwrap_or(0) {
            let members: Vec<usize> = (0..kinds.len()).filter(|&i| numbers[i] == batch).collect();
            let mode = if members.len() > 1 || matches!(kinds[members[0]], Kind::Op { safe: true, .. }) {
                "concurrent"
            } else {
                "serial"
            };
            let calls: Vec<String> =
                members.iter().map(|&i| format!("{} t{i}", blocks[i].name)).collect();
            expected_plan.push_str(&format!("batch {batch}: {mode} [{}]\n", calls.join(", ")));
        }
        prop_assert_eq!(plan, expected_plan);

        let (updates, final_log) = runtime.block_on(async {
            let turn = TurnState::default();
            let (abort, interrupt) = (turn.abort.clone(), turn.interrupt.clone());
            let mut stream = orchestrator.run_tools(blocks.clone(), turn);
            let stopper = tokio::spawn(async move {
                match stop {
                    Stop::Never => {}
                    Stop::Abort(ms) => {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        abort.cancel();
                    }
                    Stop::Interrupt(ms) => {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        interrupt.cancel();
                    }
                }
            });
            let mut results = Vec::new();
            let mut log = Vec::new();
            while let Some(update) = stream.next().await {
                match update {
                    ToolUseUpdate::Result { index, result, .. } => results.push((index, result)),
                    ToolUseUpdate::ContextChanged(ext) => {
                        log = ext.get::<Log>().cloned().unwrap_or_default().0;
                    }
                    ToolUseUpdate::Progress(_) => {}
                }
            }
            stopper.abort();
            (results, log)
        });

        // Exactly one result per block, for the right id.
        let mut indexes: Vec<usize> = updates.iter().map(|(i, _)| *i).collect();
        indexes.sort_unstable();
        prop_assert_eq!(indexes, (0..blocks.len()).collect::<Vec<_>>());
        let mut ordered: Vec<_> = updates.clone();
        ordered.sort_by_key(|(i, _)| *i);
        for (index, result) in &ordered {
            prop_assert_eq!(&result.tool_use_id, &blocks[*index].id);
        }

        // Modifiers: applied in block order, exactly for the successes.
        let successes: Vec<usize> =
            ordered.iter().filter(|(_, r)| !r.is_error).map(|(i, _)| *i).collect();
        let expected_log: Vec<String> = successes.iter().map(|i| format!("t{i}")).collect();
        prop_assert_eq!(&final_log, &expected_log);
        // Each success saw the successes of every earlier batch, and nothing of its own batch.
        for &i in &successes {
            let seen: Vec<String> = successes
                .iter()
                .filter(|&&j| numbers[j] < numbers[i])
                .map(|j| format!("t{j}"))
                .collect();
            prop_assert_eq!(ordered[i].1.text(), format!("seen [{}]", seen.join(",")));
        }
        // Without a stop, failures are exactly the failing, panicking, unknown and invalid calls.
        if matches!(stop, Stop::Never) {
            for (index, result) in &ordered {
                let should_fail = match &kinds[*index] {
                    Kind::Op { fail, panic, ms, .. } => *fail || *panic || (chaos && *ms == 3),
                    _ => true,
                };
                prop_assert_eq!(result.is_error, should_fail, "{}", result.text());
            }
        }
    }
}
