//! The token counts each API reports inside its stream, in the shapes the providers send
//! (Anthropic Messages, OpenAI Chat Completions with `stream_options.include_usage`, OpenAI
//! Responses, Gemini), read into `StreamedResponse::input_tokens` / `output_tokens`: the
//! last count wins, Anthropic's cached input is counted in, and a stream without counts
//! leaves both `None`.

use serde_json::{Value, json};
use tool_registry::providers::ModelApi;

fn named(data: &Value) -> String {
    let name = data["type"].as_str().unwrap_or("message");
    format!("event: {name}\ndata: {data}\n\n")
}

fn data(data: &Value) -> String {
    format!("data: {data}\n\n")
}

fn tokens(api: ModelApi, body: &str) -> (Option<u64>, Option<u64>) {
    let mut stream = api.stream(&[]).unwrap();
    let mut started = Vec::new();
    stream.push_bytes(body.as_bytes(), &mut started).unwrap();
    let response = stream.finish(&mut started);
    (response.input_tokens, response.output_tokens)
}

#[test]
fn anthropic_counts_come_from_message_start_and_the_last_message_delta() {
    let body = [
        named(&json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude", "stop_reason": null,
            "usage": {"input_tokens": 12, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 2000, "output_tokens": 1}}})),
        named(&json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
        named(&json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}})),
        named(&json!({"type": "content_block_stop", "index": 0})),
        named(&json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 57}})),
        named(&json!({"type": "message_stop"})),
    ]
    .concat();
    assert_eq!(tokens(ModelApi::Anthropic, &body), (Some(2112), Some(57)));
}

#[test]
fn openai_chat_counts_come_from_the_last_chunk() {
    let body = [
        data(&json!({"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hi"}, "finish_reason": null}], "usage": null})),
        data(&json!({"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": null})),
        data(&json!({"id": "c1", "object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 30, "completion_tokens": 4, "total_tokens": 34}})),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    assert_eq!(tokens(ModelApi::OpenAiChat, &body), (Some(30), Some(4)));
}

#[test]
fn openai_responses_counts_come_from_response_completed() {
    let body = [
        named(&json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": [], "usage": null}})),
        named(&json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "message", "id": "m1", "role": "assistant", "content": []}})),
        named(&json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Hi"})),
        named(&json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [],
            "usage": {"input_tokens": 41, "output_tokens": 9, "total_tokens": 50}}})),
    ]
    .concat();
    assert_eq!(
        tokens(ModelApi::OpenAiResponses, &body),
        (Some(41), Some(9))
    );
}

#[test]
fn gemini_counts_come_from_the_last_usage_metadata() {
    let body = [
        data(&json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]}}], "usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 1}})),
        data(&json!({"candidates": [{"content": {"role": "model", "parts": [{"text": " there"}]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 3, "totalTokenCount": 11}})),
    ]
    .concat();
    assert_eq!(tokens(ModelApi::Gemini, &body), (Some(8), Some(3)));
}

#[test]
fn a_stream_without_counts_has_none() {
    let body = [
        data(&json!({"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": "stop"}]})),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    assert_eq!(tokens(ModelApi::OpenAiChat, &body), (None, None));
}
