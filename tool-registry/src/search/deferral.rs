//! Which tools are deferred: sent by name only and loaded through ToolSearch (SPEC §4.1).

use tool_sdk::DynTool;

/// The name of the ToolSearch tool (SPEC §3.1).
pub const TOOL_SEARCH_NAME: &str = "ToolSearch";

/// The product switches of SPEC §4.1 rules 4–6 (the reference's build flags), as host
/// configuration. Every switch defaults to `false`, which leaves those tools to their own
/// `should_defer` flag.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeferralRules {
    /// Rule 4: fork sub-agents are on (the reference's `FORK_SUBAGENT` build flag together with
    /// `isForkSubagentEnabled()`), so the tool named `Agent` is always loaded.
    pub fork_subagent: bool,
    /// Rule 5: the brief tool is always loaded (the `KAIROS` / `KAIROS_BRIEF` build flags), so
    /// the tool named `SendUserMessage` is never deferred.
    pub brief_always_loaded: bool,
    /// Rule 6: file sending is always loaded (the `KAIROS` build flag with an active REPL
    /// bridge), so the tool named `SendUserFile` is never deferred.
    pub send_user_file_always_loaded: bool,
}

impl DeferralRules {
    /// `true` when `tool` is deferred under these rules (SPEC §4.1 `isDeferredTool`):
    /// `always_load` → not deferred; `is_mcp` → deferred (even an MCP tool named `ToolSearch`);
    /// the name `ToolSearch` → not deferred; the three switches → not deferred; otherwise the
    /// tool's `should_defer`.
    pub fn is_deferred(&self, tool: &dyn DynTool) -> bool {
        is_deferred_tool(tool, self)
    }
}

/// `true` when `tool` is deferred (SPEC §4.1), checking in this order: `always_load` → not
/// deferred; `is_mcp` → deferred (even an MCP tool named `ToolSearch`); the name `ToolSearch` →
/// not deferred; the three switches of [`DeferralRules`] → not deferred; otherwise the tool's
/// `should_defer`.
pub fn is_deferred_tool(tool: &dyn DynTool, rules: &DeferralRules) -> bool {
    let meta = tool.meta();
    if meta.always_load {
        return false;
    }
    if meta.is_mcp {
        return true;
    }
    let name = meta.name.as_ref();
    if name == TOOL_SEARCH_NAME
        || (rules.fork_subagent && name == "Agent")
        || (rules.brief_always_loaded && name == "SendUserMessage")
        || (rules.send_user_file_always_loaded && name == "SendUserFile")
    {
        return false;
    }
    meta.should_defer
}
