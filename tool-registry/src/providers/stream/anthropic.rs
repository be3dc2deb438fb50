//! Anthropic Messages streaming (<https://docs.anthropic.com/en/api/messages-streaming>): a
//! `tool_use` block opens with `content_block_start` (its `input` is `{}`), its input arrives
//! as `input_json_delta` pieces of `partial_json`, and `content_block_stop` closes it.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{CallAssembler, Partial};
use crate::providers::calls::{ModelToolCall, ToolCalls};

/// Assembles `tool_use` blocks from Messages stream events. A block is handed over at its
/// `content_block_stop`; server tool blocks (`server_tool_use`, run by the API) are skipped.
#[derive(Debug, Default)]
pub struct AnthropicStream {
    open: BTreeMap<u64, Open>,
    done: BTreeMap<u64, ModelToolCall>,
}

#[derive(Debug)]
struct Open {
    partial: Partial,
    start_input: Value,
    deltas: bool,
}

impl CallAssembler for AnthropicStream {
    fn push(&mut self, event: &Value) -> Vec<ModelToolCall> {
        let index = event.get("index").and_then(Value::as_u64);
        match (event.get("type").and_then(Value::as_str), index) {
            (Some("content_block_start"), Some(index)) => {
                let block = event.get("content_block").unwrap_or(&Value::Null);
                if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                    let text = |key: &str| {
                        block
                            .get(key)
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned()
                    };
                    let partial = Partial {
                        id: text("id"),
                        name: text("name"),
                        ..Partial::default()
                    };
                    let start_input = block.get("input").cloned().unwrap_or(Value::Null);
                    self.open.insert(
                        index,
                        Open {
                            partial,
                            start_input,
                            deltas: false,
                        },
                    );
                }
                Vec::new()
            }
            (Some("content_block_delta"), Some(index)) => {
                let delta = event.get("delta").unwrap_or(&Value::Null);
                if delta.get("type").and_then(Value::as_str) == Some("input_json_delta")
                    && let Some(open) = self.open.get_mut(&index)
                {
                    open.deltas = true;
                    open.partial.append(
                        delta
                            .get("partial_json")
                            .and_then(Value::as_str)
                            .unwrap_or_default(),
                    );
                }
                Vec::new()
            }
            (Some("content_block_stop"), Some(index)) => match self.open.remove(&index) {
                Some(open) => {
                    let call = if open.deltas {
                        // Unfinished JSON at the block's end was cut by `max_tokens`.
                        open.partial.at_end()
                    } else {
                        let input = match open.start_input {
                            Value::Null => Value::Object(Map::new()),
                            input => input,
                        };
                        ModelToolCall::new(open.partial.id, open.partial.name, input)
                    };
                    self.done.insert(index, call.clone());
                    vec![call]
                }
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    fn end(&mut self) -> Vec<ModelToolCall> {
        let mut ended = Vec::new();
        for (index, open) in std::mem::take(&mut self.open) {
            // No `content_block_stop`: the block was cut off, whatever its text holds.
            let call = open.partial.truncated();
            self.done.insert(index, call.clone());
            ended.push(call);
        }
        ended
    }

    fn take_calls(&mut self) -> ToolCalls {
        ToolCalls::unchecked(std::mem::take(&mut self.done).into_values().collect())
    }
}
