//! Every recorded assistant turn, converted to each API's shape (Anthropic Messages, OpenAI
//! Chat Completions, OpenAI Responses, Gemini), read back into calls, run, and answered in
//! that API's shape: the same results, in the same order, with the ids matched.
//!
//! The fixtures are not part of this repository; without them the fixture tests say so and
//! pass. The other tests build their turns here.

mod providers_support;

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};
use tool_registry::dynamic::{DynamicTool, ToolHandler};
use tool_registry::providers::gemini::GeminiNames;
use tool_registry::providers::{ModelApi, ResultsError, ToolCalls};
use tool_registry::test_support::MADE_UP_ID_PREFIX;
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::{DynTool, ToolError, ToolResultBlock, ToolResultContent};

use providers_support::{echo_pool, fixtures, recorded_turns};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    Anthropic,
    Chat,
    Responses,
    Gemini,
}

const APIS: [Api; 4] = [Api::Anthropic, Api::Chat, Api::Responses, Api::Gemini];

/// Runs the runnable calls through the one runner and pairs the results: one per call, in call
/// order (a call whose arguments failed is answered by its own error result).
async fn answer(
    calls: &ToolCalls,
    pool: &[Arc<dyn DynTool>],
) -> Result<Vec<ToolResultBlock>, ResultsError> {
    let outcome = Orchestrator::new(pool, OrchestratorConfig::default())
        .run_tools(calls.runnable(), TurnState::default())
        .collect_results()
        .await;
    calls.pair(outcome.results)
}

/// The assistant turn `content` (Anthropic blocks) in `api`'s response shape.
fn response_in(api: Api, content: &[Value]) -> Value {
    let text: Vec<&str> = content
        .iter()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str())
        .collect();
    let uses: Vec<&Value> = content.iter().filter(|b| b["type"] == "tool_use").collect();
    match api {
        Api::Anthropic => json!({"role": "assistant", "content": content}),
        Api::Chat => json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant",
            "content": if text.is_empty() { Value::Null } else { json!(text.join("\n")) },
            "tool_calls": uses.iter().map(|u| json!({
                "id": u["id"], "type": "function",
                "function": {"name": u["name"], "arguments": u["input"].to_string()}
            })).collect::<Vec<_>>(),
        }}]}),
        Api::Responses => {
            let mut output = vec![json!({"type": "reasoning", "id": "rs_1", "summary": []})];
            if !text.is_empty() {
                output.push(json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text.join("\n")}]}));
            }
            for (i, u) in uses.iter().enumerate() {
                output.push(json!({"type": "function_call", "id": format!("fc_{i}"), "call_id": u["id"], "name": u["name"], "arguments": u["input"].to_string(), "status": "completed"}));
            }
            json!({"object": "response", "output": output})
        }
        Api::Gemini => {
            let mut parts: Vec<Value> = text.iter().map(|t| json!({"text": t})).collect();
            for u in &uses {
                parts.push(
                    json!({"functionCall": {"id": u["id"], "name": u["name"], "args": u["input"]}}),
                );
            }
            json!({"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]})
        }
    }
}

/// The answer in OpenAI Chat's shape: one `tool` message per call (and a `user` message for
/// images), as a list.
fn chat_messages(
    calls: &ToolCalls,
    results: Vec<ToolResultBlock>,
) -> Result<Vec<Value>, ResultsError> {
    let answer = ModelApi::OpenAiChat.write_results(calls, results, &[])?;
    Ok(answer.as_array().cloned().expect("an array of messages"))
}

/// The answer in OpenAI Responses' shape: one `function_call_output` item per call, as a list.
fn responses_items(
    calls: &ToolCalls,
    results: Vec<ToolResultBlock>,
) -> Result<Vec<Value>, ResultsError> {
    let answer = ModelApi::OpenAiResponses.write_results(calls, results, &[])?;
    Ok(answer.as_array().cloned().expect("an array of items"))
}

fn read_in(api: Api, response: &Value, tools: &[Arc<dyn DynTool>]) -> ToolCalls {
    match api {
        Api::Anthropic => ModelApi::Anthropic.read_calls(response, &[]).unwrap(),
        Api::Chat => ModelApi::OpenAiChat.read_calls(response, &[]).unwrap(),
        Api::Responses => ModelApi::OpenAiResponses.read_calls(response, &[]).unwrap(),
        Api::Gemini => ModelApi::Gemini.read_calls(response, tools).unwrap(),
    }
}

/// `(id, text, is_error)` of each answer written in `api`'s shape, in order; `is_error` is
/// `None` where the API has no error flag.
fn written_in(
    api: Api,
    calls: &ToolCalls,
    results: Vec<ToolResultBlock>,
    tools: &[Arc<dyn DynTool>],
) -> Vec<(String, String, Option<bool>)> {
    match api {
        Api::Anthropic => {
            let message = ModelApi::Anthropic
                .write_results(calls, results, &[])
                .unwrap();
            assert_eq!(message["role"], "user");
            message["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(|block| {
                    assert_eq!(block["type"], "tool_result");
                    let content: ToolResultContent =
                        serde_json::from_value(block["content"].clone()).unwrap();
                    (
                        block["tool_use_id"].as_str().unwrap().to_owned(),
                        content.text(),
                        Some(block.get("is_error") == Some(&json!(true))),
                    )
                })
                .collect()
        }
        Api::Chat => chat_messages(calls, results)
            .unwrap()
            .iter()
            .map(|message| {
                assert_eq!(message["role"], "tool");
                (
                    message["tool_call_id"].as_str().unwrap().to_owned(),
                    message["content"].as_str().unwrap().to_owned(),
                    None,
                )
            })
            .collect(),
        Api::Responses => responses_items(calls, results)
            .unwrap()
            .iter()
            .map(|item| {
                assert_eq!(item["type"], "function_call_output");
                (
                    item["call_id"].as_str().unwrap().to_owned(),
                    item["output"].as_str().unwrap().to_owned(),
                    None,
                )
            })
            .collect(),
        Api::Gemini => {
            let content = ModelApi::Gemini
                .write_results(calls, results, tools)
                .unwrap();
            assert_eq!(content["role"], "user");
            content["parts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|part| {
                    let response = &part["functionResponse"];
                    let error = response["response"].get("error");
                    let text = error.unwrap_or(&response["response"]["output"]);
                    (
                        response["id"].as_str().unwrap().to_owned(),
                        text.as_str().unwrap().to_owned(),
                        Some(error.is_some()),
                    )
                })
                .collect()
        }
    }
}

/// A pool answering every call with the result recorded for its id.
fn replay_pool(content: &[Value], recorded: &[Value]) -> Vec<Arc<dyn DynTool>> {
    let answers: Arc<HashMap<String, (String, bool)>> = Arc::new(
        recorded
            .iter()
            .map(|block| {
                let result: ToolResultBlock = serde_json::from_value(block.clone()).unwrap();
                (result.tool_use_id.clone(), (result.text(), result.is_error))
            })
            .collect(),
    );
    let handler = ToolHandler::new(move |_input, ctx| {
        let answers = Arc::clone(&answers);
        async move {
            match answers.get(ctx.tool_use_id()) {
                Some((text, false)) => Ok(ToolResultContent::Text(text.clone())),
                Some((text, true)) => Err(ToolError::new(text.clone())),
                None => Err(ToolError::new("no recorded result")),
            }
        }
    });
    let mut names: Vec<&str> = content
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .filter_map(|b| b["name"].as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let definition = json!({"name": name, "description": "Answers with the recorded result.", "input_schema": {"type": "object"}});
            Arc::new(DynamicTool::from_json(&definition, handler.clone()).unwrap()) as Arc<dyn DynTool>
        })
        .collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn every_recorded_turn_round_trips_through_every_api() {
    let Some(dir) = fixtures("every_recorded_turn_round_trips_through_every_api") else {
        return;
    };
    let turns = recorded_turns(&dir);
    assert!(turns.len() >= 10, "only {} turns found", turns.len());
    let runtime = runtime();
    for (label, content, recorded) in turns {
        let pool = replay_pool(&content, &recorded);
        let ids: Vec<&str> = content
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .filter_map(|b| b["id"].as_str())
            .collect();
        let mut reference: Option<Vec<ToolResultBlock>> = None;
        for api in APIS {
            let response = response_in(api, &content);
            let calls = read_in(api, &response, &pool);
            let read_ids: Vec<&str> = calls.calls.iter().map(|c| c.id.as_str()).collect();
            assert_eq!(read_ids, ids, "{label} {api:?}: ids read");
            for (call, block) in calls
                .calls
                .iter()
                .zip(content.iter().filter(|b| b["type"] == "tool_use"))
            {
                assert_eq!(call.name, block["name"], "{label} {api:?}");
                assert_eq!(
                    call.input.as_ref().unwrap(),
                    &block["input"],
                    "{label} {api:?}"
                );
            }
            let results = runtime.block_on(answer(&calls, &pool)).unwrap();
            match &reference {
                None => {
                    for (result, block) in results.iter().zip(&recorded) {
                        let block: ToolResultBlock = serde_json::from_value(block.clone()).unwrap();
                        assert_eq!(
                            result.is_error, block.is_error,
                            "{label}: {}",
                            result.tool_use_id
                        );
                        if !block.is_error && !block.text().is_empty() {
                            assert_eq!(
                                result.text(),
                                block.text(),
                                "{label}: {}",
                                result.tool_use_id
                            );
                        }
                    }
                    reference = Some(results.clone());
                }
                Some(reference) => assert_eq!(&results, reference, "{label} {api:?}: results"),
            }
            let written = written_in(api, &calls, results.clone(), &pool);
            assert_eq!(
                written.len(),
                ids.len(),
                "{label} {api:?}: one answer per call"
            );
            for ((id, text, is_error), result) in written.iter().zip(&results) {
                assert_eq!(id, &result.tool_use_id, "{label} {api:?}: order");
                assert_eq!(text, &result.text(), "{label} {api:?}: {id}");
                if let Some(is_error) = is_error {
                    assert_eq!(*is_error, result.is_error, "{label} {api:?}: {id}");
                }
            }
        }
    }
}

#[test]
fn malformed_arguments_fail_only_their_call_in_every_api() {
    let content = vec![
        json!({"type": "text", "text": "Reading two files."}),
        json!({"type": "tool_use", "id": "call_a", "name": "Echo", "input": {"text": "a"}}),
        json!({"type": "tool_use", "id": "call_b", "name": "Echo", "input": {"text": "b"}}),
        json!({"type": "tool_use", "id": "call_c", "name": "Echo", "input": {"text": "c"}}),
    ];
    let echo = ToolHandler::new(|input: Value, _ctx| async move {
        Ok(ToolResultContent::Text(
            input["text"].as_str().unwrap_or("(none)").to_owned(),
        ))
    });
    let pool: Vec<Arc<dyn DynTool>> = vec![Arc::new(
        DynamicTool::from_json(&json!({"name": "Echo", "description": "Echoes.", "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}}}), echo).unwrap(),
    )];
    let runtime = runtime();
    for api in [Api::Chat, Api::Responses] {
        let mut response = response_in(api, &content);
        if api == Api::Chat {
            let calls = &mut response["choices"][0]["message"]["tool_calls"];
            calls[1]["function"]["arguments"] = json!("{\"text\": \"b");
            calls[2]["function"]["arguments"] = json!("  ");
        } else {
            response["output"][3]["arguments"] = json!("{\"text\": \"b");
            response["output"][4]["arguments"] = json!("null");
        }
        let calls = read_in(api, &response, &[]);
        assert_eq!(calls.len(), 3, "{api:?}: no call dropped");
        assert_eq!(calls.runnable().len(), 2, "{api:?}");
        let results = runtime.block_on(answer(&calls, &pool)).unwrap();
        let ids: Vec<&str> = results.iter().map(|r| r.tool_use_id.as_str()).collect();
        assert_eq!(ids, ["call_a", "call_b", "call_c"], "{api:?}");
        assert_eq!(results[0].text(), "a");
        assert!(results[1].is_error);
        assert!(
            results[1]
                .text()
                .contains("the arguments of Echo are not valid JSON"),
            "{}",
            results[1].text()
        );
        assert!(
            !results[2].is_error,
            "{api:?}: empty arguments mean {{}}: {}",
            results[2].text()
        );
        assert_eq!(results[2].text(), "(none)");
    }
}

#[test]
fn gemini_calls_without_ids_and_with_refused_names_are_answered_by_name() {
    let tools = echo_pool(&["2fa_check", "Read"]);
    let names = GeminiNames::for_tools(&tools);
    let sent = names.to_gemini("2fa_check").to_owned();
    assert_ne!(sent, "2fa_check");
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Checking."},
        {"functionCall": {"name": sent, "args": {"code": "123"}}},
        {"functionCall": {"name": "Read"}},
        {"text": ""}
    ]}}]});
    let calls = ModelApi::Gemini.read_calls(&response, &tools).unwrap();
    assert_eq!(calls.calls[0].name, "2fa_check");
    assert_eq!(calls.calls[0].id, format!("{MADE_UP_ID_PREFIX}0"));
    assert_eq!(calls.calls[1].input, Ok(json!({})));
    let results = vec![
        ToolResultBlock::error(format!("{MADE_UP_ID_PREFIX}1"), "no such file"),
        ToolResultBlock::success(format!("{MADE_UP_ID_PREFIX}0"), "ok"),
    ];
    let content = ModelApi::Gemini
        .write_results(&calls, results, &tools)
        .unwrap();
    assert_eq!(
        content,
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": sent, "response": {"output": "ok"}}},
            {"functionResponse": {"name": "Read", "response": {"error": "no such file"}}}
        ]})
    );
}

#[test]
fn writers_never_send_an_empty_text_block_and_carry_images() {
    use tool_sdk::ResultBlock;
    let calls = ToolCalls::from(vec![tool_sdk::ToolUseBlock {
        id: "c1".into(),
        name: "Shot".into(),
        input: json!({}),
    }]);
    let result = || {
        vec![ToolResultBlock::success(
            "c1",
            vec![
                ResultBlock::Text {
                    text: String::new(),
                },
                ResultBlock::Text {
                    text: "a screenshot".into(),
                },
                ResultBlock::Image {
                    source: json!({"type": "base64", "media_type": "image/png", "data": "iVBOR"}),
                },
            ],
        )]
    };
    let message = ModelApi::Anthropic
        .write_results(&calls, result(), &[])
        .unwrap();
    assert_eq!(
        message["content"][0]["content"],
        json!([{"type": "text", "text": "a screenshot"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}}])
    );
    let only_empty = vec![ToolResultBlock::success(
        "c1",
        vec![ResultBlock::Text {
            text: String::new(),
        }],
    )];
    let message = ModelApi::Anthropic
        .write_results(&calls, only_empty, &[])
        .unwrap();
    assert_eq!(message["content"][0]["content"], json!(""));
    for empty_error in [
        ToolResultBlock::error("c1", ""),
        ToolResultBlock::error("c1", " \n\t"),
        ToolResultBlock {
            tool_use_id: "c1".into(),
            content: ToolResultContent::Blocks(vec![
                ResultBlock::Text {
                    text: String::new(),
                },
                ResultBlock::Text { text: "  ".into() },
            ]),
            is_error: true,
        },
    ] {
        let message = ModelApi::Anthropic
            .write_results(&calls, vec![empty_error], &[])
            .unwrap();
        assert_eq!(
            message["content"][0],
            json!({"type": "tool_result", "tool_use_id": "c1", "content": tool_registry::test_support::EMPTY_ERROR_TEXT, "is_error": true}),
            "an empty error is written with a short text, never empty"
        );
    }
    let chat = chat_messages(&calls, result()).unwrap();
    assert_eq!(
        chat[0],
        json!({"role": "tool", "tool_call_id": "c1", "content": "a screenshot"})
    );
    assert_eq!(chat[1]["role"], "user");
    assert_eq!(
        chat[1]["content"][1],
        json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBOR"}})
    );
    let items = responses_items(&calls, result()).unwrap();
    assert_eq!(
        items[0]["output"],
        json!([{"type": "input_text", "text": "a screenshot"}, {"type": "input_image", "image_url": "data:image/png;base64,iVBOR"}])
    );
    let content = ModelApi::Gemini
        .write_results(&calls, result(), &[])
        .unwrap();
    assert_eq!(
        content["parts"][0]["functionResponse"]["parts"],
        json!([{"inlineData": {"mimeType": "image/png", "data": "iVBOR"}}])
    );
}

#[test]
fn a_result_for_no_call_or_a_missing_result_is_refused() {
    let response = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "Read", "arguments": "{}"}}
    ]}}]});
    let calls = ModelApi::OpenAiChat.read_calls(&response, &[]).unwrap();
    let error = chat_messages(&calls, vec![]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "call `call_1` (Read) has no result; every call must be answered exactly once"
    );
    let error = chat_messages(
        &calls,
        vec![
            ToolResultBlock::success("call_1", "x"),
            ToolResultBlock::success("call_9", "y"),
        ],
    )
    .unwrap_err();
    assert!(error.to_string().contains("call_9"), "{error}");
    let no_calls = ModelApi::OpenAiChat
        .read_calls(&json!({"role": "assistant", "content": "hi"}), &[])
        .unwrap();
    assert!(no_calls.is_empty());
    let bad = ModelApi::OpenAiChat
        .read_calls(
            &json!({"tool_calls": [{"type": "function", "function": {"name": "Read"}}]}),
            &[],
        )
        .unwrap_err();
    assert_eq!(bad.to_string(), "tool_calls[0] has no string `id`");
}

#[test]
fn a_call_that_cannot_be_run_is_answered_alone_in_chat_and_responses() {
    let response = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "Read", "arguments": "{}"}},
        {"id": "call_2", "type": "function", "function": {"arguments": "{}"}},
        {"id": "call_3", "type": "custom", "custom": {"name": "Patch", "input": "*** Begin"}}
    ]}}]});
    let calls = ModelApi::OpenAiChat.read_calls(&response, &[]).unwrap();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls.runnable().len(), 1);
    let messages = chat_messages(&calls, vec![ToolResultBlock::success("call_1", "ok")]).unwrap();
    let ids: Vec<&str> = messages
        .iter()
        .map(|m| m["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["call_1", "call_2", "call_3"]);
    let text = |m: &Value| m["content"].as_str().unwrap().to_owned();
    assert!(
        text(&messages[1]).contains("`function.name`"),
        "{}",
        text(&messages[1])
    );
    assert!(
        text(&messages[2]).contains("`custom` call"),
        "{}",
        text(&messages[2])
    );

    let response = json!({"output": [
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "Read", "arguments": "{}"},
        {"type": "custom_tool_call", "id": "ctc_2", "call_id": "call_2", "name": "Patch", "input": "*** Begin"},
        {"type": "function_call", "id": "fc_3", "call_id": "call_3", "arguments": "{}"}
    ]});
    let calls = ModelApi::OpenAiResponses
        .read_calls(&response, &[])
        .unwrap();
    assert_eq!(calls.len(), 3, "the custom call is read, not skipped");
    assert_eq!(calls.runnable().len(), 1);
    let items = responses_items(&calls, vec![ToolResultBlock::success("call_1", "ok")]).unwrap();
    let kinds: Vec<(&str, &str)> = items
        .iter()
        .map(|i| (i["type"].as_str().unwrap(), i["call_id"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("function_call_output", "call_1"),
            ("custom_tool_call_output", "call_2"),
            ("function_call_output", "call_3")
        ]
    );
    assert!(items[2]["output"].as_str().unwrap().contains("`name`"));
    // No id to answer: the whole response is refused.
    let error = ModelApi::OpenAiResponses
        .read_calls(
            &json!({"output": [{"type": "function_call", "name": "Read", "arguments": "{}"}]}),
            &[],
        )
        .unwrap_err();
    assert_eq!(error.to_string(), "output[0] has no string `call_id`");
}
