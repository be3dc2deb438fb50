//! Provider-side tool search: the same pool and deferred set exported for Anthropic's server
//! tool search (with its beta header) and OpenAI Responses' `tool_search` (hosted, or answered
//! by our own search), MCP servers as Responses namespaces.

use std::sync::Arc;

use serde_json::{Value, json};
use tool_registry::dynamic::{DynamicTool, McpImportOptions, ToolHandler, mcp_tools_from_list};
use tool_registry::export::{RenderRequest, SchemaCache};
use tool_registry::providers::{AnthropicToolSearch, OpenAiToolSearch, ToolSearchCall};
use tool_registry::search::{DeferralRules, SearchState, ToolSearchConfig};
use tool_registry::test_support::tool_search_tool;
use tool_sdk::DynTool;

fn pool() -> Vec<Arc<dyn DynTool>> {
    let tool = |definition: Value| -> Arc<dyn DynTool> {
        Arc::new(DynamicTool::from_json(&definition, ToolHandler::fixed_text("ok")).unwrap())
    };
    let mut tools = vec![
        tool(
            json!({"name": "Read", "description": "Reads a file.", "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}}),
        ),
        tool(
            json!({"name": "NotebookEdit", "description": "Edits a notebook cell.", "should_defer": true, "input_schema": {"type": "object", "properties": {"cell": {"type": "integer"}}}}),
        ),
        tool_search_tool(&ToolSearchConfig::default()),
    ];
    for (server, names) in [
        ("github", ["create_issue", "list_issues"]),
        ("slack", ["send_message", "list_channels"]),
    ] {
        let list = json!({"tools": names.iter().map(|name| json!({"name": name, "description": format!("{name} on {server}."), "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}})).collect::<Vec<_>>()});
        tools.extend(
            mcp_tools_from_list(server, &list, &McpImportOptions::default())
                .unwrap()
                .tools,
        );
    }
    tools
}

#[test]
fn anthropic_gets_the_server_search_tool_deferred_flags_and_the_beta_header() {
    let cache = SchemaCache::new();
    for (search, kind, name) in [
        (
            AnthropicToolSearch::Bm25,
            "tool_search_tool_bm25_20251119",
            "tool_search_tool_bm25",
        ),
        (
            AnthropicToolSearch::Regex,
            "tool_search_tool_regex_20251119",
            "tool_search_tool_regex",
        ),
    ] {
        let request = search
            .request(
                &cache,
                &pool(),
                &DeferralRules::default(),
                &RenderRequest::default(),
            )
            .unwrap();
        assert_eq!(request.beta_header, AnthropicToolSearch::BETA);
        assert_eq!(request.tools[0], json!({"type": kind, "name": name}));
        let deferred: Vec<(&str, bool)> = request.tools[1..]
            .iter()
            .map(|t| {
                (
                    t["name"].as_str().unwrap(),
                    t.get("defer_loading") == Some(&json!(true)),
                )
            })
            .collect();
        assert_eq!(
            deferred,
            [
                ("Read", false),
                ("NotebookEdit", true),
                ("mcp__github__create_issue", true),
                ("mcp__github__list_issues", true),
                ("mcp__slack__send_message", true),
                ("mcp__slack__list_channels", true),
            ],
            "our ToolSearch is left out"
        );
    }
}

#[test]
fn openai_gets_namespaces_per_mcp_server_and_a_tool_search_tool() {
    let cache = SchemaCache::new();
    let openai = |search: OpenAiToolSearch| {
        search
            .tools(
                &cache,
                &pool(),
                &DeferralRules::default(),
                &RenderRequest::default(),
            )
            .unwrap()
    };
    let tools = openai(OpenAiToolSearch::Hosted);
    let kinds: Vec<(&str, &str)> = tools
        .iter()
        .map(|t| {
            (
                t["type"].as_str().unwrap(),
                t["name"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("function", "Read"),
            ("function", "NotebookEdit"),
            ("namespace", "github"),
            ("namespace", "slack"),
            ("tool_search", "")
        ]
    );
    assert_eq!(tools[0].get("defer_loading"), None);
    assert_eq!(tools[1]["defer_loading"], true);
    assert_eq!(
        tools[2].get("defer_loading"),
        None,
        "a namespace itself is not deferred"
    );
    assert_eq!(
        tools[2]["tools"][0]["name"], "create_issue",
        "named inside its namespace"
    );
    assert_eq!(tools[2]["tools"][0]["defer_loading"], true);
    assert_eq!(tools[4], json!({"type": "tool_search"}));
    let client = openai(OpenAiToolSearch::Client);
    let search = client.last().unwrap();
    assert_eq!(search["execution"], "client");
    assert_eq!(search["parameters"]["required"], json!(["query"]));
}

#[test]
fn a_client_tool_search_call_is_answered_with_the_matching_definitions() {
    let response = json!({"output": [
        {"type": "tool_search_call", "id": "ts_1", "call_id": "call_s1", "execution": "client", "arguments": {"query": "select:mcp__slack__send_message,NotebookEdit"}, "status": "completed"},
        {"type": "tool_search_call", "id": "ts_2", "execution": "server", "arguments": {"query": "x"}},
        {"type": "tool_search_call", "id": "ts_3", "call_id": "call_s3", "execution": "client", "arguments": "{\"query\": \"github issues\", \"max_results\": 1}"}
    ]});
    let calls = ToolSearchCall::read_all(&response).unwrap();
    assert_eq!(calls.len(), 2, "hosted searches are OpenAI's");
    assert_eq!(calls[1].max_results, 1);
    let state = SearchState::new(pool());
    let cache = SchemaCache::new();
    let output = calls[0]
        .answer(&state, &cache, &RenderRequest::default())
        .unwrap();
    assert_eq!(output["type"], "tool_search_output");
    assert_eq!(output["call_id"], "call_s1");
    assert_eq!(output["execution"], "client");
    let names: Vec<(&str, &str)> = output["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["type"].as_str().unwrap(), t["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [("namespace", "slack"), ("function", "NotebookEdit")],
        "an MCP match loads inside its namespace, in the order of the matches"
    );
    let member = &output["tools"][0]["tools"][0];
    assert_eq!(member["name"], "send_message");
    assert_eq!(member.get("defer_loading"), None);
    assert!(member["parameters"]["properties"]["q"].is_object());
    let keyword = calls[1]
        .answer(&state, &cache, &RenderRequest::default())
        .unwrap();
    let found = keyword["tools"].as_array().unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0]["name"], "github", "{keyword:#}");
    assert_eq!(
        found[0]["tools"].as_array().unwrap().len(),
        1,
        "{keyword:#}"
    );
}
