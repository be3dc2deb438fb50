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
