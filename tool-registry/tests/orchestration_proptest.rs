//! Random batches of safe, unsafe, failing, panicking, slow, unknown and invalid calls with
//! random cancellation points: every `tool_use` id gets exactly one result, results come back
//! in block order, batches follow SPEC §5.1 and context modifiers SPEC §5.2.

mod common;

use std::time::Duration;

use common::Log;
use futures::StreamExt as _;
use proptest::prelude::*;
use serde_json::json;
use tool_registry::orchestration::Batch;
use tool_registry::orchestration::ToolUseUpdate;
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_id_is_answered_once_in_order(
        kinds in prop::collection::vec(kind(), 1..12),
        stop in stop(),
        cap in 1usize..4,
    ) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let blocks: Vec<ToolUseBlock> =
            kinds.iter().enumerate().map(|(i, k)| to_block(i, k)).collect();
        let config = OrchestratorConfig { max_concurrency: cap, ..OrchestratorConfig::default() };
        let orchestrator = Orchestrator::new(&[dyn_tool::<Op>()], config);

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
                    Kind::Op { fail, panic, .. } => *fail || *panic,
                    _ => true,
                };
                prop_assert_eq!(result.is_error, should_fail, "{}", result.text());
            }
        }
    }
}
