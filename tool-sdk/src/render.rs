//! Plain-text renderings of a tool call for hosts without a UI framework: the line shown when
//! the model calls a tool, progress, the result, a rejection and an error (the reference's
//! `renderToolUseMessage`, `renderToolUseProgressMessage`, `renderToolResultMessage`,
//! `renderToolUseRejectedMessage` and `renderToolUseErrorMessage`, SPEC §1.1 "UI").
//!
//! These are the defaults of the `render_*` methods of [`crate::Tool`]; a tool overrides any of
//! them to say something more specific (a Read tool shows only the path, for example).

use serde_json::Value;

use crate::blocks::ToolResultContent;
use crate::result::ToolError;

/// Longest input summary [`input_summary`] produces, in chars, including the trailing `…`.
pub const MAX_SUMMARY_CHARS: usize = 80;

/// Longest first line [`result_summary`] and [`error_summary`] keep, in chars, including `…`.
pub const MAX_LINE_CHARS: usize = 120;

/// A one-line summary of a call's input: the object's fields as `key: value`, joined by
/// `", "`, in input order; strings quoted, other values as compact JSON; cut to
/// [`MAX_SUMMARY_CHARS`] chars with a trailing `…`. A non-object input is shown as compact
/// JSON; `{}` gives an empty string.
///
/// ```
/// let input = serde_json::json!({"pattern": "**/*.rs", "path": "src"});
/// assert_eq!(tool_sdk::render::input_summary(&input), r#"pattern: "**/*.rs", path: "src""#);
/// ```
pub fn input_summary(input: &Value) -> String {
    let text = match input {
        Value::Object(fields) => fields
            .iter()
            .map(|(key, value)| format!("{key}: {value}"))
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    };
    truncate_chars(&single_line(&text), MAX_SUMMARY_CHARS)
}

/// The default tool-use line: `Name(summary)`, e.g. `Glob(pattern: "**/*.rs")`; just `Name`
/// when the summary is empty.
pub fn tool_use_message(user_facing_name: &str, input: &Value) -> String {
    let summary = input_summary(input);
    if summary.is_empty() {
        user_facing_name.to_owned()
    } else {
        format!("{user_facing_name}({summary})")
    }
}

/// The default result line: the first line of the result text (cut to [`MAX_LINE_CHARS`]
/// chars), followed by `(+N more lines)` when there are more; `(no output)` when empty.
///
/// ```
/// use tool_sdk::ToolResultContent;
/// let content = ToolResultContent::Text("a.rs\nb.rs\nc.rs".into());
/// assert_eq!(tool_sdk::render::result_summary(&content), "a.rs (+2 more lines)");
/// ```
pub fn result_summary(content: &ToolResultContent) -> String {
    let text = content.text();
    let text = text.trim_end();
    let mut lines = text.lines();
    let Some(first) = lines.next() else {
        return "(no output)".to_owned();
    };
    let first = truncate_chars(first, MAX_LINE_CHARS);
    match lines.count() {
        0 => first,
        1 => format!("{first} (+1 more line)"),
        more => format!("{first} (+{more} more lines)"),
    }
}

/// The default rejection line: `Name: rejected by the user, not run`.
pub fn rejected_message(user_facing_name: &str) -> String {
    format!("{user_facing_name}: rejected by the user, not run")
}

/// The default error line: `Name failed: <first line of the error>`, cut to
/// [`MAX_LINE_CHARS`] chars.
pub fn error_summary(user_facing_name: &str, error: &ToolError) -> String {
    let message = error.message();
    let first = message.lines().next().unwrap_or_default();
    format!(
        "{user_facing_name} failed: {}",
        truncate_chars(first, MAX_LINE_CHARS)
    )
}

fn single_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` unchanged when it has at most `max` chars, otherwise its first `max - 1` chars and `…`.
fn truncate_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn summaries_are_one_line_and_bounded() {
        assert_eq!(input_summary(&json!({})), "");
        assert_eq!(tool_use_message("Now", &json!({})), "Now");
        assert_eq!(
            tool_use_message("Bash", &json!({"command": "ls\n-la", "timeout": 5})),
            r#"Bash(command: "ls\n-la", timeout: 5)"#
        );
        let long = input_summary(&json!({"text": "x".repeat(200)}));
        assert_eq!(long.chars().count(), MAX_SUMMARY_CHARS);
        assert!(long.starts_with(r#"text: "xxx"#) && long.ends_with('…'));
    }

    #[test]
    fn result_error_and_rejection_lines() {
        assert_eq!(
            result_summary(&ToolResultContent::Text(String::new())),
            "(no output)"
        );
        assert_eq!(
            result_summary(&ToolResultContent::Text("one\ntwo\n".into())),
            "one (+1 more line)"
        );
        assert_eq!(
            error_summary(
                "Read",
                &ToolError::new("File does not exist: a.rs\ndetails")
            ),
            "Read failed: File does not exist: a.rs"
        );
        assert_eq!(
            rejected_message("Edit"),
            "Edit: rejected by the user, not run"
        );
    }
}
