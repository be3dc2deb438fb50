//! Permission rules and the runtime permission check (SPEC §6).
//!
//! - [`parse_rule`] turns `Bash(git *)`, `mcp__github`, `Task` into a [`PermissionRuleValue`]
//!   (SPEC §6.1), mapping legacy names through an [`AliasTable`] built from the tools' aliases.
//! - [`ToolPermissionContext`] holds the [`PermissionMode`] and the allow/deny/ask rules per
//!   [`PermissionRuleSource`], in the reference's order (SPEC §6.2).
//! - [`tool_matches_rule`] and [`filter_tools_by_deny_rules`] match whole tools, MCP server
//!   rules included (SPEC §6.3, §6.4).
//! - [`validate_rules`] reports every problem in a settings file's rules (SPEC §6.5).
//! - [`decide_permission`] is the per-call pipeline orchestration runs: deny rule → ask rule →
//!   `check_permissions` → allow rule → mode → the host's [`CanUseTool`].
//!
//! One name per answer along that pipeline: a tool's own opinion is
//! [`tool_sdk::PermissionResult`] (from `check_permissions`); the host user's answer to a
//! prompt is a [`HostAnswer`]; the pipeline's verdict is a [`PermissionDecision`], which the
//! orchestrator turns into running the call or into its error result (SPEC §5.4 step 6).

mod context;
mod matching;
mod pipeline;
mod rule;
mod validation;

pub use context::{
    PermissionBehavior, PermissionMode, PermissionRule, PermissionRuleSource, ToolPermissionContext,
};
pub use matching::{
    content_rule, filter_tools_by_deny_rules, tool_matches_rule, tool_name_for_permission_check,
    whole_tool_rule,
};
pub use pipeline::{
    CanUseTool, DecisionReason, HostAnswer, PermissionDecision, PermissionRequest,
    decide_permission, permission_denied_message,
};
pub use rule::{AliasTable, LEGACY_TOOL_NAMES, PermissionRuleValue, legacy_tool_name, parse_rule};
pub use validation::{RuleProblem, RuleProblemKind, validate_rules};
