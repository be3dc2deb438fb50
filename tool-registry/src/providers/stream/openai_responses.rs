//! OpenAI Responses streaming
//! (<https://platform.openai.com/docs/api-reference/responses-streaming>).
//!
//! Each output item opens with `response.output_item.added` (at its `output_index`) and
//! closes with `response.output_item.done`, which repeats the finished item. In between, a
//! `message` item's content parts open with `response.content_part.added` and their text
//! arrives as `response.output_text.delta` (a refusal as `response.refusal.delta`); a
//! `function_call` item's arguments arrive as `response.function_call_arguments.delta` and
//! end with `response.function_call_arguments.done` (which repeats the whole text). The
//! stream ends with `response.completed` or `response.incomplete` (the response's `status`
//! and `incomplete_details.reason`), or fails with `response.failed` (`response.error`).
//!
//! A `function_call` inside a namespace names it in the item's `namespace` (at
//! `output_item.added` and `output_item.done`); the call is handed over under its pool name.
//! `tool_search_call` / `tool_search_output` items are kept in the message like any item: a
//! hosted search's go back to OpenAI as they came, a client search's call is read from the
//! message with [`ToolSearchCall::read_all`](crate::providers::ToolSearchCall::read_all).

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value, json};

use super::assemble::{Assemble, Found, Partial, append_text};
use super::error::StreamedError;
use crate::providers::caller::{CallerShape, read_caller};
use crate::providers::calls::{ArgumentsError, ModelToolCall};
use crate::providers::namespaces::ResponsesNames;

/// Assembles a Responses output from stream events: the message is the array of output
/// items, in `output_index` order, ready to append to the next request's `input`.
///
/// `function_call` items are keyed by `item_id`; a call is handed over at
/// `function_call_arguments.done` (or at `output_item.done` if that comes first), parsed from
/// the full text the event repeats. Every item is kept as the API last sent it (`reasoning`
/// items included, with their `encrypted_content` when it was asked for); an item whose
/// `output_item.done` never came is kept as it grew, with `status` `incomplete`. A
/// `function_call` item whose call failed carries `"arguments":"{}"`. A call inside a
/// namespace (the item's `namespace`) is mapped back to its pool name through `names`, as the
/// whole-response reader does.
#[derive(Debug, Default)]
pub(crate) struct ResponsesAssembler {
    names: ResponsesNames,
    /// The `namespace` of each open `function_call` item that has one, by `item_id`.
    namespaces: HashMap<String, String>,
    open: BTreeMap<String, (u64, Partial)>,
    done: BTreeMap<u64, ModelToolCall>,
    finished_items: Vec<String>,
    /// Every output item as received and grown, by `output_index`.
    items: BTreeMap<u64, Item>,
}

#[derive(Debug)]
struct Item {
    value: Value,
    /// `response.output_item.done` came for it.
    done: bool,
}

impl ResponsesAssembler {
    /// An assembler mapping namespaced calls back through `names`.
    pub(crate) fn new(names: ResponsesNames) -> Self {
        Self {
            names,
            ..Self::default()
        }
    }

    /// Keeps the `namespace` of a `function_call` item, when it has one.
    fn note_namespace(&mut self, item_id: &str, item: &Value) {
        if let Some(namespace) = text(item, "namespace") {
            self.namespaces
                .insert(item_id.to_owned(), namespace.to_owned());
        }
    }

    /// `call`, named by its pool name, or answered with an error naming its namespace and
    /// name when the pool has no such tool.
    fn resolved(&mut self, item_id: &str, index: u64, mut call: ModelToolCall) -> ModelToolCall {
        let namespace = self.namespaces.remove(item_id);
        match self.names.resolve(namespace.as_deref(), &call.name) {
            Ok(name) => call.name = name,
            Err(reason) => {
                call.input = Err(ArgumentsError::NotRunnable {
                    item: format!("output[{index}]"),
                    reason,
                });
            }
        }
        call
    }

    fn finish_item(&mut self, item_id: &str, full: Option<&str>, out: &mut Vec<ModelToolCall>) {
        let Some((index, mut partial)) = self.open.remove(item_id) else {
            return;
        };
        if let Some(full) = full {
            full.clone_into(&mut partial.arguments);
        }
        let call = self.resolved(item_id, index, partial.complete());
        self.done.insert(index, call.clone());
        self.finished_items.push(item_id.to_owned());
        out.push(call);
    }

    /// The `caller` a later event of the call `item_id` (at output `index`) carries, when it
    /// has one: `response.output_item.done`'s item (`ResponseFunctionToolCall.caller`), or
    /// `response.function_call_arguments.done` (whose `openai` SDK 3.60.0 type declares no
    /// `caller`; read when present). It replaces the caller read from
    /// `response.output_item.added`, on the open call or on the call already finished (the
    /// answer then names it, and the final callers check sees it).
    fn note_caller(&mut self, item_id: &str, index: u64, caller: Option<&Value>) {
        let Some(caller) = caller.filter(|caller| !caller.is_null()) else {
            return;
        };
        let caller = read_caller(CallerShape::OpenAiResponses, Some(caller));
        if let Some((_, partial)) = self.open.get_mut(item_id) {
            partial.caller = caller;
        } else if let Some(call) = self.done.get_mut(&index) {
            call.caller = caller;
        }
    }

    /// A finished `custom_tool_call` item at `index`, as the whole-response reader reads it:
    /// a call that is answered with an error and never run.
    fn custom_call(&mut self, index: u64, item: &Value, out: &mut Vec<ModelToolCall>) {
        let Ok(read) = crate::providers::openai_responses::read_calls(&json!([item]), &self.names)
        else {
            return;
        };
        for mut call in read.calls {
            if let Err(ArgumentsError::NotRunnable { item, .. }) = &mut call.input {
                *item = format!("output[{index}]");
            }
            self.done.insert(index, call.clone());
            out.push(call);
        }
    }

    /// The item at `index` as an object, when the API opened one there.
    fn item_mut(&mut self, index: u64) -> Option<&mut Map<String, Value>> {
        self.items.get_mut(&index)?.value.as_object_mut()
    }

    /// Appends `piece` to `key` of the content part at the event's `content_index`.
    fn grow_part(&mut self, index: u64, event: &Value, key: &str, piece: &str) {
        let at = event
            .get("content_index")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let Some(item) = self.item_mut(index) else {
            return;
        };
        let Value::Array(parts) = item.entry("content").or_insert(json!([])) else {
            return;
        };
        let Some(Value::Object(part)) = usize::try_from(at).ok().and_then(|at| parts.get_mut(at))
        else {
            return;
        };
        append_text(part, key, piece);
    }

    /// Puts the part of `response.content_part.added` at its `content_index`.
    fn add_part(&mut self, index: u64, event: &Value) {
        let at = event
            .get("content_index")
            .and_then(Value::as_u64)
            .and_then(|at| usize::try_from(at).ok())
            .unwrap_or(0);
        let part = event.get("part").cloned().unwrap_or_else(|| json!({}));
        let Some(item) = self.item_mut(index) else {
            return;
        };
        if let Value::Array(parts) = item.entry("content").or_insert(json!([])) {
            match at.cmp(&parts.len()) {
                std::cmp::Ordering::Less => parts[at] = part,
                std::cmp::Ordering::Equal => parts.push(part),
                std::cmp::Ordering::Greater => {}
            }
        }
    }

    fn ended(response: &Value, found: &mut Found) {
        let reason = response
            .get("incomplete_details")
            .and_then(|details| details.get("reason"))
            .or_else(|| response.get("status"))
            .and_then(Value::as_str);
        found.stop_reason = Some(reason.unwrap_or("completed").to_owned());
        found.ended = true;
    }
}

fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

impl Assemble for ResponsesAssembler {
    fn push(&mut self, event: &Value, found: &mut Found) -> Vec<ModelToolCall> {
        let mut out = Vec::new();
        let index = event
            .get("output_index")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let response = event.get("response").unwrap_or(&Value::Null);
        match text(event, "type") {
            Some("response.output_item.added") => {
                let item = event.get("item").unwrap_or(&Value::Null);
                if text(item, "type") == Some("function_call")
                    && let Some(item_id) = text(item, "id")
                    && !self.finished_items.iter().any(|seen| seen == item_id)
                {
                    let mut partial = Partial {
                        id: text(item, "call_id").unwrap_or(item_id).to_owned(),
                        name: text(item, "name").unwrap_or_default().to_owned(),
                        caller: read_caller(CallerShape::OpenAiResponses, item.get("caller")),
                        ..Partial::default()
                    };
                    partial.append(text(item, "arguments").unwrap_or_default());
                    self.open.insert(item_id.to_owned(), (index, partial));
                    self.note_namespace(item_id, item);
                }
                self.items.entry(index).or_insert_with(|| Item {
                    value: item.clone(),
                    done: false,
                });
            }
            Some("response.content_part.added") => self.add_part(index, event),
            Some("response.output_text.delta") => {
                let piece = text(event, "delta").unwrap_or_default();
                found.text.push_str(piece);
                self.grow_part(index, event, "text", piece);
            }
            Some("response.refusal.delta") => {
                let piece = text(event, "delta").unwrap_or_default();
                self.grow_part(index, event, "refusal", piece);
            }
            Some("response.function_call_arguments.delta") => {
                let piece = text(event, "delta").unwrap_or_default();
                if let Some(item_id) = text(event, "item_id")
                    && let Some((_, partial)) = self.open.get_mut(item_id)
                {
                    partial.append(piece);
                }
                if let Some(item) = self.item_mut(index) {
                    append_text(item, "arguments", piece);
                }
            }
            Some("response.function_call_arguments.done") => {
                if let Some(item_id) = text(event, "item_id") {
                    if let Some(name) = text(event, "name")
                        && let Some((_, partial)) = self.open.get_mut(item_id)
                        && partial.name.is_empty()
                    {
                        name.clone_into(&mut partial.name);
                    }
                    self.note_caller(item_id, index, event.get("caller"));
                    let full = text(event, "arguments");
                    self.finish_item(item_id, full, &mut out);
                    if let Some(full) = full
                        && let Some(item) = self.item_mut(index)
                    {
                        item.insert("arguments".into(), json!(full));
                    }
                }
            }
            Some("response.output_item.done") => {
                let item = event.get("item").unwrap_or(&Value::Null);
                if text(item, "type") == Some("function_call")
                    && let Some(item_id) = text(item, "id")
                {
                    self.note_namespace(item_id, item);
                    self.note_caller(item_id, index, item.get("caller"));
                    let full = text(item, "arguments");
                    self.finish_item(item_id, full, &mut out);
                }
                if text(item, "type") == Some("custom_tool_call") {
                    // Never run, but answered (with a `custom_tool_call_output`), since the
                    // message sent back holds it: read as a whole response's item is.
                    self.custom_call(index, item, &mut out);
                }
                self.items.insert(
                    index,
                    Item {
                        value: item.clone(),
                        done: true,
                    },
                );
            }
            Some("response.completed" | "response.incomplete") => Self::ended(response, found),
            Some("response.failed") => {
                let error = response.get("error").unwrap_or(&Value::Null);
                found.error = Some(StreamedError::new(
                    text(error, "code").unwrap_or("error"),
                    text(error, "message").unwrap_or_default(),
                ));
            }
            _ => {}
        }
        out
    }

    fn end(&mut self) -> Vec<ModelToolCall> {
        let mut out = Vec::new();
        let mut open: Vec<_> = std::mem::take(&mut self.open).into_iter().collect();
        // In the order of the output, not of the item ids.
        open.sort_by_key(|(_, (index, _))| *index);
        for (item_id, (index, partial)) in open {
            // No `.done` event: the item was cut off (named as the pool knows it, still
            // answered with the truncation error).
            let mut call = partial.truncated();
            let namespace = self.namespaces.remove(&item_id);
            if let Ok(name) = self.names.resolve(namespace.as_deref(), &call.name) {
                call.name = name;
            }
            self.done.insert(index, call.clone());
            out.push(call);
        }
        out
    }

    fn calls(&self) -> Vec<ModelToolCall> {
        self.done.values().cloned().collect()
    }

    fn message(&self) -> Value {
        let mut items = Vec::new();
        for (index, item) in &self.items {
            let mut value = item.value.clone();
            let Some(object) = value.as_object_mut() else {
                continue;
            };
            if !item.done {
                object.insert("status".into(), json!("incomplete"));
            }
            if object.get("type").and_then(Value::as_str) == Some("function_call")
                && self.done.get(index).is_some_and(|call| call.input.is_err())
            {
                object.insert("arguments".into(), json!("{}"));
            }
            items.push((value, item.done));
        }
        // The API refuses a reasoning item sent back without the item it led to: one cut off
        // at the end of the stream is left out.
        while items.last().is_some_and(|(value, done)| {
            !done && value.get("type").and_then(Value::as_str) == Some("reasoning")
        }) {
            items.pop();
        }
        Value::Array(items.into_iter().map(|(value, _)| value).collect())
    }
}
