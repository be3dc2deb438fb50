//! Whole-tool rule matching (SPEC §6.3) and the deny filter over a list of tools (SPEC §6.4).

use std::borrow::Cow;
use std::sync::Arc;

use tool_sdk::{DynTool, ToolCall};

use super::context::{PermissionBehavior, PermissionRule, ToolPermissionContext};
use super::rule::{PermissionRuleValue, legacy_tool_name};
use crate::mcp_names::{
    MCP_PREFIX, McpNameParts, build_mcp_tool_name, mcp_info_from_string, normalize_name_for_mcp,
};

/// The name rules are matched against (SPEC §10 `getToolNameForPermissionCheck`): the full
/// `mcp__SERVER__TOOL` name built from the raw names when the tool has `mcp_info` (even when
/// it is exported under a shortened or unprefixed name), else the tool's primary name.
pub fn tool_name_for_permission_check(tool: &dyn DynTool) -> Cow<'_, str> {
    match &tool.meta().mcp_info {
        Some(info) => Cow::Owned(build_mcp_tool_name(&info.server_name, &info.tool_name)),
        None => Cow::Borrowed(tool.name()),
    }
}

/// Every name a rule may use for `tool`: for an MCP tool, its full `mcp__SERVER__TOOL` name and
/// the (possibly shortened) `mcp__` name it is exported under; for any other tool, its primary
/// name and each alias it declares. A no-prefix MCP tool (exported as `Write`) is not named by
/// its bare name, as in the reference (SPEC §6.3).
fn rule_names(tool: &dyn DynTool) -> Vec<Cow<'_, str>> {
    let meta = tool.meta();
    let full = tool_name_for_permission_check(tool);
    if meta.mcp_info.is_some() {
        let exported = tool.name();
        let shortened = exported != full && exported.starts_with(MCP_PREFIX);
        let mut names = vec![full];
        if shortened {
            names.push(Cow::Borrowed(exported));
        }
        return names;
    }
    std::iter::once(full)
        .chain(meta.aliases.iter().map(|alias| Cow::Borrowed(&**alias)))
        .collect()
}

/// Whether a rule's tool name names `name`: equal (case-sensitive, as the reference and the
/// tool lookup of SPEC §8.1 are), equal once both go through the reference's legacy names
/// ([`legacy_tool_name`]: `Task` is `Agent` whether or not the tool declares it), or, for MCP
/// names, equal once the rule's server and tool parts are normalised the way tool names are
/// (`mcp__my.server__read file` names `mcp__my_server__read_file`).
fn rule_names_tool(rule_name: &str, name: &str) -> bool {
    if rule_name == name || legacy_tool_name(rule_name) == legacy_tool_name(name) {
        return true;
    }
    match mcp_info_from_string(rule_name) {
        Some(McpNameParts {
            server_name,
            tool_name: Some(tool_name),
        }) => build_mcp_tool_name(&server_name, &tool_name) == name,
        _ => false,
    }
}

/// Whether `rule` covers `tool` as a whole (SPEC §6.3 `toolMatchesRule`), with no way around
/// it through another name of the tool.
///
/// - A rule with content never matches a whole tool.
/// - The rule's tool name matches when it names [`tool_name_for_permission_check`], an alias
///   the tool declares, or (MCP tools) the shortened name the tool is exported under; legacy
///   names count on both sides ([`legacy_tool_name`]), and MCP parts are compared normalised.
///   Names compare case-sensitively: a model's `bash` reaches no tool `Bash` (SPEC §8.1), so
///   a case variant is never a way through.
/// - `mcp__srv` and `mcp__srv__*` match every tool whose permission name has the server part
///   `normalize(srv)` (the reference compares the rule's part as written, so its
///   `mcp__my.server` denies nothing; here it denies server `my.server`'s tools).
///   `mcp__srv__` (empty tool part) matches nothing at server level.
pub fn tool_matches_rule(tool: &dyn DynTool, rule: &PermissionRuleValue) -> bool {
    if rule.rule_content.is_some() {
        return false;
    }
    let names = rule_names(tool);
    if names
        .iter()
        .any(|name| rule_names_tool(&rule.tool_name, name))
    {
        return true;
    }
    let (Some(rule_parts), Some(tool_parts)) = (
        mcp_info_from_string(&rule.tool_name),
        mcp_info_from_string(&names[0]),
    ) else {
        return false;
    };
    matches!(rule_parts.tool_name.as_deref(), None | Some("*"))
        && normalize_name_for_mcp(&rule_parts.server_name) == tool_parts.server_name
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

/// The first content rule with `behavior` for this tool (naming it as
/// [`tool_matches_rule`] does, SPEC §6.4 `getRuleByContentsForTool`) whose content the call's
/// [`ToolCall::prepare_permission_matcher`] accepts. A call without a matcher matches no
/// content rule.
pub fn content_rule<'a>(
    tool: &dyn DynTool,
    call: &dyn ToolCall,
    permissions: &'a ToolPermissionContext,
    behavior: PermissionBehavior,
) -> Option<&'a PermissionRule> {
    let names = rule_names(tool);
    let mut candidates = permissions
        .rules(behavior)
        .filter(|rule| {
            rule.value.rule_content.is_some()
                && names
                    .iter()
                    .any(|name| rule_names_tool(&rule.value.tool_name, name))
        })
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

/// The first rule that covers the call, trying `behaviors` in order: for each, a rule for the
/// whole tool ([`whole_tool_rule`]), else a content rule the call matches ([`content_rule`]).
/// One lookup per step of the permission pipeline; nothing to do when there are no rules.
pub(crate) fn first_rule<'a>(
    tool: &dyn DynTool,
    call: &dyn ToolCall,
    permissions: &'a ToolPermissionContext,
    behaviors: &[PermissionBehavior],
) -> Option<&'a PermissionRule> {
    if permissions.all_rules().is_empty() {
        return None;
    }
    behaviors.iter().find_map(|&behavior| {
        whole_tool_rule(tool, permissions, behavior)
            .or_else(|| content_rule(tool, call, permissions, behavior))
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
