//! `mcp::serve` in process, with rmcp's client on the other end of an in-memory pipe: the
//! concurrency rule, the output-schema decision, pagination, `tools/list_changed`, progress,
//! and logging levels (cancellation is checked with the Python SDK client in
//! `examples/tests/mcp_serve.rs`).
#![cfg(feature = "mcp-server")]
// rmcp marks logging deprecated for its next protocol revision (SEP-2577); MCP 2025-11-25, which
// the server speaks, has it.
#![allow(deprecated)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{LoggingLevel, PaginatedRequestParams, SetLevelRequestParams};
use serde_json::{Value, json};
use tool_registry::dynamic::{DynamicTool, ToolHandler};
use tool_registry::mcp::serve::McpServer;
use tool_registry::{Orchestrator, OrchestratorConfig};
use tool_sdk::prelude::*;
use tool_sdk::tool::output_schema_for;
use tool_sdk::{ToolResultContent, TypedTool};

mod mcp_serve_support;
use mcp_serve_support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn safe_calls_overlap_and_non_safe_calls_run_alone() {
    let spans: Spans = Arc::default();
    let tools = vec![
        timed_tool("safe_a", true, &spans),
        timed_tool("safe_b", true, &spans),
        timed_tool("write_a", false, &spans),
        timed_tool("write_b", false, &spans),
    ];
    let server = serve_pool(&tools, OrchestratorConfig::default());
    let (client, _) = connect(&server).await;
    let peer = client.peer();
    let (a, b) = tokio::join!(
        peer.call_tool(call("safe_a", json!({}))),
        peer.call_tool(call("safe_b", json!({})))
    );
    assert!(a.is_ok() && b.is_ok());
    let (a, b, c) = tokio::join!(
        peer.call_tool(call("write_a", json!({}))),
        peer.call_tool(call("write_b", json!({}))),
        peer.call_tool(call("safe_a", json!({})))
    );
    assert!(a.is_ok() && b.is_ok() && c.is_ok());
    assert_safe_calls_overlap_and_writes_run_alone(&spans);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn object_outputs_list_an_output_schema_and_answer_with_structured_content() {
    let tools: Vec<Arc<dyn DynTool>> = vec![
        Arc::new(TypedTool::of::<Add>(None)),
        Arc::new(
            TypedTool::of::<BothOf>(None).with_output_schema(|| Some(output_schema_for::<Both>())),
        ),
    ];
    let server = serve_pool(&tools, OrchestratorConfig::default());
    let (client, _) = connect(&server).await;
    let listed = client.list_all_tools().await.unwrap();
    let add = listed.iter().find(|tool| tool.name == "add").unwrap();
    assert!(
        add.output_schema.is_none(),
        "a scalar output is not wrapped"
    );
    let both = listed.iter().find(|tool| tool.name == "both").unwrap();
    let schema = Value::Object((**both.output_schema.as_ref().unwrap()).clone());
    assert_eq!(schema["type"], "object");
    let annotations = serde_json::to_value(both.annotations.as_ref().unwrap()).unwrap();
    for hint in [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ] {
        assert!(annotations[hint].is_boolean(), "{annotations}");
    }

    let result = client
        .call_tool(call("add", json!({"a": 2, "b": 3})))
        .await
        .unwrap();
    assert!(result.structured_content.is_none());
    assert_eq!(result.content[0].as_text().unwrap().text, "5");

    let result = client
        .call_tool(call("both", json!({"a": 2, "b": 3})))
        .await
        .unwrap();
    let structured = result.structured_content.clone().unwrap();
    assert_eq!(structured, json!({"sum": 5, "product": 6}));
    assert!(
        jsonschema::validator_for(&schema)
            .unwrap()
            .is_valid(&structured)
    );
    let copy: Value = serde_json::from_str(&result.content[0].as_text().unwrap().text).unwrap();
    assert_eq!(copy, structured);

    let invalid = client
        .call_tool(call("both", json!({"a": "two", "b": 3})))
        .await
        .unwrap();
    assert_eq!(invalid.is_error, Some(true));
    assert!(invalid.content[0].as_text().unwrap().text.contains("`a`"));
    let unknown = client.call_tool(call("nope", json!({}))).await.unwrap_err();
    assert!(unknown.to_string().contains("-32602"), "{unknown}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn pages_follow_the_cursor_and_a_new_pool_is_announced() {
    let spans: Spans = Arc::default();
    let tools: Vec<Arc<dyn DynTool>> = (0..5)
        .map(|index| timed_tool(&format!("tool_{index}"), true, &spans))
        .collect();
    let server = McpServer::with_options(
        Orchestrator::new(&tools, OrchestratorConfig::default()),
        "t",
        "1",
        tool_sdk::Extensions::new(),
        2,
    )
    .unwrap();
    let (client, recorder) = connect(&server).await;
    let first = client.list_tools(None).await.unwrap();
    assert_eq!(first.tools.len(), 2);
    let cursor = first.next_cursor.clone().unwrap();
    let all = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = all.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["tool_0", "tool_1", "tool_2", "tool_3", "tool_4"]);
    let bad = client
        .list_tools(Some(
            PaginatedRequestParams::default().with_cursor(Some("x".into())),
        ))
        .await
        .unwrap_err();
    assert!(bad.to_string().contains("-32602"), "{bad}");

    // The same pool again (an imported server reconnecting with the same tools): no notice,
    // and a cursor handed out before still pages on.
    server
        .set_orchestrator(Orchestrator::new(&tools, OrchestratorConfig::default()))
        .await
        .unwrap();
    let next = client
        .list_tools(Some(
            PaginatedRequestParams::default().with_cursor(Some(cursor.clone())),
        ))
        .await
        .unwrap();
    assert_eq!(next.tools[0].name, "tool_2");
    client.list_all_tools().await.unwrap();
    assert!(
        !recorder.events().contains(&"list_changed".to_owned()),
        "an unchanged listing is not announced"
    );

    server
        .set_orchestrator(Orchestrator::new(
            &tools[..1],
            OrchestratorConfig::default(),
        ))
        .await
        .unwrap();
    let stale = client
        .list_tools(Some(
            PaginatedRequestParams::default().with_cursor(Some(cursor)),
        ))
        .await;
    assert!(stale.is_err(), "a cursor of the old pool is refused");
    let events = recorder.events_with("list_changed").await;
    assert!(events.contains(&"list_changed".to_owned()), "{events:?}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn progress_and_logging_levels() {
    let tools = vec![chatty_tool()];
    let server = serve_pool(&tools, OrchestratorConfig::default());
    let (client, recorder) = connect(&server).await;

    // Default level info: the debug line is held back, the warning goes out. rmcp's client
    // sends a progressToken with every call, so the reports arrive as notifications/progress.
    let result = client.call_tool(call("chatty", json!({}))).await.unwrap();
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        "chatted (false, true)"
    );
    let events = recorder.events_with("free text").await;
    assert!(
        events.iter().any(|event| event.contains("Warning")),
        "{events:?}"
    );
    assert!(
        !events.iter().any(|event| event.contains("debug line")),
        "{events:?}"
    );
    assert!(
        events.contains(&"progress 1 Some(2.0) Some(\"half\")".to_owned()),
        "{events:?}"
    );
    assert!(
        events.contains(&"progress 2 None Some(\"free text\")".to_owned()),
        "{events:?}"
    );

    // After logging/setLevel debug, the debug line goes out too.
    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Debug))
        .await
        .unwrap();
    let result = client.call_tool(call("chatty", json!({}))).await.unwrap();
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        "chatted (true, true)"
    );
    client.cancel().await.unwrap();
}

/// A tool that hands a copy of its context to a task that keeps reporting progress for two
/// seconds after the tool has answered.
fn leaky_progress_tool() -> Arc<dyn DynTool> {
    let handler = ToolHandler::new(|_input, ctx: ToolUseContext| async move {
        ctx.report_progress(&"before");
        tokio::spawn(async move {
            for _ in 0..100 {
                ctx.report_progress(&"after the result");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        });
        Ok::<_, ToolError>(ToolResultContent::Text("answered".to_owned()))
    });
    let definition = json!({
        "name": "leaky",
        "description": "Keeps reporting progress after answering.",
        "input_schema": {"type": "object", "properties": {}},
        "read_only": true,
        "concurrency_safe": true,
    });
    Arc::new(DynamicTool::from_json(&definition, handler).unwrap())
}

#[tokio::test]
async fn no_progress_goes_out_after_the_result() {
    let tools = vec![leaky_progress_tool()];
    let server = serve_pool(&tools, OrchestratorConfig::default());
    let (client, recorder) = connect(&server).await;
    let started = Instant::now();
    let result = client.call_tool(call("leaky", json!({}))).await.unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "answered");
    // The result is not held back waiting for a copy of the sink the tool leaked.
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "{:?}",
        started.elapsed()
    );
    // Notifications sent before the result are handled on the client's tasks: let them land.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let at_result = recorder.events().len();
    assert!(
        recorder
            .events()
            .iter()
            .any(|event| event.contains("before")),
        "{:?}",
        recorder.events()
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let events = recorder.events();
    assert_eq!(
        events.len(),
        at_result,
        "progress after the result: {events:?}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn saved_large_results_of_two_sessions_do_not_share_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let tools: Vec<Arc<dyn DynTool>> = vec![Arc::new(TypedTool::of::<Repeat>(None))];
    let server = serve_pool(
        &tools,
        OrchestratorConfig::default().with_result_dir(dir.path()),
    );
    // Two sessions, whose clients number their requests alike.
    for letter in ["a", "b"] {
        let (client, _) = connect(&server).await;
        let result = client
            .call_tool(call("repeat", json!({"letter": letter})))
            .await
            .unwrap();
        let text = &result.content[0].as_text().unwrap().text;
        let path = text
            .split("saved to: ")
            .nth(1)
            .and_then(|rest| rest.lines().next())
            .unwrap_or_else(|| panic!("not saved: {text}"));
        let saved = std::fs::read_to_string(path).unwrap();
        assert_eq!(
            saved,
            letter.repeat(500),
            "{path} holds another call's result"
        );
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn a_lenient_tool_is_listed_open_and_takes_unknown_keys() {
    let tools: Vec<Arc<dyn DynTool>> = vec![Arc::new(TypedTool::of::<Add>(None))];
    let listed_root = |config: OrchestratorConfig| {
        let tools = tools.clone();
        async move {
            let server = serve_pool(&tools, config);
            let (client, _) = connect(&server).await;
            let listed = client.list_all_tools().await.unwrap();
            let closed = listed[0].input_schema.get("additionalProperties") == Some(&json!(false));
            let extra = client
                .call_tool(call("add", json!({"a": 2, "b": 3, "c": 4})))
                .await
                .unwrap();
            client.cancel().await.unwrap();
            (closed, extra.is_error == Some(true))
        }
    };
    // Strict: listed closed, and an unknown key is an error...
    assert_eq!(
        listed_root(OrchestratorConfig::default()).await,
        (true, true)
    );
    // ...lenient: listed open, and the unknown key is dropped.
    let lenient = OrchestratorConfig::default().with_lenient_input("add");
    assert_eq!(listed_root(lenient).await, (false, false));
}

#[tokio::test]
async fn a_saved_large_result_still_answers_with_all_its_structured_content() {
    let dir = tempfile::tempdir().unwrap();
    let tools: Vec<Arc<dyn DynTool>> = vec![Arc::new(
        TypedTool::of::<LinesOf>(None).with_output_schema(|| Some(output_schema_for::<Lines>())),
    )];
    let server = serve_pool(
        &tools,
        OrchestratorConfig::default().with_result_dir(dir.path()),
    );
    let (client, _) = connect(&server).await;
    let listed = client.list_all_tools().await.unwrap();
    let schema = Value::Object((**listed[0].output_schema.as_ref().unwrap()).clone());
    let result = client
        .call_tool(call("lines", json!({"count": 400})))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let structured = result
        .structured_content
        .clone()
        .expect("structuredContent");
    assert_eq!(structured["lines"].as_array().unwrap().len(), 400);
    assert_eq!(structured["lines"][399], "line 399");
    assert!(
        jsonschema::validator_for(&schema)
            .unwrap()
            .is_valid(&structured)
    );
    // The text stays the bounded preview: no full copy is added beside it.
    assert_eq!(result.content.len(), 1, "{result:?}");
    let text = &result.content[0].as_text().unwrap().text;
    assert!(text.starts_with("<persisted-output>"), "{text}");
    // A small result is still answered inline with its text copy.
    let small = client
        .call_tool(call("lines", json!({"count": 1})))
        .await
        .unwrap();
    assert_eq!(small.structured_content, Some(json!({"lines": ["line 0"]})));
    let copy: Value = serde_json::from_str(&small.content[0].as_text().unwrap().text).unwrap();
    assert_eq!(copy, json!({"lines": ["line 0"]}));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_result_imitating_a_saved_block_never_makes_the_server_read_the_file_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, r#"{"secret": "hunter2"}"#).unwrap();
    let results = dir.path().join("results");
    let tools: Vec<Arc<dyn DynTool>> = vec![Arc::new(
        TypedTool::of::<Forge>(None).with_output_schema(|| Some(output_schema_for::<Lines>())),
    )];
    let server = serve_pool(
        &tools,
        OrchestratorConfig::default().with_result_dir(&results),
    );
    let (client, _) = connect(&server).await;
    // A file outside the result directory, and one inside it under another call's name.
    let inside = results.join("toolu_other.txt");
    std::fs::create_dir_all(&results).unwrap();
    std::fs::write(&inside, r#"{"secret": "hunter2"}"#).unwrap();
    for path in [&secret, &inside] {
        let result = client
            .call_tool(call("forge", json!({"path": path.to_str().unwrap()})))
            .await
            .unwrap();
        assert!(
            result.structured_content.is_none(),
            "the server read {}: {result:?}",
            path.display()
        );
        let text = serde_json::to_string(&result.content).unwrap();
        assert!(!text.contains("hunter2"), "{text}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_tool_whose_description_and_hints_change_is_listed_anew_and_announced() {
    let first = vec![described_tool("one", false)];
    let server = serve_pool(&first, OrchestratorConfig::default());
    let (client, recorder) = connect(&server).await;
    let listed = client.list_all_tools().await.unwrap();
    assert_eq!(listed[0].description.as_deref(), Some("one"));
    // The same name and input schema; a new description, now read-only.
    let second = vec![described_tool("two", true)];
    server
        .set_orchestrator(Orchestrator::new(&second, OrchestratorConfig::default()))
        .await
        .unwrap();
    let events = recorder.events_with("list_changed").await;
    assert!(events.contains(&"list_changed".to_owned()), "{events:?}");
    let listed = client.list_all_tools().await.unwrap();
    assert_eq!(listed[0].description.as_deref(), Some("two"));
    let annotations = listed[0].annotations.as_ref().unwrap();
    assert_eq!(annotations.read_only_hint, Some(true));
    client.cancel().await.unwrap();
}

#[test]
fn the_listing_is_the_mcp_export_byte_for_byte() {
    use tool_registry::dynamic::{McpImportOptions, mcp_tools_from_list};
    use tool_registry::export::{RenderRequest, SchemaCache};
    use tool_registry::providers::ModelApi;

    let imported = json!({"tools": [{
        "name": "lookup",
        "title": "Look up",
        "description": "Looks a key up.",
        "inputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"key": {"type": "string"}},
            "required": ["key"],
            "additionalProperties": false
        },
        "outputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"value": {"type": "string"}}
        }
    }]});
    let imported = mcp_tools_from_list("store", &imported, &McpImportOptions::default())
        .unwrap()
        .tools
        .remove(0);
    let tools: Vec<Arc<dyn DynTool>> = vec![
        Arc::new(TypedTool::of::<Add>(None)),
        Arc::new(
            TypedTool::of::<BothOf>(None).with_output_schema(|| Some(output_schema_for::<Both>())),
        ),
        Arc::new(TypedTool::of::<Titled>(None)),
        imported,
        described_tool("A JSON-defined tool.", false),
    ];
    let config = OrchestratorConfig::default().with_lenient_input("add");
    let request = RenderRequest {
        lenient_input: config.lenient_input_tools.clone(),
        ..RenderRequest::default()
    };
    let orchestrator = Orchestrator::new(&tools, config);
    let pool = orchestrator.tools().to_vec();
    let server = McpServer::new(orchestrator, "t", "1").unwrap();
    let listed: Vec<Value> = server
        .tools()
        .iter()
        .map(|tool| serde_json::to_value(tool).unwrap())
        .collect();
    let mut exported = ModelApi::Mcp
        .definitions(&SchemaCache::new(), &pool, &request)
        .unwrap();
    // The server keeps each tool's own 2020-12 `$schema` on its input schema (SEP-1613); a
    // schema in an older dialect (the imported draft-07 one here) is listed as the 2020-12
    // schema the export rewrote it into, with no `$schema`.
    for (tool, definition) in pool.iter().zip(&mut exported) {
        if let Some(dialect) = tool.input_schema().get("$schema")
            && dialect.as_str().is_some_and(|uri| uri.contains("2020-12"))
        {
            definition["inputSchema"]
                .as_object_mut()
                .unwrap()
                .shift_insert(0, "$schema".to_owned(), dialect.clone());
        }
    }
    // Same definitions, same bytes, same (pool) order.
    let texts = |definitions: &[Value]| -> Vec<String> {
        definitions.iter().map(Value::to_string).collect()
    };
    assert_eq!(texts(&listed), texts(&exported));
    // What each case shows: the lenient tool listed open, the object output listed without its
    // `$schema`, the title and all four hints stated.
    let add = listed.iter().find(|tool| tool["name"] == "add").unwrap();
    assert!(
        add["inputSchema"].get("additionalProperties").is_none(),
        "{add}"
    );
    let lookup = listed
        .iter()
        .find(|tool| tool["name"] == "mcp__store__lookup")
        .unwrap();
    assert_eq!(lookup["title"], "Look up");
    assert!(lookup["outputSchema"].get("$schema").is_none(), "{lookup}");
    assert_eq!(
        lookup["annotations"].as_object().unwrap().len(),
        4,
        "{lookup}"
    );
    let both = listed.iter().find(|tool| tool["name"] == "both").unwrap();
    assert_eq!(both["outputSchema"]["type"], "object", "{both}");
    let titled = listed.iter().find(|tool| tool["name"] == "titled").unwrap();
    assert_eq!(titled["title"], "A titled tool", "{titled}");
    assert_eq!(titled["annotations"]["openWorldHint"], false, "{titled}");
}

#[tokio::test]
async fn a_pool_with_two_tools_of_one_name_is_refused_naming_it() {
    let tools = vec![described_tool("One.", true), described_tool("Two.", false)];
    let error = McpServer::new(
        Orchestrator::new(&tools, OrchestratorConfig::default()),
        "t",
        "1",
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("two tools are named `t`"), "{error}");
    // A server keeps serving its pool when a new one is refused.
    let server = serve_pool(&tools[..1], OrchestratorConfig::default());
    let refused = server
        .set_orchestrator(Orchestrator::new(&tools, OrchestratorConfig::default()))
        .await;
    assert!(refused.is_err());
    assert_eq!(server.tools().len(), 1);
    assert_eq!(server.tools()[0].description.as_deref(), Some("One."));
}

#[test]
fn a_tool_types_listed_input_schema_is_built_once_and_a_lenient_listing_leaves_it_closed() {
    let tools = || -> Vec<Arc<dyn DynTool>> { vec![Arc::new(TypedTool::of::<Add>(None))] };
    let lenient = serve_pool(
        &tools(),
        OrchestratorConfig::default().with_lenient_input("add"),
    );
    let first = serve_pool(&tools(), OrchestratorConfig::default());
    let second = serve_pool(&tools(), OrchestratorConfig::default());
    let (first, second, lenient) = (first.tools(), second.tools(), lenient.tools());
    // New instances of the same type, new servers: one listed schema, shared.
    assert!(Arc::ptr_eq(&first[0].input_schema, &second[0].input_schema));
    // The lenient server opened its own copy, not the shared one.
    assert!(!Arc::ptr_eq(
        &first[0].input_schema,
        &lenient[0].input_schema
    ));
    assert_eq!(
        first[0].input_schema.get("additionalProperties"),
        Some(&json!(false))
    );
    assert_eq!(lenient[0].input_schema.get("additionalProperties"), None);
}
