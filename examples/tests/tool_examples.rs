//! The example tools' declared example inputs (`#[tool(example = ...)]`): every one passes its
//! tool's own input parsing, and reaches the Anthropic export as `input_examples`.

use std::sync::Arc;

use serde_json::json;
use tool_registry::ToolRegistry;
use tool_registry::test_support::anthropic_tool_definition;
use tool_sdk::DynTool;

fn registry() -> ToolRegistry {
    let tools: Vec<Arc<dyn DynTool>> = tool_examples::tools::all();
    ToolRegistry::from_tools(tools).expect("the example tools have unique names")
}

#[test]
fn every_declared_example_passes_its_tools_input_parsing() {
    let registry = registry();
    assert_eq!(registry.check_examples(), []);
    for name in ["Grep", "Bash"] {
        let tool = registry.find(name).expect("the tool is in the registry");
        assert_eq!(
            tool.meta().examples.len(),
            2,
            "{name} declares two examples"
        );
    }
}

#[test]
fn grep_exports_its_examples_as_input_examples() {
    let registry = registry();
    let grep = registry.find("Grep").expect("Grep is in the registry");
    let definition = anthropic_tool_definition(grep.as_ref());
    assert_eq!(
        definition["input_examples"],
        json!([
            {"pattern": "fn main", "type": "rust"},
            {"pattern": "TODO|FIXME", "glob": "*.{ts,tsx}", "output_mode": "content", "-n": true}
        ])
    );
    let read = registry.find("Read").expect("Read is in the registry");
    assert!(
        anthropic_tool_definition(read.as_ref())
            .get("input_examples")
            .is_none()
    );
}
