//! An MCP `CallToolResult` as `tool_result` content (MCP 2025-11-25 "Tool Result" to the
//! Anthropic Messages API's blocks), and where its `structuredContent` goes.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::Value;
use tool_sdk::{ResultBlock, ToolError, ToolResultContent, ToolUseContext};

/// The `structuredContent` of MCP results, by `tool_use` id, for hosts that want it.
///
/// A host that inserts one into the turn's extensions (`Extensions::insert`) finds the
/// structured content of every MCP call of that turn here; the model still sees the content
/// blocks. Entries stay until taken.
#[derive(Debug, Default)]
pub struct StructuredContentStore {
    entries: Mutex<HashMap<String, Value>>,
}

impl StructuredContentStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Removes and returns the structured content of the call `tool_use_id`.
    pub fn take(&self, tool_use_id: &str) -> Option<Value> {
        self.lock().remove(tool_use_id)
    }

    /// How many results are held.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// `true` when no result is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Value>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Maps a `CallToolResult` (as JSON) to `tool_result` content; `isError: true` becomes an
/// error with the server's text. `structuredContent` goes to the context's
/// [`StructuredContentStore`] when the host set one, and becomes the text when the server
/// sent no content blocks.
pub(crate) fn map_result(
    server: &str,
    tool: &str,
    result: &Value,
    ctx: &ToolUseContext,
) -> Result<ToolResultContent, ToolError> {
    let structured = result.get("structuredContent").cloned();
    let mut blocks: Vec<ResultBlock> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|content| content.iter().map(map_block).collect())
        .unwrap_or_default();
    if blocks.is_empty()
        && let Some(structured) = &structured
    {
        blocks.push(ResultBlock::Text {
            text: structured.to_string(),
        });
    }
    if let Some(structured) = structured
        && let Some(store) = ctx.get::<StructuredContentStore>()
    {
        store
            .lock()
            .insert(ctx.tool_use_id().to_owned(), structured);
    }
    if result.get("isError") == Some(&Value::Bool(true)) {
        let text = ToolResultContent::Blocks(blocks).text();
        return Err(ToolError::new(if text.is_empty() {
            format!("MCP tool `{tool}` on server `{server}` reported an error without text.")
        } else {
            text
        }));
    }
    Ok(match blocks.as_slice() {
        [ResultBlock::Text { text }] => ToolResultContent::Text(text.clone()),
        [] => ToolResultContent::Text(String::new()),
        _ => ToolResultContent::Blocks(blocks),
    })
}

/// One MCP content block as an Anthropic block: text and images as they are, audio as a note
/// (the Messages API has no audio block), resource links and embedded resources as text.
pub(crate) fn map_block(block: &Value) -> ResultBlock {
    let text_of = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or("");
    let text = match text_of("type") {
        "text" => text_of("text").to_owned(),
        "image" => {
            return ResultBlock::Image {
                source: serde_json::json!({
                    "type": "base64",
                    "media_type": text_of("mimeType"),
                    "data": text_of("data"),
                }),
            };
        }
        "audio" => format!(
            "[audio content ({}, {} bytes of base64) not shown: the model cannot receive audio]",
            text_of("mimeType"),
            text_of("data").len()
        ),
        "resource_link" => {
            let mut line = format!("[resource link: {} <{}>", text_of("name"), text_of("uri"));
            if let Some(mime) = block.get("mimeType").and_then(Value::as_str) {
                line.push_str(&format!(" ({mime})"));
            }
            line.push(']');
            if let Some(description) = block.get("description").and_then(Value::as_str) {
                line.push_str(&format!(" {description}"));
            }
            line
        }
        "resource" => {
            let resource = block.get("resource").cloned().unwrap_or(Value::Null);
            let field = |key: &str| resource.get(key).and_then(Value::as_str);
            let uri = field("uri").unwrap_or("");
            match (field("text"), field("blob")) {
                (Some(text), _) => format!("[resource <{uri}>]\n{text}"),
                (None, Some(blob)) => format!(
                    "[resource <{uri}> ({}, {} bytes of base64) not shown]",
                    field("mimeType").unwrap_or("binary"),
                    blob.len()
                ),
                (None, None) => format!("[resource <{uri}>]"),
            }
        }
        other => format!("[MCP content of type `{other}`: {block}]"),
    };
    ResultBlock::Text { text }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_map_to_anthropic_shapes() {
        let image = map_block(&json!({"type": "image", "data": "AAA", "mimeType": "image/png"}));
        assert_eq!(
            image,
            ResultBlock::Image {
                source: json!({"type": "base64", "media_type": "image/png", "data": "AAA"})
            }
        );
        let ResultBlock::Text { text } =
            map_block(&json!({"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}))
        else {
            panic!("audio is a note");
        };
        assert!(text.contains("audio/wav"), "{text}");
        let ResultBlock::Text { text } = map_block(
            &json!({"type": "resource", "resource": {"uri": "file:///a", "text": "hello"}}),
        ) else {
            panic!("resource is text");
        };
        assert_eq!(text, "[resource <file:///a>]\nhello");
    }

    #[test]
    fn is_error_keeps_the_server_text() {
        let ctx = ToolUseContext::detached("toolu_1");
        let error = map_result(
            "s",
            "t",
            &json!({"isError": true, "content": [{"type": "text", "text": "boom"}]}),
            &ctx,
        )
        .unwrap_err();
        assert_eq!(error.to_string(), "boom");
    }
}
