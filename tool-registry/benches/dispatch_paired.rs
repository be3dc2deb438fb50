//! Dispatch against a hand-written registry as a paired measurement: `dispatch/{sdk,hand}/N`
//! measures each side seconds apart, and on a small shared VM the machine's speed moves by
//! ±30% over that time. Here the sides take turns in rounds of 2,000 calls each (301 rounds,
//! the order rotated each round), every round gives one SDK / hand-written ratio, and the
//! median ratio is reported with its middle half. Same tool, same pools, same hand-written map
//! as `dispatch` (std `HashMap`, SipHash), and the same map with foldhash, the hasher of the
//! SDK's own index.
//!
//! The same for `run_tool_use` against a direct call, reported as the extra time per call.
//!
//! Run: `cargo bench -p tool-registry --bench dispatch_paired` (about 20 s). Under
//! `cargo test --benches` it runs three short rounds as a smoke test.

use std::hint::black_box;

use serde_json::json;
use tool_registry::{Orchestrator, OrchestratorConfig};

#[path = "dispatch_support/mod.rs"]
#[allow(dead_code)] // each bench uses part of it
mod dispatch_support;
use dispatch_support::{
    RunToolUse, hand_dispatch, hand_registry, hand_registry_with, pool, quantile, sdk_dispatch,
    time_per_call,
};

fn main() {
    let measuring = std::env::args().any(|arg| arg == "--bench");
    let (rounds, calls) = if measuring { (301, 2_000) } else { (3, 10) };
    println!(
        "dispatch/paired: lookup + parse + call of a no-op, SDK (`find_tool` + `DynTool::dispatch`) \
         against a hand-written map; {rounds} alternating rounds of {calls} calls"
    );
    let input = json!({"text": "hello"});
    for size in [1_usize, 100, 10_000] {
        let orchestrator = Orchestrator::new(&pool(size), OrchestratorConfig::default());
        let hand = hand_registry(size);
        let hand_fold = hand_registry_with::<foldhash::fast::RandomState>(size);
        let mut sdk = || {
            black_box(sdk_dispatch(&orchestrator, &input));
        };
        let mut hand = || {
            black_box(hand_dispatch(&hand, &input));
        };
        let mut hand_fold = || {
            black_box(hand_dispatch(&hand_fold, &input));
        };
        time_per_call(calls * 10, &mut sdk);
        time_per_call(calls * 10, &mut hand);
        time_per_call(calls * 10, &mut hand_fold);
        let mut sdk_ns = Vec::new();
        let (mut hand_ns, mut ratios) = (Vec::new(), Vec::new());
        let (mut fold_ns, mut fold_ratios) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            // The three sides in a rotating order, so none is always first or last.
            let mut times = [0.0; 3];
            for step in 0..3 {
                let side = (usize::try_from(round).unwrap() + step) % 3;
                times[side] = match side {
                    0 => time_per_call(calls, &mut sdk),
                    1 => time_per_call(calls, &mut hand),
                    _ => time_per_call(calls, &mut hand_fold),
                };
            }
            let [s, h, f] = times;
            sdk_ns.push(s);
            hand_ns.push(h);
            fold_ns.push(f);
            ratios.push(s / h);
            fold_ratios.push(s / f);
        }
        println!(
            "dispatch/paired/{size:<6} sdk {:>4.0} ns  hand {:>4.0} ns  ratio {:.2}x \
             (middle half {:.2}x to {:.2}x)",
            quantile(&mut sdk_ns, 0.5),
            quantile(&mut hand_ns, 0.5),
            quantile(&mut ratios, 0.5),
            quantile(&mut ratios, 0.25),
            quantile(&mut ratios, 0.75),
        );
        println!(
            "dispatch/paired/{size:<6}  with foldhash in the hand-written map too: hand {:>4.0} ns  \
             ratio {:.2}x (middle half {:.2}x to {:.2}x)",
            quantile(&mut fold_ns, 0.5),
            quantile(&mut fold_ratios, 0.5),
            quantile(&mut fold_ratios, 0.25),
            quantile(&mut fold_ratios, 0.75),
        );
    }
    run_tool_use_overhead(rounds, calls);
}

/// The whole SPEC §5.4 pipeline (`Orchestrator::run_tool_use`, pool of 100) against parsing
/// the input with serde and calling the tool's function directly, both inside `block_on` on a
/// current-thread runtime; reported as the extra time per call.
fn run_tool_use_overhead(rounds: u32, calls: u32) {
    let fixture = RunToolUse::new();
    let mut sdk = || {
        black_box(fixture.sdk());
    };
    let mut direct = || {
        black_box(fixture.direct());
    };
    time_per_call(calls * 10, &mut sdk);
    time_per_call(calls * 10, &mut direct);
    let (mut sdk_ns, mut direct_ns, mut extra) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (s, d) = if round % 2 == 0 {
            let s = time_per_call(calls, &mut sdk);
            (s, time_per_call(calls, &mut direct))
        } else {
            let d = time_per_call(calls, &mut direct);
            (time_per_call(calls, &mut sdk), d)
        };
        sdk_ns.push(s);
        direct_ns.push(d);
        extra.push(s - d);
    }
    println!(
        "run_tool_use/paired      sdk {:>4.0} ns  direct {:>4.0} ns  extra per call {:.0} ns \
         (middle half {:.0} to {:.0} ns)",
        quantile(&mut sdk_ns, 0.5),
        quantile(&mut direct_ns, 0.5),
        quantile(&mut extra, 0.5),
        quantile(&mut extra, 0.25),
        quantile(&mut extra, 0.75),
    );
}
