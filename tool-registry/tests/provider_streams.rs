//! Streamed tool calls, per API, from raw event sequences: split UTF-8 and split escapes,
//! interleaved parallel calls, a reused index with a new id, a truncated stream; handed to the
//! streaming executor as each call completes; and a proptest that any split of the same bytes
//! assembles the same calls.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt as _;
use proptest::prelude::*;
use serde_json::{Value, json};
use tool_registry::dynamic::{DynamicTool, ToolHandler};
use tool_registry::orchestration::ToolUseUpdate;
use tool_registry::providers::stream::ResponseStream;
use tool_registry::providers::{ArgumentsError, ModelApi, ModelToolCall, ToolCalls};
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::{DynTool, ToolResultContent};

/// Arguments with a multi-byte character on every side of a split, escapes and a `}` in a string.
const ARGS_A: &str = r#"{"file_path": "/tmp/café/naïve \"q\" {x}.txt", "note": "😀 \u00e9\n\\"}"#;
const ARGS_B: &str = r#"{"pattern": "fn main\\(\\) \\{", "path": "/src/日本語"}"#;

fn sse(event: &str, data: &Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

/// Splits `text` into `pieces` deltas at char boundaries spread over it.
fn deltas(text: &str, pieces: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let size = chars.len().div_ceil(pieces).max(1);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

fn anthropic_body(truncate_second: bool) -> String {
    let mut body = sse(
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}}),
    );
    body += &sse(
        "content_block_start",
        &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    );
    body += &sse(
        "content_block_delta",
        &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Reading é."}}),
    );
    body += &sse(
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": 0}),
    );
    for (index, id, name, args) in [
        (1, "toolu_a", "Read", ARGS_A),
        (2, "toolu_b", "Grep", ARGS_B),
    ] {
        body += &sse(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
        );
        let pieces = deltas(args, 7);
        let last = pieces.len();
        for (i, piece) in pieces.into_iter().enumerate() {
            if truncate_second && index == 2 && i == last / 2 {
                return body;
            }
            body += &sse(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}),
            );
        }
        body += &sse(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        );
    }
    body += &sse(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
    );
    body += &sse("message_stop", &json!({"type": "message_stop"}));
    body
}

/// Chat chunks with both calls' pieces interleaved.
fn chat_body() -> String {
    let chunk = |tool_calls: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": tool_calls}, "finish_reason": finish}]})
        )
    };
    let mut body = chunk(
        json!([{"index": 0, "id": "call_a", "type": "function", "function": {"name": "Read", "arguments": ""}}]),
        Value::Null,
    );
    body += &chunk(
        json!([{"index": 1, "id": "call_b", "type": "function", "function": {"name": "Grep", "arguments": ""}}]),
        Value::Null,
    );
    let a = deltas(ARGS_A, 5);
    let b = deltas(ARGS_B, 5);
    for i in 0..a.len().max(b.len()) {
        if let Some(piece) = a.get(i) {
            body += &chunk(
                json!([{"index": 0, "function": {"arguments": piece}}]),
                Value::Null,
            );
        }
        if let Some(piece) = b.get(i) {
            body += &chunk(
                json!([{"index": 1, "function": {"arguments": piece}}]),
                Value::Null,
            );
        }
    }
    body += &chunk(json!([]), json!("tool_calls"));
    body += "data: [DONE]\n\n";
    body
}

/// Responses events with both items' deltas interleaved.
fn responses_body(truncate_second: bool) -> String {
    let mut body = String::new();
    let mut event = |value: Value| body += &sse(value["type"].as_str().unwrap(), &value);
    event(json!({"type": "response.created", "response": {"id": "resp_1", "output": []}}));
    for (index, item, call, name) in [(0, "fc_a", "call_a", "Read"), (1, "fc_b", "call_b", "Grep")]
    {
        event(
            json!({"type": "response.output_item.added", "output_index": index, "item": {"type": "function_call", "id": item, "call_id": call, "name": name, "arguments": ""}}),
        );
    }
    let a = deltas(ARGS_A, 6);
    let b = deltas(ARGS_B, 6);
    for i in 0..a.len().max(b.len()) {
        if let Some(piece) = a.get(i) {
            event(
                json!({"type": "response.function_call_arguments.delta", "item_id": "fc_a", "output_index": 0, "delta": piece}),
            );
        }
        if let Some(piece) = b.get(i) {
            event(
                json!({"type": "response.function_call_arguments.delta", "item_id": "fc_b", "output_index": 1, "delta": piece}),
            );
        }
    }
    event(
        json!({"type": "response.function_call_arguments.done", "item_id": "fc_a", "output_index": 0, "arguments": ARGS_A}),
    );
    event(
        json!({"type": "response.output_item.done", "output_index": 0, "item": {"type": "function_call", "id": "fc_a", "call_id": "call_a", "name": "Read", "arguments": ARGS_A}}),
    );
    if truncate_second {
        return body;
    }
    event(
        json!({"type": "response.function_call_arguments.done", "item_id": "fc_b", "output_index": 1, "arguments": ARGS_B}),
    );
    event(json!({"type": "response.completed", "response": {"id": "resp_1"}}));
    body
}

fn parsed(args: &str) -> Value {
    serde_json::from_str(args).unwrap()
}

/// Feeds `body` in chunks cut at `cuts` (byte offsets, any order), returning the handed-over
/// calls and the final list.
fn assemble(api: ModelApi, body: &[u8], cuts: &[usize]) -> (Vec<ModelToolCall>, ToolCalls) {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (body.len() + 1)).collect();
    cuts.push(0);
    cuts.push(body.len());
    cuts.sort_unstable();
    let mut stream = new_stream(api);
    let mut started = Vec::new();
    for pair in cuts.windows(2) {
        stream
            .push_bytes(&body[pair[0]..pair[1]], &mut started)
            .unwrap();
    }
    let calls = stream.finish(&mut started).calls;
    (started, calls)
}

fn new_stream(api: ModelApi) -> ResponseStream {
    api.stream(&[]).unwrap()
}

fn byte_by_byte(body: &str) -> Vec<usize> {
    (0..body.len()).collect()
}

#[test]
fn anthropic_blocks_assemble_across_split_characters_and_escapes() {
    let body = anthropic_body(false);
    let (started, calls) = assemble(ModelApi::Anthropic, body.as_bytes(), &byte_by_byte(&body));
    assert_eq!(started, calls.calls);
    assert_eq!(calls.calls.len(), 2);
    assert_eq!(
        (calls.calls[0].id.as_str(), calls.calls[0].name.as_str()),
        ("toolu_a", "Read")
    );
    assert_eq!(calls.calls[0].input, Ok(parsed(ARGS_A)));
    assert_eq!(calls.calls[1].input, Ok(parsed(ARGS_B)));
}

#[test]
fn a_truncated_anthropic_stream_fails_only_the_unfinished_call() {
    let body = anthropic_body(true);
    let (started, calls) = assemble(ModelApi::Anthropic, body.as_bytes(), &[]);
    assert_eq!(started.len(), 2);
    assert_eq!(calls.calls[0].input, Ok(parsed(ARGS_A)));
    assert!(
        matches!(
            &calls.calls[1].input,
            Err(ArgumentsError::Truncated { tool, received }) if tool == "Grep" && *received > 0
        ),
        "{:?}",
        calls.calls[1]
    );
    assert_eq!(calls.runnable().len(), 1);
    let answered = calls
        .pair(vec![tool_sdk::ToolResultBlock::success("toolu_a", "ok")])
        .unwrap();
    assert!(answered[1].is_error);
    assert!(
        answered[1]
            .text()
            .contains("ended before the arguments of Grep were complete"),
        "{}",
        answered[1].text()
    );
}

#[test]
fn interleaved_chat_calls_are_handed_over_as_each_closes() {
    let body = chat_body();
    let (started, calls) = assemble(ModelApi::OpenAiChat, body.as_bytes(), &byte_by_byte(&body));
    assert_eq!(calls.calls.len(), 2);
    assert_eq!(calls.calls[0].input, Ok(parsed(ARGS_A)));
    assert_eq!(calls.calls[1].input, Ok(parsed(ARGS_B)));
    // Each was handed over when its JSON closed, before the finish_reason chunk.
    let mut stream = new_stream(ModelApi::OpenAiChat);
    let mut seen = Vec::new();
    let finish_at = body.find("\"finish_reason\":\"tool_calls\"").unwrap();
    let before_finish = body[..finish_at].rfind("data:").unwrap();
    stream
        .push_bytes(&body.as_bytes()[..before_finish], &mut seen)
        .unwrap();
    assert_eq!(seen.len(), 2, "both closed before finish_reason");
    assert_eq!(started.len(), 2);
}

#[test]
fn a_reused_chat_index_with_a_new_id_starts_a_new_call() {
    let mut stream = new_stream(ModelApi::OpenAiChat);
    let mut started = Vec::new();
    let chunk = |tool_calls: Value, finish: Value| json!({"choices": [{"index": 0, "delta": {"tool_calls": tool_calls}, "finish_reason": finish}]});
    stream.push_event(&chunk(json!([{"index": 0, "id": "call_1", "function": {"name": "Read", "arguments": "{\"file_path\":"}}]), Value::Null), &mut started);
    stream.push_event(
        &chunk(
            json!([{"index": 0, "function": {"arguments": " \"/a\"}"}}]),
            Value::Null,
        ),
        &mut started,
    );
    assert_eq!(started.len(), 1, "closed JSON hands the call over");
    // Same index, new id: a new call. Its arguments come without an id and continue it.
    stream.push_event(
        &chunk(
            json!([{"index": 0, "id": "call_2", "function": {"name": "Glob", "arguments": ""}}]),
            Value::Null,
        ),
        &mut started,
    );
    stream.push_event(
        &chunk(
            json!([{"index": 0, "function": {"arguments": "{\"pattern\":"}}]),
            Value::Null,
        ),
        &mut started,
    );
    stream.push_event(
        &chunk(
            json!([{"index": 0, "function": {"arguments": "\"*.rs\"}"}}]),
            Value::Null,
        ),
        &mut started,
    );
    // A third call whose arguments are empty text: complete only at finish_reason.
    stream.push_event(
        &chunk(
            json!([{"index": 0, "id": "call_3", "function": {"name": "List", "arguments": ""}}]),
            Value::Null,
        ),
        &mut started,
    );
    assert_eq!(started.len(), 2);
    stream.push_event(&chunk(json!([]), json!("tool_calls")), &mut started);
    let calls = stream.finish(&mut started).calls;
    let summary: Vec<(&str, &str, Value)> = calls
        .calls
        .iter()
        .map(|c| (c.id.as_str(), c.name.as_str(), c.input.clone().unwrap()))
        .collect();
    assert_eq!(
        summary,
        [
            ("call_1", "Read", json!({"file_path": "/a"})),
            ("call_2", "Glob", json!({"pattern": "*.rs"})),
            ("call_3", "List", json!({})),
        ]
    );
    assert_eq!(started.len(), 3);
}

#[test]
fn a_truncated_chat_stream_fails_only_the_open_call() {
    let mut stream = new_stream(ModelApi::OpenAiChat);
    let mut started = Vec::new();
    let body = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"function\":{\"name\":\"Read\",\"arguments\":\"{}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_2\",\"function\":{\"name\":\"Grep\",\"arguments\":\"{\\\"pattern\\\": \\\"ab\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"c\\\\\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"ind",
    );
    stream.push_bytes(body.as_bytes(), &mut started).unwrap();
    let calls = stream.finish(&mut started).calls;
    assert_eq!(calls.calls[0].input, Ok(json!({})));
    assert!(
        matches!(calls.calls[1].input, Err(ArgumentsError::Truncated { .. })),
        "{:?}",
        calls.calls[1]
    );
}

#[test]
fn responses_items_assemble_and_a_cut_item_fails_alone() {
    let body = responses_body(false);
    let (started, calls) = assemble(
        ModelApi::OpenAiResponses,
        body.as_bytes(),
        &byte_by_byte(&body),
    );
    assert_eq!(started.len(), 2);
    let ids: Vec<&str> = calls.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["call_a", "call_b"]);
    assert_eq!(calls.calls[0].input, Ok(parsed(ARGS_A)));
    assert_eq!(calls.calls[1].input, Ok(parsed(ARGS_B)));
    let body = responses_body(true);
    let (_, calls) = assemble(ModelApi::OpenAiResponses, body.as_bytes(), &[]);
    assert_eq!(calls.calls[0].input, Ok(parsed(ARGS_A)));
    assert!(matches!(
        calls.calls[1].input,
        Err(ArgumentsError::Truncated { .. })
    ));
}

fn echo_pool() -> Vec<Arc<dyn DynTool>> {
    let handler = ToolHandler::new(|input: Value, _ctx| async move {
        Ok(ToolResultContent::Text(input.to_string()))
    });
    ["Read", "Grep"]
        .into_iter()
        .map(|name| {
            Arc::new(DynamicTool::from_json(&json!({"name": name, "description": "Echoes.", "input_schema": {"type": "object"}}), handler.clone()).unwrap()) as Arc<dyn DynTool>
        })
        .collect()
}

#[tokio::test]
async fn a_call_runs_while_the_rest_of_the_response_is_still_streaming() {
    let body = anthropic_body(false);
    let second_start = body.find("\"id\":\"toolu_b\"").unwrap();
    let split = body[..second_start].rfind("event:").unwrap();
    let orchestrator = Orchestrator::new(&echo_pool(), OrchestratorConfig::default());
    let mut executor = orchestrator.streaming(TurnState::default());
    let mut stream = new_stream(ModelApi::Anthropic);
    stream
        .push_bytes(&body.as_bytes()[..split], &mut executor)
        .unwrap();
    // The first call's result arrives before the second call has even started streaming.
    let first = tokio::time::timeout(Duration::from_secs(10), executor.updates().next())
        .await
        .expect("the first call ran before the stream ended")
        .unwrap();
    let ToolUseUpdate::Result {
        index: 0, result, ..
    } = first
    else {
        panic!("{first:?}");
    };
    assert_eq!(result.tool_use_id, "toolu_a");
    assert_eq!(
        serde_json::from_str::<Value>(&result.text()).unwrap(),
        parsed(ARGS_A)
    );
    stream
        .push_bytes(&body.as_bytes()[split..], &mut executor)
        .unwrap();
    let calls = stream.finish(&mut executor).calls;
    let rest = executor.collect_results().await;
    let mut results = vec![result];
    results.extend(
        rest.results
            .into_iter()
            .filter(|r| r.tool_use_id != "toolu_a"),
    );
    let answered = calls.pair(results).unwrap();
    let ids: Vec<&str> = answered.iter().map(|r| r.tool_use_id.as_str()).collect();
    assert_eq!(ids, ["toolu_a", "toolu_b"]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_split_of_the_bytes_assembles_the_same_calls(cuts in proptest::collection::vec(any::<usize>(), 0..40)) {
        let anthropic = anthropic_body(false);
        let (_, whole) = assemble(ModelApi::Anthropic, anthropic.as_bytes(), &[]);
        let (_, split) = assemble(ModelApi::Anthropic, anthropic.as_bytes(), &cuts);
        prop_assert_eq!(whole, split);
        let chat = chat_body();
        let (_, whole) = assemble(ModelApi::OpenAiChat, chat.as_bytes(), &[]);
        let (_, split) = assemble(ModelApi::OpenAiChat, chat.as_bytes(), &cuts);
        prop_assert_eq!(whole, split);
        let responses = responses_body(false);
        let (_, whole) = assemble(ModelApi::OpenAiResponses, responses.as_bytes(), &[]);
        let (_, split) = assemble(ModelApi::OpenAiResponses, responses.as_bytes(), &cuts);
        prop_assert_eq!(whole, split);
    }

    #[test]
    fn any_split_of_the_arguments_into_deltas_assembles_the_same_input(
        text in "[a-zA-Z0-9 é😀\"\\\\{}\\[\\]:,]{0,40}",
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
    ) {
        let args = json!({"text": text, "nested": {"list": [1, "two", {"three": text}]}}).to_string();
        let chars: Vec<char> = args.chars().collect();
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (chars.len() + 1)).collect();
        cuts.push(0);
        cuts.push(chars.len());
        cuts.sort_unstable();
        let pieces: Vec<String> = cuts.windows(2).map(|w| chars[w[0]..w[1]].iter().collect()).collect();
        let mut anthropic = new_stream(ModelApi::Anthropic);
        let mut chat = new_stream(ModelApi::OpenAiChat);
        let mut responses = new_stream(ModelApi::OpenAiResponses);
        let mut sink = Vec::new();
        anthropic.push_event(&json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "Echo", "input": {}}}), &mut sink);
        chat.push_event(&json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "t", "function": {"name": "Echo", "arguments": ""}}]}}]}), &mut sink);
        responses.push_event(&json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc", "call_id": "t", "name": "Echo", "arguments": ""}}), &mut sink);
        for piece in &pieces {
            anthropic.push_event(&json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}}), &mut sink);
            chat.push_event(&json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}}]}), &mut sink);
            responses.push_event(&json!({"type": "response.function_call_arguments.delta", "item_id": "fc", "output_index": 0, "delta": piece}), &mut sink);
        }
        anthropic.push_event(&json!({"type": "content_block_stop", "index": 0}), &mut sink);
        responses.push_event(&json!({"type": "response.output_item.done", "output_index": 0, "item": {"type": "function_call", "id": "fc", "call_id": "t", "name": "Echo"}}), &mut sink);
        let expected: Value = serde_json::from_str(&args).unwrap();
        for calls in [anthropic.finish(&mut sink).calls, chat.finish(&mut sink).calls, responses.finish(&mut sink).calls] {
            prop_assert_eq!(calls.calls.len(), 1);
            prop_assert_eq!(calls.calls[0].input.clone(), Ok(expected.clone()));
        }
    }
}
