//! [`CallOutcome`]: what one call produced.

use serde_json::Value;
use tool_sdk::ToolResultBlock;
use tool_sdk::result::ContextModifier;

/// What one call produced.
#[derive(Debug)]
pub struct CallOutcome {
    /// The `tool_result` for the call's `tool_use` id.
    pub result: ToolResultBlock,
    /// The call's context modifier, if it succeeded with one.
    pub context_modifier: Option<ContextModifier>,
    /// Messages the tool asked to append after the result.
    pub new_messages: Vec<Value>,
    /// `true` when the call's tool declares [`tool_sdk::MaxResultSize::Unbounded`] results,
    /// which the per-message budget of SPEC §9 never persists; `false` for every other tool
    /// and for calls that reached no tool.
    pub exempt_from_budget: bool,
}

impl CallOutcome {
    /// An error outcome whose content is `text`, unchanged.
    pub fn error(id: &str, text: String) -> Self {
        Self {
            result: ToolResultBlock::error(id, text),
            context_modifier: None,
            new_messages: Vec::new(),
            exempt_from_budget: false,
        }
    }
}
