//! Load through the orchestrator, with memory measured by a counting global allocator
//! (`stats_alloc`, this test binary only): 10,000 calls in one turn, then 1,000 turns in a row
//! through one orchestrator. Every call is answered once, in order, and the bytes still
//! allocated after the last turn are within a small bound of those after the warm-up turns
//! (no growth per turn), and back near the start after the large turn.
//!
//! The long variant (100,000 calls in one turn, 20,000 turns) is ignored by default:
//! `cargo test --release -p tool-registry --test load -- --ignored --nocapture`.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::json;
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::prelude::*;
use tool_sdk::{DynTool, ToolUseBlock, dyn_tool};

#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// The two tests share the allocator's counters: never at the same time.
static ALONE: Mutex<()> = Mutex::new(());

/// Bytes allocated and not yet freed, by the whole process (`stats_alloc` already counts a
/// reallocation's growth or shrinking in these two totals).
fn live_bytes() -> i64 {
    let stats = INSTRUMENTED_SYSTEM.stats();
    let allocated = i64::try_from(stats.bytes_allocated).unwrap();
    let freed = i64::try_from(stats.bytes_deallocated).unwrap();
    allocated - freed
}

/// Answers `n` (or fails when `fail`), leaving a context modifier behind.
#[tool(name = "Count", max_result_size_chars = 1_000, concurrency_safe = Self::safe)]
#[derive(Debug, Deserialize, JsonSchema)]
struct Count {
    /// The number to answer.
    n: u64,
    /// Runs alongside other safe calls.
    safe: bool,
    /// Fail instead.
    #[serde(default)]
    fail: bool,
}

impl Count {
    fn safe(&self) -> bool {
        self.safe
    }
}

/// How many calls succeeded so far in this turn's state.
#[derive(Clone, Default)]
struct Tally(u64);

#[tool]
impl Tool for Count {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        tokio::task::yield_now().await;
        if self.fail {
            return Err(ToolError::new(format!("{} failed", self.n)));
        }
        Ok(
            ToolResult::new(self.n.to_string()).with_context_modifier(|ext| {
                let tally = ext.get::<Tally>().cloned().unwrap_or_default();
                ext.insert(Tally(tally.0 + 1));
            }),
        )
    }
}

/// `calls` blocks: mostly safe, every 97th unsafe, every 89th failing, every 211th unknown.
fn turn_blocks(turn: usize, calls: usize) -> Vec<ToolUseBlock> {
    (0..calls)
        .map(|i| {
            let name = if i % 211 == 210 { "Gone" } else { "Count" };
            ToolUseBlock {
                id: format!("toolu_{turn}_{i}"),
                name: name.to_owned(),
                input: json!({"n": i, "safe": i % 97 != 96, "fail": i % 89 == 88}),
            }
        })
        .collect()
}

/// Runs one turn of `calls` calls and checks every result; returns the successes.
async fn run_turn(orchestrator: &Orchestrator, turn: usize, calls: usize) -> u64 {
    let blocks = turn_blocks(turn, calls);
    let outcome = orchestrator
        .run_tools(blocks.clone(), TurnState::default())
        .collect_results()
        .await;
    assert_eq!(outcome.results.len(), calls, "turn {turn}");
    let mut successes = 0;
    for (i, (result, block)) in outcome.results.iter().zip(&blocks).enumerate() {
        assert_eq!(result.tool_use_id, block.id, "turn {turn}");
        let text = result.text();
        if block.name == "Gone" || block.input["fail"] == true {
            assert!(result.is_error, "turn {turn} call {i}: {text}");
        } else {
            assert_eq!(text, i.to_string(), "turn {turn}");
            successes += 1;
        }
    }
    assert_eq!(
        outcome.extensions.get::<Tally>().map(|t| t.0),
        Some(successes)
    );
    successes
}

/// The figures one run measured.
#[derive(Debug)]
struct Figures {
    big_turn_ms: u128,
    turns_ms: u128,
    after_big_turn: i64,
    growth_over_turns: i64,
}

fn load(calls_in_one_turn: usize, turns: usize, calls_per_turn: usize) -> Figures {
    let _alone = ALONE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let pool: Vec<Arc<dyn DynTool>> = vec![dyn_tool::<Count>()];
    let orchestrator = Orchestrator::new(&pool, OrchestratorConfig::default());
    runtime.block_on(async {
        // Warm up: the runtime's and the orchestrator's first allocations.
        for turn in 0..20 {
            run_turn(&orchestrator, turn, calls_per_turn).await;
        }
        let start = live_bytes();
        let began = Instant::now();
        run_turn(&orchestrator, 1_000_000, calls_in_one_turn).await;
        let big_turn_ms = began.elapsed().as_millis();
        let after_big_turn = live_bytes() - start;

        for turn in 0..turns / 10 {
            run_turn(&orchestrator, turn, calls_per_turn).await;
        }
        let warmed = live_bytes();
        let began = Instant::now();
        for turn in turns / 10..turns {
            run_turn(&orchestrator, turn, calls_per_turn).await;
        }
        let turns_ms = began.elapsed().as_millis();
        Figures {
            big_turn_ms,
            turns_ms,
            after_big_turn,
            growth_over_turns: live_bytes() - warmed,
        }
    })
}

/// Bytes the runtime may keep between measurements (a grown queue or cache), whatever the
/// number of turns; a leak of 40 bytes per turn over the 900 measured turns fails it (a
/// forgotten 64-byte buffer per turn was measured at 50,808 bytes), and so does keeping 4
/// bytes per call of the large turn.
const SLACK: i64 = 32 * 1024;

fn check(figures: &Figures, calls_in_one_turn: usize, turns: usize) {
    println!(
        "{calls_in_one_turn} calls in one turn: {} ms, {} bytes still allocated after it; \
         {turns} turns: {} ms, {} bytes of growth over the last 90%",
        figures.big_turn_ms, figures.after_big_turn, figures.turns_ms, figures.growth_over_turns
    );
    assert!(
        figures.after_big_turn < SLACK,
        "{} bytes kept after the large turn",
        figures.after_big_turn
    );
    assert!(
        figures.growth_over_turns < SLACK,
        "{} bytes of growth over {turns} turns",
        figures.growth_over_turns
    );
}

#[test]
fn ten_thousand_calls_in_one_turn_and_a_thousand_turns_keep_memory_flat() {
    let figures = load(10_000, 1_000, 4);
    check(&figures, 10_000, 1_000);
}

#[test]
#[ignore = "long: 100,000 calls in one turn and 20,000 turns (run with --release)"]
fn a_hundred_thousand_calls_and_twenty_thousand_turns_keep_memory_flat() {
    let figures = load(100_000, 20_000, 10);
    check(&figures, 100_000, 20_000);
}
