//! OpenAI Responses tool organisation: MCP servers exported as `namespace` tools, deferred
//! functions with `defer_loading`, the hosted `tool_search` tool, `additional_tools`; and a
//! recorded turn (OpenAI's tool search guide and openai-agents-python tests, see
//! `tests/data/openai_responses/README.md`) read back, whole and streamed, run through the
//! orchestrator and answered with `function_call_output` items.

mod provider_sdk_support;

use provider_sdk_support::sdk_python;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use tool_registry::dynamic::{DynamicTool, McpImportOptions, ToolHandler, mcp_tools_from_list};
use tool_registry::export::{RenderRequest, SchemaCache};
use tool_registry::permissions::{AliasTable, PermissionBehavior, PermissionRuleSource};
use tool_registry::providers::{ArgumentsError, ModelApi, OpenAiToolSearch, ToolSearchCall};
use tool_registry::search::DeferralRules;
use tool_registry::{Orchestrator, OrchestratorConfig, ToolPermissionContext, TurnState};
use tool_sdk::{DynTool, ToolResultBlock};

fn fixture() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/openai_responses/tool_search_namespace_turn.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The MCP server `crm` with the guide's `list_open_orders`, answering "orders of ...".
fn crm_tools() -> Vec<Arc<dyn DynTool>> {
    let function = &fixture()["request"]["tools"][0]["tools"][0];
    let list = json!({"tools": [{
        "name": function["name"],
        "description": function["description"],
        "inputSchema": function["parameters"],
    }]});
    let options = McpImportOptions {
        handler: Some(ToolHandler::fixed_text("order 7: open")),
        ..McpImportOptions::default()
    };
    mcp_tools_from_list("crm", &list, &options).unwrap().tools
}

/// `get_weather`, a deferred built-in-style tool (no group: top-level).
fn weather_tool() -> Arc<dyn DynTool> {
    Arc::new(
        DynamicTool::from_json(
            &json!({"name": "get_weather", "description": "Weather of a city.", "should_defer": true,
                    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}),
            ToolHandler::fixed_text("sunny"),
        )
        .unwrap(),
    )
}

fn pool() -> Vec<Arc<dyn DynTool>> {
    let mut tools = crm_tools();
    tools.push(weather_tool());
    tools
}

/// `value` without the `strict` key of its functions (the guide's example leaves it out; we
/// always send it).
fn without_strict(mut value: Value) -> Value {
    match &mut value {
        Value::Object(map) => {
            if map.get("type") == Some(&json!("function")) {
                map.remove("strict");
            }
            for (_, inner) in map.iter_mut() {
                *inner = without_strict(inner.take());
            }
        }
        Value::Array(items) => {
            for inner in items {
                *inner = without_strict(inner.take());
            }
        }
        _ => {}
    }
    value
}

#[test]
fn the_guide_request_is_what_the_hosted_export_writes_for_an_mcp_server() {
    let cache = SchemaCache::new();
    let mut tools = OpenAiToolSearch::Hosted
        .tools(
            &cache,
            &crm_tools(),
            &DeferralRules::default(),
            &RenderRequest::default(),
        )
        .unwrap();
    assert_eq!(tools[0]["description"], "Tools of the MCP server crm.");
    assert_eq!(tools[0]["tools"][0]["strict"], false);
    // The guide words the namespace description itself; the rest is the same.
    tools[0]["description"] = json!("CRM tools for customer lookup and order management.");
    assert_eq!(
        without_strict(Value::Array(tools)),
        fixture()["request"]["tools"]
    );
}

#[test]
fn a_namespaced_turn_and_a_deferred_top_level_call_round_trip_through_the_orchestrator() {
    let pool = pool();
    let response = fixture()["response"].clone();
    let calls = ModelApi::OpenAiResponses
        .read_calls(&response, &pool)
        .unwrap();
    let read: Vec<(&str, &str)> = calls
        .calls
        .iter()
        .map(|call| (call.id.as_str(), call.name.as_str()))
        .collect();
    assert_eq!(
        read,
        [
            ("call_1", "mcp__crm__list_open_orders"),
            ("call_2", "get_weather")
        ]
    );
    assert_eq!(
        calls.calls[0].input,
        Ok(json!({"customer_id": "customer_42"}))
    );
    assert!(
        ToolSearchCall::read_all(&response).unwrap().is_empty(),
        "a hosted search is OpenAI's to answer"
    );

    let streamed = stream_of(&response, &pool, 2);
    assert_eq!(streamed.calls, calls, "the stream reads the same calls");
    assert_eq!(
        streamed.message, response["output"],
        "the hosted search items go back as they came"
    );

    let results = run(&calls, &pool);
    let answer = ModelApi::OpenAiResponses
        .write_results(&calls, results, &pool)
        .unwrap();
    assert_eq!(
        answer,
        json!([
            {"type": "function_call_output", "call_id": "call_1", "output": "order 7: open"},
            {"type": "function_call_output", "call_id": "call_2", "output": "sunny"}
        ])
    );
}

/// The response's output items as a Responses event stream, read by `ModelApi::stream`.
/// `calls` function calls are expected to be handed over as they finish.
fn stream_of(
    response: &Value,
    pool: &[Arc<dyn DynTool>],
    calls: usize,
) -> tool_registry::providers::stream::StreamedResponse {
    let mut stream = ModelApi::OpenAiResponses.stream(pool).unwrap();
    let mut sink = Vec::new();
    for (index, item) in response["output"].as_array().unwrap().iter().enumerate() {
        let mut added = item.clone();
        if item["type"] == "function_call" {
            added["arguments"] = json!("");
        }
        stream.push_event(
            &json!({"type": "response.output_item.added", "output_index": index, "item": added}),
            &mut sink,
        );
        if item["type"] == "function_call" {
            stream.push_event(
                &json!({"type": "response.function_call_arguments.delta", "output_index": index,
                        "item_id": item["id"], "delta": item["arguments"]}),
                &mut sink,
            );
        }
        stream.push_event(
            &json!({"type": "response.output_item.done", "output_index": index, "item": item}),
            &mut sink,
        );
    }
    stream.push_event(
        &json!({"type": "response.completed", "response": {"status": "completed"}}),
        &mut sink,
    );
    let streamed = stream.finish(&mut sink);
    assert_eq!(sink.len(), calls);
    streamed
}

fn run(
    calls: &tool_registry::providers::ToolCalls,
    pool: &[Arc<dyn DynTool>],
) -> Vec<ToolResultBlock> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // MCP tools need permission (SPEC §6): the host allows the server.
    let mut permissions = ToolPermissionContext::default();
    permissions.add_rule_str(
        PermissionRuleSource::CliArg,
        PermissionBehavior::Allow,
        "mcp__crm",
        &AliasTable::default(),
    );
    let outcome = runtime.block_on(
        Orchestrator::new(pool, OrchestratorConfig::default())
            .with_permissions(permissions)
            .run_tools(calls.runnable(), TurnState::default())
            .collect_results(),
    );
    outcome.results
}

#[test]
fn a_call_to_an_unknown_namespace_or_member_is_an_error_result_naming_it() {
    let pool = pool();
    let response = json!({"output": [
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "list_open_orders", "namespace": "billing", "arguments": "{}"},
        {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "delete_orders", "namespace": "crm", "arguments": "{}"},
        {"type": "function_call", "id": "fc_3", "call_id": "call_3", "name": "list_open_orders", "namespace": "crm", "arguments": "{\"customer_id\":\"c\"}"}
    ]});
    for (label, calls) in [
        (
            "whole",
            ModelApi::OpenAiResponses
                .read_calls(&response, &pool)
                .unwrap(),
        ),
        ("streamed", stream_calls(&response, &pool)),
    ] {
        assert_eq!(calls.len(), 3, "{label}: no call is dropped");
        let errors: Vec<String> = calls.calls[..2]
            .iter()
            .map(|call| match &call.input {
                Err(error @ ArgumentsError::NotRunnable { .. }) => error.to_string(),
                other => panic!("{label}: {other:?}"),
            })
            .collect();
        assert!(
            errors[0].contains("`list_open_orders` in the namespace `billing`")
                && errors[0].contains("declared namespaces: crm"),
            "{label}: {}",
            errors[0]
        );
        assert!(
            errors[1].contains("`delete_orders` in the namespace `crm`"),
            "{label}: {}",
            errors[1]
        );
        assert_eq!(calls.runnable().len(), 1, "{label}: the sibling still runs");
        let results = run(&calls, &pool);
        let answer = ModelApi::OpenAiResponses
            .write_results(&calls, results, &pool)
            .unwrap();
        let outputs: Vec<(&str, &str)> = answer
            .as_array()
            .unwrap()
            .iter()
            .map(|item| {
                (
                    item["call_id"].as_str().unwrap(),
                    item["output"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(outputs[2], ("call_3", "order 7: open"), "{label}");
        assert!(outputs[0].1.contains("`billing`"), "{label}: {outputs:?}");
        assert!(
            outputs[1].1.contains("`delete_orders`"),
            "{label}: {outputs:?}"
        );
    }
}

/// A top-level (built-in-like) tool answering `answer`.
fn top_level_tool(name: &str, answer: &str) -> Arc<dyn DynTool> {
    Arc::new(
        DynamicTool::from_json(
            &json!({"name": name, "description": "A top-level tool.",
                    "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}}}),
            ToolHandler::fixed_text(answer),
        )
        .unwrap(),
    )
}

#[test]
fn a_namespaced_call_never_runs_a_tool_outside_its_namespace() {
    // The server `remote` had `Read` and `List`; a deny rule on `mcp__remote__Read` left only
    // `List` in the pool, beside a built-in-like `Read` and `Bash`.
    let remote = mcp_tools_from_list(
        "remote",
        &json!({"tools": [{"name": "List", "description": "Lists.", "inputSchema": {"type": "object"}}]}),
        &McpImportOptions {
            handler: Some(ToolHandler::fixed_text("listed")),
            ..McpImportOptions::default()
        },
    )
    .unwrap()
    .tools;
    let mut pool = pool();
    pool.extend(remote);
    pool.push(top_level_tool("Read", "BUILT-IN READ RAN"));
    pool.push(top_level_tool("Bash", "BUILT-IN BASH RAN"));
    let response = json!({"output": [
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "namespace": "crm", "name": "Bash", "arguments": "{}"},
        {"type": "function_call", "id": "fc_2", "call_id": "c2", "namespace": "nosuch", "name": "Read", "arguments": "{}"},
        {"type": "function_call", "id": "fc_3", "call_id": "c3", "namespace": "remote", "name": "Read", "arguments": "{}"},
        {"type": "function_call", "id": "fc_4", "call_id": "c4", "namespace": "crm", "name": "mcp__remote__List", "arguments": "{}"},
        {"type": "function_call", "id": "fc_5", "call_id": "c5", "namespace": "get_weather", "name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"},
        {"type": "function_call", "id": "fc_6", "call_id": "c6", "namespace": "remote", "name": "List", "arguments": "{}"}
    ]});
    for (label, calls) in [
        (
            "whole",
            ModelApi::OpenAiResponses
                .read_calls(&response, &pool)
                .unwrap(),
        ),
        ("streamed", stream_calls(&response, &pool)),
    ] {
        assert_eq!(calls.len(), 6, "{label}: no call is dropped");
        for call in &calls.calls[..4] {
            assert!(
                matches!(call.input, Err(ArgumentsError::NotRunnable { .. })),
                "{label}: {call:?} must be refused"
            );
        }
        let refusal = calls.calls[1].input.as_ref().unwrap_err().to_string();
        assert!(
            refusal.contains("`nosuch`") && refusal.contains("call it without a namespace"),
            "{label}: {refusal}"
        );
        let runnable: Vec<String> = calls
            .runnable()
            .iter()
            .map(|call| call.name.clone())
            .collect();
        assert_eq!(runnable, ["get_weather", "mcp__remote__List"], "{label}");
        let mut permissions = ToolPermissionContext::default();
        permissions.add_rule_str(
            PermissionRuleSource::CliArg,
            PermissionBehavior::Allow,
            "mcp__remote",
            &AliasTable::default(),
        );
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let results = runtime
            .block_on(
                Orchestrator::new(&pool, OrchestratorConfig::default())
                    .with_permissions(permissions)
                    .run_tools(calls.runnable(), TurnState::default())
                    .collect_results(),
            )
            .results;
        let answer = ModelApi::OpenAiResponses
            .write_results(&calls, results, &pool)
            .unwrap();
        let text = answer.to_string();
        assert!(!text.contains("BUILT-IN"), "{label}: {answer:#}");
        assert_eq!(answer[4]["output"], "sunny", "{label}");
        assert_eq!(answer[5]["output"], "listed", "{label}");
    }
}

fn stream_calls(
    response: &Value,
    pool: &[Arc<dyn DynTool>],
) -> tool_registry::providers::ToolCalls {
    let mut stream = ModelApi::OpenAiResponses.stream(pool).unwrap();
    let mut sink = Vec::new();
    for (index, item) in response["output"].as_array().unwrap().iter().enumerate() {
        stream.push_event(
            &json!({"type": "response.output_item.added", "output_index": index, "item": item}),
            &mut sink,
        );
        stream.push_event(
            &json!({"type": "response.output_item.done", "output_index": index, "item": item}),
            &mut sink,
        );
    }
    stream.finish(&mut sink).calls
}

#[test]
fn tools_that_join_later_come_as_an_additional_tools_item_grouped_the_same_way() {
    let cache = SchemaCache::new();
    let item = OpenAiToolSearch::additional_tools(
        &cache,
        &pool(),
        &DeferralRules::default(),
        &RenderRequest::default(),
    )
    .unwrap();
    assert_eq!(item["type"], "additional_tools");
    assert_eq!(item["role"], "developer");
    let tools = item["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2, "{item:#}");
    assert_eq!(tools[0]["name"], "get_weather");
    assert_eq!(tools[0]["defer_loading"], true);
    assert_eq!(tools[1]["type"], "namespace");
    assert_eq!(tools[1]["tools"][0]["name"], "list_open_orders");
    assert_eq!(tools[1]["tools"][0]["defer_loading"], true);
}

/// Validates each `(type name, value)` with pydantic against the `openai` SDK type
/// `openai.types.responses.<type name>`; a value must come back unchanged (a key the type does
/// not know would be dropped, a wrong type refused). Panics naming the value otherwise.
fn check_against_openai_sdk(python: &Path, values: &[(&str, Value)]) {
    const SCRIPT: &str = r#"
import json, sys
from pydantic import TypeAdapter
import openai.types.responses as types
failures = []
for name, value in json.load(sys.stdin):
    adapter = TypeAdapter(getattr(types, name))
    try:
        back = json.loads(adapter.dump_json(adapter.validate_python(value)))
    except Exception as error:
        failures.append(f"{name}: {json.dumps(value)[:300]}: {error}")
        continue
    if back != value:
        failures.append(f"{name} changed: {json.dumps(value)} -> {json.dumps(back)}")
print("\n".join(failures))
sys.exit(1 if failures else 0)
"#;
    use std::io::Write as _;
    let mut child = std::process::Command::new(python)
        .args(["-c", SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let input = Value::Array(
        values
            .iter()
            .map(|(name, value)| json!([name, value]))
            .collect(),
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "the openai SDK types refuse our JSON:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn every_exported_shape_is_accepted_by_the_openai_sdk_types() {
    let Some(python) = sdk_python() else {
        return;
    };
    let cache = SchemaCache::new();
    let request = RenderRequest::default();
    let rules = DeferralRules::default();
    let mut values = Vec::new();
    for search in [OpenAiToolSearch::Hosted, OpenAiToolSearch::Client] {
        for tool in search.tools(&cache, &pool(), &rules, &request).unwrap() {
            values.push(("ToolParam", tool));
        }
    }
    let additional = OpenAiToolSearch::additional_tools(&cache, &pool(), &rules, &request).unwrap();
    values.push(("ResponseInputItemParam", additional));
    let search_call = json!({"output": [{"type": "tool_search_call", "id": "ts_1", "call_id": "call_s", "execution": "client", "arguments": {"query": "select:crm.list_open_orders,get_weather"}, "status": "completed"}]});
    let call = &ToolSearchCall::read_all(&search_call).unwrap()[0];
    let state = tool_registry::search::SearchState::new(pool());
    let answer = call.answer(&state, &cache, &request).unwrap();
    assert_eq!(answer["tools"].as_array().unwrap().len(), 2, "{answer:#}");
    values.push(("ResponseInputItemParam", answer));
    let response = fixture()["response"].clone();
    for item in response["output"].as_array().unwrap() {
        values.push(("ResponseInputItemParam", item.clone()));
    }
    let calls = ModelApi::OpenAiResponses
        .read_calls(&response, &pool())
        .unwrap();
    let results = run(&calls, &pool());
    let answer = ModelApi::OpenAiResponses
        .write_results(&calls, results, &pool())
        .unwrap();
    for item in answer.as_array().unwrap() {
        values.push(("ResponseInputItemParam", item.clone()));
    }
    check_against_openai_sdk(&python, &values);
}

#[test]
fn a_streamed_client_tool_search_call_is_kept_for_the_host_to_answer() {
    let pool = pool();
    let response = json!({"output": [
        {"type": "tool_search_call", "id": "ts_1", "call_id": "call_s", "execution": "client", "arguments": {"query": "select:list_open_orders"}, "status": "completed"}
    ]});
    let streamed = stream_of(&response, &pool, 0);
    assert!(streamed.calls.is_empty(), "a search is not a function call");
    let searches = ToolSearchCall::read_all(&streamed.message).unwrap();
    assert_eq!(searches.len(), 1);
    let state = tool_registry::search::SearchState::new(pool);
    let answer = searches[0]
        .answer(&state, &SchemaCache::new(), &RenderRequest::default())
        .unwrap();
    assert_eq!(answer["call_id"], "call_s");
    assert_eq!(answer["tools"][0]["name"], "crm");
    assert_eq!(answer["tools"][0]["tools"][0]["name"], "list_open_orders");
}
