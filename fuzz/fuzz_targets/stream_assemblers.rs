//! The four provider stream assemblers fed arbitrary SSE bytes: never a panic, and the calls
//! they assemble do not depend on where the network cut the body into chunks.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_registry::providers::ModelToolCall;
use tool_registry::providers::gemini::GeminiNames;
use tool_registry::providers::stream::{AnthropicStream, CallAssembler, GeminiStream, OpenAiChatStream, OpenAiResponsesStream, ToolCallStream};
use tool_sdk_fuzz::split;

fn assemble<A: CallAssembler>(make: impl Fn() -> A, chunks: &[&[u8]], whole: &[u8]) {
    let mut split_stream = ToolCallStream::new(make());
    let mut split_ready: Vec<ModelToolCall> = Vec::new();
    for chunk in chunks {
        let _ = split_stream.push_bytes(chunk, &mut split_ready);
    }
    let split_calls = split_stream.finish(&mut split_ready);

    let mut whole_stream = ToolCallStream::new(make());
    let mut whole_ready: Vec<ModelToolCall> = Vec::new();
    let _ = whole_stream.push_bytes(whole, &mut whole_ready);
    let whole_calls = whole_stream.finish(&mut whole_ready);

    assert_eq!(split_calls, whole_calls, "chunking changed the calls");
    assert_eq!(
        split_ready, whole_ready,
        "chunking changed the calls handed over"
    );
}

fuzz_target!(|data: &[u8]| {
    let (step, body) = split(data);
    let step = usize::from(step).max(1);
    let chunks: Vec<&[u8]> = body.chunks(step).collect();
    assemble(AnthropicStream::default, &chunks, body);
    assemble(OpenAiChatStream::default, &chunks, body);
    assemble(OpenAiResponsesStream::default, &chunks, body);
    assemble(
        || GeminiStream::new(GeminiNames::new(["Read", "mcp__github__get_me"])),
        &chunks,
        body,
    );
});
