//! The tool calls of one assistant turn, whatever API they came from, as read: each call's id,
//! name and input (or why its arguments could not be read), ids made unique. Which of them run
//! and how their results pair back is in `pairing`.

use std::sync::Arc;

use serde_json::{Map, Value};
use tool_sdk::DynTool;
use tool_sdk::ToolUseBlock;
use tool_sdk::callers::{Caller, Callers};

/// One tool call as a model API sent it, before it runs (in any API's shape); distinct from
/// the [`tool_sdk::ToolCall`] trait a tool implements.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelToolCall {
    /// The call id the results must repeat (`toolu_…`, `call_…`, or for a Gemini call that
    /// came without one, an id made up from its position, see [`ModelToolCall::id_was_sent`]).
    pub id: String,
    /// The tool name as our pool knows it (Gemini names mapped back already).
    pub name: String,
    /// The parsed input object, or why the arguments could not be read. A call whose
    /// arguments failed is answered with an error result and never run.
    pub input: Result<Value, ArgumentsError>,
    /// `false` when the API sent no id and [`ModelToolCall::id`] was made up (Gemini calls may
    /// come without one); writers then leave the id out of the answer.
    pub id_was_sent: bool,
    /// Who made the call, from the API's `caller` field (Anthropic `tool_use`, OpenAI
    /// Responses `function_call`): [`Caller::Direct`] when it has none (and for the APIs
    /// without programmatic tool calling). A call whose caller the tool does not allow (or
    /// an unknown caller) is read with a failed input
    /// ([`ArgumentsError::CallerNotAllowed`], [`ArgumentsError::UnknownCaller`]) and never
    /// run; the OpenAI Responses answer repeats a program caller.
    pub caller: Caller,
}

impl ModelToolCall {
    /// A call with input already parsed.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            input: Ok(input),
            id_was_sent: true,
            caller: Caller::Direct,
        }
    }

    /// A call whose `arguments` are JSON text (OpenAI, streamed Anthropic input), parsed now
    /// with `parse_arguments`.
    pub fn from_arguments(id: impl Into<String>, name: impl Into<String>, arguments: &str) -> Self {
        let name = name.into();
        Self {
            id: id.into(),
            input: parse_arguments(&name, arguments),
            name,
            id_was_sent: true,
            caller: Caller::Direct,
        }
    }

    /// Refuses the call, unless it already failed, when `tools` holds its tool and that
    /// tool does not allow its [`ModelToolCall::caller`] (`tool_sdk::ToolMeta::callers`), and
    /// whatever the tool when the caller is [`Caller::Unknown`]. A call naming no tool of
    /// `tools` is left to the orchestrator, which answers that the tool does not exist; so is,
    /// in effect, a direct call of a tool only code may call when the API has no
    /// `allowed_callers` (`has_callers` false): that tool was not offered, and the call is
    /// [`ArgumentsError::NotOffered`].
    pub(crate) fn check_caller(&mut self, tools: &[Arc<dyn DynTool>], has_callers: bool) {
        if self.input.is_err() {
            return;
        }
        if let Caller::Unknown { raw } = &self.caller {
            self.input = Err(ArgumentsError::UnknownCaller {
                tool: self.name.clone(),
                caller: raw.clone(),
            });
            return;
        }
        let Some(tool) = tools
            .iter()
            .find(|tool| tool.meta().matches_name(&self.name))
        else {
            return;
        };
        let allowed = tool.meta().callers;
        if !allowed.allows(&self.caller) {
            if !has_callers && !allowed.allows_direct() {
                self.input = Err(ArgumentsError::NotOffered {
                    tool: self.name.clone(),
                });
                return;
            }
            let fix = if self.caller.is_programmatic() {
                "call it directly instead, not from code"
            } else {
                "call it from code execution instead, not directly"
            };
            self.input = Err(ArgumentsError::CallerNotAllowed {
                tool: self.name.clone(),
                caller: self.caller.to_string(),
                allowed: match allowed {
                    Callers::Direct => "the model",
                    Callers::Programmatic => "code",
                    Callers::DirectAndProgrammatic => "the model and code",
                },
                fix,
            });
        }
    }

    /// Marks the call as repeating an earlier call's id: never run, answered with an error.
    pub fn mark_duplicate(&mut self) {
        self.input = Err(ArgumentsError::DuplicateId {
            tool: self.name.clone(),
            id: self.id.clone(),
        });
    }
}

/// Why a call's arguments could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgumentsError {
    /// The arguments text is not JSON.
    #[error(
        "the arguments of {tool} are not valid JSON ({reason}); send the call again with its arguments as one JSON object"
    )]
    NotJson {
        /// The tool called.
        tool: String,
        /// What the JSON parser reported (line, column and what it expected).
        reason: String,
    },
    /// An earlier call of the same turn has this id: this call is not run, and is answered
    /// with this error under the same id.
    #[error(
        "another call of this turn already has the id `{id}`; this call of {tool} was not run; send it again with an id of its own"
    )]
    DuplicateId {
        /// The tool called.
        tool: String,
        /// The shared id.
        id: String,
    },
    /// The call could not be read as a function call (no name, or a kind this crate does not
    /// run, such as a `custom` tool call); it is answered with this error and never run.
    #[error("{item} {reason}; this call was not run")]
    NotRunnable {
        /// The call, as a path like `tool_calls[1]`.
        item: String,
        /// What is wrong with it, naming the field.
        reason: String,
    },
    /// The call came from a caller its tool does not allow (a call from code to a tool that
    /// allows only the model, or the reverse; `tool_sdk::callers`).
    #[error(
        "{tool} may not be called by {caller}: it allows calls from {allowed} only; {fix}; this call was not run"
    )]
    CallerNotAllowed {
        /// The tool called.
        tool: String,
        /// Who made the call (`tool_sdk::callers::Caller`'s text).
        caller: String,
        /// Who may call the tool, in words: `the model` (`direct`) or `code`
        /// (`programmatic`).
        allowed: &'static str,
        /// What to do instead.
        fix: &'static str,
    },
    /// The call names a tool of the pool that was not offered to the model on this API: a
    /// tool only code may call (`tool_sdk::callers::Callers::Programmatic`), left out of the
    /// definitions of an API with no `allowed_callers` (OpenAI Chat Completions, Gemini).
    /// Answered as a call of a tool that does not exist (SPEC §5.4 step 1), and never run.
    #[error("{}", crate::messages::no_such_tool_text(tool))]
    NotOffered {
        /// The tool called.
        tool: String,
    },
    /// The call's `caller` is of a type this host does not know (not `direct`, not a code
    /// execution or program caller with its id).
    #[error(
        "the call of {tool} came from an unknown caller {caller}; only calls from the model (`direct`) or from code execution with its id are run; this call was not run"
    )]
    UnknownCaller {
        /// The tool called.
        tool: String,
        /// The `caller` value as sent (compact JSON).
        caller: String,
    },
    /// The stream ended before the arguments were complete.
    #[error(
        "the response ended before the arguments of {tool} were complete ({received} bytes received); send the call again"
    )]
    Truncated {
        /// The tool called.
        tool: String,
        /// How many bytes of arguments arrived.
        received: usize,
    },
}

/// Reads a call's `arguments` JSON text: empty text, whitespace only and `null` mean `{}`;
/// anything else must parse as JSON (an array or a number parses, and is refused later by
/// input validation, naming the expected object).
///
/// # Errors
/// [`ArgumentsError::NotJson`] naming `tool` and the parser's position.
pub(crate) fn parse_arguments(tool: &str, arguments: &str) -> Result<Value, ArgumentsError> {
    let text = arguments.trim();
    if text.is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Null) => Ok(Value::Object(Map::new())),
        Ok(value) => Ok(value),
        Err(error) => Err(ArgumentsError::NotJson {
            tool: tool.to_owned(),
            reason: error.to_string(),
        }),
    }
}

/// The tool calls of one assistant turn, in the order the API listed them.
///
/// Call ids are unique within a turn: [`ToolCalls::new`] keeps the first call with an id as
/// it is, and gives each later call with the same id the input error
/// [`ArgumentsError::DuplicateId`], so it is never run and is answered with its own error
/// result. That result repeats the shared id (the only id the model gave it), so the answer
/// holds the id once per call: the first call's result, then one error per duplicate, in
/// call order. The Messages, Chat and Responses APIs expect unique ids and may refuse such an
/// answer; a host then reports the model's duplicate ids rather than losing any result.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCalls {
    /// The calls, in order.
    pub calls: Vec<ModelToolCall>,
}

impl ToolCalls {
    /// Wraps calls already in order, marking each call whose id an earlier call (one not
    /// itself marked) already has with [`ArgumentsError::DuplicateId`].
    pub fn new(mut calls: Vec<ModelToolCall>) -> Self {
        let mut seen = std::collections::HashSet::new();
        for call in &mut calls {
            if matches!(call.input, Err(ArgumentsError::DuplicateId { .. })) {
                continue;
            }
            if !seen.insert(call.id.clone()) {
                call.mark_duplicate();
            }
        }
        Self { calls }
    }

    /// `true` when the turn has no tool call.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// Number of calls.
    pub fn len(&self) -> usize {
        self.calls.len()
    }

    /// [`ModelToolCall::check_caller`] for every call.
    pub(crate) fn check_callers(mut self, tools: &[Arc<dyn DynTool>], has_callers: bool) -> Self {
        for call in &mut self.calls {
            call.check_caller(tools, has_callers);
        }
        self
    }
}

impl From<Vec<ToolUseBlock>> for ToolCalls {
    fn from(blocks: Vec<ToolUseBlock>) -> Self {
        Self::new(
            blocks
                .into_iter()
                .map(|block| ModelToolCall::new(block.id, block.name, block.input))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn empty_whitespace_and_null_arguments_mean_an_empty_object() {
        for text in ["", "  \n\t", "null", " null "] {
            assert_eq!(parse_arguments("T", text).unwrap(), json!({}), "{text:?}");
        }
        assert_eq!(parse_arguments("T", "{\"a\":1}").unwrap(), json!({"a": 1}));
        let error = parse_arguments("Read", "{\"a\":").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("the arguments of Read are not valid JSON ("),
            "{error}"
        );
    }
}
