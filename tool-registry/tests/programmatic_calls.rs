//! Programmatic tool calling round trips, each from a fixture in `tests/data/programmatic`
//! (see its README for the sources): the definitions carry `allowed_callers`, the calls made
//! by the provider's code are read with their caller, run through the orchestrator, and
//! answered in the shape the API requires; a call from a caller its tool does not allow, and
//! one from an unknown caller, are answered with an error result while their siblings run.

mod programmatic_support;

use std::sync::Arc;

use programmatic_support::{fixture, run};
use serde_json::{Value, json};
use tool_registry::export::{RenderRequest, SchemaCache};
use tool_registry::providers::ModelApi;
use tool_sdk::callers::{Caller, Callers};
use tool_sdk::prelude::*;

/// Execute a SQL query against the sales database. Returns a list of rows as JSON objects.
#[tool(name = "query_database", callers = ["programmatic"], read_only, max_result_size_chars = 10_000)]
#[derive(Deserialize, JsonSchema)]
struct QueryDatabase {
    /// SQL query to execute
    sql: String,
}

#[tool]
impl Tool for QueryDatabase {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let revenue = if self.sql.contains("'West'") {
            45_000
        } else {
            38_000
        };
        Ok(ToolResult::new(format!("[{{\"revenue\":{revenue}}}]")))
    }
}

/// Sends the sales report to the team.
#[tool(name = "send_report", max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
struct SendReport {
    /// The report's text.
    text: String,
}

#[tool]
impl Tool for SendReport {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(format!("sent {} chars", self.text.len())))
    }
}

fn pool() -> Vec<Arc<dyn DynTool>> {
    vec![
        tool_sdk::dyn_tool::<QueryDatabase>(),
        tool_sdk::dyn_tool::<SendReport>(),
    ]
}

fn definition<'a>(definitions: &'a [Value], name: &str) -> &'a Value {
    definitions
        .iter()
        .find(|d| d["name"] == name)
        .unwrap_or_else(|| panic!("no definition of {name}"))
}

#[test]
fn definitions_say_who_may_call_and_the_default_says_nothing() {
    let fixture = fixture("anthropic_turn.json");
    let pool = pool();
    let request = RenderRequest::default();
    let anthropic = ModelApi::Anthropic
        .definitions(&SchemaCache::new(), &pool, &request)
        .unwrap();
    let query = definition(&anthropic, "query_database");
    let expected = &fixture["request_tools"][1];
    assert_eq!(query["allowed_callers"], expected["allowed_callers"]);
    assert_eq!(
        fixture["request_tools"][0]["type"],
        ModelApi::ANTHROPIC_CODE_EXECUTION,
        "the server tool and allowed_callers name one version"
    );
    assert_eq!(query["description"], expected["description"]);
    assert_eq!(
        query["input_schema"]["properties"],
        expected["input_schema"]["properties"]
    );
    let report = definition(&anthropic, "send_report");
    assert!(report.get("allowed_callers").is_none(), "{report}");
    // The fresh text render writes the same bytes as the cached one.
    assert_eq!(
        tool_registry::providers::anthropic::tools_json(&pool),
        Value::from(anthropic.clone()).to_string()
    );

    let responses = ModelApi::OpenAiResponses
        .definitions(&SchemaCache::new(), &pool, &request)
        .unwrap();
    let expected = &fixture_responses()["request_tools"][1];
    let query = definition(&responses, "query_database");
    assert_eq!(query["allowed_callers"], expected["allowed_callers"]);
    assert!(
        definition(&responses, "send_report")
            .get("allowed_callers")
            .is_none()
    );
    // Chat Completions, Gemini and MCP have no slot: nothing is written, and the tool only
    // code may call is left out (every call the model made to it would be refused).
    for api in [
        ModelApi::OpenAiChat,
        ModelApi::Gemini,
        ModelApi::GeminiOpenApi,
        ModelApi::Mcp,
    ] {
        let text = api
            .definitions_json(&SchemaCache::new(), &pool, &request)
            .unwrap();
        assert!(!text.contains("caller"), "{api}: {text}");
        assert!(!text.contains("query_database"), "{api}: {text}");
        assert!(text.contains("send_report"), "{api}: {text}");
        let definitions = api
            .definitions(&SchemaCache::new(), &pool, &request)
            .unwrap();
        assert_eq!(definitions.len(), 1, "{api}: {definitions:?}");
    }
}

fn fixture_responses() -> Value {
    fixture("responses_turn.json")
}

#[tokio::test]
async fn an_anthropic_programmatic_turn_runs_both_calls_and_answers_with_tool_results_only() {
    let fixture = fixture("anthropic_turn.json");
    let pool = pool();
    let calls = ModelApi::Anthropic
        .read_calls(&fixture["response"], &pool)
        .unwrap();
    assert_eq!(calls.len(), 2, "the server_tool_use is not a call of ours");
    for call in &calls.calls {
        assert_eq!(
            call.caller,
            Caller::Program {
                kind: "code_execution_20260120".into(),
                id: "srvtoolu_abc123".into()
            }
        );
        assert!(call.input.is_ok(), "{:?}", call.input);
    }
    let results = run(&calls, &pool).await;
    let answer = ModelApi::Anthropic
        .write_results(&calls, results, &pool)
        .unwrap();
    assert_eq!(answer, fixture["answer"]);
    // The guide's rule: only tool_result blocks answer pending programmatic calls.
    assert!(
        answer["content"]
            .as_array()
            .unwrap()
            .iter()
            .all(|block| block["type"] == "tool_result")
    );
}

#[tokio::test]
async fn an_openai_responses_program_turn_is_answered_naming_its_program() {
    let fixture = fixture_responses();
    let pool = pool();
    let response = json!({"output": fixture["output"]});
    let calls = ModelApi::OpenAiResponses
        .read_calls(&response, &pool)
        .unwrap();
    assert_eq!(calls.len(), 2, "the program item is not a call of ours");
    assert!(
        calls
            .calls
            .iter()
            .all(|c| c.caller.is_programmatic() && c.input.is_ok())
    );
    let results = run(&calls, &pool).await;
    let answer = ModelApi::OpenAiResponses
        .write_results(&calls, results, &pool)
        .unwrap();
    assert_eq!(answer, fixture["answer"]);
}

#[tokio::test]
async fn calls_from_callers_a_tool_does_not_allow_are_refused_and_their_siblings_run() {
    let pool = pool();
    let code = json!({"type": "code_execution_20250825", "tool_id": "srvtoolu_1"});
    let message = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "query_database",
         "input": {"sql": "SELECT 'West'"}, "caller": code},
        {"type": "tool_use", "id": "toolu_2", "name": "send_report",
         "input": {"text": "West wins"}, "caller": code},
        {"type": "tool_use", "id": "toolu_3", "name": "query_database",
         "input": {"sql": "SELECT 'East'"}},
        {"type": "tool_use", "id": "toolu_4", "name": "query_database",
         "input": {"sql": "SELECT 'East'"}, "caller": {"type": "code_execution_29990101"}},
        {"type": "tool_use", "id": "toolu_5", "name": "send_report",
         "input": {"text": "done"}, "caller": {"type": "direct"}},
        // OpenAI Responses' caller shape is not Anthropic's: an unknown caller.
        {"type": "tool_use", "id": "toolu_6", "name": "query_database",
         "input": {"sql": "SELECT 'East'"}, "caller": {"type": "program", "caller_id": "call_9"}},
    ]});
    let calls = ModelApi::Anthropic.read_calls(&message, &pool).unwrap();
    assert_eq!(calls.runnable().len(), 2, "{calls:?}");
    let results = run(&calls, &pool).await;
    let answer = ModelApi::Anthropic
        .write_results(&calls, results, &pool)
        .unwrap();
    let blocks = answer["content"].as_array().unwrap();
    let text = |i: usize| blocks[i]["content"].as_str().unwrap_or_default().to_owned();
    assert_eq!(blocks.len(), 6, "every call is answered: {answer}");
    assert_eq!(text(0), "[{\"revenue\":45000}]");
    assert_eq!(blocks[1]["is_error"], true);
    assert!(
        text(1)
            .contains("send_report may not be called by code (code_execution_20250825 srvtoolu_1)")
            && text(1).contains("call it directly instead"),
        "{}",
        text(1)
    );
    assert_eq!(blocks[2]["is_error"], true);
    assert!(
        text(2).contains("allows calls from code only")
            && text(2).contains("call it from code execution instead"),
        "{}",
        text(2)
    );
    assert_eq!(blocks[3]["is_error"], true);
    assert!(
        text(3).contains("unknown caller {\"type\":\"code_execution_29990101\"}"),
        "{}",
        text(3)
    );
    assert_eq!(text(4), "sent 4 chars");
    assert_eq!(blocks[5]["is_error"], true);
    assert!(
        text(5).contains("unknown caller {\"type\":\"program\",\"caller_id\":\"call_9\"}"),
        "{}",
        text(5)
    );
}

#[test]
fn a_streamed_programmatic_call_carries_its_caller_and_is_checked() {
    let pool = pool();
    let mut stream = ModelApi::Anthropic.stream(&pool).unwrap();
    let caller = json!({"type": "code_execution_20260120", "tool_id": "srvtoolu_9"});
    let events = [
        json!({"type": "content_block_start", "index": 0, "content_block":
            {"type": "server_tool_use", "id": "srvtoolu_9", "name": "code_execution", "input": {}}}),
        json!({"type": "content_block_delta", "index": 0, "delta":
            {"type": "input_json_delta", "partial_json": "{\"code\":\"await query_database('x')\"}"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block":
            {"type": "tool_use", "id": "toolu_a", "name": "query_database", "input": {}, "caller": caller}}),
        json!({"type": "content_block_delta", "index": 1, "delta":
            {"type": "input_json_delta", "partial_json": "{\"sql\":\"SELECT 1\"}"}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "content_block_start", "index": 2, "content_block":
            {"type": "tool_use", "id": "toolu_b", "name": "send_report", "input": {}, "caller": caller}}),
        json!({"type": "content_block_delta", "index": 2, "delta":
            {"type": "input_json_delta", "partial_json": "{\"text\":\"x\"}"}}),
        json!({"type": "content_block_stop", "index": 2}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
    ];
    let mut handed = Vec::new();
    for event in &events {
        stream.push_event(event, &mut handed);
    }
    let done = stream.finish(&mut handed);
    assert_eq!(handed.len(), 2);
    assert!(handed[0].caller.is_programmatic() && handed[0].input.is_ok());
    assert!(
        handed[1].input.is_err(),
        "send_report allows only the model"
    );
    assert_eq!(done.calls.calls, handed);
    // The assistant message keeps each block's caller, to be sent back as it came.
    assert_eq!(done.message["content"][1]["caller"], caller);
}

#[test]
fn host_configuration_names_parse_into_callers() {
    assert_eq!(
        Callers::from_names(["direct", "programmatic"]),
        Ok(Callers::DirectAndProgrammatic)
    );
    let meta = tool_sdk::dyn_tool::<QueryDatabase>();
    assert_eq!(meta.meta().callers, Callers::Programmatic);
    assert_eq!(
        tool_sdk::dyn_tool::<SendReport>().meta().callers,
        Callers::Direct
    );
}

#[test]
fn a_streamed_responses_program_call_carries_its_caller() {
    let fixture = fixture_responses();
    let pool = pool();
    let mut stream = ModelApi::OpenAiResponses.stream(&pool).unwrap();
    let mut handed = Vec::new();
    for (index, item) in fixture["output"].as_array().unwrap().iter().enumerate() {
        let mut added = item.clone();
        if added["type"] == "function_call" {
            added["arguments"] = json!("");
        }
        for event in [
            json!({"type": "response.output_item.added", "output_index": index, "item": added}),
            json!({"type": "response.output_item.done", "output_index": index, "item": item}),
        ] {
            stream.push_event(&event, &mut handed);
        }
    }
    let done = stream.finish(&mut handed);
    assert_eq!(handed.len(), 2, "{handed:?}");
    for call in &handed {
        assert_eq!(
            call.caller,
            Caller::Program {
                kind: "program".into(),
                id: "call_prog_1".into()
            }
        );
        assert!(call.input.is_ok(), "{:?}", call.input);
    }
    assert_eq!(done.calls.calls, handed);
}

/// The caller is read from `response.output_item.done` too, not only from
/// `response.output_item.added`: an added item without its caller still ends as a call from
/// the program, whether `response.function_call_arguments.done` came first or not.
#[test]
fn a_streamed_responses_caller_given_only_when_the_item_is_done_is_read() {
    let fixture = fixture_responses();
    let pool = pool();
    let program = Caller::Program {
        kind: "program".into(),
        id: "call_prog_1".into(),
    };
    for arguments_done_first in [false, true] {
        let mut stream = ModelApi::OpenAiResponses.stream(&pool).unwrap();
        let mut handed = Vec::new();
        for (index, item) in fixture["output"].as_array().unwrap().iter().enumerate() {
            let mut added = item.clone();
            let mut events = Vec::new();
            if added["type"] == "function_call" {
                added["arguments"] = json!("");
                added.as_object_mut().unwrap().remove("caller");
                if arguments_done_first {
                    events.push(json!({"type": "response.function_call_arguments.done",
                        "output_index": index, "item_id": item["id"],
                        "arguments": item["arguments"]}));
                }
            }
            events.insert(
                0,
                json!({"type": "response.output_item.added", "output_index": index, "item": added}),
            );
            events.push(
                json!({"type": "response.output_item.done", "output_index": index, "item": item}),
            );
            for event in events {
                stream.push_event(&event, &mut handed);
            }
        }
        let done = stream.finish(&mut handed);
        assert_eq!(done.calls.len(), 2, "{done:?}");
        for call in &done.calls.calls {
            assert_eq!(call.caller, program, "{arguments_done_first}");
            assert!(call.input.is_ok(), "{:?}", call.input);
        }
        if !arguments_done_first {
            assert_eq!(done.calls.calls, handed);
        }
    }
}

/// On an API with no `allowed_callers` the tool only code may call was never offered, so a
/// call of it is answered exactly as a call of a tool that does not exist (as MCP answers a
/// `tools/call` of it), whole and streamed (already refused when the stream hands it over),
/// and its sibling runs.
#[tokio::test]
async fn a_chat_or_gemini_call_of_a_code_only_tool_is_a_call_of_no_such_tool() {
    let pool = pool();
    // The orchestrator's own answer for a tool that does not exist, the text to match.
    let unknown = ModelApi::Anthropic
        .read_calls(
            &json!({"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_0",
                "name": "query_database", "input": {}}]}),
            &[],
        )
        .unwrap();
    let no_such = run(&unknown, &[]).await[0].text();
    assert!(
        no_such.contains("No such tool available: query_database"),
        "{no_such}"
    );
    let chat = json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_1", "type": "function", "function":
            {"name": "query_database", "arguments": "{\"sql\":\"SELECT 1\"}"}},
        {"id": "call_2", "type": "function", "function":
            {"name": "send_report", "arguments": "{\"text\":\"hi\"}"}},
    ]});
    let parts = json!([
        {"functionCall": {"name": "query_database", "args": {"sql": "SELECT 1"}}},
        {"functionCall": {"name": "send_report", "args": {"text": "hi"}}},
    ]);
    let gemini = json!({"candidates": [{"content": {"role": "model", "parts": parts}}]});
    for (api, message) in [
        (ModelApi::OpenAiChat, chat),
        (ModelApi::Gemini, gemini.clone()),
    ] {
        let calls = api.read_calls(&message, &pool).unwrap();
        assert_eq!(calls.runnable().len(), 1, "{api}: {calls:?}");
        let results = run(&calls, &pool).await;
        let paired = calls.pair(results).unwrap();
        assert_eq!(paired.len(), 2, "{api}");
        assert!(paired[0].is_error, "{api}");
        assert_eq!(paired[0].text(), no_such, "{api}");
        assert_eq!(paired[1].text(), "sent 2 chars", "{api}");
    }
    // Streamed: refused as each call is handed over, and again among the finished calls.
    let mut chat = ModelApi::OpenAiChat.stream(&pool).unwrap();
    let mut handed = Vec::new();
    chat.push_event(
        &json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1",
            "type": "function", "function": {"name": "query_database",
            "arguments": "{\"sql\":\"SELECT 1\"}"}}]}, "finish_reason": null}]}),
        &mut handed,
    );
    chat.push_event(
        &json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        &mut handed,
    );
    chat.push_event(&json!("[DONE]"), &mut handed);
    let chat = chat.finish(&mut handed);
    let mut gemini_stream = ModelApi::Gemini.stream(&pool).unwrap();
    let mut gemini_handed = Vec::new();
    gemini_stream
        .push_bytes(
            format!("data: {gemini}\r\n\r\n").as_bytes(),
            &mut gemini_handed,
        )
        .unwrap();
    let gemini = gemini_stream.finish(&mut gemini_handed);
    for (api, handed, finished) in [
        ("chat", &handed, &chat.calls.calls),
        ("gemini", &gemini_handed, &gemini.calls.calls),
    ] {
        assert!(!handed.is_empty(), "{api}: no call handed over");
        for calls in [handed, finished] {
            let answer = calls[0].argument_error_result().expect(api);
            assert_eq!(answer.text(), no_such, "{api}");
        }
    }
    assert!(gemini.calls.calls[1].input.is_ok(), "the sibling runs");
    // Where the API has the slot, the same direct call is refused with the reason.
    let anthropic = json!({"role": "assistant", "content": [{"type": "tool_use",
        "id": "toolu_1", "name": "query_database", "input": {"sql": "SELECT 1"}}]});
    let calls = ModelApi::Anthropic.read_calls(&anthropic, &pool).unwrap();
    let refused = calls.calls[0].argument_error_result().unwrap();
    assert!(
        refused.text().contains("allows calls from code only"),
        "{}",
        refused.text()
    );
}
