//! `--allow-programmatic NAME`: lets code the model runs in the provider's sandbox call tools
//! that were not declared for it (programmatic tool calling; `tool_sdk::callers`). NAME is a
//! tool's name or alias, or an MCP server's name (every tool of that server). The tools keep
//! every other fact; their `callers` become direct and programmatic, so exports write
//! `allowed_callers` for them (Anthropic, OpenAI Responses) and calls from code run.

use std::borrow::Cow;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use tool_sdk::callers::Callers;
use tool_sdk::{
    DefinitionSite, DynTool, InputError, ToolCall, ToolError, ToolMeta, ToolOutput, ToolUseContext,
};

/// `tools` with the ones `names` picks made callable from code as well.
pub fn allow_programmatic(tools: Vec<Arc<dyn DynTool>>, names: &[String]) -> Vec<Arc<dyn DynTool>> {
    if names.is_empty() {
        return tools;
    }
    tools
        .into_iter()
        .map(|tool| {
            let meta = tool.meta();
            let server = meta.mcp_info.as_ref().map(|info| info.server_name.as_str());
            let picked = names
                .iter()
                .any(|name| meta.matches_name(name) || server == Some(name.as_str()));
            if picked && !meta.callers.allows_programmatic() {
                let mut meta = meta.clone();
                meta.callers = Callers::DirectAndProgrammatic;
                Arc::new(CallableFromCode { inner: tool, meta }) as Arc<dyn DynTool>
            } else {
                tool
            }
        })
        .collect()
}

/// The names `--allow-programmatic` gave that pick no tool of `tools`.
pub fn unmatched<'a>(tools: &[Arc<dyn DynTool>], names: &'a [String]) -> Vec<&'a str> {
    names
        .iter()
        .filter(|name| {
            !tools.iter().any(|tool| {
                let meta = tool.meta();
                meta.matches_name(name)
                    || meta
                        .mcp_info
                        .as_ref()
                        .is_some_and(|info| &info.server_name == *name)
            })
        })
        .map(String::as_str)
        .collect()
}

/// Checks that each `--allow-programmatic` name picks a tool of `tools` (by name or alias) or
/// an MCP server. A name nothing picks yet is only warned about when a configured live MCP
/// server (`servers`) could still supply it: the server's own name, or `mcp__SERVER__…` (a
/// server may list its tools later).
///
/// # Errors
/// The names no tool, alias or configured server could match, with the fix.
pub fn check_unmatched(
    tools: &[Arc<dyn DynTool>],
    names: &[String],
    servers: &[String],
) -> Result<(), String> {
    let mut unknown = Vec::new();
    for name in unmatched(tools, names) {
        let live = servers
            .iter()
            .any(|server| name == server || name.starts_with(&format!("mcp__{server}__")));
        if live {
            eprintln!(
                "tool-host: warning: --allow-programmatic {name}: no tool has that name yet; \
                 the MCP server may list it later"
            );
        } else {
            unknown.push(name);
        }
    }
    if unknown.is_empty() {
        return Ok(());
    }
    Err(format!(
        "--allow-programmatic {}: no tool, alias or MCP server has that name; name a tool of \
         the pool (`tool-host pool` lists them), its alias, or a configured MCP server",
        unknown.join(", ")
    ))
}

/// A tool with other callers: every method but `meta` is the inner tool's.
struct CallableFromCode {
    inner: Arc<dyn DynTool>,
    meta: ToolMeta,
}

impl DynTool for CallableFromCode {
    fn meta(&self) -> &ToolMeta {
        &self.meta
    }
    fn is_enabled(&self) -> bool {
        self.inner.is_enabled()
    }
    fn prompt(&self) -> Cow<'_, str> {
        self.inner.prompt()
    }
    fn input_schema(&self) -> &Value {
        self.inner.input_schema()
    }
    fn has_json_schema(&self) -> bool {
        self.inner.has_json_schema()
    }
    fn shared_input_schema(&self) -> Option<&'static Value> {
        self.inner.shared_input_schema()
    }
    fn output_schema(&self) -> Option<&Value> {
        self.inner.output_schema()
    }
    fn definition_site(&self) -> Option<DefinitionSite> {
        self.inner.definition_site()
    }
    fn parse_input(&self, input: &Value) -> Result<Box<dyn ToolCall>, InputError> {
        self.inner.parse_input(input)
    }
    fn dispatch<'c>(
        &self,
        input: &Value,
        ctx: &'c ToolUseContext,
    ) -> Result<BoxFuture<'c, Result<ToolOutput, ToolError>>, InputError> {
        self.inner.dispatch(input, ctx)
    }
}
