//! Streamed tool calls at the edges: a call cut by the token limit, Gemini chunks, a bad event
//! inside a chunk, arguments sent as an object, pieces after a call has closed, a late first
//! id, and an id repeated across calls (the rest of the stream cases are in `provider_streams`).

mod providers_support;

use serde_json::{Value, json};
use tool_registry::providers::gemini::GeminiNames;
use tool_registry::providers::stream::ResponseStream;
use tool_registry::providers::{ArgumentsError, ModelApi, ModelToolCall};

use providers_support::echo_pool;

fn new_stream(api: ModelApi) -> ResponseStream {
    api.stream(&[]).unwrap()
}

#[test]
fn a_call_cut_by_the_token_limit_fails_as_truncated() {
    let mut chat = new_stream(ModelApi::OpenAiChat);
    let mut sink = Vec::new();
    chat.push_event(&json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "Write", "arguments": "{\"content\": \"long"}}]}}]}), &mut sink);
    chat.push_event(
        &json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}),
        &mut sink,
    );
    assert_eq!(sink.len(), 1, "handed over at finish_reason");
    assert!(
        matches!(sink[0].input, Err(ArgumentsError::Truncated { .. })),
        "{:?}",
        sink[0]
    );
    let mut anthropic = new_stream(ModelApi::Anthropic);
    anthropic.push_event(&json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {}}}), &mut sink);
    anthropic.push_event(&json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"content\": \"lo"}}), &mut sink);
    anthropic.push_event(
        &json!({"type": "content_block_stop", "index": 0}),
        &mut sink,
    );
    let calls = anthropic.finish(&mut sink).calls;
    assert!(
        matches!(calls.calls[0].input, Err(ArgumentsError::Truncated { .. })),
        "{:?}",
        calls.calls[0]
    );
}

#[test]
fn gemini_chunks_hand_over_each_call_with_its_chunk() {
    let tools = echo_pool(&["3d_render", "Read"]);
    let sent = GeminiNames::for_tools(&tools)
        .to_gemini("3d_render")
        .to_owned();
    assert_ne!(sent, "3d_render", "a name Gemini refuses is sent mapped");
    let chunk = |parts: Value| {
        format!(
            "data: {}\r\n\r\n",
            json!({"candidates": [{"content": {"role": "model", "parts": parts}}]})
        )
    };
    let body = chunk(json!([{"text": "Rendering é"}]))
        + &chunk(json!([{"functionCall": {"name": sent, "args": {"scene": "cubé"}}}]))
        + &chunk(
            json!([{"functionCall": {"id": "c2", "name": "Read", "args": {"file_path": "/a"}}}]),
        );
    let split = body.find("Read").unwrap();
    let mut stream = ModelApi::Gemini.stream(&tools).unwrap();
    let mut started = Vec::new();
    for byte in &body.as_bytes()[..split] {
        stream
            .push_bytes(std::slice::from_ref(byte), &mut started)
            .unwrap();
    }
    assert_eq!(
        started.len(),
        1,
        "the first call is out before the second chunk is read"
    );
    assert_eq!(started[0].name, "3d_render");
    stream
        .push_bytes(&body.as_bytes()[split..], &mut started)
        .unwrap();
    let calls = stream.finish(&mut started).calls;
    let ids: Vec<(&str, bool)> = calls
        .calls
        .iter()
        .map(|c| (c.id.as_str(), c.id_was_sent))
        .collect();
    assert_eq!(ids, [("gemini-call-0", false), ("c2", true)]);
    assert_eq!(calls.calls[0].input, Ok(json!({"scene": "cubé"})));
}

fn chat_chunk(tool_calls: Value, finish: Value) -> Value {
    json!({"choices": [{"index": 0, "delta": {"tool_calls": tool_calls}, "finish_reason": finish}]})
}

#[test]
fn a_bad_event_in_a_chunk_does_not_drop_the_events_after_it() {
    let mut stream = new_stream(ModelApi::OpenAiChat);
    let mut started = Vec::new();
    let body = format!(
        "data: {}\n\ndata: {{oops\n\ndata: {}\n\n",
        chat_chunk(
            json!([{"index": 0, "id": "call_1", "function": {"name": "Read", "arguments": "{\"a\":"}}]),
            Value::Null
        ),
        chat_chunk(
            json!([{"index": 0, "function": {"arguments": "1}"}}]),
            Value::Null
        ),
    );
    let error = stream
        .push_bytes(body.as_bytes(), &mut started)
        .unwrap_err();
    assert_eq!(error.index, 1, "{error}");
    assert_eq!(started.len(), 1, "the event after the bad one was read");
    assert_eq!(started[0].input, Ok(json!({"a": 1})));
}

#[test]
fn chat_stream_arguments_sent_as_an_object_are_taken_as_is() {
    let mut stream = new_stream(ModelApi::OpenAiChat);
    let mut started = Vec::new();
    stream.push_event(
        &chat_chunk(
            json!([{"index": 0, "id": "call_1", "function": {"name": "Read", "arguments": {"file_path": "/a"}}}]),
            json!("tool_calls"),
        ),
        &mut started,
    );
    let calls = stream.finish(&mut started).calls;
    assert_eq!(calls.calls[0].input, Ok(json!({"file_path": "/a"})));
}

#[test]
fn a_named_piece_after_a_finished_call_starts_a_new_call() {
    let mut stream = new_stream(ModelApi::OpenAiChat);
    let mut started = Vec::new();
    // Neither id nor index: each call is one piece carrying its name.
    for (name, args) in [("Read", "{\"x\":1}"), ("Glob", "{\"y\":2}")] {
        stream.push_event(
            &chat_chunk(
                json!([{"function": {"name": name, "arguments": args}}]),
                Value::Null,
            ),
            &mut started,
        );
    }
    let calls = stream.finish(&mut started).calls;
    let summary: Vec<(&str, Value)> = calls
        .calls
        .iter()
        .map(|c| (c.name.as_str(), c.input.clone().unwrap()))
        .collect();
    assert_eq!(
        summary,
        [("Read", json!({"x": 1})), ("Glob", json!({"y": 2}))]
    );
    assert_ne!(
        calls.calls[0].id, calls.calls[1].id,
        "made-up ids are distinct"
    );
}

#[test]
fn a_chat_call_whose_id_comes_on_its_second_piece_stays_one_call() {
    let mut stream = new_stream(ModelApi::OpenAiChat);
    let mut started = Vec::new();
    stream.push_event(
        &chat_chunk(
            json!([{"index": 0, "function": {"name": "Read", "arguments": "{\"a\":"}}]),
            Value::Null,
        ),
        &mut started,
    );
    stream.push_event(
        &chat_chunk(
            json!([{"index": 0, "id": "call_real", "function": {"arguments": "1}"}}]),
            Value::Null,
        ),
        &mut started,
    );
    let calls = stream.finish(&mut started).calls;
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls.calls[0].id, "call_real");
    assert_eq!(calls.calls[0].name, "Read");
    assert_eq!(calls.calls[0].input, Ok(json!({"a": 1})));
}

#[test]
fn a_streamed_call_repeating_a_handed_over_id_is_never_run_and_answered_alone() {
    let mut stream = new_stream(ModelApi::OpenAiChat);
    let mut started: Vec<ModelToolCall> = Vec::new();
    // Two calls share `call_x`; the one at index 1 closes (and is handed over) first.
    stream.push_event(
        &chat_chunk(
            json!([
                {"index": 0, "id": "call_x", "function": {"name": "Write", "arguments": "{\"n\":"}},
                {"index": 1, "id": "call_x", "function": {"name": "Write", "arguments": "{\"n\":2}"}}
            ]),
            Value::Null,
        ),
        &mut started,
    );
    stream.push_event(
        &chat_chunk(
            json!([{"index": 0, "function": {"arguments": "1}"}}]),
            json!("tool_calls"),
        ),
        &mut started,
    );
    let runnable: Vec<Value> = started
        .iter()
        .filter_map(|c| c.input.clone().ok())
        .collect();
    assert_eq!(
        runnable,
        [json!({"n": 2})],
        "the first handed over runs, alone"
    );
    let calls = stream.finish(&mut started).calls;
    assert_eq!(calls.len(), 2);
    assert!(
        matches!(&calls.calls[0].input, Err(ArgumentsError::DuplicateId { id, .. }) if id == "call_x"),
        "{:?}",
        calls.calls[0]
    );
    assert_eq!(calls.calls[1].input, Ok(json!({"n": 2})));
    let paired = calls
        .pair(vec![tool_sdk::ToolResultBlock::success(
            "call_x", "wrote 2",
        )])
        .unwrap();
    assert_eq!(paired.len(), 2);
    assert!(paired[0].is_error && paired[0].text().contains("`call_x`"));
    assert_eq!(paired[1].text(), "wrote 2");
    assert_eq!(
        calls.pair(paired.clone()).unwrap(),
        paired,
        "results paired before come back unchanged"
    );
}
