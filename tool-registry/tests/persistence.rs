//! Large results (SPEC §9) through the real orchestrator and a real temporary directory.

mod common;

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{all_tools, blocks, texts};
use serde_json::{Value, json};
use tool_registry::orchestration::ContentReplacementState;
use tool_registry::test_support as persistence;
use tool_registry::test_support::PREVIEW_SIZE_CHARS;
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::prelude::*;
use tool_sdk::{
    DynTool, InputError, MaxResultSize, ResultBlock, ToolCall, ToolMeta, ToolResultBlock,
    ToolResultContent, dyn_tool,
};

async fn big(dir: Option<&std::path::Path>, size: usize) -> String {
    let config = OrchestratorConfig {
        result_dir: dir.map(std::path::Path::to_path_buf),
        ..OrchestratorConfig::default()
    };
    Orchestrator::new(&all_tools(), config)
        .run_tools(
            blocks(json!([{"id": "toolu_big", "name": "Probe", "input": {"mode": "big", "size": size}}])),
            TurnState::default(),
        )
        .collect_results()
        .await
        .results[0]
        .text()
}

#[tokio::test]
async fn a_result_over_the_threshold_is_saved_and_replaced_by_a_preview() {
    let dir = tempfile::tempdir().unwrap();
    // Probe declares 100 chars: 100 stays, 2,500 is persisted.
    assert_eq!(big(Some(dir.path()), 100).await, "z".repeat(100));
    let text = big(Some(dir.path()), 2_500).await;
    let path = dir.path().join("toolu_big.txt");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "z".repeat(2_500));
    assert_eq!(
        text,
        format!(
            "<persisted-output>\nThe output is too large to show here (2.4KB). All of it was saved to: {}\n\nPreview (first 2KB):\n{}\n...\n</persisted-output>",
            path.display(),
            "z".repeat(PREVIEW_SIZE_CHARS)
        )
    );
}

#[tokio::test]
async fn an_existing_file_counts_as_saved_and_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("toolu_big.txt"), "earlier").unwrap();
    let text = big(Some(dir.path()), 300).await;
    assert!(
        text.starts_with("<persisted-output>\nThe output is too large to show here (300 bytes).")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("toolu_big.txt")).unwrap(),
        "earlier"
    );
}

#[tokio::test]
async fn without_a_directory_or_when_saving_fails_the_result_stays_inline() {
    assert_eq!(big(None, 300).await, "z".repeat(300));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    assert_eq!(big(Some(&file), 300).await, "z".repeat(300));
}

#[test]
fn arrays_of_text_are_saved_as_pretty_json_and_images_are_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let blocks = vec![ResultBlock::Text {
        text: "a".repeat(60),
    }];
    let out = persistence::process_result(
        ToolResultContent::Blocks(blocks.clone()),
        "T",
        "toolu_arr",
        Some(50),
        Some(dir.path()),
    );
    let saved = std::fs::read_to_string(dir.path().join("toolu_arr.json")).unwrap();
    assert_eq!(saved, serde_json::to_string_pretty(&blocks).unwrap());
    assert!(out.text().contains(&format!("({} bytes)", saved.len())));
    let with_image = ToolResultContent::Blocks(vec![
        ResultBlock::Text {
            text: "a".repeat(60),
        },
        ResultBlock::Image {
            source: json!({"type": "url", "url": "https://x/y.png"}),
        },
    ]);
    assert_eq!(
        persistence::process_result(
            with_image.clone(),
            "T",
            "toolu_img",
            Some(50),
            Some(dir.path())
        ),
        with_image
    );
    // Unbounded tools keep any size, but an empty result still names the tool.
    assert_eq!(
        persistence::process_result(
            ToolResultContent::Text(String::new()),
            "Read",
            "t",
            None,
            None
        ),
        ToolResultContent::Text("(Read completed with no output)".into())
    );
    assert_eq!(
        persistence::persistence_threshold(MaxResultSize::Unbounded, 50_000),
        None
    );
}

#[test]
fn the_message_budget_persists_the_largest_results_first() {
    let dir = tempfile::tempdir().unwrap();
    let mut results = vec![
        ToolResultBlock::success("a", "a".repeat(100)),
        ToolResultBlock::success("b", "b".repeat(300)),
        ToolResultBlock::success("c", "c".repeat(200)),
        ToolResultBlock::error("d", "d".repeat(900)),
        ToolResultBlock::success("e", "e".repeat(500)),
    ];
    // Fresh total 600 (e is unbounded, d an error); limit 350: b (300) goes, then 300 ≤ 350.
    let replaced =
        persistence::enforce_message_budget(&mut results, 350, dir.path(), |index| index == 4);
    assert_eq!(replaced, 1);
    assert!(results[1].text().starts_with("<persisted-output>"));
    assert_eq!(results[0].text(), "a".repeat(100));
    assert_eq!(results[2].text(), "c".repeat(200));
    assert_eq!(results[4].text(), "e".repeat(500));
    assert!(dir.path().join("b.txt").exists());
}

#[tokio::test]
async fn the_budget_applies_when_collecting_a_turn() {
    let dir = tempfile::tempdir().unwrap();
    let config = OrchestratorConfig {
        message_budget_chars: Some(100),
        ..OrchestratorConfig::default().with_result_dir(dir.path())
    };
    let outcome = Orchestrator::new(&all_tools(), config)
        .run_tools(
            blocks(json!([
                {"id": "s1", "name": "Sleep", "input": {"ms": 1, "tag": "x".repeat(80)}},
                {"id": "s2", "name": "Sleep", "input": {"ms": 1, "tag": "y".repeat(60)}},
            ])),
            TurnState::default(),
        )
        .collect_results()
        .await;
    let texts = texts(&outcome);
    assert!(
        texts[0]
            .starts_with("<persisted-output>\nThe output is too large to show here (80 bytes).")
    );
    assert_eq!(texts[1], "y".repeat(60));
}

/// Returns `size` chars of `d`; never persisted (the reference's Read tool declares the same).
#[tool(
    name = "Dump",
    aliases = ["OldDump"],
    read_only,
    concurrency_safe,
    max_result_size_chars = unbounded
)]
#[derive(Debug, Deserialize, JsonSchema)]
struct Dump {
    /// How many chars to return.
    size: usize,
}

#[tool]
impl Tool for Dump {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("d".repeat(self.size)))
    }
}

#[tokio::test]
async fn the_budget_leaves_an_unbounded_tool_alone_also_when_reached_through_an_alias() {
    let dir = tempfile::tempdir().unwrap();
    let config = OrchestratorConfig {
        message_budget_chars: Some(100),
        ..OrchestratorConfig::default().with_result_dir(dir.path())
    };
    // Dump is not in the pool: the old name reaches it through the alias fallback only.
    let outcome = Orchestrator::new(&all_tools(), config)
        .with_alias_fallback(&[dyn_tool::<Dump>()])
        .run_tools(
            blocks(json!([
                {"id": "d1", "name": "OldDump", "input": {"size": 500}},
                {"id": "s1", "name": "Sleep", "input": {"ms": 1, "tag": "x".repeat(80)}},
                {"id": "s2", "name": "Sleep", "input": {"ms": 1, "tag": "y".repeat(60)}},
            ])),
            TurnState::default(),
        )
        .collect_results()
        .await;
    let texts = texts(&outcome);
    assert_eq!(
        texts[0],
        "d".repeat(500),
        "an unbounded result was persisted"
    );
    assert!(texts[1].starts_with("<persisted-output>"), "{}", texts[1]);
    assert_eq!(texts[2], "y".repeat(60));
    assert!(!dir.path().join("d1.txt").exists());
}

/// A pool tool that counts how often anything asks for its metadata (names, aliases, limits).
struct Counted {
    inner: Arc<dyn DynTool>,
    asked: Arc<AtomicUsize>,
}

impl DynTool for Counted {
    fn is_enabled(&self) -> bool {
        self.inner.is_enabled()
    }

    fn has_json_schema(&self) -> bool {
        self.inner.has_json_schema()
    }

    fn shared_input_schema(&self) -> Option<&'static Value> {
        self.inner.shared_input_schema()
    }

    fn output_schema(&self) -> Option<&Value> {
        self.inner.output_schema()
    }

    fn definition_site(&self) -> Option<tool_sdk::DefinitionSite> {
        self.inner.definition_site()
    }

    fn meta(&self) -> &ToolMeta {
        self.asked.fetch_add(1, Ordering::Relaxed);
        self.inner.meta()
    }
    fn prompt(&self) -> Cow<'_, str> {
        self.inner.prompt()
    }
    fn input_schema(&self) -> &Value {
        self.inner.input_schema()
    }
    fn parse_input(&self, input: &Value) -> Result<Box<dyn ToolCall>, InputError> {
        self.inner.parse_input(input)
    }
}

/// How often the pool's tools were asked for their metadata while a turn of `calls` Sleep
/// calls ran and was collected, with or without the message budget.
async fn metadata_reads(calls: usize, budget: bool) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let asked = Arc::new(AtomicUsize::new(0));
    let pool: Vec<Arc<dyn DynTool>> = all_tools()
        .into_iter()
        .map(|inner| {
            Arc::new(Counted {
                inner,
                asked: Arc::clone(&asked),
            }) as Arc<dyn DynTool>
        })
        .collect();
    let config = OrchestratorConfig {
        message_budget_chars: budget.then_some(1_000_000),
        ..OrchestratorConfig::default().with_result_dir(dir.path())
    };
    let orchestrator = Orchestrator::new(&pool, config);
    let blocks: Vec<_> = (0..calls)
        .map(|i| json!({"id": format!("toolu_{i}"), "name": "Sleep", "input": {"ms": 0, "tag": "t"}}))
        .collect();
    let before = asked.load(Ordering::Relaxed);
    let outcome = orchestrator
        .run_tools(self::blocks(Value::Array(blocks)), TurnState::default())
        .collect_results()
        .await;
    assert_eq!(outcome.results.len(), calls);
    asked.load(Ordering::Relaxed) - before
}

#[tokio::test]
async fn the_budget_looks_no_tool_up_again() {
    // Whatever a call reads of its tool, the budget adds nothing: it uses what each call's
    // outcome says, not a second lookup per result (which grew with the batch times the pool).
    for calls in [1, 20] {
        assert_eq!(
            metadata_reads(calls, true).await,
            metadata_reads(calls, false).await,
            "{calls} calls"
        );
    }
}

/// The Probe "big" result of `size` chars under a config with the threshold overrides of
/// `overrides` (the flag's JSON).
async fn big_with_overrides(dir: &std::path::Path, size: usize, overrides: Value) -> String {
    let config = OrchestratorConfig::default()
        .with_result_dir(dir)
        .with_persistence_threshold_overrides(&overrides);
    Orchestrator::new(&all_tools(), config)
        .run_tools(
            blocks(json!([{"id": "toolu_big", "name": "Probe", "input": {"mode": "big", "size": size}}])),
            TurnState::default(),
        )
        .collect_results()
        .await
        .results[0]
        .text()
}

#[tokio::test]
async fn a_per_tool_override_replaces_the_declared_threshold_both_ways() {
    // Probe declares 100 chars.
    let dir = tempfile::tempdir().unwrap();
    let raised = big_with_overrides(dir.path(), 2_500, json!({"Probe": 5_000})).await;
    assert_eq!(
        raised,
        "z".repeat(2_500),
        "a raised threshold keeps it inline"
    );
    assert!(!dir.path().join("toolu_big.txt").exists());

    let dir = tempfile::tempdir().unwrap();
    let lowered = big_with_overrides(dir.path(), 80, json!({"Probe": 50})).await;
    assert!(lowered.starts_with("<persisted-output>"), "{lowered}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("toolu_big.txt")).unwrap(),
        "z".repeat(80)
    );

    // Past the 50,000 cap too: the override is not capped.
    let dir = tempfile::tempdir().unwrap();
    let past_cap = big_with_overrides(dir.path(), 60_000, json!({"Probe": 70_000})).await;
    assert_eq!(past_cap.len(), 60_000);
}

#[tokio::test]
async fn overrides_below_one_or_not_whole_are_ignored() {
    for ignored in [
        json!(0),
        json!(-3),
        json!(0.5),
        json!(150.5),
        json!("5000"),
        json!(null),
    ] {
        let dir = tempfile::tempdir().unwrap();
        // The declared 100 still decides: 150 chars are persisted, 100 kept.
        let text = big_with_overrides(dir.path(), 150, json!({"Probe": ignored.clone()})).await;
        assert!(text.starts_with("<persisted-output>"), "{ignored}: {text}");
        let kept = big_with_overrides(dir.path(), 100, json!({"Probe": ignored.clone()})).await;
        assert_eq!(kept, "z".repeat(100), "{ignored}");
    }
}

#[tokio::test]
async fn an_override_keyed_by_an_alias_or_another_tool_does_not_apply() {
    // Overrides are keyed by the primary name, as the reference keys them by `tool.name`.
    let dir = tempfile::tempdir().unwrap();
    let text = big_with_overrides(dir.path(), 150, json!({"probe": 5_000, "Sleep": 5_000})).await;
    assert!(text.starts_with("<persisted-output>"), "{text}");
}

#[tokio::test]
async fn an_override_never_makes_an_unbounded_tool_persist() {
    let dir = tempfile::tempdir().unwrap();
    let config = OrchestratorConfig::default()
        .with_result_dir(dir.path())
        .with_persistence_threshold_overrides(&json!({"Dump": 10}));
    let outcome = Orchestrator::new(&[dyn_tool::<Dump>()], config)
        .run_tools(
            blocks(json!([{"id": "d1", "name": "Dump", "input": {"size": 500}}])),
            TurnState::default(),
        )
        .collect_results()
        .await;
    assert_eq!(texts(&outcome)[0], "d".repeat(500));
}

fn ok(id: &str, c: char, n: usize) -> ToolResultBlock {
    ToolResultBlock::success(id, c.to_string().repeat(n))
}

#[test]
fn results_seen_before_in_the_group_count_against_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut state = ContentReplacementState::new();
    // First pass: a alone, 150 ≤ 200, kept and seen.
    let mut group = vec![ok("a", 'a', 150)];
    assert_eq!(state.enforce(&mut group, 200, dir.path(), |_| false), 0);
    assert!(state.is_seen("a"));
    // Second pass over the grown group: a is frozen (150), b fresh (100): 250 > 200, and
    // only the fresh b may go, although a is the larger.
    group.push(ok("b", 'b', 100));
    assert_eq!(state.enforce(&mut group, 200, dir.path(), |_| false), 1);
    assert_eq!(group[0].text(), "a".repeat(150));
    assert!(group[1].text().starts_with("<persisted-output>"));
    // The stateless pass sees b alone and keeps it: that is what frozen results change.
    let mut alone = vec![ok("b2", 'b', 100)];
    assert_eq!(
        persistence::enforce_message_budget(&mut alone, 200, dir.path(), |_| false),
        0
    );
}

#[test]
fn a_replaced_result_is_replaced_again_byte_for_byte_and_a_kept_one_stays_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut state = ContentReplacementState::new();
    let mut group = vec![ok("a", 'a', 300), ok("b", 'b', 50)];
    assert_eq!(state.enforce(&mut group, 100, dir.path(), |_| false), 1);
    let replaced = group[0].clone();
    assert!(replaced.text().starts_with("<persisted-output>"));
    assert_eq!(state.replacement("a"), Some(&replaced.content));
    // The host's transcript still holds the original text (say it was rebuilt from a log):
    // the same replacement goes back, and the saved file is not written again.
    std::fs::write(dir.path().join("a.txt"), "changed on disk").unwrap();
    let mut again = vec![ok("a", 'a', 300), ok("b", 'b', 50)];
    assert_eq!(state.enforce(&mut again, 10, dir.path(), |_| false), 0);
    assert_eq!(again[0], replaced);
    // b was seen and kept: a lower limit later does not replace it.
    assert_eq!(again[1].text(), "b".repeat(50));
}

#[test]
fn an_unbounded_result_is_skipped_once_and_then_counts_as_frozen() {
    let dir = tempfile::tempdir().unwrap();
    let mut state = ContentReplacementState::new();
    let mut group = vec![ok("u", 'u', 500)];
    assert_eq!(state.enforce(&mut group, 100, dir.path(), |_| true), 0);
    assert_eq!(group[0].text(), "u".repeat(500));
    assert!(state.is_seen("u"));
    // Seen, kept: its 500 chars now count, so a small fresh result goes over the limit.
    group.push(ok("s", 's', 20));
    assert_eq!(state.enforce(&mut group, 100, dir.path(), |i| i == 0), 1);
    assert_eq!(group[0].text(), "u".repeat(500));
    assert!(group[1].text().starts_with("<persisted-output>"));
}

#[tokio::test]
async fn a_host_answering_calls_one_by_one_keeps_the_budget_across_the_group() {
    // A host running each call of one assistant message on its own (run_tool_use), adding the
    // results to the user message and applying the budget after each, as the reference applies
    // it before each model call.
    let dir = tempfile::tempdir().unwrap();
    let orchestrator = Orchestrator::new(&all_tools(), OrchestratorConfig::default());
    let mut state = ContentReplacementState::new();
    let mut group = Vec::new();
    for (id, size) in [("t1", 90), ("t2", 90), ("t3", 30)] {
        let block =
            &blocks(json!([{"id": id, "name": "Probe", "input": {"mode": "big", "size": size}}]))
                [0];
        let outcome = orchestrator
            .run_tool_use(
                orchestrator.prepare(block.clone()),
                &TurnState::default(),
                None,
            )
            .await;
        group.push(outcome.result);
        state.enforce(&mut group, 150, dir.path(), |_| false);
    }
    let texts: Vec<String> = group.iter().map(ToolResultBlock::text).collect();
    assert_eq!(texts[0], "z".repeat(90), "t1 was kept when it came");
    assert!(
        texts[1].starts_with("<persisted-output>"),
        "t1 + t2 = 180 > 150"
    );
    assert_eq!(texts[2], "z".repeat(30), "t1 + t3 = 120 ≤ 150");
}
