//! The runtime permission check for one call (SPEC §6.4 steps 1a–3, §5.4 step 6): rules, the
//! tool's own `check_permissions`, the mode, and the host's prompt.

use futures::future::BoxFuture;
use serde_json::Value;
use tool_sdk::{DynTool, PermissionResult, ToolCall, ToolUseContext};

use super::context::{PermissionBehavior, PermissionMode, PermissionRule, ToolPermissionContext};
use super::matching::first_rule;

/// Why a decision was reached, for hosts and logs (never sent to the model by itself).
#[derive(Debug, Clone, PartialEq)]
pub enum DecisionReason {
    /// A rule matched.
    Rule(PermissionRule),
    /// The tool's own `check_permissions` decided.
    Tool,
    /// The permission mode decided.
    Mode(PermissionMode),
    /// The host's [`CanUseTool`] answered.
    Host,
}

/// The outcome of [`decide_permission`].
#[derive(Debug, Clone, PartialEq)]
pub enum PermissionDecision {
    /// Run the call; with `updated_input`, parse and run that input instead.
    Allow {
        /// A replacement input, as JSON.
        updated_input: Option<Value>,
        /// Why.
        reason: DecisionReason,
    },
    /// Do not run the call; `message` is the `tool_result` text, sent unwrapped with
    /// `is_error: true` (SPEC §5.4 step 6).
    Deny {
        /// What the model is told.
        message: String,
        /// Why.
        reason: DecisionReason,
    },
    /// The call needs approval and no [`CanUseTool`] was given: do not run it. `message` says
    /// what would have been asked.
    Ask {
        /// What would have been asked.
        message: String,
        /// Why approval is needed.
        reason: DecisionReason,
    },
}

impl PermissionDecision {
    /// `true` for [`PermissionDecision::Allow`].
    // Used by the crate's tests and `test_support` only.
    #[cfg_attr(not(any(test, feature = "test-support")), allow(dead_code))]
    pub fn is_allowed(&self) -> bool {
        matches!(self, Self::Allow { .. })
    }
}

/// What the host is asked when the pipeline ends in "ask".
pub struct PermissionRequest<'a> {
    /// The tool.
    pub tool: &'a dyn DynTool,
    /// The parsed call.
    pub call: &'a dyn ToolCall,
    /// The call's input as the model sent it.
    pub input: &'a Value,
    /// The call's context.
    pub ctx: &'a ToolUseContext,
    /// What is asked, in words for the user.
    pub message: &'a str,
    /// Why approval is needed.
    pub reason: &'a DecisionReason,
}

impl std::fmt::Debug for PermissionRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PermissionRequest")
            .field("tool", &self.tool.name())
            .field("input", self.input)
            .field("message", &self.message)
            .field("reason", self.reason)
            .finish_non_exhaustive()
    }
}

impl PermissionRequest<'_> {
    /// The name rules use for this call's tool: `mcp__SERVER__TOOL` for an MCP tool (its full,
    /// unshortened name), the primary name otherwise (SPEC §6.3). A host that grants "always
    /// allow" writes its rule with this name.
    pub fn rule_name(&self) -> std::borrow::Cow<'_, str> {
        super::matching::tool_name_for_permission_check(self.tool)
    }

    /// The first `behavior` rule of `permissions` that covers this call: a rule for the whole
    /// tool (or its MCP server), else a content rule that matches the call's input, such as
    /// `Bash(git *)` (SPEC §6.3). A host asks this of the rules it granted during the
    /// session before asking the user again.
    pub fn matching_rule<'p>(
        &self,
        permissions: &'p ToolPermissionContext,
        behavior: PermissionBehavior,
    ) -> Option<&'p PermissionRule> {
        first_rule(self.tool, self.call, permissions, &[behavior])
    }
}

/// The host's answer to a [`PermissionRequest`].
#[derive(Debug, Clone, PartialEq)]
pub enum HostAnswer {
    /// Run the call, optionally with a replaced input.
    Allow {
        /// A replacement input, as JSON.
        updated_input: Option<Value>,
    },
    /// Do not run it; `message` is sent to the model as the error result.
    Deny {
        /// What the model is told.
        message: String,
    },
}

impl HostAnswer {
    /// The user said no: the model is told that the user rejected this tool use and to stop
    /// and wait for the user (the reference's `REJECT_MESSAGE`, SPEC §5.5).
    pub fn reject() -> Self {
        Self::Deny {
            message: crate::messages::REJECT_MESSAGE.to_owned(),
        }
    }
}

/// The host's async permission prompt (the reference's `canUseTool`), called only when the
/// orchestrator's permission pipeline ends in "ask". Implementations must be cancel-safe.
pub trait CanUseTool: Send + Sync {
    /// Asks the host's user about one call.
    fn can_use_tool<'a>(&'a self, request: PermissionRequest<'a>) -> BoxFuture<'a, HostAnswer>;
}

impl std::fmt::Debug for dyn CanUseTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CanUseTool(..)")
    }
}

/// The model-facing text of a deny by rule or mode: names the tool by its primary name and
/// says permission was denied (SPEC §6.4, our wording).
pub fn permission_denied_message(tool_name: &str) -> String {
    format!("{tool_name} may not be used: permission was denied.")
}

/// What is asked when a call needs approval and nothing more specific was said.
pub(crate) fn approval_request_message(tool_name: &str) -> String {
    format!("{tool_name} needs your approval to run.")
}

fn deny(tool: &dyn DynTool, reason: DecisionReason) -> PermissionDecision {
    PermissionDecision::Deny {
        message: permission_denied_message(tool.name()),
        reason,
    }
}

/// Decides whether one parsed call may run. Orchestration calls this after `validate_input`
/// and before the call; `input` is the call's input as sent, `ctx` its context.
///
/// In order, the first step that decides wins:
/// 1. a whole-tool **deny** rule (SPEC §6.3), then a deny content rule the call's
///    `prepare_permission_matcher` accepts → deny;
/// 2. a whole-tool **ask** rule, then an ask content rule → ask (in every mode);
/// 3. the tool's `check_permissions`: `Deny` → deny with the tool's message; `Ask` from a call
///    that `requires_user_interaction` → ask (in every mode);
/// 4. [`PermissionMode::Plan`]: a call that is not read-only → deny;
/// 5. a whole-tool **allow** rule, then an allow content rule → allow (keeping an input the
///    tool replaced);
/// 6. the tool's `Allow` → allow; otherwise (`Ask`/`Passthrough`) the mode:
///    `BypassPermissions` → allow, `AcceptEdits` with a call that has a path → allow,
///    `DontAsk` → deny, else ask;
/// 7. an ask goes to `can_use_tool` when given; without one the result is
///    [`PermissionDecision::Ask`].
///
/// Deny messages from rules and modes come from [`permission_denied_message`].
pub async fn decide_permission(
    tool: &dyn DynTool,
    call: &dyn ToolCall,
    input: &Value,
    ctx: &ToolUseContext,
    permissions: &ToolPermissionContext,
    can_use_tool: Option<&dyn CanUseTool>,
) -> PermissionDecision {
    let decision = decide_without_host(tool, call, ctx, permissions).await;
    let PermissionDecision::Ask { message, reason } = decision else {
        return decision;
    };
    let Some(host) = can_use_tool else {
        return PermissionDecision::Ask { message, reason };
    };
    let request = PermissionRequest {
        tool,
        call,
        input,
        ctx,
        message: &message,
        reason: &reason,
    };
    match host.can_use_tool(request).await {
        HostAnswer::Allow { updated_input } => PermissionDecision::Allow {
            updated_input,
            reason: DecisionReason::Host,
        },
        HostAnswer::Deny { message } => PermissionDecision::Deny {
            message,
            reason: DecisionReason::Host,
        },
    }
}

/// Steps 1–6 of [`decide_permission`]: never consults the host.
pub(crate) async fn decide_without_host(
    tool: &dyn DynTool,
    call: &dyn ToolCall,
    ctx: &ToolUseContext,
    permissions: &ToolPermissionContext,
) -> PermissionDecision {
    // A deny rule wins over an ask rule (SPEC §6.4), both before the tool's own check.
    if let Some(rule) = first_rule(
        tool,
        call,
        permissions,
        &[PermissionBehavior::Deny, PermissionBehavior::Ask],
    ) {
        let rule = rule.clone();
        if rule.behavior == PermissionBehavior::Deny {
            return deny(tool, DecisionReason::Rule(rule));
        }
        return PermissionDecision::Ask {
            message: approval_request_message(tool.name()),
            reason: DecisionReason::Rule(rule),
        };
    }
    let own = call.check_permissions(ctx).await;
    let (updated_input, ask_message) = match own {
        PermissionResult::Deny { message } => {
            return PermissionDecision::Deny {
                message,
                reason: DecisionReason::Tool,
            };
        }
        PermissionResult::Ask { message } if call.requires_user_interaction() => {
            return PermissionDecision::Ask {
                message,
                reason: DecisionReason::Tool,
            };
        }
        PermissionResult::Allow { updated_input } => (updated_input, None),
        PermissionResult::Ask { message } | PermissionResult::Passthrough { message } => {
            (None, Some(message))
        }
    };
    let mode = permissions.mode;
    if mode == PermissionMode::Plan && !call.is_read_only() {
        return deny(tool, DecisionReason::Mode(mode));
    }
    if let Some(rule) = first_rule(tool, call, permissions, &[PermissionBehavior::Allow]) {
        return PermissionDecision::Allow {
            updated_input,
            reason: DecisionReason::Rule(rule.clone()),
        };
    }
    let Some(message) = ask_message else {
        return PermissionDecision::Allow {
            updated_input,
            reason: DecisionReason::Tool,
        };
    };
    match mode {
        PermissionMode::BypassPermissions => PermissionDecision::Allow {
            updated_input: None,
            reason: DecisionReason::Mode(mode),
        },
        PermissionMode::AcceptEdits if call.get_path().is_some() => PermissionDecision::Allow {
            updated_input: None,
            reason: DecisionReason::Mode(mode),
        },
        PermissionMode::DontAsk => deny(tool, DecisionReason::Mode(mode)),
        _ => PermissionDecision::Ask {
            message: if message.is_empty() {
                approval_request_message(tool.name())
            } else {
                message
            },
            reason: DecisionReason::Tool,
        },
    }
}
