//! Which calls of a turn run, and the rule that pairs them with their results: one result per
//! call, in call order, an error result for each call whose arguments failed.

use tool_sdk::{ToolResultBlock, ToolUseBlock};

use super::calls::{ArgumentsError, ModelToolCall, ToolCalls};
use crate::messages::tool_use_error;

impl ModelToolCall {
    /// The call as a `tool_use` block for the orchestrator, or `None` when its arguments failed.
    pub fn to_block(&self) -> Option<ToolUseBlock> {
        let input = self.input.as_ref().ok()?;
        Some(ToolUseBlock {
            id: self.id.clone(),
            name: self.name.clone(),
            input: input.clone(),
        })
    }

    /// The error result of a call whose arguments failed; `None` when they were read.
    pub fn argument_error_result(&self) -> Option<ToolResultBlock> {
        let error = self.input.as_ref().err()?;
        let text = match error {
            // Not the input's fault: said as it is.
            ArgumentsError::CallerNotAllowed { .. }
            | ArgumentsError::UnknownCaller { .. }
            | ArgumentsError::NotOffered { .. } => error.to_string(),
            _ => format!("InputValidationError: {error}"),
        };
        Some(ToolResultBlock::error(&self.id, tool_use_error(&text)))
    }
}

/// Why results could not be paired with the calls of a turn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
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
    /// [`ModelApi::Mcp`](super::ModelApi::Mcp) has no model message to answer in.
    #[error(
        "MCP has no model message to answer in: a served pool answers each `tools/call` request itself; use a model API's format"
    )]
    NotAModelApi,
}

impl ToolCalls {
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

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

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
