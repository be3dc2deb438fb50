//! The input policy (README "Input policy"), rule by rule, for the three kinds of tool: a
//! native `#[tool]` type, a JSON-defined tool and an imported MCP tool, all three with the
//! same input schema (the native tool's), so each rule is seen to hold the same way.

use std::sync::Arc;

use serde_json::{Value, json};
use tool_registry::dynamic::{DynamicTool, McpImportOptions, ToolHandler, mcp_tools_from_list};
use tool_registry::test_support::{export_input_schema, strict_schema};
use tool_sdk::prelude::*;
use tool_sdk::{DynTool, InputIssue, ToolResultContent, ToolUseBlock, dyn_tool};

/// Books a table.
#[tool(name = "Book", max_result_size_chars = 1_000)]
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code, reason = "the call reports its input through `Debug`")]
struct Book {
    /// Who books.
    name: String,
    /// How many seats.
    seats: Option<u8>,
    /// A note for the kitchen.
    #[serde(default)]
    note: String,
    /// When, if known.
    when: Option<Slot>,
    /// Free tags.
    tags: Option<Vec<String>>,
}

/// A time slot.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code, reason = "read through `Debug`")]
struct Slot {
    /// Day name.
    day: String,
    /// Hour of the day.
    hour: Option<u8>,
}

#[tool]
impl Tool for Book {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(format!("{self:?}")))
    }
}

/// Answers pong.
#[tool(name = "Ping", max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
struct Ping {
    /// Optional message.
    message: Option<String>,
}

#[tool]
impl Tool for Ping {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.message.unwrap_or_default()))
    }
}

/// The handler of the imported tools: the input it was given, as JSON text.
fn echo() -> ToolHandler {
    ToolHandler::new(|input: Value, _ctx: ToolUseContext| async move {
        Ok(ToolResultContent::Text(input.to_string()))
    })
}

/// The native tool, and the same schema as a JSON-defined tool and as an MCP tool.
fn three_kinds(native: Arc<dyn DynTool>) -> [Arc<dyn DynTool>; 3] {
    let schema = native.input_schema().clone();
    let name = native.name().to_owned();
    let json_tool = DynamicTool::from_json(
        &json!({"name": format!("{name}Json"), "description": "d", "input_schema": schema}),
        echo(),
    )
    .unwrap();
    let options = McpImportOptions {
        no_prefix: false,
        handler: Some(echo()),
    };
    let list = json!({"tools": [{"name": name.to_lowercase(), "inputSchema": schema}]});
    let mcp = mcp_tools_from_list("srv", &list, &options)
        .unwrap()
        .tools
        .remove(0);
    [native, Arc::new(json_tool), mcp]
}

async fn run(tool: &dyn DynTool, input: Value) -> Result<String, Vec<InputIssue>> {
    let call = tool
        .parse_input(&input)
        .map_err(|error| error.issues().to_vec())?;
    let output = call.call(&ToolUseContext::detached("toolu_1")).await;
    Ok(output.unwrap().content.text())
}

#[tokio::test]
async fn an_explicit_null_for_an_optional_field_is_absent_at_every_depth() {
    let input = json!({
        "name": "Ada", "seats": null, "note": null, "tags": null,
        "when": {"day": "mon", "hour": null}
    });
    let [native, json_tool, mcp] = three_kinds(dyn_tool::<Book>());
    assert_eq!(
        run(&*native, input.clone()).await.unwrap(),
        r#"Book { name: "Ada", seats: None, note: "", when: Some(Slot { day: "mon", hour: None }), tags: None }"#
    );
    // Imported tools pass on the input as read: the nulls are gone.
    let expected = json!({"name": "Ada", "when": {"day": "mon"}});
    for tool in [json_tool, mcp] {
        let text = run(&*tool, input.clone()).await.unwrap();
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), expected);
    }
}

#[tokio::test]
async fn a_null_for_a_required_field_is_still_refused() {
    for tool in three_kinds(dyn_tool::<Book>()) {
        let issues = run(&*tool, json!({"name": null, "when": {"day": null}}))
            .await
            .unwrap_err();
        let text: Vec<String> = issues.iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            [
                "Parameter `name` must be of type `string`, but a value of type `null` was provided",
                "Parameter `when.day` must be of type `string`, but a value of type `null` was provided",
            ],
            "{}",
            tool.name()
        );
    }
}

#[tokio::test]
async fn no_input_means_an_empty_object() {
    let missing: ToolUseBlock =
        serde_json::from_value(json!({"type": "tool_use", "id": "t", "name": "Ping"})).unwrap();
    for tool in three_kinds(dyn_tool::<Ping>()) {
        for empty in [
            json!(null),
            json!(""),
            json!(" \n\t "),
            missing.input.clone(),
        ] {
            let answer = run(&*tool, empty.clone()).await;
            assert!(answer.is_ok(), "{} {empty}: {answer:?}", tool.name());
        }
        // Not empty: a string with text is still not an object.
        assert!(run(&*tool, json!("hi")).await.is_err());
    }
    // With required fields, no input reports each of them missing.
    for tool in three_kinds(dyn_tool::<Book>()) {
        let issues = run(&*tool, json!("")).await.unwrap_err();
        assert_eq!(
            issues,
            [InputIssue::Missing {
                path: "name".into()
            }],
            "{}",
            tool.name()
        );
    }
}

/// `schema`'s strict form, with `null` for every property that strict mode made nullable,
/// at every depth (`day` is required in the original and keeps a value).
fn strict_call_with_every_optional_null(schema: &Value) -> (Value, Value) {
    let strict = strict_schema("Book", &export_input_schema(schema)).unwrap();
    let input = json!({
        "name": "Ada", "seats": null, "note": null, "tags": null,
        "when": {"day": "mon", "hour": null}
    });
    (strict, input)
}

#[tokio::test]
async fn strict_mode_calls_with_null_for_every_optional_field_are_accepted() {
    for tool in three_kinds(dyn_tool::<Book>()) {
        let (strict, input) = strict_call_with_every_optional_null(tool.input_schema());
        // The strict export lists every key as required and accepts the call as sent...
        assert_eq!(
            strict["required"],
            json!(["name", "seats", "note", "when", "tags"])
        );
        let validator = jsonschema::validator_for(&strict).unwrap();
        assert!(validator.is_valid(&input), "{strict}");
        // ...and so does the runtime, for every kind of tool.
        assert!(run(&*tool, input).await.is_ok(), "{}", tool.name());
        // `when` itself null too.
        let input = json!({"name": "Ada", "seats": null, "note": null, "tags": null, "when": null});
        assert!(validator.is_valid(&input));
        assert!(run(&*tool, input).await.is_ok(), "{}", tool.name());
    }
}

#[tokio::test]
async fn an_unknown_key_lists_the_accepted_keys_and_the_closest_one() {
    for tool in three_kinds(dyn_tool::<Book>()) {
        let issues = run(&*tool, json!({"name": "Ada", "seat": 2}))
            .await
            .unwrap_err();
        assert_eq!(
            issues.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "Parameter `seat` is not part of the input schema; did you mean `seats`? \
              (accepted: `name`, `seats`, `note`, `when`, `tags`)"
            ],
            "{}",
            tool.name()
        );
    }
}

#[test]
fn an_input_the_schema_accepts_is_never_rewritten() {
    // A null the schema itself accepts (a nullable property) is kept for imported tools.
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": ["string", "null"]}},
        "additionalProperties": false
    });
    let validator = tool_sdk::input::InputValidator::imported(schema);
    assert_eq!(
        validator.validate(json!({"a": null})).unwrap(),
        json!({"a": null})
    );
}

/// A tool whose fields models often send as strings.
#[tool(name = "Resize", max_result_size_chars = 1_000)]
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code, reason = "the call reports its input through `Debug`")]
struct Resize {
    /// Width in pixels.
    width: u32,
    /// Keep the aspect ratio.
    keep_ratio: Option<bool>,
    /// Scale factor.
    scale: Option<f64>,
    /// Crop box: left, top, right, bottom.
    crop: Option<Vec<u32>>,
}

#[tool]
impl Tool for Resize {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(format!("{self:?}")))
    }
}

fn stringly() -> Value {
    json!({"width": "640", "keep_ratio": "true", "scale": "0.5", "crop": "[0, 0, 10, 10]"})
}

#[tokio::test]
async fn coercion_is_off_by_default_and_on_per_tool() {
    for tool in three_kinds(dyn_tool::<Resize>()) {
        let issues = run(&*tool, stringly()).await.unwrap_err();
        assert_eq!(issues.len(), 4, "{}: {issues:?}", tool.name());
    }
    let native = tool_sdk::TypedTool::of::<Resize>(None).with_input_coercion();
    assert!(native.meta().coerce_input);
    assert_eq!(
        run(&native, stringly()).await.unwrap(),
        "Resize { width: 640, keep_ratio: Some(true), scale: Some(0.5), crop: Some([0, 0, 10, 10]) }"
    );
    let schema = dyn_tool::<Resize>().input_schema().clone();
    let json_tool = DynamicTool::from_json(
        &json!({"name": "ResizeJson", "description": "d", "input_schema": schema, "coerce_input": true}),
        echo(),
    )
    .unwrap();
    let text = run(&json_tool, stringly()).await.unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        json!({"width": 640, "keep_ratio": true, "scale": 0.5, "crop": [0, 0, 10, 10]})
    );
}

#[tokio::test]
async fn coercion_never_guesses() {
    let native = tool_sdk::TypedTool::of::<Resize>(None).with_input_coercion();
    for (input, path) in [
        (json!({"width": "1.5"}), "width"),
        (json!({"width": true}), "width"),
        (json!({"width": 1, "crop": []}), ""),
        (json!({"width": 1, "keep_ratio": 1}), "keep_ratio"),
        (json!({"width": 1, "scale": "half"}), "scale"),
    ] {
        let answer = run(&native, input.clone()).await;
        if path.is_empty() {
            // `[]` is a valid empty crop list, never `0`.
            assert!(answer.unwrap().contains("crop: Some([])"), "{input}");
        } else {
            let issues = answer.unwrap_err();
            assert!(
                issues
                    .iter()
                    .any(|issue| issue.to_string().contains(&format!("`{path}`"))),
                "{input}: {issues:?}"
            );
        }
    }
}

#[tokio::test]
async fn an_orchestrator_turns_coercion_on_for_one_tool_or_all() {
    use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
    let block = |name: &str| {
        serde_json::from_value::<ToolUseBlock>(
            json!({"type": "tool_use", "id": "t1", "name": name, "input": stringly()}),
        )
        .unwrap()
    };
    let [native, json_tool, mcp] = three_kinds(dyn_tool::<Resize>());
    let pool = vec![native, json_tool, mcp];
    let names: Vec<String> = pool.iter().map(|tool| tool.name().to_owned()).collect();
    for (config, coerced) in [
        (OrchestratorConfig::default(), vec![false, false, false]),
        (
            OrchestratorConfig::default().with_input_coercion_for("Resize"),
            vec![true, false, false],
        ),
        (
            OrchestratorConfig::default().with_input_coercion(),
            vec![true, true, true],
        ),
    ] {
        let orchestrator = Orchestrator::new(&pool, config);
        for (name, coerced) in names.iter().zip(coerced) {
            let outcome = orchestrator
                .run_tool_use(
                    orchestrator.prepare(block(name)),
                    &TurnState::default(),
                    None,
                )
                .await;
            // (The MCP tool then stops at the permission step, which this host cannot answer.)
            let text = outcome.result.text();
            assert_eq!(
                !text.contains("InputValidationError"),
                coerced,
                "{name}: {text}"
            );
        }
    }
}
