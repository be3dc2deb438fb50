//! Programmatic tool calling round trips over the providers' own documented pairs (see
//! `tests/data/programmatic/README.md` for the sources): Anthropic's guide's "Example
//! workflow" (`anthropic_guide_turn.json`) and the openai-agents-python programmatic tests'
//! items (`responses_sdk_turn.json`). Each drives the definitions, `read_calls`, the
//! orchestrator and `write_results`, and the answer must equal the documented one.

mod programmatic_support;

use std::sync::Arc;

use programmatic_support::{fixture, run};
use serde::Serialize;
use serde_json::{Value, json};
use tool_registry::export::{RenderRequest, SchemaCache};
use tool_registry::providers::ModelApi;
use tool_sdk::callers::Caller;
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
        // The guide's rows for its `<sql>` placeholder, as the guide writes them.
        let _ = self.sql;
        Ok(ToolResult::new(
            r#"[{"customer_id": "C1", "revenue": 45000}, {"customer_id": "C2", "revenue": 38000}]"#
                .to_owned(),
        ))
    }
}

/// Looks up how many units of a SKU are available.
#[tool(name = "lookup_inventory", callers = ["programmatic"], read_only, max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
struct LookupInventory {
    /// The SKU to look up.
    sku: String,
}

/// The SDK test's `InventoryOutput`: its fields in the same order, so the compact JSON text
/// is the one the SDK writes (`json.dumps(..., separators=(",", ":"))`).
#[derive(Serialize, JsonSchema)]
struct InventoryOutput {
    sku: String,
    available_units: u32,
}

#[tool]
impl Tool for LookupInventory {
    type Output = InventoryOutput;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<InventoryOutput>, ToolError> {
        Ok(ToolResult::new(InventoryOutput {
            sku: self.sku,
            available_units: 42,
        }))
    }
}

fn pool() -> Vec<Arc<dyn DynTool>> {
    vec![
        tool_sdk::dyn_tool::<QueryDatabase>(),
        tool_sdk::dyn_tool::<LookupInventory>(),
    ]
}

fn definitions(api: ModelApi, pool: &[Arc<dyn DynTool>], name: &str) -> Value {
    api.definitions(&SchemaCache::new(), pool, &RenderRequest::default())
        .unwrap()
        .into_iter()
        .find(|d| d["name"] == name)
        .unwrap_or_else(|| panic!("{api}: no definition of {name}"))
}

#[test]
fn the_guides_tools_array_is_the_code_execution_tool_and_our_definition() {
    let fixture = fixture("anthropic_guide_turn.json");
    let query = definitions(ModelApi::Anthropic, &pool(), "query_database");
    // We do not add the code execution tool (a request sends it beside ours); the version
    // `allowed_callers` names is the one it must have.
    assert_eq!(
        fixture["request_tools"][0],
        json!({"type": ModelApi::ANTHROPIC_CODE_EXECUTION, "name": "code_execution"})
    );
    // Equal but for one key we add: the input schema refuses unknown keys
    // (`"additionalProperties": false` at the root, `tool_sdk::schema`), which the guide's
    // schema leaves out. Every key the guide gives is compared, and nothing else differs.
    let mut ours = query;
    let schema = ours["input_schema"].as_object_mut().unwrap();
    assert_eq!(schema.remove("additionalProperties"), Some(json!(false)));
    assert_eq!(ours, fixture["request_tools"][1]);
}

#[tokio::test]
async fn the_guides_paused_turn_is_answered_with_the_guides_tool_result() {
    let fixture = fixture("anthropic_guide_turn.json");
    let pool = pool();
    let calls = ModelApi::Anthropic
        .read_calls(&fixture["response"], &pool)
        .unwrap();
    assert_eq!(
        calls.len(),
        1,
        "the text and the server_tool_use are not calls: {calls:?}"
    );
    let call = &calls.calls[0];
    assert_eq!(
        (call.id.as_str(), call.name.as_str()),
        ("toolu_def456", "query_database")
    );
    assert_eq!(call.input, Ok(json!({"sql": "<sql>"})));
    assert_eq!(
        call.caller,
        Caller::Program {
            kind: "code_execution_20260120".into(),
            id: "srvtoolu_abc123".into()
        }
    );
    let results = run(&calls, &pool).await;
    let answer = ModelApi::Anthropic
        .write_results(&calls, results, &pool)
        .unwrap();
    assert_eq!(answer, fixture["answer"]);
}

#[test]
fn the_sdks_lookup_inventory_definition_allows_programs() {
    let fixture = fixture("responses_sdk_turn.json");
    let lookup = definitions(ModelApi::OpenAiResponses, &pool(), "lookup_inventory");
    // The SDK test asserts the hosted tool is exactly this; we do not add it (a request sends
    // it beside ours).
    assert_eq!(
        fixture["request_tools"][0],
        json!({"type": "programmatic_tool_calling"})
    );
    // The test gives `type`, `name`, `allowed_callers` and `output_schema` of the function
    // tool. We write the first three as given; `output_schema` (optional in the `openai` SDK
    // 3.60.0 `FunctionToolParam`) is not written for Responses today. The `description`,
    // `parameters` and `strict` we write the test does not give.
    let expected = &fixture["request_tools"][1];
    for key in ["type", "name", "allowed_callers"] {
        assert_eq!(lookup[key], expected[key], "{key}: {lookup}");
    }
}

#[tokio::test]
async fn the_sdks_program_call_is_answered_with_its_caller_and_compact_json() {
    let fixture = fixture("responses_sdk_turn.json");
    let pool = pool();
    let response = json!({"output": fixture["output"]});
    let calls = ModelApi::OpenAiResponses
        .read_calls(&response, &pool)
        .unwrap();
    assert_eq!(calls.len(), 1, "the program item is not a call: {calls:?}");
    let call = &calls.calls[0];
    assert_eq!(
        (call.id.as_str(), call.name.as_str()),
        ("call_lookup", "lookup_inventory")
    );
    assert_eq!(call.input, Ok(json!({"sku": "A-1"})));
    assert_eq!(
        call.caller,
        Caller::Program {
            kind: "program".into(),
            id: "call_program".into()
        }
    );
    let results = run(&calls, &pool).await;
    let answer = ModelApi::OpenAiResponses
        .write_results(&calls, results, &pool)
        .unwrap();
    assert_eq!(answer, fixture["answer"]);
    assert_eq!(
        answer[0]["output"], r#"{"sku":"A-1","available_units":42}"#,
        "the text itself, not only an equal JSON value"
    );
}
