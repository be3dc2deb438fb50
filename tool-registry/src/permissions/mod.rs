//! Permission rules and the runtime permission check (SPEC §6).
//!
//! - A rule string such as `Bash(git *)`, `mcp__github` or `Task` is parsed into a
//!   [`PermissionRuleValue`] (SPEC §6.1), legacy names mapped through an [`AliasTable`] built
//!   from the tools' aliases (`ToolPermissionContext::add_rule_str`).
//! - [`ToolPermissionContext`](crate::ToolPermissionContext) holds the [`PermissionMode`] and the allow/deny/ask rules per
//!   [`PermissionRuleSource`], in the reference's order (SPEC §6.2).
//! - Deny rules remove whole tools, MCP server rules included, before the model sees the pool
//!   (SPEC §6.3, §6.4: [`ToolPool::assemble`](crate::ToolPool::assemble)).
//! - [`validate_rules`] reports every problem in a settings file's rules (SPEC §6.5).
//! - Each call goes through the pipeline the orchestrator runs: deny rule → ask rule →
//!   `check_permissions` → allow rule → mode → the host's [`CanUseTool`], which gets a
//!   [`PermissionRequest`] and answers with a [`HostAnswer`].
//!
//! One name per answer along that pipeline: a tool's own opinion is
//! [`tool_sdk::PermissionResult`] (from `check_permissions`); the host user's answer to a
//! prompt is a [`HostAnswer`]; the pipeline's verdict (allow, ask or deny, with the
//! [`DecisionReason`]) the orchestrator turns into running the call or into its error result
//! (SPEC §5.4 step 6).

pub(crate) mod context;
pub(crate) mod matching;
pub(crate) mod pipeline;
pub(crate) mod rule;
pub(crate) mod validation;

pub use context::{PermissionBehavior, PermissionMode, PermissionRule, PermissionRuleSource};
pub(crate) use matching::filter_tools_by_deny_rules;
pub(crate) use pipeline::decide_permission;
pub use pipeline::{CanUseTool, DecisionReason, HostAnswer, PermissionRequest};
pub use rule::{AliasTable, PermissionRuleValue};
pub use validation::{RuleProblem, RuleProblemKind, validate_rules};
