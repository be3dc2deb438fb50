//! Declared example inputs: the registry check names every failing example, the Anthropic
//! export carries them as `input_examples` (byte-stable), and the docs page shows them.

use std::sync::Arc;

use tool_registry::ToolRegistry;
use tool_registry::docs::ToolDoc;
use tool_registry::test_support::anthropic_tool_definition;
use tool_sdk::prelude::*;
use tool_sdk::{DynTool, TypedTool};

/// Finds files by name.
#[tool(
    name = "FindFiles",
    max_result_size_chars = 1_000,
    example = r#"{"pattern": "**/*.rs"}"#,
    example = r#"{"pattern": "src/*.toml", "limit": 5}"#
)]
#[derive(Deserialize, JsonSchema)]
pub struct FindFiles {
    /// The glob.
    pub pattern: String,
    /// At most this many paths.
    pub limit: Option<u32>,
}

#[tool]
impl Tool for FindFiles {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.pattern))
    }
}

/// Counts lines. Its examples are wrong on purpose: the check must name each.
#[tool(
    name = "CountLines",
    max_result_size_chars = 1_000,
    example = r#"{"path": "a.txt"}"#,
    example = r#"{"file": "a.txt"}"#,
    example = r#"{"path": 7}"#
)]
#[derive(Deserialize, JsonSchema)]
pub struct CountLines {
    /// The file.
    pub path: String,
}

#[tool]
impl Tool for CountLines {
    type Output = usize;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<usize>, ToolError> {
        Ok(ToolResult::new(self.path.len()))
    }
}

fn registry() -> ToolRegistry {
    let tools: Vec<Arc<dyn DynTool>> = vec![
        Arc::new(TypedTool::of::<FindFiles>(None)),
        Arc::new(TypedTool::of::<CountLines>(None)),
    ];
    ToolRegistry::from_tools(tools).expect("unique names")
}

#[test]
fn the_check_names_every_failing_example_and_only_those() {
    let issues = registry().check_examples();
    let located: Vec<(&str, usize)> = issues
        .iter()
        .map(|issue| (issue.tool.as_str(), issue.index))
        .collect();
    assert_eq!(
        located,
        [("CountLines", 1), ("CountLines", 2)],
        "{issues:#?}"
    );
    assert!(issues[0].issue.contains("path"), "{}", issues[0]);
    assert!(issues[1].issue.contains("path"), "{}", issues[1]);
    assert!(issues[0].to_string().starts_with("CountLines example 1: "));
}

#[test]
fn anthropic_export_carries_input_examples_byte_stable() {
    let definition = anthropic_tool_definition(&TypedTool::of::<FindFiles>(None));
    let text = serde_json::to_string(&definition).expect("serialises");
    assert_eq!(
        text,
        r#"{"name":"FindFiles","description":"Finds files by name.","input_schema":{"type":"object","properties":{"pattern":{"type":"string","description":"The glob."},"limit":{"type":"integer","format":"uint32","minimum":0,"description":"At most this many paths.","maximum":4294967295}},"required":["pattern"],"additionalProperties":false},"input_examples":[{"pattern":"**/*.rs"},{"pattern":"src/*.toml","limit":5}]}"#
    );
    let again = serde_json::to_string(&anthropic_tool_definition(&TypedTool::of::<FindFiles>(
        None,
    )))
    .expect("serialises");
    assert_eq!(text, again);
}

#[test]
fn docs_page_shows_declared_examples_instead_of_the_generated_one() {
    let page = ToolDoc::of(&TypedTool::of::<FindFiles>(None)).to_markdown();
    assert!(page.contains("## Examples\n"), "{page}");
    assert!(!page.contains("## Example\n"), "{page}");
    assert!(page.contains("\"pattern\": \"src/*.toml\""), "{page}");
    assert!(page.contains("\"limit\": 5"), "{page}");
    let plain = ToolDoc::of(&TypedTool::of::<CountLines>(None));
    assert_eq!(plain.examples.len(), 3);
}

/// Greps, with examples it asks to have in the description where there is no slot for them.
#[tool(
    name = "SearchText",
    max_result_size_chars = 1_000,
    example = r#"{"pattern": "fn main"}"#,
    examples_in_description
)]
#[derive(Deserialize, JsonSchema)]
pub struct SearchText {
    /// The regex.
    pub pattern: String,
}

#[tool]
impl Tool for SearchText {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.pattern))
    }
}

/// Where each API puts a tool's examples: Anthropic's `input_examples` and the root `example`
/// of Gemini's subset `Schema` are slots; OpenAI (openai 3.60.0 `FunctionDefinition`,
/// `FunctionTool`), MCP (2025-11-25 `Tool`) and Gemini's `parametersJsonSchema` have none, so
/// there the examples join the description only for a tool that asks.
#[test]
fn examples_go_into_slots_and_into_descriptions_only_when_asked() {
    use serde_json::json;
    use tool_registry::dynamic::{DynamicTool, ToolHandler};
    use tool_registry::export::{RenderRequest, SchemaCache};
    use tool_registry::providers::ModelApi;
    let json_tool = DynamicTool::from_json(
        &json!({"name": "Weather", "description": "Current weather.", "input_schema": {
            "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]
        }, "input_examples": [{"city": "Paris"}], "examples_in_description": true}),
        ToolHandler::fixed_text("sunny"),
    )
    .unwrap();
    let tools: Vec<Arc<dyn DynTool>> = vec![
        Arc::new(TypedTool::of::<FindFiles>(None)),
        Arc::new(TypedTool::of::<SearchText>(None)),
        Arc::new(json_tool),
    ];
    let cache = SchemaCache::new();
    let render = |api: ModelApi| {
        api.definitions(&cache, &tools, &RenderRequest::default())
            .unwrap()
    };
    let description = |api: ModelApi, index: usize| -> String {
        let definition = &render(api)[index];
        definition
            .get("function")
            .unwrap_or(definition)
            .get("description")
            .and_then(serde_json::Value::as_str)
            .unwrap()
            .to_owned()
    };
    let asked = "Greps, with examples it asks to have in the description where there is no slot for them.\n\nExample inputs:\n{\"pattern\":\"fn main\"}";
    for api in [
        ModelApi::OpenAiChat,
        ModelApi::OpenAiResponses,
        ModelApi::Mcp,
        ModelApi::Gemini,
    ] {
        assert_eq!(description(api, 0), "Finds files by name.", "{api}");
        assert_eq!(description(api, 1), asked, "{api}");
        assert_eq!(
            description(api, 2),
            "Current weather.\n\nExample inputs:\n{\"city\":\"Paris\"}",
            "{api}"
        );
    }
    let anthropic = render(ModelApi::Anthropic);
    assert_eq!(
        anthropic[1]["description"],
        "Greps, with examples it asks to have in the description where there is no slot for them."
    );
    assert_eq!(
        anthropic[1]["input_examples"],
        json!([{"pattern": "fn main"}])
    );
    assert_eq!(anthropic[2]["input_examples"], json!([{"city": "Paris"}]));
    let subset = render(ModelApi::GeminiOpenApi);
    assert_eq!(subset[0]["description"], "Finds files by name.");
    assert_eq!(
        subset[0]["parameters"]["example"],
        json!({"pattern": "**/*.rs"})
    );
    assert_eq!(subset[2]["description"], "Current weather.");
    assert_eq!(subset[2]["parameters"]["example"], json!({"city": "Paris"}));
    for declaration in &subset {
        assert_eq!(
            tool_registry::providers::gemini::check_declaration(declaration),
            Vec::<String>::new()
        );
    }
    // A JSON tool's examples are checked like its other fields.
    let error = DynamicTool::from_json(
        &json!({"name": "W", "description": "d", "input_schema": {"type": "object"},
            "examples_in_description": true}),
        ToolHandler::fixed_text("x"),
    )
    .err()
    .unwrap();
    assert!(
        error.to_string().contains("examples_in_description"),
        "{error}"
    );
    // An example the tool's own schema refuses is refused when the tool is loaded.
    let error = DynamicTool::from_json(
        &json!({"name": "W", "description": "d", "input_schema": {
            "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]
        }, "input_examples": [{"city": "Paris"}, {"city": 3}]}),
        ToolHandler::fixed_text("x"),
    )
    .err()
    .unwrap();
    let text = error.to_string();
    assert!(
        text.starts_with("tool `W`: `input_examples` entry 1 (`input_examples[1]`) is refused")
            && text.contains("city"),
        "{text}"
    );
}

/// Gemini's subset `Schema` has one root `example`: for a tool that asks for its examples in
/// the description, the ones that did not fit there go into the description, and all of
/// them when the schema already has its own root `example`.
#[test]
fn the_subset_form_describes_the_examples_its_one_slot_cannot_hold_when_asked() {
    use serde_json::json;
    use tool_registry::dynamic::{DynamicTool, ToolHandler};
    use tool_registry::export::{RenderRequest, SchemaCache};
    use tool_registry::providers::ModelApi;
    let tool = |name: &str, asks: bool, own_example: bool| {
        let mut schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
        if own_example {
            schema["example"] = json!({"city": "Rome"});
        }
        let tool: Arc<dyn DynTool> = Arc::new(
            DynamicTool::from_json(
                &json!({"name": name, "description": "Current weather.", "input_schema": schema,
                    "input_examples": [{"city": "Paris"}, {"city": "Oslo"}],
                    "examples_in_description": asks}),
                ToolHandler::fixed_text("sunny"),
            )
            .unwrap(),
        );
        tool
    };
    let tools = vec![
        tool("Asks", true, false),
        tool("Quiet", false, false),
        tool("OwnExample", true, true),
    ];
    let subset = ModelApi::GeminiOpenApi
        .definitions(&SchemaCache::new(), &tools, &RenderRequest::default())
        .unwrap();
    assert_eq!(
        subset[0]["description"],
        "Current weather.\n\nExample inputs:\n{\"city\":\"Oslo\"}"
    );
    assert_eq!(subset[0]["parameters"]["example"], json!({"city": "Paris"}));
    assert_eq!(subset[1]["description"], "Current weather.");
    assert_eq!(subset[1]["parameters"]["example"], json!({"city": "Paris"}));
    assert_eq!(
        subset[2]["description"],
        "Current weather.\n\nExample inputs:\n{\"city\":\"Paris\"}\n{\"city\":\"Oslo\"}"
    );
    assert_eq!(subset[2]["parameters"]["example"], json!({"city": "Rome"}));
    for declaration in &subset {
        assert_eq!(
            tool_registry::providers::gemini::check_declaration(declaration),
            Vec::<String>::new()
        );
    }
}
