//! The one place a call's permission is decided (SPEC §5.4 step 6). Everything the
//! orchestrator needs from permissions goes through [`decide`], which runs the permission
//! pipeline of [`crate::permissions::decide_permission`] (deny → ask → `check_permissions` →
//! mode → allow rules → the host's [`CanUseTool`]).

use serde_json::Value;
use tool_sdk::{DynTool, ToolCall, ToolUseContext};

use super::messages;
use super::orchestrator::Inner;
use crate::permissions::{CanUseTool, PermissionDecision, decide_permission};

/// The permission outcome the orchestrator acts on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PermissionOutcome {
    /// Run the call, with a replacement input when `Some`.
    Allow(Option<Value>),
    /// Do not run it; the text is the model's error result, without a `<tool_use_error>`
    /// wrapper (SPEC §5.4 step 6).
    Refuse(String),
}

/// Decides whether `call` of `tool` may run under the orchestrator's permission context and
/// host prompt. A deny sends its message; an "ask" that no host answered is refused with
/// [`messages::approval_unavailable`].
pub(crate) async fn decide(
    inner: &Inner,
    tool: &dyn DynTool,
    call: &dyn ToolCall,
    input: &Value,
    ctx: &ToolUseContext,
) -> PermissionOutcome {
    let host: Option<&dyn CanUseTool> = inner.can_use_tool.as_deref();
    match decide_permission(tool, call, input, ctx, &inner.permissions, host).await {
        PermissionDecision::Allow { updated_input, .. } => PermissionOutcome::Allow(updated_input),
        PermissionDecision::Deny { message, .. } => PermissionOutcome::Refuse(message),
        PermissionDecision::Ask { message, .. } => {
            PermissionOutcome::Refuse(messages::approval_unavailable(tool.name(), &message))
        }
    }
}
