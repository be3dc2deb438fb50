//! `tool-host run SESSION.jsonl`: replaying a Claude Code session log. Claude Code writes one
//! line per content block; lines with the same `message.id` make one API message. Every
//! assistant message with `tool_use` blocks is answered in order, in one workspace whose state
//! (files read, todo list, background shells) carries from turn to turn, and with `--compare`
//! each result is set against the recorded one by structure.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use tool_sdk::{ToolResultBlock, ToolUseBlock};

/// One assistant message of the log, its blocks merged, and the recorded results of its calls.
#[derive(Debug, Clone)]
pub struct Turn {
    /// `message.id`, or `line N` for a line without one.
    pub id: String,
    /// The merged `content` blocks.
    pub content: Vec<Value>,
}

/// The log read: assistant turns in order, and every recorded `tool_result` by its id.
#[derive(Debug, Default)]
pub struct Session {
    /// Assistant messages, in the order their first line appears.
    pub turns: Vec<Turn>,
    /// Recorded `tool_result` blocks by `tool_use_id`.
    pub recorded: HashMap<String, Value>,
}

/// Whether `text` looks like a session log: several lines, the first a JSON object with a
/// `message` or `type` field.
pub fn is_session_log(text: &str) -> bool {
    let mut lines = text.lines().filter(|line| !line.trim().is_empty());
    let first = lines.next();
    let has_more = lines.next().is_some();
    first
        .and_then(|line| serde_json::from_str::<Value>(line).ok())
        .is_some_and(|value| {
            has_more && (value.get("message").is_some() || value.get("type").is_some())
        })
}

/// Reads a session log.
///
/// # Errors
/// The line number and the parse error of a line that is not JSON.
pub fn parse(text: &str) -> Result<Session, String> {
    let mut session = Session::default();
    let mut positions: HashMap<String, usize> = HashMap::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line)
            .map_err(|error| format!("line {}: not JSON: {error}", number + 1))?;
        let message = value.get("message").unwrap_or(&value);
        let role = message
            .get("role")
            .or_else(|| value.get("type"))
            .and_then(Value::as_str);
        let content = match message.get("content") {
            Some(Value::Array(blocks)) => blocks.clone(),
            _ => continue,
        };
        match role {
            Some("assistant") => {
                let id = message
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("line {}", number + 1), str::to_owned);
                match positions.get(&id) {
                    Some(&index) => session.turns[index].content.extend(content),
                    None => {
                        positions.insert(id.clone(), session.turns.len());
                        session.turns.push(Turn { id, content });
                    }
                }
            }
            Some("user") => {
                for block in content {
                    if block["type"] == "tool_result"
                        && let Some(id) = block["tool_use_id"].as_str()
                    {
                        session.recorded.insert(id.to_owned(), block.clone());
                    }
                }
            }
            _ => {}
        }
    }
    Ok(session)
}

/// A structural difference between our result and the recorded one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// The assistant message's id.
    pub turn: String,
    /// The tool's name.
    pub tool: String,
    /// The `tool_use` id.
    pub tool_use_id: String,
    /// What differs.
    pub what: String,
}

/// The shape of a `tool_result`'s content: `string`, `empty string`, or `blocks[text, ...]`.
fn shape(content: &Value) -> String {
    match content {
        Value::String(text) if text.is_empty() => "empty string".to_owned(),
        Value::String(_) => "string".to_owned(),
        Value::Array(blocks) => {
            let kinds: Vec<&str> = blocks
                .iter()
                .map(|block| block["type"].as_str().unwrap_or("?"))
                .collect();
            format!("blocks[{}]", kinds.join(", "))
        }
        Value::Null => "absent".to_owned(),
        _ => "other".to_owned(),
    }
}

/// Where `ours` differs in structure from the recorded results: a missing recording, the
/// error flag, the content's shape (string, empty, blocks and their types).
pub fn compare(
    turn: &str,
    blocks: &[ToolUseBlock],
    ours: &[ToolResultBlock],
    recorded: &HashMap<String, Value>,
) -> Vec<Difference> {
    let mut differences = Vec::new();
    for (block, result) in blocks.iter().zip(ours) {
        let mut differ = |what: String| {
            differences.push(Difference {
                turn: turn.to_owned(),
                tool: block.name.clone(),
                tool_use_id: block.id.clone(),
                what,
            });
        };
        let Some(theirs) = recorded.get(&block.id) else {
            differ("no recorded result".to_owned());
            continue;
        };
        let their_error = theirs["is_error"] == true;
        if their_error != result.is_error {
            differ(format!(
                "is_error: recorded {their_error}, ours {}",
                result.is_error
            ));
        }
        let our_content = serde_json::to_value(&result.content).unwrap_or(Value::Null);
        let (their_shape, our_shape) = (shape(&theirs["content"]), shape(&our_content));
        if their_shape != our_shape {
            differ(format!("content: recorded {their_shape}, ours {our_shape}"));
        }
    }
    differences
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn lines_sharing_a_message_id_are_one_turn() {
        let lines = [
            json!({"type": "user", "message": {"role": "user", "content": "hi"}}),
            json!({"type": "assistant", "message": {"id": "msg_1", "role": "assistant",
                   "content": [{"type": "text", "text": "Looking."}]}}),
            json!({"type": "assistant", "message": {"id": "msg_1", "role": "assistant",
                   "content": [{"type": "tool_use", "id": "toolu_1", "name": "Glob", "input": {"pattern": "*"}}]}}),
            json!({"type": "user", "message": {"role": "user",
                   "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.rs"}]}}),
            json!({"type": "assistant", "message": {"id": "msg_2", "role": "assistant",
                   "content": [{"type": "text", "text": "Done."}]}}),
        ];
        let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
        assert!(is_session_log(&text));
        let session = parse(&text).unwrap();
        assert_eq!(session.turns.len(), 2);
        assert_eq!(session.turns[0].id, "msg_1");
        assert_eq!(session.turns[0].content.len(), 2);
        assert_eq!(session.recorded["toolu_1"]["content"], "a.rs");
    }

    #[test]
    fn differences_name_the_flag_and_the_shape() {
        let blocks: Vec<ToolUseBlock> = serde_json::from_value(json!([
            {"id": "toolu_1", "name": "Bash", "input": {"command": "rm x"}},
            {"id": "toolu_2", "name": "Read", "input": {"file_path": "a"}}
        ]))
        .unwrap();
        let ours: Vec<ToolResultBlock> = serde_json::from_value(json!([
            {"tool_use_id": "toolu_1", "content": "rm: cannot remove", "is_error": true},
            {"tool_use_id": "toolu_2", "content": "     1→x"}
        ]))
        .unwrap();
        let recorded = HashMap::from([
            (
                "toolu_1".to_owned(),
                json!({"content": "", "is_error": false}),
            ),
            ("toolu_2".to_owned(), json!({"content": "     1→y"})),
        ]);
        let found = compare("msg_1", &blocks, &ours, &recorded);
        let what: Vec<&str> = found.iter().map(|d| d.what.as_str()).collect();
        assert_eq!(
            what,
            [
                "is_error: recorded false, ours true",
                "content: recorded empty string, ours string"
            ]
        );
    }
}
