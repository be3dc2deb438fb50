//! Dispatch and orchestration overhead (SPEC §5):
//! - `dispatch/{sdk,hand}/N`: name lookup + argument parse + call of a no-op tool in a pool of
//!   N tools, through [`Orchestrator::find_tool`] + `DynTool::dispatch` (schema check + serde +
//!   `validate_input` + `call`) with a fresh `ToolUseContext`, against a hand-written
//!   `HashMap<String, handler>` whose handler does `serde_json::from_value` into the same struct
//!   and calls it. Both sides clone the same input `Value` per call (the SDK takes it by
//!   value), and both futures are polled once with `now_or_never` (no runtime entry).
//!   `dispatch/sdk_two_step/N` is the same through `DynTool::parse_input` + `ToolCall::call`,
//!   which boxes the parsed call too, as the orchestrator does;
//! - `run_tool_use/{sdk,direct}`: the full per-call pipeline against parsing the input with
//!   serde and calling the tool's function directly;
//! - `sleeps/1000x1ms_cap10{,_precise}{,_hand}`: 1,000 concurrency-safe calls of a 1 ms sleep
//!   with cap 10 (ideal: 100 ms), through the orchestrator and through a hand-written
//!   semaphore; the sleep is tokio's timer (rounds 1 ms up to about 2 ms) or, in `_precise`,
//!   an accurate 1 ms wait ([`precise_sleep`]).
//!
//! Run: `cargo bench -p tool-registry --bench dispatch -- --warm-up-time 1 --measurement-time 3`.
//! The sub-µs dispatch figures move by up to ±30% between benchmarks on a small shared VM, so
//! the two sides are seconds apart here; `benches/dispatch_paired.rs` gives the ratio from
//! alternating rounds of both.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use futures::FutureExt;
use serde_json::json;
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::prelude::*;

#[path = "dispatch_support/mod.rs"]
mod dispatch_support;
use dispatch_support::{RunToolUse, hand_dispatch, hand_registry, pool, sdk_dispatch};
use tool_sdk::{ToolOutput, ToolUseBlock, dyn_tool};

/// Sleeps 1 ms.
#[tool(
    name = "Nap",
    read_only,
    concurrency_safe,
    max_result_size_chars = 1_000
)]
#[derive(Deserialize, JsonSchema)]
struct Nap {}

#[tool]
impl Tool for Nap {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        tokio::time::sleep(Duration::from_millis(1)).await;
        Ok(ToolResult::new("ok".to_owned()))
    }
}

/// Waits 1 ms accurately (see [`precise_sleep`]), not on tokio's 1 ms-granular timer.
#[tool(
    name = "PreciseNap",
    read_only,
    concurrency_safe,
    max_result_size_chars = 1_000
)]
#[derive(Deserialize, JsonSchema)]
struct PreciseNap {}

#[tool]
impl Tool for PreciseNap {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        precise_sleep().await;
        Ok(ToolResult::new("ok".to_owned()))
    }
}

/// Waits until 1 ms from now, to within a few µs: `async-io`'s timer (sub-ms deadlines) until
/// 150 µs before the deadline, then `yield_now` until it passes, the way precise sleeps work
/// around timer slack and wake-up latency (tens of µs per wake on this 2-core machine, which
/// over 100 back-to-back sleeps per slot would stand in for the orchestrator's own cost).
async fn precise_sleep() {
    let deadline = Instant::now() + Duration::from_millis(1);
    async_io::Timer::at(deadline - Duration::from_micros(150)).await;
    while Instant::now() < deadline {
        tokio::task::yield_now().await;
    }
}

fn dispatch(c: &mut Criterion) {
    let input = json!({"text": "hello"});
    let mut group = c.benchmark_group("dispatch");
    for size in [1usize, 100, 10_000] {
        let orchestrator = Orchestrator::new(&pool(size), OrchestratorConfig::default());
        group.bench_with_input(BenchmarkId::new("sdk", size), &size, |b, _| {
            b.iter(|| black_box(sdk_dispatch(&orchestrator, &input)));
        });
        group.bench_with_input(BenchmarkId::new("sdk_two_step", size), &size, |b, _| {
            b.iter(|| {
                let tool = orchestrator.find_tool(black_box("Noop")).unwrap();
                let call = tool.parse_input(&input).unwrap();
                let output: ToolOutput = call
                    .call(&ToolUseContext::detached(black_box("toolu_1")))
                    .now_or_never()
                    .expect("the no-op finishes at once")
                    .unwrap();
                black_box(output)
            });
        });
        let hand = hand_registry(size);
        group.bench_with_input(BenchmarkId::new("hand", size), &size, |b, _| {
            b.iter(|| black_box(hand_dispatch(&hand, &input)));
        });
    }
    group.finish();
}

fn run_tool_use(c: &mut Criterion) {
    let fixture = RunToolUse::new();
    let mut group = c.benchmark_group("run_tool_use");
    group.bench_function("sdk", |b| b.iter(|| black_box(fixture.sdk())));
    group.bench_function("direct", |b| b.iter(|| black_box(fixture.direct())));
    group.finish();
}

fn sleeps(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let config = OrchestratorConfig {
        max_concurrency: 10,
        ..OrchestratorConfig::default()
    };
    let orchestrator = Orchestrator::new(&[dyn_tool::<Nap>(), dyn_tool::<PreciseNap>()], config);
    let blocks = |name: &str| -> Vec<ToolUseBlock> {
        (0..1_000)
            .map(|i| ToolUseBlock {
                id: format!("toolu_{i}"),
                name: name.into(),
                input: json!({}),
            })
            .collect()
    };
    let mut group = c.benchmark_group("sleeps");
    group.sample_size(10);
    // Two ways to wait 1 ms: tokio's timer, which rounds a 1 ms sleep up to about 2 ms, and an
    // accurate wait. Each is run through the orchestrator and through a hand-written semaphore
    // with one task per call.
    for (tool, suffix) in [("Nap", ""), ("PreciseNap", "_precise")] {
        let blocks = blocks(tool);
        group.bench_function(format!("1000x1ms_cap10{suffix}"), |b| {
            b.iter(|| {
                runtime.block_on(async {
                    let turn = orchestrator
                        .run_tools(blocks.clone(), TurnState::default())
                        .collect_results()
                        .await;
                    assert_eq!(turn.results.len(), 1_000);
                    black_box(turn)
                })
            });
        });
        let precise = tool == "PreciseNap";
        group.bench_function(format!("1000x1ms_cap10{suffix}_hand"), |b| {
            b.iter(|| {
                runtime.block_on(async {
                    let permits = Arc::new(tokio::sync::Semaphore::new(10));
                    let tasks: Vec<_> = (0..1_000)
                        .map(|_| {
                            let permits = Arc::clone(&permits);
                            tokio::spawn(async move {
                                let _permit = permits.acquire().await.unwrap();
                                if precise {
                                    precise_sleep().await;
                                } else {
                                    tokio::time::sleep(Duration::from_millis(1)).await;
                                }
                            })
                        })
                        .collect();
                    for task in tasks {
                        task.await.unwrap();
                    }
                })
            });
        });
    }
    group.finish();
}

criterion_group!(benches, dispatch, run_tool_use, sleeps);
criterion_main!(benches);
