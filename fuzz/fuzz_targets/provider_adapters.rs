//! The provider adapters: reading tool calls out of an arbitrary Anthropic, OpenAI Chat,
//! OpenAI Responses or Gemini response, and pairing results back into each provider's shape.
//! Never a panic; one result per runnable call pairs without error.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_registry::providers::{ModelApi, ToolCalls};
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
    // A pool whose names Gemini maps (read back and answered through the map).
    let pool = tool_sdk_fuzz::fixed_pool();
    for api in ModelApi::ALL {
        if let Ok(calls) = api.read_calls(&value, pool) {
            api.write_results(&calls, results(&calls), pool)
                .expect("results pair");
        }
    }
    let _ = tool_registry::providers::ToolSearchCall::read_all(&value);
});
