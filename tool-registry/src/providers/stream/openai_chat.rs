//! OpenAI Chat Completions streaming
//! (<https://platform.openai.com/docs/api-reference/chat-streaming>): each chunk's
//! `choices[0].delta.tool_calls` holds pieces keyed by `index`; the first piece of a call
//! carries its `id` and `function.name`, later ones only `function.arguments` text;
//! `delta.content` holds pieces of the text, and the chunk with a `finish_reason` ends the
//! choice (the body then ends with `data: [DONE]`).

use std::collections::HashMap;

use serde_json::{Value, json};

use super::assemble::{Assemble, Found, Partial};
use crate::providers::calls::ModelToolCall;

/// Assembles a Chat Completions assistant message from stream chunks (the choice of `index`
/// 0): `{"role":"assistant","content":text or null,"tool_calls":[...]}`, `tool_calls` present
/// when the model called a tool, each call's `arguments` the JSON text of its parsed input
/// (`{}` when the call failed).
///
/// A piece with an `id` different from the open call at its `index` finishes that call and
/// starts a new one (some compatible servers reuse indices), except that a call whose first
/// pieces came without an id takes the first id sent; a piece without `id` continues the
/// open call at its index, unless that call is finished and the piece carries a
/// `function.name`, which starts a new call (servers that send neither id nor index). A call
/// sent with no id at all gets a made-up id, `call_index_{index}_{position}`.
/// `function.arguments` is JSON text, or (from some compatible servers) the object itself.
///
/// A call is handed over (and may start) as soon as its JSON closes. Argument text that
/// arrives for it afterwards cannot change what runs: it is logged as a warning and the call
/// runs with the first complete value, where [`ModelApi::read_calls`](crate::providers::ModelApi::read_calls),
/// reading the same text whole (`{"x":1}{"x":2}`), fails the call as not JSON. A call is handed over as soon as its arguments close one JSON
/// object (nesting and strings tracked, so a `}` inside a string does not count), or when it
/// is replaced, or at the chunk with a `finish_reason`, or at the end of the stream.
#[derive(Debug, Default)]
pub(crate) struct ChatAssembler {
    calls: Vec<Slot>,
    open_at: HashMap<u64, usize>,
    text: String,
    /// A `finish_reason` came: the calls still open are complete as they are. Without it,
    /// the stream was cut off and an open call with no argument text yet fails as truncated.
    finished: bool,
}

#[derive(Debug)]
struct Slot {
    partial: Partial,
    /// `true` while no piece of the call has carried an id (its id is made up).
    id_made_up: bool,
    done: Option<ModelToolCall>,
}

impl ChatAssembler {
    fn complete(&mut self, slot: usize, out: &mut Vec<ModelToolCall>) {
        let slot = &mut self.calls[slot];
        if slot.done.is_none() {
            let call = slot.partial.at_end();
            slot.done = Some(call.clone());
            out.push(call);
        }
    }
}

impl Assemble for ChatAssembler {
    fn push(&mut self, event: &Value, found: &mut Found) -> Vec<ModelToolCall> {
        let mut out = Vec::new();
        let Some(choice) = event
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|choices| {
                choices
                    .iter()
                    .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
            })
        else {
            return out;
        };
        if let Some(piece) = choice
            .get("delta")
            .and_then(|delta| delta.get("content"))
            .and_then(Value::as_str)
        {
            found.text.push_str(piece);
            self.text.push_str(piece);
        }
        let pieces = choice
            .get("delta")
            .and_then(|delta| delta.get("tool_calls"))
            .and_then(Value::as_array);
        for (position, piece) in pieces.into_iter().flatten().enumerate() {
            let index = piece
                .get("index")
                .and_then(Value::as_u64)
                .unwrap_or(position as u64);
            let id = piece
                .get("id")
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty());
            let function = piece.get("function");
            let name = function.and_then(|f| f.get("name")).and_then(Value::as_str);
            // As the whole-message reader: text as is, an object (sent by some compatible
            // servers) as its JSON text.
            let arguments = match function.and_then(|f| f.get("arguments")) {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(text)) => text.clone(),
                Some(other) => other.to_string(),
            };
            let arguments = arguments.as_str();
            let current = self.open_at.get(&index).copied();
            let slot = match current {
                Some(slot) => {
                    let open = &mut self.calls[slot];
                    match id {
                        Some(id) if open.partial.id != id => {
                            if open.id_made_up && open.done.is_none() {
                                // The first pieces came without an id: this is the call's id.
                                id.clone_into(&mut open.partial.id);
                                open.id_made_up = false;
                                Some(slot)
                            } else {
                                self.complete(slot, &mut out);
                                None
                            }
                        }
                        // A name on a finished call can only begin the next call.
                        None if name.is_some() && open.done.is_some() => None,
                        _ => Some(slot),
                    }
                }
                None => None,
            };
            let slot = slot.unwrap_or_else(|| {
                let partial = Partial {
                    id: id.map_or_else(
                        || format!("call_index_{index}_{}", self.calls.len()),
                        str::to_owned,
                    ),
                    ..Partial::default()
                };
                self.calls.push(Slot {
                    partial,
                    id_made_up: id.is_none(),
                    done: None,
                });
                let slot = self.calls.len() - 1;
                self.open_at.insert(index, slot);
                slot
            });
            let entry = &mut self.calls[slot];
            if let Some(name) = name
                && entry.partial.name.is_empty()
            {
                name.clone_into(&mut entry.partial.name);
            }
            if entry.done.is_some() {
                if !arguments.trim().is_empty() {
                    tracing::warn!(
                        id = %entry.partial.id,
                        "arguments arrived after the call's JSON object had closed; ignored"
                    );
                }
                continue;
            }
            entry.partial.append(arguments);
            if entry.partial.scan.is_complete_container() {
                self.complete(slot, &mut out);
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            found.stop_reason = Some(reason.to_owned());
            found.ended = true;
        }
        if choice
            .get("finish_reason")
            .is_some_and(|reason| !reason.is_null())
        {
            self.finished = true;
            // The model stopped (`tool_calls`, or `length` when cut off by the token limit):
            // every open call ends here, and one with unfinished JSON fails as truncated.
            out.extend(self.end());
        }
        out
    }

    fn end(&mut self) -> Vec<ModelToolCall> {
        let mut out = Vec::new();
        for slot in &mut self.calls {
            if slot.done.is_none() {
                let call = if !self.finished && slot.partial.arguments.trim().is_empty() {
                    slot.partial.truncated()
                } else {
                    slot.partial.at_end()
                };
                slot.done = Some(call.clone());
                out.push(call);
            }
        }
        self.open_at.clear();
        out
    }

    fn calls(&self) -> Vec<ModelToolCall> {
        self.calls
            .iter()
            .filter_map(|slot| slot.done.clone())
            .collect()
    }

    fn message(&self) -> Value {
        let content = if self.text.is_empty() {
            Value::Null
        } else {
            json!(self.text)
        };
        let mut message = json!({"role": "assistant", "content": content});
        let tool_calls: Vec<Value> = self
            .calls()
            .into_iter()
            .map(|call| {
                let arguments = call.input.unwrap_or_else(|_| json!({}));
                json!({
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": arguments.to_string()},
                })
            })
            .collect();
        if !tool_calls.is_empty() {
            message["tool_calls"] = Value::Array(tool_calls);
        }
        message
    }
}
