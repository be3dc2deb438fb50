//! Whole-tool rule matching (SPEC §6.3) and the deny filter over a list of tools (SPEC §6.4).

use std::borrow::Cow;
use std::sync::Arc;

use tool_sdk::{DynTool, ToolCall};

use super::context::{PermissionBehavior, PermissionRule, ToolPermissionContext};
use super::rule::PermissionRuleValue;
use crate::mcp_names::{build_mcp_tool_name, mcp_info_from_string};

/// The name rules are matched against (SPEC §10 `getToolNameForPermissionCheck`): the full
/// `mcp__SERVER__TOOL` name built from the raw names when the tool has `mcp_info` (even when
/// it is exported under a shortened or unprefixed name), else the tool's primary name.
pub fn tool_name_for_permission_check(tool: &dyn DynTool) -> Cow<'_, str> {
    match &tool.meta().mcp_info {
        Some(info) => Cow::Owned(build_mcp_tool_name(&info.server_name, &info.tool_name)),
        None => Cow::Borrowed(tool.name()),
    }
}

/// Whether `rule` covers `tool` as a whole (SPEC §6.3 `toolMatchesRule`).
///
/// - A rule with content never matches a whole tool.
/// - The rule's tool name equal to [`tool_name_for_permission_check`] matches (exact,
///   case-sensitive; the tool's aliases are not consulted).
/// - `mcp__srv` and `mcp__srv__*` match every tool whose permission name has the server part
///   `srv`, compared as written in the rule (so `mcp__my.server` never matches).
///   `mcp__srv__` (empty tool part) matches nothing at server level.
pub fn tool_matches_rule(tool: &dyn DynTool, rule: &PermissionRuleValue) -> bool {
    if rule.rule_content.is_some() {
        return false;
    }
    let name = tool_name_for_permission_check(tool);
    if rule.tool_name == name {
        return true;
    }
    let (Some(rule_parts), Some(tool_parts)) = (
        mcp_info_from_string(&rule.tool_name),
        mcp_info_from_string(&name),
    ) else {
        return false;
    };
    matches!(rule_parts.tool_name.as_deref(), None | Some("*"))
        && rule_parts.server_name == tool_parts.server_name
}

/// The first rule with `behavior` that covers `tool` as a whole, in source order.
pub fn whole_tool_rule<'a>(
    tool: &dyn DynTool,
    permissions: &'a ToolPermissionContext,
    behavior: PermissionBehavior,
) -> Option<&'a PermissionRule> {
    permissions
        .rules(behavior)
        .find(|rule| tool_matches_rule(tool, &rule.value))
}

/// The first content rule with `behavior` for this tool (same permission name, SPEC §6.4
/// `getRuleByContentsForTool`) whose content the call's
/// [`ToolCall::prepare_permission_matcher`] accepts. A call without a matcher matches no
/// content rule.
pub fn content_rule<'a>(
    tool: &dyn DynTool,
    call: &dyn ToolCall,
    permissions: &'a ToolPermissionContext,
    behavior: PermissionBehavior,
) -> Option<&'a PermissionRule> {
    let name = tool_name_for_permission_check(tool);
    let mut candidates = permissions
        .rules(behavior)
        .filter(|rule| rule.value.tool_name == name && rule.value.rule_content.is_some())
        .peekable();
    candidates.peek()?;
    let matcher = call.prepare_permission_matcher()?;
    candidates.find(|rule| {
        rule.value
            .rule_content
            .as_deref()
            .is_some_and(|content| match behavior {
                PermissionBehavior::Allow => matcher.matches(content),
                PermissionBehavior::Deny | PermissionBehavior::Ask => matcher.restricts(content),
            })
    })
}

/// The tools no whole-tool deny rule covers, in their order (SPEC §6.4
/// `filterToolsByDenyRules`).
pub fn filter_tools_by_deny_rules(
    tools: &[Arc<dyn DynTool>],
    permissions: &ToolPermissionContext,
) -> Vec<Arc<dyn DynTool>> {
    tools
        .iter()
        .filter(|tool| {
            whole_tool_rule(tool.as_ref(), permissions, PermissionBehavior::Deny).is_none()
        })
        .cloned()
        .collect()
}
