//! Anthropic Messages streaming (<https://docs.anthropic.com/en/api/messages-streaming>).
//!
//! Each content block opens with `content_block_start` (carrying the block with empty text,
//! or a `tool_use` block whose `input` is `{}`), grows by `content_block_delta` events
//! (`text_delta`, `thinking_delta`, `signature_delta`, `citations_delta`, `input_json_delta`
//! pieces of `partial_json`) and closes with `content_block_stop`; blocks are keyed by
//! `index`. `message_delta` carries `delta.stop_reason` (and, when code execution ran,
//! `delta.container`; `anthropic` SDK 2.16.0 `types/raw_message_delta_event.py`), and
//! `message_stop` ends the stream.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value, json};

use super::assemble::{Assemble, Found, Partial, append_text};
use crate::providers::caller::{CallerShape, read_caller};
use crate::providers::calls::ModelToolCall;

/// Assembles a Messages response from its stream events.
///
/// A `tool_use` block is handed over at its `content_block_stop`; server tool blocks
/// (`server_tool_use`, run by the API) are kept in the message (their `input` parsed from
/// their `partial_json`) but are not calls. The message holds every block in index order,
/// except text blocks left empty and `thinking` blocks whose signature never came (the API
/// refuses them back); a `tool_use` block's `input` is its call's parsed input (`{}` when the
/// call failed).
#[derive(Debug, Default)]
pub(crate) struct MessagesAssembler {
    open: BTreeMap<u64, Open>,
    done: BTreeMap<u64, ModelToolCall>,
    /// Every content block as received and grown, by index.
    blocks: BTreeMap<u64, Value>,
    /// The `partial_json` of blocks that are not calls (server tools), by index.
    partial_json: HashMap<u64, String>,
}

#[derive(Debug)]
struct Open {
    partial: Partial,
    start_input: Value,
    deltas: bool,
}

fn text_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

impl MessagesAssembler {
    fn start(&mut self, index: u64, block: &Value, found: &mut Found) {
        found.text.push_str(text_of(block, "text"));
        if text_of(block, "type") == "tool_use" {
            let partial = Partial {
                id: text_of(block, "id").to_owned(),
                name: text_of(block, "name").to_owned(),
                caller: read_caller(CallerShape::Anthropic, block.get("caller")),
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
        self.blocks.insert(index, block.clone());
    }

    fn delta(&mut self, index: u64, delta: &Value, found: &mut Found) {
        if text_of(delta, "type") == "input_json_delta" {
            let piece = text_of(delta, "partial_json");
            match self.open.get_mut(&index) {
                Some(open) => {
                    open.deltas = true;
                    open.partial.append(piece);
                }
                None => self.partial_json.entry(index).or_default().push_str(piece),
            }
            return;
        }
        let Some(block) = self.blocks.get_mut(&index).and_then(Value::as_object_mut) else {
            return;
        };
        match text_of(delta, "type") {
            "text_delta" => {
                let piece = text_of(delta, "text");
                found.text.push_str(piece);
                append_text(block, "text", piece);
            }
            "thinking_delta" => append_text(block, "thinking", text_of(delta, "thinking")),
            "signature_delta" => {
                block.insert("signature".into(), json!(text_of(delta, "signature")));
            }
            "citations_delta" => {
                if let Some(citation) = delta.get("citation") {
                    let list = block.entry("citations").or_insert(json!([]));
                    if !list.is_array() {
                        // `"citations": null` at the block's start.
                        *list = json!([]);
                    }
                    if let Value::Array(list) = list {
                        list.push(citation.clone());
                    }
                }
            }
            _ => {}
        }
    }

    fn stop(&mut self, index: u64) -> Option<ModelToolCall> {
        let open = self.open.remove(&index)?;
        let call = if open.deltas {
            // Unfinished JSON at the block's end was cut by `max_tokens`.
            open.partial.at_end()
        } else {
            let input = match open.start_input {
                Value::Null => Value::Object(Map::new()),
                input => input,
            };
            let mut call = ModelToolCall::new(open.partial.id, open.partial.name, input);
            call.caller = open.partial.caller;
            call
        };
        self.done.insert(index, call.clone());
        Some(call)
    }
}

impl Assemble for MessagesAssembler {
    fn push(&mut self, event: &Value, found: &mut Found) -> Vec<ModelToolCall> {
        let index = event.get("index").and_then(Value::as_u64);
        let mut out = Vec::new();
        match (text_of(event, "type"), index) {
            ("content_block_start", Some(index)) => {
                let block = event.get("content_block").unwrap_or(&Value::Null);
                self.start(index, block, found);
            }
            ("content_block_delta", Some(index)) => {
                let delta = event.get("delta").unwrap_or(&Value::Null);
                self.delta(index, delta, found);
            }
            ("content_block_stop", Some(index)) => out.extend(self.stop(index)),
            ("message_start" | "message_delta", _) => {
                // `message_start.message.container`, `message_delta.delta.container`.
                let container = event
                    .get("message")
                    .or_else(|| event.get("delta"))
                    .and_then(|at| at.get("container"));
                if let Some(id) = container.and_then(|c| c.get("id")).and_then(Value::as_str) {
                    found.container = Some(id.to_owned());
                    found.container_expires_at = container
                        .and_then(|c| c.get("expires_at"))
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                }
                if let Some(reason) = event
                    .get("delta")
                    .and_then(|delta| delta.get("stop_reason"))
                    .and_then(Value::as_str)
                {
                    found.stop_reason = Some(reason.to_owned());
                    found.ended = true;
                }
            }
            ("message_stop", _) => found.ended = true,
            _ => {}
        }
        out
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

    fn calls(&self) -> Vec<ModelToolCall> {
        self.done.values().cloned().collect()
    }

    fn message(&self) -> Value {
        let mut content = Vec::new();
        for (index, block) in &self.blocks {
            let mut block = block.clone();
            match block.get("type").and_then(Value::as_str) {
                Some("text") if text_of(&block, "text").is_empty() => continue,
                Some("text") => {}
                // The API starts a thinking block with `"signature": ""`: one cut off before its
                // signature came cannot be sent back.
                Some("thinking") if text_of(&block, "signature").is_empty() => continue,
                Some("tool_use") => {
                    block["input"] = self
                        .done
                        .get(index)
                        .and_then(|call| call.input.clone().ok())
                        .unwrap_or_else(|| Value::Object(Map::new()));
                }
                Some(_) => {
                    if let Some(raw) = self.partial_json.get(index) {
                        block["input"] =
                            serde_json::from_str(raw).unwrap_or_else(|_| Value::Object(Map::new()));
                    }
                }
                None => continue,
            }
            content.push(block);
        }
        json!({"role": "assistant", "content": content})
    }
}
