//! From the orchestrator's `tool_result` to MCP's `CallToolResult` (MCP 2025-11-25,
//! server/tools, "Tool Result"), and from a tool's progress value to
//! `notifications/progress` parameters.

use std::path::Path;

use rmcp::model::{CallToolResult, ContentBlock, ProgressNotificationParam, ProgressToken};
use serde_json::{Value, json};
use tool_sdk::context::ToolProgress;
use tool_sdk::{ResultBlock, ToolResultBlock, ToolResultContent};

use crate::messages::persisted_output_path;
use crate::orchestration::persistence::saved_result_path;

/// The text of an error `tool_result` without the `<tool_use_error>` wrapper a model
/// transcript carries: MCP states the failure with `isError`, so clients get the sentence
/// alone (SEP-1303: it names the field or the failure, for the model to correct).
pub(crate) fn error_text(result: &ToolResultBlock) -> String {
    let text = result.text();
    text.strip_prefix("<tool_use_error>")
        .and_then(|inner| inner.strip_suffix("</tool_use_error>"))
        .map_or(text.clone(), str::to_owned)
}

/// An `isError: true` result whose one text block is `text`.
pub(crate) fn error_result(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// The MCP content of a successful result: a string becomes one text block; `text` blocks stay
/// text; an Anthropic `image` block with a base64 source becomes an MCP `image` block
/// (`data`, `mimeType`), one with a URL source a text block naming the URL (MCP images carry
/// their bytes); a `tool_reference` becomes a text block naming the tool.
pub(crate) fn content_blocks(content: ToolResultContent) -> Vec<ContentBlock> {
    match content {
        ToolResultContent::Text(text) => vec![ContentBlock::text(text)],
        ToolResultContent::Blocks(blocks) => blocks.iter().map(content_block).collect(),
    }
}

fn content_block(block: &ResultBlock) -> ContentBlock {
    match block {
        ResultBlock::Text { text } => ContentBlock::text(text.clone()),
        ResultBlock::Image { source } => {
            let kind = source.get("type").and_then(Value::as_str);
            let data = source.get("data").and_then(Value::as_str);
            let media_type = source.get("media_type").and_then(Value::as_str);
            match (kind, data, media_type) {
                (Some("base64"), Some(data), Some(media_type)) => {
                    ContentBlock::image(data.to_owned(), media_type.to_owned())
                }
                _ => match source.get("url").and_then(Value::as_str) {
                    Some(url) => ContentBlock::text(format!("[image: {url}]")),
                    None => ContentBlock::text(format!("[image: {source}]")),
                },
            }
        }
        ResultBlock::ToolReference { tool_name } => {
            ContentBlock::text(format!("[tool reference: {tool_name}]"))
        }
    }
}

/// The structured content of a success whose tool declares an output schema: the result text
/// parsed as a JSON object (what the default result mapping writes for an object output), or
/// `None` when the text is not one.
pub(crate) fn structured_from_text(content: &ToolResultContent) -> Option<Value> {
    serde_json::from_str::<Value>(&content.text())
        .ok()
        .filter(Value::is_object)
}

/// The whole text of this call's result when the orchestrator saved it to a file because it
/// was too large (SPEC §9): read back from the file the orchestrator writes for `tool_use_id`
/// in `result_dir`, and only when the result's text is the `<persisted-output>` block naming
/// exactly that file. A `.txt` file is the text as it is; a `.json` file (text blocks) gives
/// their texts joined. `None` for any other result, when nothing is saved there, when the file
/// is not a regular file, or when it cannot be read.
///
/// The path is never taken from the text alone: a tool's own output that imitates the block
/// (an imported server's text, a file's contents) names a file of its choosing, which must not
/// be read and returned.
pub(crate) async fn persisted_text(
    content: &ToolResultContent,
    result_dir: Option<&Path>,
    tool_use_id: &str,
) -> Option<String> {
    let result_dir = result_dir?;
    let text = content.text();
    let named = persisted_output_path(&text)?;
    let path = ["txt", "json"]
        .into_iter()
        .map(|extension| saved_result_path(result_dir, tool_use_id, extension))
        .find(|path| path.to_str() == Some(named))?;
    tokio::task::spawn_blocking(move || read_saved(&path))
        .await
        .ok()
        .flatten()
}

fn read_saved(path: &Path) -> Option<String> {
    // Not through a symbolic link, and never a FIFO or device: only what `persist` writes.
    if !std::fs::symlink_metadata(path).ok()?.file_type().is_file() {
        return None;
    }
    let saved = std::fs::read_to_string(path).ok()?;
    if path.extension().and_then(|extension| extension.to_str()) != Some("json") {
        return Some(saved);
    }
    let blocks: Vec<ResultBlock> = serde_json::from_str(&saved).ok()?;
    Some(
        blocks
            .iter()
            .filter_map(|block| match block {
                ResultBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect(),
    )
}

/// A successful result: `content`, and when `structured` is given, `structuredContent`. Unless
/// the content is the preview of a saved result (`persisted`), the text copy of the structured
/// content goes first among the blocks when the content does not already hold it (MCP: a tool
/// returning structured content SHOULD also return it serialised in a text block); a saved
/// result keeps its preview as the text, so that a client feeding text to a model gets the
/// bounded block the persistence limit asks for.
pub(crate) fn success_result(
    mut content: Vec<ContentBlock>,
    structured: Option<Value>,
    persisted: bool,
) -> CallToolResult {
    match structured {
        Some(structured) if persisted => {
            let mut result = CallToolResult::success(content);
            result.structured_content = Some(structured);
            result
        }
        Some(structured) => {
            let text = structured.to_string();
            let has_copy = content.iter().any(|block| {
                block.as_text().is_some_and(|block| {
                    serde_json::from_str::<Value>(&block.text).ok().as_ref() == Some(&structured)
                })
            });
            if !has_copy {
                content.insert(0, ContentBlock::text(text));
            }
            let mut result = CallToolResult::success(content);
            result.structured_content = Some(structured);
            result
        }
        None => CallToolResult::success(content),
    }
}

/// The `notifications/progress` parameters for the `count`-th (1-based) progress report of a
/// call. A report that is an object with a numeric `progress` gives `progress`, and `total`
/// and `message` when present; any other report counts as step `count`, with its text (a
/// string as it is, anything else as compact JSON) as the message.
pub(crate) fn progress_params(
    token: ProgressToken,
    report: &ToolProgress,
    count: u64,
) -> ProgressNotificationParam {
    let data = &report.data;
    if let Some(progress) = data.get("progress").and_then(Value::as_f64) {
        let mut params = ProgressNotificationParam::new(token, progress);
        if let Some(total) = data.get("total").and_then(Value::as_f64) {
            params = params.with_total(total);
        }
        if let Some(message) = data.get("message").and_then(Value::as_str) {
            params = params.with_message(message);
        }
        return params;
    }
    let message = match data {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    #[allow(clippy::cast_precision_loss)] // progress counts stay far below 2^52
    let params = ProgressNotificationParam::new(token, count as f64);
    if message.is_empty() {
        params
    } else {
        params.with_message(message)
    }
}

/// A progress report as one line for people (a task's `statusMessage`): its `message`, its
/// text, or `progress/total`.
pub(crate) fn progress_text(report: &ToolProgress) -> String {
    let data = &report.data;
    if let Some(message) = data.get("message").and_then(Value::as_str) {
        return message.to_owned();
    }
    if let Some(progress) = data.get("progress").and_then(Value::as_f64) {
        return match data.get("total").and_then(Value::as_f64) {
            Some(total) => format!("{progress}/{total}"),
            None => format!("{progress}"),
        };
    }
    match data {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The JSON-RPC `data` of an unknown-tool error: the name asked for.
pub(crate) fn unknown_tool_data(name: &str) -> Value {
    json!({ "tool": name })
}
