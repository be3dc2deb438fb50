//! The recorded conversation of `transcripts/03` moved into a fresh workspace, and helpers
//! to read what the `tool-host chat` child sent.

use std::path::Path;

use serde_json::Value;

use super::{file_from_read_result, rebase, transcript};

pub const KEY: &str = "sk-test-d2c1b7e0-never-printed";
pub const TRANSCRIPT: &str = "03-cc2.1-parallel-read-then-parallel-edit.json";
pub const READ_A: &str = "toolu_013bY7pp2ZCudW9rcLBUUJJE";
pub const READ_B: &str = "toolu_01N2w85jxZmUG77Yf7ufNPZ9";
pub const EDIT_A: &str = "toolu_012DTETgq8s6o9MajSCMmNJX";
pub const EDIT_B: &str = "toolu_01LcAKnfpHYfFok9WHC3pXjF";

/// The recorded conversation with its paths moved into a fresh workspace holding the two
/// files it reads (rebuilt from the recorded Read results).
pub struct Replay {
    pub dir: tempfile::TempDir,
    pub messages: Vec<Value>,
}

impl Replay {
    pub fn load() -> Option<Self> {
        let Some(mut recorded) = transcript(TRANSCRIPT) else {
            eprintln!(
                "SKIPPED: the fixtures are not here (set TOOL_SDK_FIXTURES to the shared fixtures directory), so no chat was replayed"
            );
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap().to_owned();
        rebase(&mut recorded["messages"], "/home/user/project", &root);
        let messages = recorded["messages"].as_array().unwrap().clone();
        for result in messages[4]["content"].as_array().unwrap() {
            let id = result["tool_use_id"].as_str().unwrap();
            let path = tool_input(&messages[3], id)["file_path"]
                .as_str()
                .unwrap()
                .to_owned();
            std::fs::create_dir_all(Path::new(&path).parent().unwrap()).unwrap();
            std::fs::write(
                &path,
                file_from_read_result(result["content"].as_str().unwrap()),
            )
            .unwrap();
        }
        Some(Self { dir, messages })
    }

    pub fn root(&self) -> &str {
        self.dir.path().to_str().unwrap()
    }

    pub fn content(&self, index: usize) -> Vec<Value> {
        self.messages[index]["content"].as_array().unwrap().clone()
    }

    /// The recorded text of message 5, used as the final answer.
    pub fn final_text(&self) -> Vec<Value> {
        self.content(5)
            .into_iter()
            .filter(|block| block["type"] == "text")
            .collect()
    }

    pub fn file(&self, relative: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(relative)).unwrap()
    }
}

pub fn tool_input(message: &Value, id: &str) -> Value {
    message["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|block| block["id"] == id)
        .unwrap()["input"]
        .clone()
}

/// The `tool_result` blocks (Anthropic) of the last user message of a request body.
pub fn last_results(body: &Value) -> Vec<Value> {
    let messages = body["messages"].as_array().unwrap();
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "user", "{last}");
    last["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|block| block["type"] == "tool_result")
        .cloned()
        .collect()
}

pub fn result_text(result: &Value) -> String {
    match &result["content"] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

pub fn assert_key_hidden(stdout: &str, stderr: &str) {
    assert!(
        !stdout.contains(KEY) && !stderr.contains(KEY),
        "the API key was printed"
    );
    assert!(
        !stderr.contains("never-printed"),
        "part of the key was logged"
    );
}
