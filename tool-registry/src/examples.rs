//! Checks the example inputs tools declare (`#[tool(example = ...)]`, [`ToolMeta::examples`])
//! against each tool's own input parsing, so an example shown to the model (Anthropic
//! `input_examples`) never teaches it an input the tool would refuse.
//!
//! [`ToolMeta::examples`]: tool_sdk::ToolMeta::examples

use std::sync::Arc;

use serde_json::Value;
use tool_sdk::DynTool;

use crate::registry::ToolRegistry;

/// One declared example that fails: which tool, which example (0-based, in declaration
/// order) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExampleIssue {
    /// The tool's primary name.
    pub tool: String,
    /// The example's position in [`tool_sdk::ToolMeta::examples`], from 0.
    pub index: usize,
    /// What is wrong: not JSON, not an object, or the tool's input error (every issue, as the
    /// model would be told).
    pub issue: String,
}

impl std::fmt::Display for ExampleIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} example {}: {}; fix the example or the input type",
            self.tool, self.index, self.issue
        )
    }
}

/// Every failing example of `tool`: each must parse as a JSON object and pass
/// [`DynTool::parse_input`] (schema and deserialisation, SPEC §5.4 step 3). Empty when all pass.
pub(crate) fn check_tool_examples(tool: &dyn DynTool) -> Vec<ExampleIssue> {
    let name = tool.name();
    let mut issues = Vec::new();
    for (index, text) in tool.meta().examples.iter().enumerate() {
        let issue = match serde_json::from_str::<Value>(text) {
            Err(error) => Some(format!("not valid JSON: {error}")),
            Ok(value) if !value.is_object() => Some("not a JSON object".to_owned()),
            Ok(value) => tool
                .parse_input(&value)
                .err()
                .map(|error| error.to_string()),
        };
        if let Some(issue) = issue {
            issues.push(ExampleIssue {
                tool: name.to_owned(),
                index,
                issue,
            });
        }
    }
    issues
}

/// Every failing example of every tool in `tools`, in tool order.
pub(crate) fn check_examples(tools: &[Arc<dyn DynTool>]) -> Vec<ExampleIssue> {
    tools
        .iter()
        .flat_map(|tool| check_tool_examples(tool.as_ref()))
        .collect()
}

impl ToolRegistry {
    /// Every declared example of every collected tool that the tool's own input parsing
    /// refuses (`check_tool_examples`); empty when all pass. Call it from a test:
    /// `assert_eq!(ToolRegistry::collect()?.check_examples(), [])`.
    pub fn check_examples(&self) -> Vec<ExampleIssue> {
        check_examples(self.tools())
    }
}
