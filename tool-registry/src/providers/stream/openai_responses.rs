//! OpenAI Responses streaming
//! (<https://platform.openai.com/docs/api-reference/responses-streaming>): a `function_call`
//! item opens with `response.output_item.added`, its arguments arrive as
//! `response.function_call_arguments.delta` and end with
//! `response.function_call_arguments.done` (which repeats the whole text);
//! `response.output_item.done` repeats the finished item.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{CallAssembler, Partial};
use crate::providers::calls::{ModelToolCall, ToolCalls};

/// Assembles Responses `function_call` items from stream events, keyed by `item_id` and
/// ordered by `output_index`. A call is handed over at `function_call_arguments.done` (or at
/// `output_item.done` if that comes first), parsed from the full text the event repeats.
#[derive(Debug, Default)]
pub struct OpenAiResponsesStream {
    open: BTreeMap<String, (u64, Partial)>,
    done: BTreeMap<u64, ModelToolCall>,
    finished_items: Vec<String>,
}

impl OpenAiResponsesStream {
    fn finish_item(&mut self, item_id: &str, full: Option<&str>, out: &mut Vec<ModelToolCall>) {
        let Some((index, mut partial)) = self.open.remove(item_id) else {
            return;
        };
        if let Some(full) = full {
            full.clone_into(&mut partial.arguments);
        }
        let call = partial.complete();
        self.done.insert(index, call.clone());
        self.finished_items.push(item_id.to_owned());
        out.push(call);
    }
}

fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

impl CallAssembler for OpenAiResponsesStream {
    fn push(&mut self, event: &Value) -> Vec<ModelToolCall> {
        let mut out = Vec::new();
        let index = event
            .get("output_index")
            .and_then(Value::as_u64)
            .unwrap_or(0);
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
                        ..Partial::default()
                    };
                    partial.append(text(item, "arguments").unwrap_or_default());
                    self.open.insert(item_id.to_owned(), (index, partial));
                }
            }
            Some("response.function_call_arguments.delta") => {
                if let Some(item_id) = text(event, "item_id")
                    && let Some((_, partial)) = self.open.get_mut(item_id)
                {
                    partial.append(text(event, "delta").unwrap_or_default());
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
                    let full = text(event, "arguments");
                    self.finish_item(item_id, full, &mut out);
                }
            }
            Some("response.output_item.done") => {
                let item = event.get("item").unwrap_or(&Value::Null);
                if text(item, "type") == Some("function_call")
                    && let Some(item_id) = text(item, "id")
                {
                    let full = text(item, "arguments");
                    self.finish_item(item_id, full, &mut out);
                }
            }
            _ => {}
        }
        out
    }

    fn end(&mut self) -> Vec<ModelToolCall> {
        let mut out = Vec::new();
        for (_, (index, partial)) in std::mem::take(&mut self.open) {
            // No `.done` event: the item was cut off.
            let call = partial.truncated();
            self.done.insert(index, call.clone());
            out.push(call);
        }
        out
    }

    fn take_calls(&mut self) -> ToolCalls {
        ToolCalls::unchecked(std::mem::take(&mut self.done).into_values().collect())
    }
}
