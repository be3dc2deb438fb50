//! Every defaultable and optional member of SPEC §1.1 with exactly the reference's defaults.
use std::borrow::Cow;

use tool_sdk::prelude::*;
use tool_sdk::tool::{InterruptBehavior, SearchOrRead};

/// Finds files by name.
#[tool(name = "Glob", max_result_size_chars = 100_000)]
#[derive(Deserialize, JsonSchema)]
pub struct Glob {
    /// The pattern.
    pub pattern: String,
}

#[tool]
impl Tool for Glob {
    type Output = Vec<String>;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<Vec<String>>, ToolError> {
        Ok(ToolResult::new(vec![self.pattern]))
    }
}

fn main() {
    let glob = Glob { pattern: "*.rs".into() };
    // Defaultable (TOOL_DEFAULTS + buildTool): fail-closed flags, allow, name as user-facing name.
    assert!(!glob.is_read_only() && !glob.is_concurrency_safe() && !glob.is_destructive());
    assert!(<Glob as Tool>::is_enabled());
    assert_eq!(glob.user_facing_name(), Cow::Borrowed("Glob"));
    assert_eq!(glob.to_auto_classifier_input(), "");
    // Optional: absent unless set.
    assert!(<Glob as ToolSpec>::ALIASES.is_empty());
    assert_eq!(<Glob as ToolSpec>::SEARCH_HINT, None);
    assert!(!<Glob as ToolSpec>::SHOULD_DEFER && !<Glob as ToolSpec>::ALWAYS_LOAD);
    assert!(!<Glob as ToolSpec>::STRICT);
    assert_eq!(glob.interrupt_behavior(), InterruptBehavior::Block);
    // Undeclared `open_world` is open (the MCP `openWorldHint` default, fail-closed).
    assert!(glob.is_open_world() && !glob.requires_user_interaction());
    assert_eq!(glob.is_search_or_read_command(), SearchOrRead::default());
    assert!(glob.get_path().is_none() && glob.prepare_permission_matcher().is_none());
    assert!(!glob.inputs_equivalent(&Glob { pattern: "*.rs".into() }));
    assert_eq!(<Glob as Tool>::prompt(), "Finds files by name.");
    assert_eq!(glob.description(), "Finds files by name.");
    assert_eq!(<Glob as Tool>::output_schema(), None);
    assert_eq!(
        glob.render_tool_use_message(&serde_json::json!({"pattern": "*.rs"})),
        r#"Glob(pattern: "*.rs")"#
    );
    assert_eq!(glob.render_tool_use_rejected_message(), "Glob: rejected by the user, not run");
}
