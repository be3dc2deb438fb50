//! The response stream of each of the four model APIs fed arbitrary SSE bytes: never a panic,
//! and the response it assembles (calls, message, text, stop reason, error) does not depend
//! on where the network cut the body into chunks.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_registry::providers::{ModelApi, ModelToolCall};
use tool_sdk_fuzz::split;

fn assemble(api: ModelApi, chunks: &[&[u8]], whole: &[u8]) {
    let mut split_stream = api.stream(&[]).expect("a model API");
    let mut split_ready: Vec<ModelToolCall> = Vec::new();
    for chunk in chunks {
        let _ = split_stream.push_bytes(chunk, &mut split_ready);
    }
    let split_response = split_stream.finish(&mut split_ready);

    let mut whole_stream = api.stream(&[]).expect("a model API");
    let mut whole_ready: Vec<ModelToolCall> = Vec::new();
    let _ = whole_stream.push_bytes(whole, &mut whole_ready);
    let whole_response = whole_stream.finish(&mut whole_ready);

    assert_eq!(
        split_response, whole_response,
        "chunking changed the response"
    );
    assert_eq!(
        split_ready, whole_ready,
        "chunking changed the calls handed over"
    );
}

fuzz_target!(|data: &[u8]| {
    let (step, body) = split(data);
    let step = usize::from(step).max(1);
    let chunks: Vec<&[u8]> = body.chunks(step).collect();
    for api in [
        ModelApi::Anthropic,
        ModelApi::OpenAiChat,
        ModelApi::OpenAiResponses,
        ModelApi::Gemini,
    ] {
        assemble(api, &chunks, body);
    }
});
