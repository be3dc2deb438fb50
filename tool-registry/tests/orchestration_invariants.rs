//! The orchestrator's invariants (SPEC §5, §9) as properties over random turns: calls that
//! are concurrency-safe or not, slow, failing, hanging, or panicking in any hook (the safety
//! predicate, `validate_input`, `check_permissions`, `interrupt_behavior`, the observable-input
//! backfill, `call`, the context modifier, either observer); observers that stop a call or
//! rewrite its input; calls denied by a rule or by the tool; results large enough to be
//! persisted and a per-message budget; a stop at a random point (abort, interrupt, dropping
//! the stream); both the batch runner and the streaming executor. Whatever happens:
//! - every `tool_use` id gets exactly one `tool_result`, collected in block order;
//! - no result text is empty;
//! - no call is still running once the stream has ended (a drop guard inside every call and
//!   observer counts them), and none shortly after a dropped stream;
//! - every file in the result directory is complete (exactly the output it saved), and every
//!   `<persisted-output>` block points at such a file;
//! - after collection, the results the budget may touch fit in it.
//!
//! `TOOL_SDK_PROPTEST_CASES=N` runs N cases instead of the default 40.

mod invariants_support;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt as _;
use invariants_support::{Chaos, ChaosObserver, Live, Locked, quiet_panics};
use proptest::prelude::*;
use serde_json::{Value, json};
use tool_registry::orchestration::ToolUseUpdate;
use tool_registry::permissions::{
    AliasTable, PermissionBehavior, PermissionMode, PermissionRuleSource,
};
use tool_registry::{Orchestrator, OrchestratorConfig, ToolPermissionContext, TurnState};
use tool_sdk::{DynTool, ToolResultBlock, ToolUseBlock, dyn_tool};

#[derive(Debug, Clone)]
enum Call {
    Chaos(Value),
    Locked,
    Unknown,
    Invalid,
}

#[derive(Debug, Clone, Copy)]
enum Stop {
    Never,
    Abort(u64),
    Interrupt(u64),
    /// Drop the stream after this many updates (or 30 ms without one).
    Drop(usize),
}

#[derive(Debug, Clone, Copy)]
enum Runner {
    Batches,
    Streaming,
}

#[derive(Debug, Clone, Copy)]
enum Reading {
    /// `next()` until the end.
    Updates,
    /// `collect_results()` (the budget applies).
    Collect,
}

fn hook() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        20 => Just(""),
        1 => Just("safe"),
        1 => Just("validate"),
        1 => Just("permissions"),
        1 => Just("interrupt"),
        1 => Just("backfill"),
        1 => Just("call"),
        1 => Just("modifier"),
    ]
}

fn pre() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        12 => Just(""),
        1 => Just("stop"),
        1 => Just("rewrite"),
        1 => Just("rewrite-bad"),
        1 => Just("panic"),
    ]
}

fn chaos() -> impl Strategy<Value = Value> {
    (
        (
            any::<bool>(),
            0u64..6,
            any::<bool>(),
            prop::bool::weighted(0.08),
        ),
        (
            prop::bool::weighted(0.1),
            prop::bool::weighted(0.08),
            any::<bool>(),
        ),
        (hook(), pre(), prop::bool::weighted(0.05)),
        prop_oneof![3 => 1usize..400, 1 => 900usize..2_500, 1 => Just(0usize)],
    )
        .prop_map(
            |(
                (safe, ms, watch_abort, hang),
                (fail, deny, cancel),
                (panic_at, pre, post_panic),
                size,
            )| {
                json!({
                    "safe": safe, "ms": ms, "watch_abort": watch_abort, "hang": hang,
                    "fail": fail, "deny": deny, "cancel": cancel, "panic_at": panic_at,
                    "pre": pre, "post_panic": post_panic, "size": size,
                })
            },
        )
}

fn call() -> impl Strategy<Value = Call> {
    prop_oneof![
        12 => chaos().prop_map(Call::Chaos),
        1 => Just(Call::Locked),
        1 => Just(Call::Unknown),
        1 => Just(Call::Invalid),
    ]
}

fn stop() -> impl Strategy<Value = Stop> {
    prop_oneof![
        3 => Just(Stop::Never),
        2 => (0u64..10).prop_map(Stop::Abort),
        2 => (0u64..10).prop_map(Stop::Interrupt),
        1 => (0usize..6).prop_map(Stop::Drop),
    ]
}

/// Makes the turn finish: a call that never returns needs an abort or a dropped stream to end
/// (an interrupt ends only calls that accept it), so without one it is made to return.
fn ending(mut calls: Vec<Call>, stop: Stop) -> Vec<Call> {
    if !matches!(stop, Stop::Abort(_) | Stop::Drop(_)) {
        for call in &mut calls {
            if let Call::Chaos(input) = call {
                input["hang"] = json!(false);
            }
        }
    }
    calls
}

fn to_block(index: usize, call: &Call) -> ToolUseBlock {
    let (name, input) = match call {
        Call::Chaos(input) => ("Chaos", input.clone()),
        Call::Locked => ("Locked", json!({})),
        Call::Unknown => ("Gone", json!({})),
        Call::Invalid => ("Chaos", json!({"safe": 3})),
    };
    ToolUseBlock {
        id: format!("toolu_{index:02}"),
        name: name.into(),
        input,
    }
}

fn cases() -> u32 {
    std::env::var("TOOL_SDK_PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(40)
}

struct Turn {
    blocks: Vec<ToolUseBlock>,
    stop: Stop,
    runner: Runner,
    reading: Reading,
    budget: usize,
}

/// What a turn produced: results by index in the order they came, and whether the stream was
/// read to its end.
struct Ran {
    results: Vec<(usize, ToolResultBlock)>,
    drained: bool,
    /// Read by `collect_results` (so in block order, with the budget applied).
    collected: bool,
}

async fn run(turn: &Turn, orchestrator: &Orchestrator, live: &Live) -> Ran {
    let mut state = TurnState::default();
    state.extensions.insert(live.clone());
    let (abort, interrupt) = (state.abort.clone(), state.interrupt.clone());
    let stop = turn.stop;
    let stopper = tokio::spawn(async move {
        match stop {
            Stop::Abort(ms) => {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                abort.cancel();
            }
            Stop::Interrupt(ms) => {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                interrupt.cancel();
            }
            Stop::Never | Stop::Drop(_) => {}
        }
    });
    let mut stream = match turn.runner {
        Runner::Batches => orchestrator.run_tools(turn.blocks.clone(), state),
        Runner::Streaming => {
            let mut executor = orchestrator.streaming(state);
            for block in &turn.blocks {
                executor.add_tool(block.clone());
                tokio::task::yield_now().await;
            }
            executor.finish();
            // The executor's stream carries every added block.
            return read(executor.updates(), turn, stopper).await;
        }
    };
    read(&mut stream, turn, stopper).await
}

async fn read(
    stream: &mut tool_registry::orchestration::ToolUseStream,
    turn: &Turn,
    stopper: tokio::task::JoinHandle<()>,
) -> Ran {
    let mut results = Vec::new();
    let drained = match (turn.stop, turn.reading) {
        (Stop::Drop(after), _) => {
            let mut seen = 0;
            let mut drained = false;
            while seen < after {
                match tokio::time::timeout(Duration::from_millis(30), stream.next()).await {
                    Ok(Some(update)) => {
                        seen += 1;
                        if let ToolUseUpdate::Result { index, result, .. } = update {
                            results.push((index, result));
                        }
                    }
                    Ok(None) => {
                        drained = true;
                        break;
                    }
                    Err(_) => break,
                }
            }
            drained
        }
        (_, Reading::Updates) => {
            while let Some(update) = stream.next().await {
                if let ToolUseUpdate::Result { index, result, .. } = update {
                    results.push((index, result));
                }
            }
            true
        }
        (_, Reading::Collect) => {
            let taken = std::mem::replace(stream, empty_stream());
            let outcome = taken.collect_results().await;
            results = outcome.results.into_iter().enumerate().collect();
            true
        }
    };
    stopper.abort();
    let collected = matches!(turn.reading, Reading::Collect) && !matches!(turn.stop, Stop::Drop(_));
    Ran {
        results,
        drained,
        collected,
    }
}

/// A finished stream with no blocks, to take the place of one being collected.
fn empty_stream() -> tool_registry::orchestration::ToolUseStream {
    Orchestrator::new(&[], OrchestratorConfig::default())
        .run_tools(Vec::new(), TurnState::default())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_call_is_answered_once_and_nothing_outlives_the_turn(
        calls in prop::collection::vec(call(), 1..10),
        stop in stop(),
        streaming in any::<bool>(),
        collect in any::<bool>(),
        budget in 300usize..4_000,
        cap in 1usize..4,
    ) {
        quiet_panics();
        let calls = ending(calls, stop);
        let blocks: Vec<ToolUseBlock> =
            calls.iter().enumerate().map(|(i, c)| to_block(i, c)).collect();
        let turn = Turn {
            blocks,
            stop,
            runner: if streaming { Runner::Streaming } else { Runner::Batches },
            reading: if collect { Reading::Collect } else { Reading::Updates },
            budget,
        };
        let dir = tempfile::tempdir().unwrap();
        let live = Live::default();
        let pool: Vec<Arc<dyn DynTool>> = vec![dyn_tool::<Chaos>(), dyn_tool::<Locked>()];
        let config = OrchestratorConfig {
            max_concurrency: cap,
            message_budget_chars: Some(turn.budget),
            ..OrchestratorConfig::default().with_result_dir(dir.path())
        };
        let permissions = ToolPermissionContext::new(PermissionMode::Default).with_rule(
            PermissionRuleSource::UserSettings,
            PermissionBehavior::Deny,
            "Locked",
            &AliasTable::from_tools(&pool),
        );
        let orchestrator = Orchestrator::new(&pool, config)
            .with_permissions(permissions)
            .with_observer(Arc::new(ChaosObserver(live.clone())));

        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let started = Instant::now();
        let ran = runtime.block_on(async {
            let ran = tokio::time::timeout(Duration::from_secs(20), run(&turn, &orchestrator, &live))
                .await
                .expect("the turn ended");
            if !ran.drained {
                // The stream was dropped: its calls stop shortly (a call whose first poll was
                // under way stops at its first await). Wait for 50 ms with nothing running.
                let deadline = Instant::now() + Duration::from_secs(2);
                let mut quiet_since = Instant::now();
                while Instant::now() < deadline {
                    if live.count() != 0 {
                        quiet_since = Instant::now();
                    } else if quiet_since.elapsed() >= Duration::from_millis(50) {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            }
            ran
        });
        prop_assert_eq!(live.count(), 0, "work still running after the turn ({:?})", started.elapsed());
        drop(runtime);

        let n = turn.blocks.len();
        if ran.drained {
            // Exactly one result per id.
            let mut indexes: Vec<usize> = ran.results.iter().map(|(i, _)| *i).collect();
            indexes.sort_unstable();
            prop_assert_eq!(indexes, (0..n).collect::<Vec<_>>());
        } else {
            // Those that came before the drop: each at most once.
            let mut indexes: Vec<usize> = ran.results.iter().map(|(i, _)| *i).collect();
            indexes.sort_unstable();
            indexes.dedup();
            prop_assert_eq!(indexes.len(), ran.results.len());
        }
        for (index, result) in &ran.results {
            prop_assert_eq!(&result.tool_use_id, &turn.blocks[*index].id);
            prop_assert!(!result.text().trim().is_empty(), "empty result for {}", index);
        }
        if ran.collected {
            // Collected in block order.
            let order: Vec<usize> = ran.results.iter().map(|(i, _)| *i).collect();
            prop_assert_eq!(order, (0..n).collect::<Vec<_>>());
            // The budget left no more than it allows inline.
            let inline: usize = ran
                .results
                .iter()
                .filter(|(_, r)| !r.is_error && !r.text().starts_with("<persisted-output>"))
                .map(|(_, r)| r.text().chars().count())
                .sum();
            prop_assert!(inline <= turn.budget, "{} inline chars over a budget of {}", inline, turn.budget);
        }
        if matches!(turn.stop, Stop::Never) && ran.drained && matches!(turn.runner, Runner::Batches) {
            // Nothing stopped the turn: the denied tool was refused by its rule.
            for (index, result) in &ran.results {
                if turn.blocks[*index].name == "Locked" {
                    prop_assert!(result.is_error && result.text().contains("Locked"), "{}", result.text());
                }
            }
        }

        // Every saved file is complete (one whole output of its call), and every persisted
        // block points at one.
        let outputs: BTreeMap<String, Vec<String>> = turn
            .blocks
            .iter()
            .filter_map(|b| {
                let size = usize::try_from(b.input.get("size")?.as_u64()?).ok()?;
                let whole = vec![
                    "c".repeat(size),
                    "rewritten".to_owned(),
                    "(Chaos completed with no output)".to_owned(),
                ];
                Some((b.id.clone(), whole))
            })
            .collect();
        for entry in std::fs::read_dir(dir.path()).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let id = name.strip_suffix(".txt").unwrap_or_else(|| panic!("unexpected file {name}"));
            let text = std::fs::read_to_string(&path).unwrap();
            prop_assert!(outputs[id].contains(&text), "{} is not one whole output ({} bytes)", name, text.len());
        }
        for (_, result) in &ran.results {
            let text = result.text();
            if let Some(rest) = text.strip_prefix("<persisted-output>\n") {
                let path = rest.split("saved to: ").nth(1).and_then(|r| r.lines().next()).unwrap();
                prop_assert!(std::path::Path::new(path).is_file(), "{} is missing", path);
            }
        }
    }
}
