//! What a tool's `call` returns: [`ToolResult`] on success, [`ToolError`] on failure.
//!
//! Mirrors the reference's `ToolResult<T> = { data, newMessages?, contextModifier? }`
//! (SPEC §1.2) and its `formatError` for failed calls (SPEC §5.4 step 7).

use std::fmt;

use serde_json::Value;

use crate::blocks::ToolResultContent;
use crate::context::Extensions;

/// What a successful call produced, already mapped to `tool_result` content.
#[derive(Debug)]
pub struct ToolOutput {
    /// The `tool_result` content.
    pub content: ToolResultContent,
    /// Messages to append after the result.
    pub new_messages: Vec<Value>,
    /// A change to the host state for later calls.
    pub context_modifier: Option<ContextModifier>,
}

/// A successful call: the typed `data`, plus optional messages and a context change.
pub struct ToolResult<T> {
    /// The tool's output; turned into `tool_result` content by `Tool::map_result`.
    pub data: T,
    /// Extra messages to append after the `tool_result` (raw Messages API message objects).
    pub new_messages: Vec<Value>,
    /// A change to the host state that later calls see (SPEC §5.2: applied after a concurrent
    /// batch in block order, at once after a serial call).
    pub context_modifier: Option<ContextModifier>,
}

impl<T> ToolResult<T> {
    /// A result carrying only `data`.
    pub fn new(data: T) -> Self {
        Self {
            data,
            new_messages: Vec::new(),
            context_modifier: None,
        }
    }

    /// Adds a context modifier.
    #[must_use]
    pub fn with_context_modifier(
        mut self,
        modify: impl FnOnce(&mut Extensions) + Send + Sync + 'static,
    ) -> Self {
        self.context_modifier = Some(ContextModifier(Box::new(modify)));
        self
    }
}

impl<T> From<T> for ToolResult<T> {
    fn from(data: T) -> Self {
        Self::new(data)
    }
}

impl<T: fmt::Debug> fmt::Debug for ToolResult<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolResult")
            .field("data", &self.data)
            .field("new_messages", &self.new_messages)
            .field("context_modifier", &self.context_modifier.is_some())
            .finish()
    }
}

/// A function that edits the host state ([`Extensions`]) seen by later tool calls.
pub struct ContextModifier(pub Box<dyn FnOnce(&mut Extensions) + Send + Sync>);

impl ContextModifier {
    /// Applies the change.
    pub fn apply(self, extensions: &mut Extensions) {
        (self.0)(extensions);
    }
}

impl fmt::Debug for ContextModifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ContextModifier(..)")
    }
}

/// Longest error text sent to the model, in chars; longer texts keep their first and last
/// 5,000 chars (SPEC §5.4 step 7).
pub const MAX_ERROR_CHARS: usize = 10_000;

/// Why a tool call failed. The text the model sees is [`ToolError::to_model_text`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    kind: ToolErrorKind,
    message: String,
    stdout: Option<String>,
    stderr: Option<String>,
    retryable: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ToolErrorKind {
    Failed,
    Aborted,
    Shell { exit_code: i32, interrupted: bool },
}

impl ToolError {
    /// A failure described by `message` (for example "File does not exist: src/a.rs").
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            kind: ToolErrorKind::Failed,
            message: message.into(),
            stdout: None,
            stderr: None,
            retryable: false,
        }
    }

    /// The call stopped because it was cancelled; `message` may be empty.
    pub fn aborted(message: impl Into<String>) -> Self {
        Self {
            kind: ToolErrorKind::Aborted,
            ..Self::new(message)
        }
    }

    /// A shell command that exited with `exit_code`, with what it printed.
    pub fn shell(
        exit_code: i32,
        interrupted: bool,
        stdout: impl Into<String>,
        stderr: impl Into<String>,
    ) -> Self {
        Self {
            kind: ToolErrorKind::Shell {
                exit_code,
                interrupted,
            },
            message: String::new(),
            stdout: Some(stdout.into()),
            stderr: Some(stderr.into()),
            retryable: false,
        }
    }

    /// Attaches the standard output and error of a failed process.
    #[must_use]
    pub fn with_output(mut self, stdout: impl Into<String>, stderr: impl Into<String>) -> Self {
        self.stdout = Some(stdout.into());
        self.stderr = Some(stderr.into());
        self
    }

    /// Marks the failure as passing: the same call may succeed if made again (a rate limit, a
    /// connection reset, a busy resource), and the call had no effect yet. A retry layer
    /// (`tool_registry::orchestration::middleware::Retry`) makes the call again only for such
    /// an error, and only for a tool declared `idempotent`.
    #[must_use]
    pub fn retryable(mut self) -> Self {
        self.retryable = true;
        self
    }

    /// Whether [`ToolError::retryable`] marked it.
    pub fn is_retryable(&self) -> bool {
        self.retryable
    }

    /// The message given at construction.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The text for the `tool_result` (SPEC §5.4 step 7, `formatError`): for a cancelled call
    /// its message or "[Request interrupted by user for tool use]"; for a shell failure
    /// `Exit code N`, the interrupt note, stderr, stdout; otherwise the message, stderr,
    /// stdout. Parts are joined by `\n` and trimmed; empty becomes
    /// "Command failed with no output". Texts over [`MAX_ERROR_CHARS`] chars keep their first and
    /// last 5,000 chars around `\n\n... [N characters truncated] ...\n\n`.
    pub fn to_model_text(&self) -> String {
        let mut parts: Vec<&str> = Vec::new();
        let exit_line;
        match self.kind {
            ToolErrorKind::Aborted => {
                let text = if self.message.is_empty() {
                    INTERRUPTED_MESSAGE
                } else {
                    self.message.as_str()
                };
                return truncate_middle(text.trim());
            }
            ToolErrorKind::Shell {
                exit_code,
                interrupted,
            } => {
                exit_line = format!("Exit code {exit_code}");
                parts.push(&exit_line);
                if interrupted {
                    parts.push(SHELL_INTERRUPTED_NOTE);
                }
            }
            ToolErrorKind::Failed => parts.push(&self.message),
        }
        parts.extend(self.stderr.as_deref());
        parts.extend(self.stdout.as_deref());
        let joined = parts
            .into_iter()
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        let trimmed = joined.trim();
        if trimmed.is_empty() {
            return "Command failed with no output".to_owned();
        }
        truncate_middle(trimmed)
    }
}

/// What a cancelled call reports when it gave no message of its own (SPEC §5.4 step 7).
pub const INTERRUPTED_MESSAGE: &str = "[Request interrupted by user for tool use]";
const SHELL_INTERRUPTED_NOTE: &str = "The command was interrupted before it finished.";

fn truncate_middle(text: &str) -> String {
    let count = text.chars().count();
    if count <= MAX_ERROR_CHARS {
        return text.to_owned();
    }
    let half = MAX_ERROR_CHARS / 2;
    let head_end = text.char_indices().nth(half).map_or(text.len(), |(i, _)| i);
    let tail_start = text
        .char_indices()
        .nth(count - half)
        .map_or(text.len(), |(i, _)| i);
    format!(
        "{}\n\n... [{} characters truncated] ...\n\n{}",
        &text[..head_end],
        count - MAX_ERROR_CHARS,
        &text[tail_start..]
    )
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_model_text())
    }
}

impl std::error::Error for ToolError {}

impl From<std::io::Error> for ToolError {
    fn from(error: std::io::Error) -> Self {
        Self::new(error.to_string())
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

/// With the `anyhow` feature: the error and its chain of causes, outermost first, joined by
/// `": "` (`anyhow`'s alternate form, `"reading config: No such file or directory (os error
/// 2)"`), so a function-form tool can return `anyhow::Result<T>` and a struct-form `call` can
/// use `?` on an `anyhow::Error`. A `ToolError` that went into an `anyhow::Error` without
/// context comes back as it was (its kind and [`retryable`](ToolError::retryable) mark kept);
/// with context added, it is one cause in the text. An error whose own message already repeats
/// its cause shows the cause twice, as `anyhow` prints it.
#[cfg(feature = "anyhow")]
impl From<anyhow::Error> for ToolError {
    fn from(error: anyhow::Error) -> Self {
        // Only without context: `downcast` would also find a `ToolError` under a context
        // and drop the context's text.
        let error = if error.chain().nth(1).is_none() {
            match error.downcast::<ToolError>() {
                Ok(tool_error) => return tool_error,
                Err(error) => error,
            }
        } else {
            error
        };
        Self::new(format!("{error:#}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_error_lists_exit_code_then_stderr_then_stdout() {
        let error = ToolError::shell(1, false, "out", "err");
        assert_eq!(error.to_model_text(), "Exit code 1\nerr\nout");
    }

    #[test]
    fn empty_error_says_no_output() {
        assert_eq!(
            ToolError::new("  ").to_model_text(),
            "Command failed with no output"
        );
    }

    #[test]
    fn aborted_without_message_uses_interrupt_text() {
        assert_eq!(ToolError::aborted("").to_model_text(), INTERRUPTED_MESSAGE);
    }

    #[test]
    fn long_error_keeps_both_ends() {
        let text = format!("{}{}", "a".repeat(6_000), "b".repeat(6_000));
        let shown = ToolError::new(text).to_model_text();
        assert!(shown.starts_with(&"a".repeat(5_000)));
        assert!(shown.ends_with(&"b".repeat(5_000)));
        assert!(shown.contains("\n\n... [2000 characters truncated] ...\n\n"));
        assert_eq!(shown.chars().count(), 10_000 + 39);
    }
}
