//! What a served tool advertises, it returns: a tool listed with an `outputSchema` answers
//! with `structuredContent`, or is not listed with one.
#![cfg(feature = "mcp-server")]

use std::sync::Arc;

use serde_json::json;
use tool_registry::OrchestratorConfig;
use tool_sdk::TypedTool;
use tool_sdk::prelude::*;
use tool_sdk::tool::output_schema_for;

mod mcp_serve_support;
use mcp_serve_support::*;

/// Sums two numbers and says so in words (its own result mapping).
#[tool(
    name = "say_sum",
    read_only,
    concurrency_safe,
    max_result_size_chars = 1000
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SaySum {
    /// First number.
    pub a: i64,
    /// Second number.
    pub b: i64,
}

#[tool]
impl Tool for SaySum {
    type Output = Both;

    fn map_result(output: Both, _tool_use_id: &str) -> ToolResultContent {
        ToolResultContent::Text(format!("The sum is {}.", output.sum))
    }

    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<Both>, ToolError> {
        Ok(ToolResult::new(Both {
            sum: self.a + self.b,
            product: self.a * self.b,
        }))
    }
}

/// Declares an object output but answers in words.
#[tool(
    name = "promise",
    read_only,
    concurrency_safe,
    max_result_size_chars = 1000
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Promise {}

#[tool]
impl Tool for Promise {
    type Output = String;

    fn output_schema() -> Option<serde_json::Value> {
        Some(json!({"type": "object", "properties": {"sum": {"type": "integer"}}}))
    }

    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("seven".to_owned()))
    }
}

#[tokio::test]
async fn a_tool_with_its_own_result_mapping_is_listed_without_an_output_schema() {
    // Both with the output type's schema, as `#[tool]` registrations pass it.
    let tools: Vec<Arc<dyn DynTool>> = vec![
        Arc::new(
            TypedTool::of::<BothOf>(None).with_output_schema(|| Some(output_schema_for::<Both>())),
        ),
        Arc::new(
            TypedTool::of::<SaySum>(None).with_output_schema(|| Some(output_schema_for::<Both>())),
        ),
    ];
    let server = serve_pool(&tools, OrchestratorConfig::default());
    let (client, _) = connect(&server).await;
    let listed = client.list_all_tools().await.unwrap();
    let schema_of = |name: &str| {
        listed
            .iter()
            .find(|tool| tool.name == name)
            .unwrap()
            .output_schema
            .is_some()
    };
    // The default mapping writes the output as JSON: the schema describes it.
    assert!(schema_of("both"));
    // `map_result` writes prose: no schema is promised.
    assert!(!schema_of("say_sum"));
    let said = client
        .call_tool(call("say_sum", json!({"a": 3, "b": 4})))
        .await
        .unwrap();
    assert_eq!(said.content[0].as_text().unwrap().text, "The sum is 7.");
    assert!(said.structured_content.is_none());
    let both = client
        .call_tool(call("both", json!({"a": 3, "b": 4})))
        .await
        .unwrap();
    assert_eq!(
        both.structured_content,
        Some(json!({"sum": 7, "product": 12}))
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_declared_output_schema_with_a_result_that_is_not_an_object_is_an_error_naming_the_fix() {
    let server = serve_pool(
        &[tool_sdk::dyn_tool::<Promise>()],
        OrchestratorConfig::default(),
    );
    let (client, _) = connect(&server).await;
    let listed = client.list_all_tools().await.unwrap();
    assert!(listed[0].output_schema.is_some());
    let result = client.call_tool(call("promise", json!({}))).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    let text = &result.content[0].as_text().unwrap().text;
    assert!(text.contains("declares an output schema"), "{text}");
    assert!(text.contains("stop declaring the schema"), "{text}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_object_rooted_schema_with_root_combinators_is_listed_as_given() {
    use tool_registry::dynamic::{DynamicTool, ToolHandler};
    use tool_registry::export::{RenderRequest, SchemaCache};
    use tool_registry::providers::ModelApi;

    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"$anchor": "addressDef", "type": "object"}},
        "properties": {
            "contact": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
            "address": {"$ref": "#/$defs/address"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contact": {"const": "phone"}}, "required": ["contact"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    });
    let handler = ToolHandler::new(|_input, _ctx| async move {
        Ok::<_, ToolError>(ToolResultContent::Text("ok".to_owned()))
    });
    let definition = json!({
        "name": "contact",
        "description": "Takes a way to reach someone.",
        "input_schema": schema,
    });
    let tools: Vec<Arc<dyn DynTool>> = vec![Arc::new(
        DynamicTool::from_json(&definition, handler).unwrap(),
    )];
    let server = serve_pool(&tools, OrchestratorConfig::default());
    let listed = serde_json::to_value(&server.tools()[0].input_schema).unwrap();
    // MCP takes any schema with an object root: the listing is the schema as given.
    assert_eq!(listed, schema);
    // `definitions --format mcp` agrees (without the `$schema`, as for every tool there).
    let mut without_dialect = schema.clone();
    without_dialect
        .as_object_mut()
        .unwrap()
        .shift_remove("$schema");
    let exported = ModelApi::Mcp
        .definitions(&SchemaCache::new(), &tools, &RenderRequest::default())
        .unwrap();
    assert_eq!(exported[0]["inputSchema"], without_dialect);
    // A model API, which refuses root combinators, gets them merged.
    let anthropic = ModelApi::Anthropic
        .definitions(&SchemaCache::new(), &tools, &RenderRequest::default())
        .unwrap();
    assert!(anthropic[0]["input_schema"].get("allOf").is_none());
}

/// A tool that asks for its examples in the description (MCP's `Tool` has no slot for them)
/// is listed by a served `tools/list` with the description `definitions --format mcp` writes.
#[tokio::test]
async fn a_served_listing_carries_the_examples_a_tool_asks_for_as_definitions_does() {
    use tool_registry::dynamic::{DynamicTool, ToolHandler};
    use tool_registry::export::{RenderRequest, SchemaCache};
    use tool_registry::providers::ModelApi;

    let tool = |asks: bool| {
        let definition = json!({
            "name": if asks { "weather" } else { "plain" },
            "description": "Current weather.",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
            "input_examples": [{"city": "Paris"}, {"city": "Oslo"}],
            "examples_in_description": asks,
        });
        let tool: Arc<dyn DynTool> = Arc::new(
            DynamicTool::from_json(&definition, ToolHandler::fixed_text("sunny")).unwrap(),
        );
        tool
    };
    let tools = vec![tool(true), tool(false)];
    let server = serve_pool(&tools, OrchestratorConfig::default());
    let (client, _) = connect(&server).await;
    let listed = client.list_all_tools().await.unwrap();
    let exported = ModelApi::Mcp
        .definitions(&SchemaCache::new(), &tools, &RenderRequest::default())
        .unwrap();
    let described = |name: &str| {
        listed
            .iter()
            .find(|tool| tool.name == name)
            .and_then(|tool| tool.description.as_deref())
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        described("weather"),
        "Current weather.\n\nExample inputs:\n{\"city\":\"Paris\"}\n{\"city\":\"Oslo\"}"
    );
    assert_eq!(described("weather"), exported[0]["description"]);
    assert_eq!(described("plain"), "Current weather.");
    assert_eq!(described("plain"), exported[1]["description"]);
    client.cancel().await.unwrap();
}

/// An imported tool listed with an output schema answers with its own server's
/// `structuredContent`, also when its text is not the JSON of it (a sentence beside the data).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_tool_answers_with_its_own_servers_structured_content() {
    use tool_registry::ToolPermissionContext;
    use tool_registry::mcp::{McpManager, McpServerConfig, McpServerStatus};
    use tool_registry::permissions::{AliasTable, PermissionBehavior, PermissionRuleSource};
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED: python3 is not installed (the upstream MCP server is a script)");
        return;
    }
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_peers/hostile_server.py");
    let upstream = McpServerConfig::stdio(
        "up",
        "python3",
        vec![script.display().to_string(), "structured".into()],
    );
    let manager = McpManager::connect(vec![upstream]).await;
    assert_eq!(
        manager.statuses()[0].1,
        McpServerStatus::Connected,
        "{:?}",
        manager.statuses()
    );
    // MCP tools ask before they run (SPEC §6); the host allows the server's tools.
    let mut permissions = ToolPermissionContext::default();
    permissions.add_rule_str(
        PermissionRuleSource::CliArg,
        PermissionBehavior::Allow,
        "mcp__up",
        &AliasTable::default(),
    );
    let orchestrator =
        tool_registry::Orchestrator::new(&manager.tools(), OrchestratorConfig::default())
            .with_permissions(permissions);
    let server = tool_registry::mcp::serve::McpServer::new(orchestrator, "t", "1").unwrap();
    let (client, _) = connect(&server).await;
    let listed = client.list_all_tools().await.unwrap();
    let weather = listed
        .iter()
        .find(|tool| tool.name == "mcp__up__weather")
        .expect("the imported tool is served");
    assert!(weather.output_schema.is_some());
    let result = client
        .call_tool(call("mcp__up__weather", json!({"city": "Oslo"})))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert_eq!(
        result.structured_content,
        Some(json!({"city": "Oslo", "celsius": 22}))
    );
    // The serialized copy MCP asks for first, then the server's own sentence.
    let texts: Vec<&str> = result
        .content
        .iter()
        .map(|block| block.as_text().unwrap().text.as_str())
        .collect();
    assert_eq!(
        texts,
        [
            r#"{"city":"Oslo","celsius":22}"#,
            "Sunny in Oslo, 22 degrees."
        ]
    );
    client.cancel().await.unwrap();
}
