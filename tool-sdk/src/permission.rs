//! Outcomes of a tool's own input checks: [`ValidationResult`] from `validate_input` and
//! [`PermissionResult`] from `check_permissions` (SPEC §1.1, §5.4 steps 4 and 6).

use serde_json::Value;

/// What `Tool::validate_input` decided (the reference's `{result:true} | {result:false,
/// message, errorCode}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValidationResult {
    /// The input may run.
    Ok,
    /// The input is refused; `message` goes to the model inside `<tool_use_error>`.
    Invalid {
        /// Why, in words the model can act on.
        message: String,
        /// A tool-specific code for hosts and logs; never shown to the model.
        error_code: i32,
    },
}

impl ValidationResult {
    /// A refusal with `message` and error code 0.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid {
            message: message.into(),
            error_code: 0,
        }
    }
}

/// What `Tool::check_permissions` decided (SPEC §1.1; the reference's `PermissionResult`).
#[derive(Debug, Clone, PartialEq)]
pub enum PermissionResult {
    /// Run the call, optionally with a replaced input object.
    Allow {
        /// A replacement for the input, as JSON, or `None` to keep it.
        updated_input: Option<Value>,
    },
    /// Ask the host's user; `message` explains what is asked.
    Ask {
        /// Shown to the user; sent to the model if the answer is no.
        message: String,
    },
    /// Refuse; `message` is sent to the model as the error result, unwrapped (SPEC §5.4 step 6).
    Deny {
        /// Why.
        message: String,
    },
    /// No opinion: the general permission rules decide (MCP tools answer this, SPEC §10).
    Passthrough {
        /// What to ask if the rules end in "ask".
        message: String,
    },
}

impl PermissionResult {
    /// `Allow` without changing the input: the default of `check_permissions` (SPEC §1.1).
    pub const fn allow() -> Self {
        Self::Allow {
            updated_input: None,
        }
    }
}
