//! The tools and rule helpers the permission tests share: `#[tool]` types standing for
//! Bash, WebFetch, AskUserQuestion and Write, and run-time and MCP tools.

#![allow(dead_code)]

use std::sync::Arc;

use serde_json::{Value, json};
use tool_registry::dynamic::{DynamicTool, McpImportOptions, ToolHandler, mcp_tools_from_list};
use tool_registry::permissions::{AliasTable, PermissionRuleValue};
use tool_registry::test_support::parse_rule;
use tool_sdk::prelude::*;
use tool_sdk::{DynTool, PermissionMatcher};

/// Runs a shell command.
#[tool(name = "Bash", max_result_size_chars = 30_000, read_only = Self::reads)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Shell {
    /// The command.
    pub command: String,
}

impl Shell {
    fn reads(&self) -> bool {
        self.command.starts_with("ls")
    }
}

#[tool]
impl Tool for Shell {
    type Output = String;

    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(format!("ran {}", self.command)))
    }

    async fn check_permissions(&self, _ctx: &ToolUseContext) -> PermissionResult {
        if self.command.starts_with("ls") {
            PermissionResult::allow()
        } else if self.command.contains("rm -rf /") {
            PermissionResult::Deny {
                message: "Bash refuses to delete the root directory.".to_owned(),
            }
        } else if self.command == "rewrite" {
            PermissionResult::Allow {
                updated_input: Some(json!({"command": "ls -la"})),
            }
        } else {
            PermissionResult::Passthrough {
                message: format!("Run `{}`?", self.command),
            }
        }
    }

    /// `git *` covers commands starting with `git `; `npm:*` covers commands starting with
    /// `npm`; anything else must equal the command.
    fn prepare_permission_matcher(&self) -> Option<PermissionMatcher> {
        let command = self.command.clone();
        Some(PermissionMatcher::new(move |content| {
            if let Some(prefix) = content.strip_suffix(":*") {
                command.starts_with(prefix)
            } else if let Some(prefix) = content.strip_suffix('*') {
                command.starts_with(prefix)
            } else {
                command == content
            }
        }))
    }
}

/// Fetches a URL.
#[tool(name = "WebFetch", read_only, max_result_size_chars = 100_000)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Fetch {
    /// The URL.
    pub url: String,
}

#[tool]
impl Tool for Fetch {
    type Output = String;

    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.url))
    }

    async fn check_permissions(&self, _ctx: &ToolUseContext) -> PermissionResult {
        PermissionResult::Passthrough {
            message: String::new(),
        }
    }

    /// `domain:HOST` covers URLs on that host.
    fn prepare_permission_matcher(&self) -> Option<PermissionMatcher> {
        let host = self
            .url
            .split("://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_default()
            .to_owned();
        Some(PermissionMatcher::new(move |content| {
            content.strip_prefix("domain:") == Some(host.as_str())
        }))
    }
}

/// Asks the user a question.
#[tool(name = "AskUserQuestion", read_only, max_result_size_chars = 1_000)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Question {
    /// The question.
    pub question: String,
}

#[tool]
impl Tool for Question {
    type Output = String;

    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.question))
    }

    async fn check_permissions(&self, _ctx: &ToolUseContext) -> PermissionResult {
        PermissionResult::Ask {
            message: "Answer the question?".to_owned(),
        }
    }

    fn requires_user_interaction(&self) -> bool {
        true
    }
}

/// Writes a file.
#[tool(name = "Write", max_result_size_chars = 100_000)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteFile {
    /// The file.
    pub file_path: std::path::PathBuf,
}

#[tool]
impl Tool for WriteFile {
    type Output = String;

    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("written".to_owned()))
    }

    async fn check_permissions(&self, _ctx: &ToolUseContext) -> PermissionResult {
        PermissionResult::Ask {
            message: format!("Write {}?", self.file_path.display()),
        }
    }

    fn get_path(&self) -> Option<&std::path::Path> {
        Some(&self.file_path)
    }
}

pub fn runtime_tool(definition: Value) -> Arc<dyn DynTool> {
    Arc::new(DynamicTool::from_json(&definition, ToolHandler::fixed_text("ok")).unwrap())
}

pub fn agent() -> Arc<dyn DynTool> {
    runtime_tool(json!({
        "name": "Agent", "description": "Runs a sub-agent.", "aliases": ["Task"],
        "input_schema": {"type": "object", "properties": {"prompt": {"type": "string"}}}
    }))
}

pub fn task_stop() -> Arc<dyn DynTool> {
    runtime_tool(json!({
        "name": "TaskStop", "description": "Stops a task.", "aliases": ["KillShell"],
        "input_schema": {"type": "object", "properties": {}}
    }))
}

pub fn mcp(server: &str, tool: &str, no_prefix: bool) -> Arc<dyn DynTool> {
    let list = json!({"tools": [{"name": tool, "inputSchema": {"type": "object"}}]});
    let options = McpImportOptions {
        no_prefix,
        handler: None,
    };
    mcp_tools_from_list(server, &list, &options)
        .unwrap()
        .tools
        .remove(0)
}

pub fn aliases() -> AliasTable {
    AliasTable::from_tools(&[agent(), task_stop()])
}

pub fn rule(text: &str) -> PermissionRuleValue {
    parse_rule(text, &AliasTable::empty())
}
