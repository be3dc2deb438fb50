//! Run-time tools: JSON definitions with host handlers, and MCP-described tools (SPEC §10).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tool_registry::dynamic::{
    DefinitionError, DynamicTool, McpImportOptions, ToolHandler, mcp_tools_from_list,
};
use tool_sdk::{
    DeclaredFlag, DynTool, InputIssue, MaxResultSize, McpInfo, PermissionResult, ToolError,
    ToolResultContent, ToolUseContext,
};

fn todo_tool() -> DynamicTool {
    DynamicTool::from_json(
        &json!({
            "name": "TodoWrite",
            "description": "Updates the todo list.",
            "input_schema": {
                "type": "object",
                "properties": {
                    "todos": {"type": "array", "items": {"type": "object", "properties": {
                        "content": {"type": "string"},
                        "status": {"enum": ["pending", "in_progress", "completed"]},
                        "activeForm": {"type": "string"}
                    }, "required": ["content", "status", "activeForm"], "additionalProperties": false}},
                    "limit": {"type": "integer"}
                },
                "required": ["todos"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": false, "destructiveHint": false},
            "aliases": ["Todo"],
            "search_hint": "manage the session task checklist",
            "max_result_size_chars": null
        }),
        ToolHandler::new(|input: Value, ctx: ToolUseContext| async move {
            Ok::<_, ToolError>(ToolResultContent::Text(format!(
                "{} items for {}",
                input["todos"].as_array().map_or(0, Vec::len),
                ctx.tool_use_id()
            )))
        }),
    )
    .unwrap()
}

#[test]
fn definitions_carry_their_facts() {
    let tool = todo_tool();
    let meta = tool.meta();
    assert_eq!(meta.name, "TodoWrite");
    assert_eq!(meta.aliases, ["Todo"]);
    assert_eq!(
        meta.search_hint.as_deref(),
        Some("manage the session task checklist")
    );
    assert_eq!(meta.max_result_size_chars, MaxResultSize::Unbounded);
    assert_eq!(meta.read_only, DeclaredFlag::Never);
    assert_eq!(meta.concurrency_safe, DeclaredFlag::Never);
    assert_eq!(meta.destructive, DeclaredFlag::Never);
    assert_eq!(meta.open_world, DeclaredFlag::Default);
    assert!(!meta.is_mcp);
    assert!(tool.has_json_schema());
    assert_eq!(tool.prompt(), "Updates the todo list.");
}

#[test]
fn inputs_are_checked_against_the_json_schema_with_paths() {
    let tool = todo_tool();
    let error = tool
        .parse_input(
            &json!({"todos": [{"content": "x", "status": "done"}], "limit": "3", "extra": true}),
        )
        .err()
        .unwrap();
    assert_eq!(
        error.issues(),
        [
            InputIssue::Missing {
                path: "todos[0].activeForm".into()
            },
            InputIssue::Unexpected {
                path: "extra".into(),
                accepted: vec!["todos".into(), "limit".into()]
            },
            InputIssue::TypeMismatch {
                path: "limit".into(),
                expected: "integer".into(),
                received: "string".into()
            },
            InputIssue::Other {
                path: "todos[0].status".into(),
                message: r#""done" is not one of "pending", "in_progress" or "completed""#.into()
            },
        ]
    );
    let error = tool.parse_input(&json!([1])).err().unwrap();
    assert_eq!(
        error.issues(),
        [InputIssue::TypeMismatch {
            path: "(input)".into(),
            expected: "object".into(),
            received: "array".into()
        }]
    );
}

#[tokio::test]
async fn the_host_handler_runs_checked_calls() {
    let tool = todo_tool();
    let call = tool
        .parse_input(
            &json!({"todos": [{"content": "x", "status": "pending", "activeForm": "Doing x"}]}),
        )
        .unwrap();
    assert!(!call.is_read_only() && !call.is_concurrency_safe());
    assert_eq!(
        call.check_permissions(&ToolUseContext::detached("toolu_9"))
            .await,
        PermissionResult::allow()
    );
    let output = call
        .call(&ToolUseContext::detached("toolu_9"))
        .await
        .unwrap();
    assert_eq!(output.content.text(), "1 items for toolu_9");
}

#[test]
fn bad_definitions_name_the_field() {
    let handler = ToolHandler::fixed_text("ok");
    let schema = json!({"type": "object"});
    let error = |definition: Value| {
        DynamicTool::from_json(&definition, handler.clone())
            .err()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        error(json!({"name": "bad name", "description": "d", "input_schema": schema})),
        "tool `bad name`: `name` may only contain A-Z, a-z, 0-9, `_` and `-`; found ' '"
    );
    assert_eq!(
        error(json!({"name": "mcp__x__y", "description": "d", "input_schema": schema})),
        "tool `mcp__x__y`: `name` may not start with `mcp__`, which marks MCP tools; load those with --mcp-tools-json"
    );
    assert_eq!(
        error(json!({"name": "T", "description": "d", "input_schema": {"type": "string"}})),
        "tool `T`: `input_schema` must be an object schema: `{\"type\":\"object\",\"properties\":{...}}`"
    );
    assert_eq!(
        error(json!({"name": "T", "description": "d", "input_schema": {"type": "object", "properties": {"a": {"type": 5}}}})).split(':').take(2).collect::<Vec<_>>(),
        ["tool `T`", " `input_schema` is not a usable JSON Schema"]
    );
    assert!(
        error(json!({"name": "T", "description": "d", "input_schema": schema, "readonly": true}))
            .starts_with("tool definition `T`: unknown field `readonly`")
    );
    let callers = error(
        json!({"name": "T", "description": "d", "input_schema": schema, "callers": "programmatic"}),
    );
    assert!(
        callers.starts_with(
            "tool definition `T`: `callers` must be a list, not a string: write `\"callers\": [\"programmatic\"]`"
        ),
        "{callers}"
    );
    let callers = error(
        json!({"name": "T", "description": "d", "input_schema": schema, "callers": ["code_execution_20260120"]}),
    );
    assert!(
        callers.starts_with("tool `T`: `callers`") && callers.contains("write \"programmatic\""),
        "{callers}"
    );
    let list = DynamicTool::many_from_json(
        &json!([{"name": "A", "description": "d", "input_schema": schema}, {"description": "d"}]),
        &handler,
    );
    assert!(matches!(list, Err(DefinitionError::Shape { position, .. }) if position == "#1"));
}

fn github() -> Vec<Arc<dyn DynTool>> {
    let long = "word ".repeat(500);
    let list = json!({"result": {"tools": [
        {"name": "get_me", "description": "Get my profile.", "inputSchema": {"type": "object", "properties": {}},
         "annotations": {"readOnlyHint": true, "title": "Get my user profile"},
         "_meta": {"anthropic/searchHint": "  who   am\n i  ", "anthropic/alwaysLoad": true}},
        {"name": "delete_file", "description": long, "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
         "annotations": {"destructiveHint": true, "openWorldHint": true}, "_meta": {"anthropic/searchHint": "   ", "anthropic/alwaysLoad": "yes"}}
    ]}});
    mcp_tools_from_list("github", &list, &McpImportOptions::default())
        .unwrap()
        .tools
}

#[test]
fn mcp_tools_take_their_facts_from_the_server() {
    let tools = github();
    let me = tools[0].meta();
    assert_eq!(me.name, "mcp__github__get_me");
    assert!(me.is_mcp);
    assert_eq!(
        me.mcp_info,
        Some(McpInfo {
            server_name: "github".into(),
            tool_name: "get_me".into()
        })
    );
    assert_eq!(
        (me.read_only, me.concurrency_safe),
        (DeclaredFlag::Always, DeclaredFlag::Always)
    );
    assert_eq!(me.search_hint.as_deref(), Some("who am i"));
    assert!(me.always_load);
    assert_eq!(me.title.as_deref(), Some("Get my user profile"));
    assert_eq!(me.max_result_size_chars, MaxResultSize::Chars(100_000));
    let delete = tools[1].meta();
    // Absent hints read with the MCP defaults (`readOnlyHint` false), as on a live import.
    assert_eq!(delete.read_only, DeclaredFlag::Never);
    assert_eq!(delete.destructive, DeclaredFlag::Always);
    assert_eq!(delete.search_hint, None);
    assert!(!delete.always_load);
    let prompt = tools[1].prompt();
    assert_eq!(
        prompt.chars().count(),
        2048 + "… [truncated]".chars().count()
    );
    assert!(prompt.ends_with("wor… [truncated]"));
}

#[test]
fn recorded_lists_read_absent_hints_with_the_mcp_defaults() {
    let list = json!({"tools": [
        {"name": "bare", "inputSchema": {"type": "object"}},
        {"name": "reader", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}},
        {"name": "closed", "inputSchema": {"type": "object"},
         "annotations": {"destructiveHint": false, "openWorldHint": false}}
    ]});
    let tools = mcp_tools_from_list("s", &list, &McpImportOptions::default())
        .unwrap()
        .tools;
    let flags = |tool: &Arc<dyn DynTool>| {
        let meta = tool.meta();
        (
            meta.read_only,
            meta.destructive,
            meta.open_world,
            meta.idempotent,
        )
    };
    use DeclaredFlag::{Always, Never};
    // MCP 2025-11-25: readOnlyHint false, destructiveHint true, openWorldHint true,
    // idempotentHint false; a read-only tool is not destructive and is idempotent.
    assert_eq!(flags(&tools[0]), (Never, Always, Always, Never));
    assert_eq!(flags(&tools[1]), (Always, Never, Always, Always));
    assert_eq!(flags(&tools[2]), (Never, Never, Never, Never));
    let call = tools[0].parse_input(&json!({})).unwrap();
    assert!(!call.is_read_only() && !call.is_concurrency_safe());
    assert!(call.is_destructive() && call.is_open_world());
    let call = tools[2].parse_input(&json!({})).unwrap();
    assert!(!call.is_destructive() && !call.is_open_world());
}

#[tokio::test]
async fn mcp_calls_pass_permission_through_and_fail_until_connected() {
    let tools = github();
    let call = tools[0].parse_input(&json!({})).unwrap();
    let ctx = ToolUseContext::detached("toolu_1");
    assert!(call.is_read_only() && call.is_concurrency_safe());
    assert_eq!(
        call.user_facing_name(),
        "github - Get my user profile (MCP)"
    );
    assert_eq!(
        call.check_permissions(&ctx).await,
        PermissionResult::Passthrough {
            message: "MCP tools need permission before they run.".into()
        }
    );
    let error = call.call(&ctx).await.unwrap_err();
    assert_eq!(
        error.to_model_text(),
        "Cannot call `get_me`: MCP server `github` is not connected."
    );
    let missing = tools[1].parse_input(&json!({})).err().unwrap();
    assert_eq!(missing.to_string(), "Required parameter `path` is missing");
}

#[tokio::test]
async fn a_host_handler_answers_mcp_calls_once_connected() {
    let options = McpImportOptions {
        no_prefix: false,
        handler: Some(ToolHandler::fixed_text("connected")),
    };
    let tools = mcp_tools_from_list(
        "s",
        &json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
        &options,
    )
    .unwrap()
    .tools;
    let call = tools[0].parse_input(&json!({"anything": 1})).unwrap();
    assert_eq!(
        call.call(&ToolUseContext::detached("x"))
            .await
            .unwrap()
            .content
            .text(),
        "connected"
    );
}

#[test]
fn malformed_lists_say_what_is_missing() {
    let options = McpImportOptions::default();
    assert_eq!(
        mcp_tools_from_list("s", &json!({"items": []}), &options)
            .unwrap_err()
            .to_string(),
        "MCP server `s`: expected a `tools/list` result: `{\"tools\":[...]}` or `{\"result\":{\"tools\":[...]}}`"
    );
    // A bad entry costs only itself: it is skipped, named by server and index.
    let imported = mcp_tools_from_list(
        "s",
        &json!({"tools": [{"name": "t"}, {"name": "u", "inputSchema": {"type": "object"}}]}),
        &options,
    )
    .unwrap();
    assert_eq!(imported.tools.len(), 1);
    assert_eq!(imported.skipped[0].index, 0);
    assert_eq!(
        imported.skipped[0].to_string(),
        "MCP server `s`, tool #0: skipped: tool `t`: `inputSchema` is missing"
    );
}

/// A run-time tool's handler gets its own handle on the caller's context: cancelling the
/// context the caller keeps cancels the running handler; and the handler runs only once the
/// call's future is polled, not when the call is made.
#[tokio::test]
async fn a_handler_runs_when_polled_and_sees_the_callers_cancellation() {
    let started = Arc::new(AtomicBool::new(false));
    let seen = Arc::clone(&started);
    let handler = ToolHandler::new(move |_input, ctx: ToolUseContext| {
        seen.store(true, Ordering::SeqCst);
        async move {
            ctx.abort().cancelled().await;
            Ok::<_, ToolError>(ToolResultContent::Text("stopped".into()))
        }
    });
    let tool = DynamicTool::from_json(
        &json!({"name": "Wait", "description": "Waits.", "input_schema": {"type": "object"}}),
        handler,
    )
    .unwrap();
    let ctx = ToolUseContext::detached("toolu_1");
    let running = tool.parse_input(&json!({})).unwrap().call(&ctx);
    assert!(!started.load(Ordering::SeqCst));
    let cancel = async {
        tokio::task::yield_now().await;
        ctx.abort().cancel();
    };
    let (output, ()) = tokio::time::timeout(Duration::from_secs(10), async {
        tokio::join!(running, cancel)
    })
    .await
    .expect("cancelling the caller's context stops the handler");
    assert!(started.load(Ordering::SeqCst));
    assert_eq!(output.unwrap().content.text(), "stopped");
}
