//! Large results (SPEC §9) through the real orchestrator and a real temporary directory.

mod common;

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{all_tools, blocks, texts};
use serde_json::{Value, json};
use tool_registry::orchestration::persistence::{self, PREVIEW_SIZE_CHARS};
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
    fn parse_input(&self, input: Value) -> Result<Box<dyn ToolCall>, InputError> {
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
