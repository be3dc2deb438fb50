//! Streams that end early or say no in the shapes providers really send: an Anthropic
//! thinking block started with `"signature": ""` and cut off before its signature, a block
//! whose `citations` start as `null`, an OpenAI Chat call cut off before any argument text,
//! Chat's rate-limit error, a prompt Gemini blocks, and a Responses custom call.

use serde_json::{Value, json};
use tool_registry::providers::{ArgumentsError, ModelApi};

fn named(data: &Value) -> String {
    let name = data["type"].as_str().unwrap_or("message");
    format!("event: {name}\ndata: {data}\n\n")
}

fn data(data: &Value) -> String {
    format!("data: {data}\n\n")
}

fn read(api: ModelApi, body: &str) -> tool_registry::providers::stream::StreamedResponse {
    let mut stream = api.stream(&[]).unwrap();
    let mut started = Vec::new();
    stream.push_bytes(body.as_bytes(), &mut started).unwrap();
    stream.finish(&mut started)
}

#[test]
fn a_thinking_block_cut_off_before_its_signature_is_not_sent_back() {
    let body = [
        json!({"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me look"}}),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ]
    .iter()
    .map(named)
    .collect::<String>();
    let response = read(ModelApi::Anthropic, &body);
    assert_eq!(
        response.message["content"],
        json!([]),
        "{}",
        response.message
    );
    assert!(response.message_is_empty());
    assert!(response.error.expect("the stream's error").retryable);
}

#[test]
fn citations_that_start_as_null_are_kept() {
    let body = [
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "", "citations": null}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": {"type": "char_location", "cited_text": "a", "document_index": 0}}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "A."}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_stop"}),
    ]
    .iter()
    .map(named)
    .collect::<String>();
    let response = read(ModelApi::Anthropic, &body);
    assert_eq!(
        response.message["content"][0]["citations"][0]["cited_text"],
        "a"
    );
}

#[test]
fn a_chat_call_cut_off_before_its_arguments_fails_alone() {
    let body = data(
        &json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "Read", "arguments": ""}}
    ]}, "finish_reason": null}]}),
    );
    let response = read(ModelApi::OpenAiChat, &body);
    assert!(!response.ended);
    assert!(
        matches!(
            response.calls.calls[0].input,
            Err(ArgumentsError::Truncated { .. })
        ),
        "{:?}",
        response.calls.calls[0].input
    );
    // With the finish reason, empty arguments mean `{}`.
    let finished = body
        + &data(&json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}));
    let response = read(ModelApi::OpenAiChat, &finished);
    assert_eq!(response.calls.calls[0].input, Ok(json!({})));
}

#[test]
fn a_chat_rate_limit_error_may_be_retried() {
    let body = data(
        &json!({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}),
    );
    let error = read(ModelApi::OpenAiChat, &body)
        .error
        .expect("the stream's error");
    assert!(error.retryable, "{error:?}");
}

#[test]
fn a_prompt_gemini_blocks_ends_the_response_with_the_reason() {
    let body = data(
        &json!({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 8}}),
    );
    let response = read(ModelApi::Gemini, &body);
    assert!(response.ended);
    assert_eq!(response.stop_reason.as_deref(), Some("SAFETY"));
}

#[test]
fn a_responses_custom_call_is_answered_though_never_run() {
    let item = json!({"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "Patch", "input": "*** Begin", "status": "completed"});
    let body = [
        json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        json!({"type": "response.completed", "response": {"status": "completed", "output": [item]}}),
    ]
    .iter()
    .map(named)
    .collect::<String>();
    let response = read(ModelApi::OpenAiResponses, &body);
    assert_eq!(response.calls.len(), 1);
    assert!(response.calls.runnable().is_empty());
    let answer = ModelApi::OpenAiResponses
        .write_results(&response.calls, Vec::new(), &[])
        .unwrap();
    assert_eq!(answer[0]["type"], "custom_tool_call_output");
    assert_eq!(answer[0]["call_id"], "call_1");
}

#[test]
fn a_host_decoding_its_own_events_ends_a_chat_stream_with_done() {
    let mut stream = ModelApi::OpenAiChat.stream(&[]).unwrap();
    let mut started = Vec::new();
    stream.push_event(
        &json!({"choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": null}]}),
        &mut started,
    );
    stream.push_event(&json!("[DONE]"), &mut started);
    let response = stream.finish(&mut started);
    assert!(response.ended);
    assert_eq!(response.text, "Hi");
}

#[test]
fn a_responses_reasoning_item_cut_off_at_the_end_is_not_sent_back() {
    let reasoning = json!({"type": "reasoning", "id": "rs_1", "summary": []});
    let body = [
        json!({"type": "response.created", "response": {"status": "in_progress", "output": []}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": reasoning}),
    ]
    .iter()
    .map(named)
    .collect::<String>();
    let response = read(ModelApi::OpenAiResponses, &body);
    assert!(!response.ended);
    assert_eq!(response.message, json!([]));
}

#[test]
fn two_unreadable_events_in_a_row_have_their_own_indexes() {
    let mut stream = ModelApi::OpenAiChat.stream(&[]).unwrap();
    let mut started = Vec::new();
    let first = stream
        .push_bytes(b"data: {not json\n\n", &mut started)
        .unwrap_err();
    let second = stream
        .push_bytes(b"data: {nor this\n\n", &mut started)
        .unwrap_err();
    assert_eq!((first.index, second.index), (0, 1));
}
