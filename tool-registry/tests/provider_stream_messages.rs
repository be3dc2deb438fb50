//! The whole assistant message rebuilt from a streamed response, per API, from event
//! sequences shaped as the providers document them: Anthropic text, thinking with its
//! signature, a server tool and a `tool_use`; OpenAI Chat text and two calls; OpenAI Responses
//! reasoning, message and `function_call` items; Gemini text, a thought and a `functionCall`;
//! stop reasons, in-stream errors, and a stream cut off mid-call (the tool-call side is in
//! `provider_streams` and `provider_stream_edges`).

mod providers_support;

use std::sync::Arc;

use serde_json::{Value, json};
use tool_registry::providers::gemini::GeminiNames;
use tool_registry::providers::stream::StreamedResponse;
use tool_registry::providers::{ArgumentsError, ModelApi, ModelToolCall, ReadError};
use tool_sdk::DynTool;

use providers_support::echo_pool;

/// An SSE event with a name (Anthropic, OpenAI Responses).
fn named(data: &Value) -> String {
    let name = data["type"].as_str().unwrap_or("message");
    format!("event: {name}\ndata: {data}\n\n")
}

/// An SSE event with data only (OpenAI Chat, Gemini).
fn data(data: &Value) -> String {
    format!("data: {data}\n\n")
}

/// Reads `body` whole and byte by byte; both must give the same response and hand over the
/// same calls.
fn read(
    api: ModelApi,
    tools: &[Arc<dyn DynTool>],
    body: &str,
) -> (Vec<ModelToolCall>, StreamedResponse) {
    let mut whole = api.stream(tools).unwrap();
    let mut started = Vec::new();
    whole.push_bytes(body.as_bytes(), &mut started).unwrap();
    let response = whole.finish(&mut started);
    let mut split = api.stream(tools).unwrap();
    let mut split_started = Vec::new();
    for byte in body.as_bytes() {
        split
            .push_bytes(std::slice::from_ref(byte), &mut split_started)
            .unwrap();
    }
    assert_eq!(
        split.finish(&mut split_started),
        response,
        "split changed the response"
    );
    assert_eq!(
        split_started, started,
        "split changed the calls handed over"
    );
    (started, response)
}

fn anthropic_events(cut_mid_call: bool) -> String {
    let mut body = String::new();
    let mut event = |value: Value| body += &named(&value);
    event(
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-4-5", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 25, "output_tokens": 1}}}),
    );
    event(
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
    );
    event(
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "The user wants "}}),
    );
    event(
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "the file."}}),
    );
    event(
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}}),
    );
    event(json!({"type": "content_block_stop", "index": 0}));
    event(
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
    );
    event(
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Reading "}}),
    );
    event(
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "café.txt."}}),
    );
    event(
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "citations_delta", "citation": {"type": "char_location", "cited_text": "café", "document_index": 0, "document_title": null, "start_char_index": 0, "end_char_index": 4}}}),
    );
    event(json!({"type": "content_block_stop", "index": 1}));
    event(
        json!({"type": "content_block_start", "index": 2, "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}}),
    );
    event(
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": ""}}),
    );
    event(
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"query"}}),
    );
    event(
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "\": \"café\"}"}}),
    );
    event(json!({"type": "content_block_stop", "index": 2}));
    event(
        json!({"type": "content_block_start", "index": 3, "content_block": {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [{"type": "web_search_result", "title": "Café", "url": "https://example.com", "encrypted_content": "EqgfCioIARgB", "page_age": null}]}}),
    );
    event(json!({"type": "content_block_stop", "index": 3}));
    event(
        json!({"type": "content_block_start", "index": 4, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}}),
    );
    event(
        json!({"type": "content_block_delta", "index": 4, "delta": {"type": "input_json_delta", "partial_json": ""}}),
    );
    event(
        json!({"type": "content_block_delta", "index": 4, "delta": {"type": "input_json_delta", "partial_json": "{\"file_path\": \"/w/caf"}}),
    );
    if cut_mid_call {
        return body;
    }
    event(
        json!({"type": "content_block_delta", "index": 4, "delta": {"type": "input_json_delta", "partial_json": "é.txt\"}"}}),
    );
    event(json!({"type": "content_block_stop", "index": 4}));
    event(
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 89}}),
    );
    event(json!({"type": "message_stop"}));
    body
}

#[test]
fn anthropic_text_thinking_server_tool_and_tool_use_make_one_message() {
    let (started, response) = read(ModelApi::Anthropic, &[], &anthropic_events(false));
    assert_eq!(started, response.calls.calls);
    assert_eq!(response.calls.len(), 1, "a server tool is not a call");
    assert_eq!(
        response.calls.calls[0].input,
        Ok(json!({"file_path": "/w/café.txt"}))
    );
    assert_eq!(response.text, "Reading café.txt.");
    assert_eq!(response.stop_reason.as_deref(), Some("tool_use"));
    assert!(response.ended);
    assert_eq!(response.error, None);
    let content = response.message["content"].as_array().unwrap();
    assert_eq!(response.message["role"], "assistant");
    assert_eq!(
        content[0],
        json!({"type": "thinking", "thinking": "The user wants the file.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"})
    );
    assert_eq!(content[1]["text"], "Reading café.txt.");
    assert_eq!(content[1]["citations"][0]["cited_text"], "café");
    assert_eq!(
        content[2],
        json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "café"}})
    );
    assert_eq!(content[3]["type"], "web_search_tool_result");
    assert_eq!(
        content[4],
        json!({"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/w/café.txt"}})
    );
    assert!(!response.message_is_empty());
}

#[test]
fn an_anthropic_stream_cut_mid_call_fails_that_call_alone() {
    let (started, response) = read(ModelApi::Anthropic, &[], &anthropic_events(true));
    assert!(!response.ended);
    assert_eq!(response.stop_reason, None);
    assert_eq!(started.len(), 1, "handed over at the end, failed");
    assert!(
        matches!(&response.calls.calls[0].input, Err(ArgumentsError::Truncated { tool, .. }) if tool == "Read"),
        "{:?}",
        response.calls.calls[0]
    );
    let content = response.message["content"].as_array().unwrap();
    assert_eq!(content.len(), 5, "every block that came, the cut call too");
    assert_eq!(content[4]["input"], json!({}));
}

#[test]
fn an_unsigned_thinking_block_and_empty_text_are_left_out() {
    let body = [
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Hmm"}}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_stop", "index": 1}),
    ]
    .iter()
    .map(named)
    .collect::<String>();
    let (_, response) = read(ModelApi::Anthropic, &[], &body);
    assert_eq!(
        response.message,
        json!({"role": "assistant", "content": []})
    );
    assert!(response.message_is_empty());
}

#[test]
fn an_error_event_inside_the_stream_is_kept_with_whether_to_retry() {
    let body = named(
        &json!({"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}}),
    ) + &named(
        &json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    );
    let (_, response) = read(ModelApi::Anthropic, &[], &body);
    let error = response.error.expect("the error event");
    assert_eq!(
        (error.kind.as_str(), error.retryable),
        ("overloaded_error", true)
    );
    assert_eq!(
        error.to_string(),
        "the API stopped the response (overloaded_error): Overloaded"
    );
    assert!(!response.ended);
    let chat = data(
        &json!({"error": {"message": "The server had an error.", "type": "server_error", "param": null, "code": null}}),
    );
    let (_, response) = read(ModelApi::OpenAiChat, &[], &chat);
    assert!(response.error.is_some_and(|error| error.retryable));
    let refused = data(&json!({"error": {"message": "Invalid", "type": "invalid_request_error"}}));
    let (_, response) = read(ModelApi::OpenAiChat, &[], &refused);
    assert!(response.error.is_some_and(|error| !error.retryable));
}

fn chat_chunk(delta: Value, finish: Value) -> String {
    data(
        &json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_694_268_190, "model": "gpt-4o-mini", "system_fingerprint": "fp_44709d6fcb", "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]}),
    )
}

fn chat_events(cut_mid_call: bool) -> String {
    let mut body = chat_chunk(json!({"role": "assistant", "content": ""}), Value::Null);
    body += &chat_chunk(json!({"content": "Reading "}), Value::Null);
    body += &chat_chunk(json!({"content": "both."}), Value::Null);
    body += &chat_chunk(
        json!({"tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "Read", "arguments": ""}}]}),
        Value::Null,
    );
    body += &chat_chunk(
        json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"file_path\": \"/a\"}"}}]}),
        Value::Null,
    );
    body += &chat_chunk(
        json!({"tool_calls": [{"index": 1, "id": "call_b", "type": "function", "function": {"name": "Grep", "arguments": "{\"pattern\": "}}]}),
        Value::Null,
    );
    if cut_mid_call {
        return body;
    }
    body += &chat_chunk(
        json!({"tool_calls": [{"index": 1, "function": {"arguments": "\"fn\"}"}}]}),
        Value::Null,
    );
    body += &chat_chunk(json!({}), json!("tool_calls"));
    body + "data: [DONE]\n\n"
}

#[test]
fn openai_chat_text_and_two_calls_make_one_assistant_message() {
    let (started, response) = read(ModelApi::OpenAiChat, &[], &chat_events(false));
    assert_eq!(started.len(), 2);
    assert_eq!(response.text, "Reading both.");
    assert_eq!(response.stop_reason.as_deref(), Some("tool_calls"));
    assert!(response.ended);
    assert_eq!(
        response.message,
        json!({"role": "assistant", "content": "Reading both.", "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "Read", "arguments": "{\"file_path\":\"/a\"}"}},
            {"id": "call_b", "type": "function", "function": {"name": "Grep", "arguments": "{\"pattern\":\"fn\"}"}},
        ]})
    );
    let answer = ModelApi::OpenAiChat
        .read_calls(&json!({"choices": [{"message": response.message}]}), &[])
        .unwrap();
    assert_eq!(
        answer, response.calls,
        "the message reads back as the same calls"
    );
}

#[test]
fn an_openai_chat_stream_cut_mid_call_fails_that_call_alone() {
    let (_, response) = read(ModelApi::OpenAiChat, &[], &chat_events(true));
    assert!(!response.ended, "no finish_reason, no [DONE]");
    assert_eq!(
        response.calls.calls[0].input,
        Ok(json!({"file_path": "/a"}))
    );
    assert!(matches!(
        response.calls.calls[1].input,
        Err(ArgumentsError::Truncated { .. })
    ));
    assert_eq!(
        response.message["tool_calls"][1]["function"]["arguments"],
        "{}"
    );
    assert_eq!(response.message["content"], "Reading both.");
}

#[test]
fn the_text_grows_as_the_chunks_arrive() {
    let mut stream = ModelApi::OpenAiChat.stream(&[]).unwrap();
    let mut sink = Vec::new();
    let mut seen = Vec::new();
    for chunk in [
        json!({"content": "Hel"}),
        json!({"content": "lo é"}),
        json!({}),
    ] {
        stream
            .push_bytes(chat_chunk(chunk, Value::Null).as_bytes(), &mut sink)
            .unwrap();
        seen.push(stream.text().to_owned());
    }
    assert_eq!(seen, ["Hel", "Hello é", "Hello é"]);
    let response = stream.finish(&mut sink);
    assert_eq!(
        response.message,
        json!({"role": "assistant", "content": "Hello é"})
    );
}

fn responses_events(cut_mid_call: bool) -> String {
    let mut body = String::new();
    let mut event = |value: Value| body += &named(&value);
    let reasoning = json!({"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Read it."}], "encrypted_content": "gAAAAABo"});
    let message = json!({"id": "msg_1", "type": "message", "status": "completed", "role": "assistant", "content": [{"type": "output_text", "text": "Let me check.", "annotations": []}]});
    event(
        json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}}),
    );
    event(
        json!({"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": {"id": "rs_1", "type": "reasoning", "summary": []}}),
    );
    event(
        json!({"type": "response.output_item.done", "sequence_number": 2, "output_index": 0, "item": reasoning}),
    );
    event(
        json!({"type": "response.output_item.added", "sequence_number": 3, "output_index": 1, "item": {"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant", "content": []}}),
    );
    event(
        json!({"type": "response.content_part.added", "sequence_number": 4, "item_id": "msg_1", "output_index": 1, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
    );
    event(
        json!({"type": "response.output_text.delta", "sequence_number": 5, "item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": "Let me "}),
    );
    event(
        json!({"type": "response.output_text.delta", "sequence_number": 6, "item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": "check."}),
    );
    event(
        json!({"type": "response.output_text.done", "sequence_number": 7, "item_id": "msg_1", "output_index": 1, "content_index": 0, "text": "Let me check."}),
    );
    event(
        json!({"type": "response.output_item.done", "sequence_number": 8, "output_index": 1, "item": message}),
    );
    event(
        json!({"type": "response.output_item.added", "sequence_number": 9, "output_index": 2, "item": {"id": "fc_1", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_1", "name": "Read"}}),
    );
    event(
        json!({"type": "response.function_call_arguments.delta", "sequence_number": 10, "item_id": "fc_1", "output_index": 2, "delta": "{\"file_path\":"}),
    );
    if cut_mid_call {
        return body;
    }
    event(
        json!({"type": "response.function_call_arguments.delta", "sequence_number": 11, "item_id": "fc_1", "output_index": 2, "delta": "\"/a\"}"}),
    );
    event(
        json!({"type": "response.function_call_arguments.done", "sequence_number": 12, "item_id": "fc_1", "output_index": 2, "arguments": "{\"file_path\":\"/a\"}"}),
    );
    event(
        json!({"type": "response.output_item.done", "sequence_number": 13, "output_index": 2, "item": {"id": "fc_1", "type": "function_call", "status": "completed", "arguments": "{\"file_path\":\"/a\"}", "call_id": "call_1", "name": "Read"}}),
    );
    event(
        json!({"type": "response.completed", "sequence_number": 14, "response": {"id": "resp_1", "object": "response", "status": "completed", "incomplete_details": null, "error": null}}),
    );
    body
}

#[test]
fn responses_reasoning_message_and_function_call_items_make_the_output() {
    let (started, response) = read(ModelApi::OpenAiResponses, &[], &responses_events(false));
    assert_eq!(started.len(), 1);
    assert_eq!(response.calls.calls[0].id, "call_1");
    assert_eq!(
        response.calls.calls[0].input,
        Ok(json!({"file_path": "/a"}))
    );
    assert_eq!(response.text, "Let me check.");
    assert_eq!(response.stop_reason.as_deref(), Some("completed"));
    assert!(response.ended);
    let items = response.message.as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(
        items[0]["encrypted_content"], "gAAAAABo",
        "reasoning kept as received"
    );
    assert_eq!(items[1]["content"][0]["text"], "Let me check.");
    assert_eq!(
        items[2],
        json!({"id": "fc_1", "type": "function_call", "status": "completed", "arguments": "{\"file_path\":\"/a\"}", "call_id": "call_1", "name": "Read"})
    );
    let read_back = ModelApi::OpenAiResponses
        .read_calls(&json!({"output": response.message}), &[])
        .unwrap();
    assert_eq!(
        read_back, response.calls,
        "the items read back as the same calls"
    );
}

#[test]
fn a_responses_stream_cut_mid_call_keeps_the_item_as_incomplete() {
    let (_, response) = read(ModelApi::OpenAiResponses, &[], &responses_events(true));
    assert!(!response.ended);
    assert!(matches!(
        response.calls.calls[0].input,
        Err(ArgumentsError::Truncated { .. })
    ));
    let call = &response.message[2];
    assert_eq!(
        (call["status"].as_str(), call["arguments"].as_str()),
        (Some("incomplete"), Some("{}"))
    );
    assert_eq!(response.message[1]["status"], "completed");
}

#[test]
fn responses_incomplete_and_failed_say_why() {
    let incomplete = named(
        &json!({"type": "response.incomplete", "response": {"id": "resp_1", "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}}),
    );
    let (_, response) = read(ModelApi::OpenAiResponses, &[], &incomplete);
    assert_eq!(response.stop_reason.as_deref(), Some("max_output_tokens"));
    assert!(response.ended);
    let failed = named(
        &json!({"type": "response.failed", "response": {"id": "resp_1", "status": "failed", "error": {"code": "server_error", "message": "boom"}}}),
    );
    let (_, response) = read(ModelApi::OpenAiResponses, &[], &failed);
    let error = response.error.unwrap();
    assert_eq!(
        (error.kind.as_str(), error.message.as_str(), error.retryable),
        ("server_error", "boom", true)
    );
    let event = named(
        &json!({"type": "error", "code": "rate_limit_exceeded", "message": "slow down", "param": null, "sequence_number": 2}),
    );
    let (_, response) = read(ModelApi::OpenAiResponses, &[], &event);
    assert!(response.error.as_ref().is_some_and(|error| error.retryable));
    assert!(response.message_is_empty());
}

#[test]
fn gemini_text_thought_and_function_call_make_one_model_content() {
    let tools = echo_pool(&["3d_render", "Read"]);
    let sent = GeminiNames::for_tools(&tools)
        .to_gemini("3d_render")
        .to_owned();
    let chunk = |parts: Value, finish: Option<&str>| {
        let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
        if let Some(finish) = finish {
            candidate["finishReason"] = json!(finish);
        }
        data(
            &json!({"candidates": [candidate], "usageMetadata": {"promptTokenCount": 10, "totalTokenCount": 12}, "modelVersion": "gemini-2.5-flash", "responseId": "r1"}),
        )
    };
    let body = chunk(json!([{"text": "Planning", "thought": true}]), None)
        + &chunk(json!([{"text": "Let me "}]), None)
        + &chunk(json!([{"text": "render é."}]), None)
        + &chunk(json!([{"text": "", "thoughtSignature": "CiIBVKhc"}]), None)
        + &chunk(
            json!([{"functionCall": {"name": sent, "args": {"scene": "cube"}}, "thoughtSignature": "CiQBVKhc"}]),
            Some("STOP"),
        );
    let (started, response) = read(ModelApi::Gemini, &tools, &body);
    assert_eq!(started.len(), 1);
    assert_eq!(
        response.calls.calls[0].name, "3d_render",
        "mapped back for the pool"
    );
    assert_eq!(response.calls.calls[0].id, "gemini-call-0");
    assert_eq!(response.text, "Let me render é.", "thoughts are not text");
    assert_eq!(response.stop_reason.as_deref(), Some("STOP"));
    assert!(response.ended);
    assert_eq!(
        response.message,
        json!({"role": "model", "parts": [
            {"text": "Planning", "thought": true},
            {"text": "Let me render é."},
            {"text": "", "thoughtSignature": "CiIBVKhc"},
            {"functionCall": {"name": sent, "args": {"scene": "cube"}}, "thoughtSignature": "CiQBVKhc"},
        ]}),
        "names as Gemini sent them, signatures on the parts they came with"
    );
}

#[test]
fn a_gemini_stream_without_a_finish_reason_did_not_end() {
    let body =
        data(&json!({"candidates": [{"content": {"parts": [{"text": "Half"}], "role": "model"}}]}));
    let (_, response) = read(ModelApi::Gemini, &[], &body);
    assert!(!response.ended);
    assert_eq!(
        response.message,
        json!({"role": "model", "parts": [{"text": "Half"}]})
    );
    let unavailable = data(
        &json!({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}),
    );
    let (_, response) = read(ModelApi::Gemini, &[], &unavailable);
    assert!(
        response
            .error
            .is_some_and(|error| error.retryable && error.kind == "UNAVAILABLE")
    );
}

#[test]
fn mcp_has_no_stream_and_an_empty_stream_wrote_nothing() {
    assert_eq!(
        ModelApi::Mcp.stream(&[]).unwrap_err(),
        ReadError::NotAModelApi
    );
    for api in [
        ModelApi::Anthropic,
        ModelApi::OpenAiChat,
        ModelApi::OpenAiResponses,
        ModelApi::Gemini,
    ] {
        let response = api.stream(&[]).unwrap().finish(&mut Vec::new());
        assert!(response.message_is_empty(), "{api}: {}", response.message);
        assert!(
            !response.ended && response.calls.is_empty() && response.text.is_empty(),
            "{api}"
        );
    }
}
