//! Large results (SPEC §9) through the real orchestrator and a real temporary directory.

mod common;

use common::{all_tools, blocks, texts};
use serde_json::json;
use tool_registry::orchestration::persistence::{self, PREVIEW_SIZE_CHARS};
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::{MaxResultSize, ResultBlock, ToolResultBlock, ToolResultContent};

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
        persistence::enforce_message_budget(&mut results, 350, dir.path(), |id| id == "e");
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
