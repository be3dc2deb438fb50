//! OpenAI Responses client-executed `tool_search`: the names of a `select:` query are the
//! ones the model saw in the export (`namespace.member`, a bare member, a whole namespace),
//! and a malformed `tool_search_call` does not keep its well-formed siblings from an answer.
//! Item shapes: `ResponseToolSearchCall` / `tool_search_output` of the `openai` 3.60.0 Python
//! SDK (`types/responses/response_input_item_param.py`), read 2026-12-03.

use std::sync::Arc;

use serde_json::{Value, json};
use tool_registry::dynamic::{DynamicTool, McpImportOptions, ToolHandler, mcp_tools_from_list};
use tool_registry::export::{RenderRequest, SchemaCache};
use tool_registry::providers::{ModelApi, OpenAiToolSearch, ToolSearchCall};
use tool_registry::search::{DeferralRules, SearchState};
use tool_sdk::DynTool;

/// The MCP servers `fs` (`read_file`, `write_file`) and `crm` (`list_open_orders`,
/// `read_file`), and a deferred top-level `get_weather`.
fn pool() -> Vec<Arc<dyn DynTool>> {
    let server = |name: &str, tools: &[&str]| {
        let list = json!({"tools": tools.iter().map(|tool| json!({
            "name": tool, "description": format!("The {tool} tool of {name}."),
            "inputSchema": {"type": "object"}
        })).collect::<Vec<_>>()});
        let options = McpImportOptions {
            handler: Some(ToolHandler::fixed_text("ok")),
            ..McpImportOptions::default()
        };
        mcp_tools_from_list(name, &list, &options).unwrap().tools
    };
    let mut pool = server("fs", &["read_file", "write_file"]);
    pool.extend(server("crm", &["list_open_orders", "read_file"]));
    pool.push(Arc::new(
        DynamicTool::from_json(
            &json!({"name": "get_weather", "description": "Weather of a city.", "should_defer": true,
                    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}),
            ToolHandler::fixed_text("sunny"),
        )
        .unwrap(),
    ));
    pool
}

fn search_call(call_id: &str, arguments: Value) -> Value {
    json!({"type": "tool_search_call", "id": format!("ts_{call_id}"), "call_id": call_id,
           "execution": "client", "arguments": arguments, "status": "completed"})
}

/// The answer's loaded tools as `namespace.member` / `function` names, in order.
fn loaded(answer: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for tool in answer["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        if tool["type"] == "namespace" {
            for member in tool["tools"].as_array().unwrap() {
                names.push(format!("{name}.{}", member["name"].as_str().unwrap()));
            }
        } else {
            names.push(name.to_owned());
        }
    }
    names
}

fn answer_for(query: &str) -> Value {
    let response = json!({"output": [search_call("call_s", json!({"query": query}))]});
    let calls = ToolSearchCall::read_all(&response).unwrap();
    calls[0]
        .answer(
            &SearchState::new(pool()),
            &SchemaCache::new(),
            &RenderRequest::default(),
        )
        .unwrap()
}

#[test]
fn select_takes_the_names_the_model_sees_in_the_export() {
    for (query, expected) in [
        ("select:fs.read_file", vec!["fs.read_file"]),
        ("select:list_open_orders", vec!["crm.list_open_orders"]),
        ("select:fs", vec!["fs.read_file", "fs.write_file"]),
        (
            "select:get_weather,crm.read_file",
            vec!["get_weather", "crm.read_file"],
        ),
        // In the order of the matches, not functions first.
        (
            "select:crm.read_file,get_weather",
            vec!["crm.read_file", "get_weather"],
        ),
        (
            "select:mcp__crm__list_open_orders",
            vec!["crm.list_open_orders"],
        ),
    ] {
        assert_eq!(loaded(&answer_for(query)), expected, "{query}");
    }
    // `read_file` is a member of two namespaces: a bare name cannot say which.
    assert_eq!(
        loaded(&answer_for("select:read_file")),
        Vec::<String>::new()
    );
    assert_eq!(
        loaded(&answer_for("select:nosuch.read_file")),
        Vec::<String>::new()
    );
}

#[test]
fn a_malformed_search_call_is_answered_empty_and_its_siblings_normally() {
    let response = json!({"output": [
        search_call("call_a", json!({"max_results": 3})),
        search_call("call_b", json!({"query": "select:fs.write_file"})),
        search_call("call_c", json!("{not json")),
        {"type": "tool_search_call", "id": "ts_x", "execution": "client", "arguments": {"query": "weather"}},
        search_call("call_d", json!("{\"query\":\"select:get_weather\"}")),
    ]});
    let calls = ToolSearchCall::read_all(&response).unwrap();
    let ids: Vec<&str> = calls.iter().map(|call| call.call_id.as_str()).collect();
    assert_eq!(
        ids,
        ["call_a", "call_b", "call_c", "call_d"],
        "only the call without a call_id, which nothing can answer, is left out"
    );
    let error = calls[0].error.as_deref().unwrap();
    assert!(
        error.contains("output[0]") && error.contains("`arguments.query`"),
        "{error}"
    );
    assert!(calls[2].error.as_deref().unwrap().contains("output[2]"));
    assert_eq!(calls[1].error, None);
    let state = SearchState::new(pool());
    let answers: Vec<Value> = calls
        .iter()
        .map(|call| {
            call.answer(&state, &SchemaCache::new(), &RenderRequest::default())
                .unwrap()
        })
        .collect();
    assert_eq!(
        answers[0],
        json!({"type": "tool_search_output", "call_id": "call_a", "execution": "client", "tools": []})
    );
    assert_eq!(answers[2]["tools"], json!([]));
    assert_eq!(loaded(&answers[1]), ["fs.write_file"]);
    assert_eq!(loaded(&answers[3]), ["get_weather"]);
}

#[test]
fn a_server_named_like_a_top_level_function_gets_a_namespace_of_its_own() {
    let mut pool = pool();
    pool.extend(
        mcp_tools_from_list(
            "get_weather",
            &json!({"tools": [{"name": "forecast", "description": "A forecast.", "inputSchema": {"type": "object"}}]}),
            &McpImportOptions {
                handler: Some(ToolHandler::fixed_text("rain")),
                ..McpImportOptions::default()
            },
        )
        .unwrap()
        .tools,
    );
    let cache = SchemaCache::new();
    let tools = OpenAiToolSearch::Client
        .tools(
            &cache,
            &pool,
            &DeferralRules::default(),
            &RenderRequest::default(),
        )
        .unwrap();
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    let namespace = names[3];
    assert_eq!(&names[..3], ["get_weather", "fs", "crm"], "{names:?}");
    assert!(
        namespace.starts_with("get_weather_") && namespace.len() == "get_weather_".len() + 8,
        "{names:?}"
    );
    // The search answer names it the same way.
    let response =
        json!({"output": [search_call("call_s", json!({"query": format!("select:{namespace}")}))]});
    let answer = ToolSearchCall::read_all(&response).unwrap()[0]
        .answer(
            &SearchState::new(pool.clone()),
            &cache,
            &RenderRequest::default(),
        )
        .unwrap();
    assert_eq!(loaded(&answer), [format!("{namespace}.forecast")]);
    // Calls: the member in its namespace, and the top-level function under its own name.
    let response = json!({"output": [
        {"type": "function_call", "call_id": "c1", "namespace": namespace, "name": "forecast", "arguments": "{}"},
        {"type": "function_call", "call_id": "c2", "namespace": "get_weather", "name": "get_weather", "arguments": "{}"},
        {"type": "function_call", "call_id": "c3", "namespace": "get_weather", "name": "forecast", "arguments": "{}"}
    ]});
    let calls = ModelApi::OpenAiResponses
        .read_calls(&response, &pool)
        .unwrap();
    assert_eq!(calls.calls[0].name, "mcp__get_weather__forecast");
    assert_eq!(calls.calls[1].name, "get_weather");
    assert!(calls.calls[1].input.is_ok());
    assert!(calls.calls[2].input.is_err(), "{:?}", calls.calls[2]);
}
