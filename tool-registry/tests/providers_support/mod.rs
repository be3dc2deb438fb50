//! Shared by the provider tests: the recorded fixtures, found wherever the checkout is.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The fixtures directory: `$TOOL_SDK_FIXTURES`, else the first `shared/fixtures` above this
/// crate. `None` (and a line saying the test skips) when there is none.
pub fn fixtures(test: &str) -> Option<PathBuf> {
    let found = std::env::var_os("TOOL_SDK_FIXTURES")
        .map(PathBuf::from)
        .filter(|dir| dir.is_dir())
        .or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .ancestors()
                .map(|dir| dir.join("shared/fixtures"))
                .find(|dir| dir.is_dir())
        });
    if found.is_none() {
        println!(
            "SKIPPED {test}: no recorded fixtures (set TOOL_SDK_FIXTURES or put them in a `shared/fixtures` above the checkout)"
        );
    }
    found
}

/// Reads a JSON file.
pub fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every recorded assistant turn with tool calls: `(label, content array, tool_result blocks)`.
/// From each transcript: the headline turn, `more_examples`, and every assistant message of
/// `messages` followed by a user message with results.
pub fn recorded_turns(dir: &Path) -> Vec<(String, Vec<Value>, Vec<Value>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("transcripts"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut turns = Vec::new();
    let has_calls = |content: &Value| {
        content
            .as_array()
            .is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_use"))
    };
    let results_of = |content: &Value| -> Vec<Value> {
        content
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["type"] == "tool_result")
            .cloned()
            .collect()
    };
    for file in files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let transcript = read_json(&file);
        turns.push((
            format!("{name} headline"),
            transcript["content"].as_array().unwrap().clone(),
            results_of(&transcript["tool_results"]),
        ));
        for (i, example) in transcript["more_examples"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            turns.push((
                format!("{name} more_examples[{i}]"),
                example["content"].as_array().unwrap().clone(),
                results_of(&example["tool_results"]),
            ));
        }
        let messages = transcript["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for (i, pair) in messages.windows(2).enumerate() {
            if pair[0]["role"] == "assistant"
                && has_calls(&pair[0]["content"])
                && i != transcript["headline_message_index"]
                    .as_u64()
                    .unwrap_or(u64::MAX) as usize
            {
                turns.push((
                    format!("{name} messages[{i}]"),
                    pair[0]["content"].as_array().unwrap().clone(),
                    results_of(&pair[1]["content"]),
                ));
            }
        }
    }
    turns
}

/// Tools named `names` that echo their input, as a run-time pool (names Gemini refuses
/// included, for its name map).
pub fn echo_pool(names: &[&str]) -> Vec<std::sync::Arc<dyn tool_sdk::DynTool>> {
    let handler = tool_registry::dynamic::ToolHandler::new(|input: Value, _ctx| async move {
        Ok(tool_sdk::ToolResultContent::Text(input.to_string()))
    });
    names
        .iter()
        .map(|name| {
            let definition = serde_json::json!({"name": name, "description": "Echoes.", "input_schema": {"type": "object"}});
            std::sync::Arc::new(
                tool_registry::dynamic::DynamicTool::from_json(&definition, handler.clone())
                    .expect("a valid definition"),
            ) as std::sync::Arc<dyn tool_sdk::DynTool>
        })
        .collect()
}
