//! The tool calls of one assistant turn, whatever API they came from, and the rule that pairs
//! them with their results: one result per call id, in call order.

use serde_json::{Map, Value};
use tool_sdk::{ToolResultBlock, ToolUseBlock};

use crate::messages::tool_use_error;

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
}

impl ModelToolCall {
    /// A call with input already parsed.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            input: Ok(input),
            id_was_sent: true,
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
        }
    }

    /// The call as a `tool_use` block for the orchestrator, or `None` when its arguments failed.
    pub fn to_block(&self) -> Option<ToolUseBlock> {
        let input = self.input.as_ref().ok()?;
        Some(ToolUseBlock {
            id: self.id.clone(),
            name: self.name.clone(),
            input: input.clone(),
        })
    }

    /// Marks the call as repeating an earlier call's id: never run, answered with an error.
    pub fn mark_duplicate(&mut self) {
        self.input = Err(ArgumentsError::DuplicateId {
            tool: self.name.clone(),
            id: self.id.clone(),
        });
    }

    /// The error result of a call whose arguments failed; `None` when they were read.
    pub fn argument_error_result(&self) -> Option<ToolResultBlock> {
        let error = self.input.as_ref().err()?;
        Some(ToolResultBlock::error(
            &self.id,
            tool_use_error(&format!("InputValidationError: {error}")),
        ))
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

/// Why results could not be paired with the calls of a turn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResultsError {
    /// A call has no result.
    #[error("call `{id}` ({name}) has no result; every call must be answered exactly once")]
    Missing {
        /// The call id.
        id: String,
        /// The tool called.
        name: String,
    },
    /// A result answers no call of this turn, or answers one twice.
    #[error("result for `{id}` answers no call of this turn, or answers one twice")]
    Unexpected {
        /// The `tool_use_id` of the result.
        id: String,
    },
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

    /// Wraps calls in order without checking their ids (the stream assemblers, whose ids are
    /// checked in the order calls were handed over, by [`super::stream::ToolCallStream`]).
    pub(crate) fn unchecked(calls: Vec<ModelToolCall>) -> Self {
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

    /// The calls whose arguments were read, as `tool_use` blocks, in order; a call whose id
    /// an earlier runnable call has is left out (never run twice under one id).
    pub fn runnable(&self) -> Vec<ToolUseBlock> {
        let mut seen = std::collections::HashSet::new();
        self.calls
            .iter()
            .filter_map(ModelToolCall::to_block)
            .filter(|block| seen.insert(block.id.clone()))
            .collect()
    }

    /// One result per call, in call order: the orchestrator's `results` (in any order, matched
    /// by `tool_use_id`) for the calls that ran, and an error result for each call whose
    /// arguments failed (unless `results` already answers it, so pairing results that were
    /// paired before gives them back unchanged).
    ///
    /// # Errors
    /// [`ResultsError`] when a runnable call has no result, or a result answers no call (or
    /// one twice). Calls sharing an id are answered as [`ToolCalls`] describes.
    pub fn pair(
        &self,
        results: Vec<ToolResultBlock>,
    ) -> Result<Vec<ToolResultBlock>, ResultsError> {
        let mut pending: Vec<Option<ToolResultBlock>> = results.into_iter().map(Some).collect();
        let mut ran = std::collections::HashSet::new();
        // Whether each call runs: the first call with an id whose input was read.
        let runs: Vec<bool> = self
            .calls
            .iter()
            .map(|call| call.input.is_ok() && ran.insert(call.id.as_str()))
            .collect();
        let answers = |id: &str| {
            pending
                .iter()
                .flatten()
                .filter(|r| r.tool_use_id == id)
                .count()
        };
        // An id with one result per call sharing it (results paired before) is matched in
        // call order; otherwise the call that ran takes the first result with its id.
        let in_order: Vec<bool> = self
            .calls
            .iter()
            .map(|call| answers(&call.id) == self.calls.iter().filter(|c| c.id == call.id).count())
            .collect();
        let mut take = |id: &str| {
            pending
                .iter_mut()
                .find(|slot| slot.as_ref().is_some_and(|r| r.tool_use_id == id))
                .and_then(Option::take)
        };
        let mut found: Vec<Option<ToolResultBlock>> = vec![None; self.calls.len()];
        for (index, call) in self.calls.iter().enumerate() {
            if in_order[index] || runs[index] {
                found[index] = take(&call.id);
            }
        }
        let mut paired = Vec::with_capacity(self.calls.len());
        for (index, call) in self.calls.iter().enumerate() {
            // Calls sharing an id that did not run: a result given back from an earlier
            // pairing, in call order, or their error.
            let found = found[index].take().or_else(|| take(&call.id));
            let error = if call.input.is_ok() && !runs[index] {
                // A duplicate id in calls built without `new`: answered, never run.
                let mut duplicate = call.clone();
                duplicate.mark_duplicate();
                duplicate.argument_error_result()
            } else {
                call.argument_error_result()
            };
            match (found, error) {
                (Some(result), _) => paired.push(result),
                (None, Some(error)) => paired.push(error),
                (None, None) => {
                    return Err(ResultsError::Missing {
                        id: call.id.clone(),
                        name: call.name.clone(),
                    });
                }
            }
        }
        if let Some(extra) = pending.into_iter().flatten().next() {
            return Err(ResultsError::Unexpected {
                id: extra.tool_use_id,
            });
        }
        Ok(paired)
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

    #[test]
    fn pairing_puts_results_in_call_order_and_answers_bad_arguments() {
        let calls = ToolCalls::new(vec![
            ModelToolCall::from_arguments("a", "T", "{}"),
            ModelToolCall::from_arguments("b", "T", "{oops"),
            ModelToolCall::from_arguments("c", "T", ""),
        ]);
        assert_eq!(calls.runnable().len(), 2);
        let paired = calls
            .pair(vec![
                ToolResultBlock::success("c", "3"),
                ToolResultBlock::success("a", "1"),
            ])
            .unwrap();
        let ids: Vec<&str> = paired.iter().map(|r| r.tool_use_id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
        assert!(paired[1].is_error);
        assert!(
            paired[1].text().contains("not valid JSON"),
            "{}",
            paired[1].text()
        );
        assert_eq!(
            calls.pair(vec![ToolResultBlock::success("a", "1")]),
            Err(ResultsError::Missing {
                id: "c".into(),
                name: "T".into()
            })
        );
        assert_eq!(
            calls.pair(vec![
                ToolResultBlock::success("a", "1"),
                ToolResultBlock::success("c", "3"),
                ToolResultBlock::success("a", "again"),
            ]),
            Err(ResultsError::Unexpected { id: "a".into() })
        );
    }
}

#[cfg(test)]
mod duplicate_tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_later_call_repeating_an_id_is_answered_with_its_own_error_and_never_run() {
        let calls = ToolCalls::new(vec![
            ModelToolCall::from_arguments("a", "Write", "{\"n\":1}"),
            ModelToolCall::from_arguments("b", "Read", "{}"),
            ModelToolCall::from_arguments("a", "Write", "{\"n\":2}"),
        ]);
        let runnable = calls.runnable();
        let ran: Vec<(&str, &Value)> = runnable.iter().map(|b| (b.id.as_str(), &b.input)).collect();
        assert_eq!(ran, [("a", &json!({"n": 1})), ("b", &json!({}))]);
        let paired = calls
            .pair(vec![
                ToolResultBlock::success("b", "read"),
                ToolResultBlock::success("a", "wrote 1"),
            ])
            .unwrap();
        assert_eq!(paired.len(), 3, "no sibling result is lost");
        assert_eq!(calls.pair(paired.clone()).unwrap(), paired);
        assert_eq!(paired[0].text(), "wrote 1");
        assert_eq!(paired[1].text(), "read");
        assert_eq!(paired[2].tool_use_id, "a");
        assert!(paired[2].is_error);
        assert!(
            paired[2].text().contains("already has the id `a`"),
            "{}",
            paired[2].text()
        );
        // Calls built without `new` are answered the same way.
        let raw = ToolCalls {
            calls: vec![
                ModelToolCall::new("x", "T", json!({})),
                ModelToolCall::new("x", "T", json!({})),
            ],
        };
        assert_eq!(raw.runnable().len(), 1);
        let paired = raw.pair(vec![ToolResultBlock::success("x", "ok")]).unwrap();
        assert_eq!(paired.len(), 2);
        assert!(!paired[0].is_error && paired[1].is_error);
    }
}
