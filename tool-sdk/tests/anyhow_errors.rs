//! With the `anyhow` feature: a function-form tool returning `anyhow::Result<T>`, its error
//! (with the chain of causes) as the call's error, and `?` on an `anyhow::Error` in a
//! struct-form `call`. Run by `cargo test -p tool-sdk --features anyhow` (in `.ci/run`).
#![cfg(feature = "anyhow")]

use anyhow::Context as _;
use futures::executor::block_on;
use serde_json::json;
use tool_sdk::prelude::*;
use tool_sdk::{ToolOutput, dyn_tool};

/// The file to read.
#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    /// Its path.
    path: String,
}

/// Reads a text file.
#[tool(name = "Read", read_only, max_result_size_chars = 1_000)]
async fn read(input: ReadArgs) -> anyhow::Result<String> {
    let text =
        std::fs::read_to_string(&input.path).with_context(|| format!("reading {}", input.path))?;
    anyhow::ensure!(!text.is_empty(), "{} is empty", input.path);
    Ok(text)
}

/// Counts the lines of a text file.
#[tool(name = "Lines", read_only, max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
struct Lines {
    /// Its path.
    path: String,
}

#[tool]
impl Tool for Lines {
    type Output = usize;

    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<usize>, ToolError> {
        let text = std::fs::read_to_string(&self.path)
            .with_context(|| format!("counting the lines of {}", self.path))?;
        Ok(ToolResult::new(text.lines().count()))
    }
}

fn run<T: Tool>(input: serde_json::Value) -> Result<ToolOutput, ToolError> {
    let tool = dyn_tool::<T>();
    let ctx = ToolUseContext::detached("toolu_01");
    block_on(tool.dispatch(&input, &ctx).expect("the input parses"))
}

fn text(output: &ToolOutput) -> &str {
    match &output.content {
        ToolResultContent::Text(text) => text,
        other => panic!("expected text, got {other:?}"),
    }
}

#[test]
fn a_function_returning_anyhow_result_answers_and_fails_with_its_causes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "one\ntwo\n").unwrap();
    let output = run::<read>(json!({"path": file})).unwrap();
    assert_eq!(text(&output), "one\ntwo\n");

    let missing = dir.path().join("missing.txt");
    let error = run::<read>(json!({"path": missing})).unwrap_err();
    let message = error.to_model_text();
    assert!(
        message.starts_with(&format!("reading {}: ", missing.display())),
        "{message}"
    );
    assert!(message.contains("No such file or directory"), "{message}");

    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    let error = run::<read>(json!({"path": empty})).unwrap_err();
    assert_eq!(
        error.to_model_text(),
        format!("{} is empty", empty.display())
    );
}

#[test]
fn a_struct_form_call_uses_question_mark_on_anyhow_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.txt");
    let error = run::<Lines>(json!({"path": missing})).unwrap_err();
    let message = error.to_model_text();
    assert!(
        message.starts_with(&format!("counting the lines of {}: ", missing.display())),
        "{message}"
    );
}

#[test]
fn a_tool_error_through_anyhow_keeps_its_kind_and_retry_mark_unless_context_was_added() {
    let plain: anyhow::Error = ToolError::new("rate limited").retryable().into();
    let back = ToolError::from(plain);
    assert!(back.is_retryable());
    assert_eq!(back.to_model_text(), "rate limited");

    let aborted: anyhow::Error = ToolError::aborted("stopped").into();
    assert_eq!(ToolError::from(aborted), ToolError::aborted("stopped"));

    let with_context = anyhow::Error::from(ToolError::new("rate limited").retryable())
        .context("fetching https://example.com");
    let back = ToolError::from(with_context);
    assert!(!back.is_retryable());
    assert_eq!(
        back.to_model_text(),
        "fetching https://example.com: rate limited"
    );
}
