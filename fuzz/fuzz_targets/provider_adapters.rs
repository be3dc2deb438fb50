//! The provider adapters: reading tool calls out of an arbitrary Anthropic, OpenAI Chat,
//! OpenAI Responses or Gemini response, and pairing results back into each provider's shape.
//! Never a panic; one result per runnable call pairs without error.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_registry::providers::gemini::GeminiNames;
use tool_registry::providers::{ToolCalls, anthropic, gemini, openai_chat, openai_responses};
use tool_sdk::ToolResultBlock;

fn results(calls: &ToolCalls) -> Vec<ToolResultBlock> {
    calls
        .runnable()
        .iter()
        .map(|block| {
            serde_json::from_value(serde_json::json!({
                "tool_use_id": block.id,
                "content": "ok",
            }))
            .expect("a result block")
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let names = GeminiNames::new(["Read", "mcp__github__get_me"]);
    if let Ok(calls) = anthropic::read_calls(&value) {
        anthropic::results_message(&calls, results(&calls)).expect("results pair");
    }
    if let Ok(calls) = openai_chat::read_calls(&value) {
        openai_chat::results_messages(&calls, results(&calls)).expect("results pair");
    }
    if let Ok(calls) = openai_responses::read_calls(&value) {
        openai_responses::results_items(&calls, results(&calls)).expect("results pair");
    }
    if let Ok(calls) = gemini::read_calls(&value, &names) {
        gemini::results_content(&calls, results(&calls), &names).expect("results pair");
    }
    let _ = tool_registry::providers::ToolSearchCall::read_all(&value);
});
