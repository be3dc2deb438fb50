//! What the message history says about deferred tools: the names discovered through
//! `tool_reference` blocks (SPEC §4.4, §8.3 `extractDiscoveredToolNames`), removing those
//! blocks when search is off (SPEC §4.4).
//!
//! Messages are JSON values in either of two shapes: Messages API messages
//! (`{"role":"user","content":[...]}`) or transcript entries that wrap one
//! (`{"type":"user","message":{"role":"user","content":[...]}}`). A compact boundary carries the
//! names discovered before compaction as
//! `{"type":"system","subtype":"compact_boundary","compactMetadata":{"preCompactDiscoveredTools":[...]}}`.

use std::collections::BTreeSet;

use serde_json::Value;

/// The content array of a user message in either shape, if `message` is one.
fn user_content(message: &Value) -> Option<&Vec<Value>> {
    let inner = match message.get("message") {
        Some(inner) if message.get("type").and_then(Value::as_str) == Some("user") => inner,
        _ => message,
    };
    if inner.get("role").and_then(Value::as_str) != Some("user") {
        return None;
    }
    inner.get("content")?.as_array()
}

fn user_content_mut(message: &mut Value) -> Option<&mut Vec<Value>> {
    let wrapped = message.get("type").and_then(Value::as_str) == Some("user")
        && message.get("message").is_some();
    let inner = if wrapped {
        message.get_mut("message")?
    } else {
        message
    };
    if inner.get("role").and_then(Value::as_str) != Some("user") {
        return None;
    }
    inner.get_mut("content")?.as_array_mut()
}

/// Names of tools the model has discovered: the `tool_name` of every `tool_reference` block
/// inside the array content of a `tool_result` in a user message, plus the names on compact
/// boundaries (`compactMetadata.preCompactDiscoveredTools`).
pub fn discovered_tool_names(messages: &[Value]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for message in messages {
        if let Some(list) = message
            .get("compactMetadata")
            .and_then(|meta| meta.get("preCompactDiscoveredTools"))
            .and_then(Value::as_array)
        {
            names.extend(list.iter().filter_map(Value::as_str).map(str::to_owned));
        }
        let Some(content) = user_content(message) else {
            continue;
        };
        for block in content {
            if block.get("type").and_then(Value::as_str) != Some("tool_result") {
                continue;
            }
            let Some(items) = block.get("content").and_then(Value::as_array) else {
                continue;
            };
            names.extend(
                items
                    .iter()
                    .filter(|item| {
                        item.get("type").and_then(Value::as_str) == Some("tool_reference")
                    })
                    .filter_map(|item| item.get("tool_name").and_then(Value::as_str))
                    .map(str::to_owned),
            );
        }
    }
    names
}

/// Removes every `tool_reference` block from `tool_result` contents of user messages (what a
/// request with search off does, SPEC §4.4); returns how many were removed.
pub fn strip_tool_references(messages: &mut [Value]) -> usize {
    let mut removed = 0;
    for message in messages {
        let Some(content) = user_content_mut(message) else {
            continue;
        };
        for block in content {
            if block.get("type").and_then(Value::as_str) != Some("tool_result") {
                continue;
            }
            if let Some(items) = block.get_mut("content").and_then(Value::as_array_mut) {
                let before = items.len();
                items.retain(|item| {
                    item.get("type").and_then(Value::as_str) != Some("tool_reference")
                });
                removed += before - items.len();
            }
        }
    }
    removed
}
