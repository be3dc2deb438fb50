//! The function form of `#[tool]`: schema, parsing and calls through the erased tool.

use serde_json::json;
use tool_sdk::prelude::*;
// The JSON Schema engine: the inputs' `i64` fields carry a `format` the built-in check does
// not read.
use tool_registry as _;

/// Returns a fixed greeting. Use it to check that the host is alive.
#[tool(
    name = "Hello",
    read_only,
    concurrency_safe,
    max_result_size_chars = 100
)]
async fn hello() -> Result<String, ToolError> {
    Ok("hello".to_owned())
}

/// The numbers to add.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddArgs {
    /// The first addend.
    pub a: i64,
    /// The second addend.
    pub b: i64,
}

/// The sum of two numbers, as an object.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Sum {
    /// `a + b`.
    pub sum: i64,
}

/// Adds two numbers.
#[tool(name = "Add", max_result_size_chars = 1_000)]
async fn add(input: AddArgs, ctx: &ToolUseContext) -> Result<Sum, String> {
    if ctx.is_aborted() {
        return Err("aborted".to_owned());
    }
    if input.a == i64::MAX {
        return Err("a is too large".to_owned());
    }
    Ok(Sum {
        sum: input.a + input.b,
    })
}

#[tokio::test]
async fn a_tool_without_parameters_has_an_empty_object_schema_and_accepts_empty_input() {
    let tool = tool_sdk::dyn_tool::<hello>();
    assert_eq!(tool.name(), "Hello");
    assert_eq!(
        tool.input_schema(),
        &json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
    assert_eq!(
        tool.prompt(),
        "Returns a fixed greeting. Use it to check that the host is alive."
    );
    let call = tool.parse_input(&json!({})).unwrap();
    assert!(call.is_read_only() && call.is_concurrency_safe());
    let output = call
        .call(&ToolUseContext::detached("toolu_1"))
        .await
        .unwrap();
    assert_eq!(output.content.text(), "hello");
    let error = tool.parse_input(&json!({"x": 1})).err().unwrap();
    assert_eq!(
        error.format_for("Hello"),
        "Hello cannot run because of the following input issue:\nParameter `x` is not part of the input schema"
    );
}

#[tokio::test]
async fn the_input_parameter_is_the_schema_and_errors_convert() {
    let tool = tool_sdk::dyn_tool::<add>();
    assert_eq!(
        tool.input_schema(),
        &json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "format": "int64", "description": "The first addend."},
                "b": {"type": "integer", "format": "int64", "description": "The second addend."}
            },
            "required": ["a", "b"],
            "additionalProperties": false
        })
    );
    assert!(!<add as ToolSpec>::READ_ONLY.for_every_input());
    let call = tool.parse_input(&json!({"a": 2, "b": 3})).unwrap();
    assert!(!call.is_read_only() && !call.is_concurrency_safe());
    let output = call
        .call(&ToolUseContext::detached("toolu_2"))
        .await
        .unwrap();
    assert_eq!(output.content.text(), r#"{"sum":5}"#);
    let call = tool.parse_input(&json!({"a": i64::MAX, "b": 0})).unwrap();
    let error = call
        .call(&ToolUseContext::detached("toolu_3"))
        .await
        .unwrap_err();
    assert_eq!(error.message(), "a is too large");
    // The fn stays callable as written.
    assert_eq!(
        add(AddArgs { a: 1, b: 1 }, &ToolUseContext::detached("t"))
            .await
            .unwrap()
            .sum,
        2
    );
}

/// An output with no `JsonSchema`.
#[derive(Debug, Serialize)]
pub struct Opaque {
    /// Anything.
    pub value: u8,
}

/// Returns an opaque value.
#[tool(name = "Opaque", max_result_size_chars = 100)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct OpaqueTool {}

#[tool]
impl Tool for OpaqueTool {
    type Output = Opaque;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<Opaque>, ToolError> {
        Ok(ToolResult::new(Opaque { value: 1 }))
    }
}

fn registered(name: &str) -> std::sync::Arc<dyn DynTool> {
    tool_sdk::registration::registrations()
        .find(|registration| registration.name == name)
        .unwrap_or_else(|| panic!("{name} is registered"))
        .build()
}

#[test]
fn the_output_schema_is_present_exactly_when_output_implements_json_schema() {
    assert_eq!(
        registered("Add").output_schema(),
        Some(&json!({
            "description": "The sum of two numbers, as an object.",
            "type": "object",
            "properties": {"sum": {"type": "integer", "format": "int64", "description": "`a + b`."}},
            "required": ["sum"]
        }))
    );
    assert_eq!(
        registered("Hello").output_schema(),
        Some(&json!({"type": "string"}))
    );
    assert_eq!(registered("Opaque").output_schema(), None);
    // `dyn_tool` builds a `#[tool]` from its registration, so it has the same.
    assert_eq!(
        tool_sdk::dyn_tool::<add>().output_schema(),
        registered("Add").output_schema()
    );
    // Tools built without a registration have none unless `Tool::output_schema` says so.
    assert_eq!(tool_sdk::TypedTool::of::<add>(None).output_schema(), None);
}
