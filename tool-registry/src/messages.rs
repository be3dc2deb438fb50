//! Every model-facing text the orchestrator writes, in one place (SPEC §5.4, §9).
//!
//! The wording is tool-sdk's own; the structure is the reference's (SPEC "How tool-sdk adapts"
//! rule 6): the `<tool_use_error>` wrapper where the reference has one, the
//! `InputValidationError:` prefix, the `Error calling tool (NAME):` prefix, tool names as given.

/// Wraps `text` in `<tool_use_error>...</tool_use_error>`.
pub(crate) fn tool_use_error(text: &str) -> String {
    format!("<tool_use_error>{text}</tool_use_error>")
}

/// SPEC §5.4 step 1: no tool answers to `name` (by name or alias).
pub(crate) fn no_such_tool(name: &str) -> String {
    tool_use_error(&no_such_tool_text(name))
}

/// [`no_such_tool`] without its wrapper (also the text of a call of a tool not offered on the
/// API, `providers::ArgumentsError::NotOffered`).
pub(crate) fn no_such_tool_text(name: &str) -> String {
    format!("Error: No such tool available: {name}")
}

/// SPEC §5.4 step 2 (the reference's CANCEL_MESSAGE): the call was cancelled before it started.
pub const CANCEL_MESSAGE: &str = "The user does not want this action to happen right now. STOP what you are doing and wait until the user tells you how to continue.";

/// SPEC §5.4 step 3: the input does not fit the schema; `details` is
/// `InputError::format_for(name)`, `hint` the schema-not-sent hint or empty.
pub(crate) fn input_validation_error(details: &str, hint: &str) -> String {
    tool_use_error(&format!("InputValidationError: {details}{hint}"))
}

/// SPEC §5.4 step 8: something other than the call itself failed (a hook, a permission check,
/// a panic).
pub(crate) fn error_calling_tool(name: &str, message: &str) -> String {
    tool_use_error(&format!("Error calling tool ({name}): {message}"))
}

/// SPEC §9 step 1: a successful call returned nothing.
pub(crate) fn empty_result(name: &str) -> String {
    format!("({name} completed with no output)")
}

/// SPEC §5.4 step 6: the tool asked for approval and the host has no way to ask.
pub(crate) fn approval_unavailable(name: &str, reason: &str) -> String {
    format!(
        "Permission to use {name} was not granted: it needs approval and this host cannot ask for it. {reason}"
    )
}

/// SPEC §5.5 (the reference's REJECT_MESSAGE): a running call was stopped by the user, so
/// nothing it would have done happened.
pub const REJECT_MESSAGE: &str = "The user does not want to go ahead with this tool use, so it was rejected (for example, a file edit did NOT write its new_string to the file). STOP what you are doing and wait until the user tells you how to continue.";

/// SPEC §5.5: a shell-class sibling call failed, so this call was cancelled. `description` is
/// `NAME(summary)` of the failed call, or `None` when it had no summary.
pub(crate) fn sibling_errored(description: Option<&str>) -> String {
    match description {
        Some(description) => tool_use_error(&format!(
            "Cancelled: the parallel tool call {description} failed"
        )),
        None => tool_use_error("Cancelled: a parallel tool call failed"),
    }
}

/// SPEC §5.5 `discard()`: the streamed response was abandoned, so the call was dropped.
pub fn streaming_discarded() -> String {
    tool_use_error("Error: the streamed response fell back, so this tool call was discarded")
}

/// SPEC §9 step 5: the block that replaces a persisted result. `size` is already formatted by
/// [`super::persistence::format_file_size`]; `preview` is the first 2 KB (cut at a line end
/// when one falls in the second KB); `has_more` adds the `...` line.
pub(crate) fn persisted_output(size: &str, path: &str, preview: &str, has_more: bool) -> String {
    let tail = if has_more { "\n...\n" } else { "\n" };
    format!(
        "<persisted-output>\nThe output is too large to show here ({size}). All of it was saved to: {path}\n\nPreview (first 2KB):\n{preview}{tail}</persisted-output>"
    )
}

/// The path a [`persisted_output`] block names (where the whole result was saved), or `None`
/// when `text` is not such a block. (Read back by the MCP server, which shows the saved file.)
#[cfg(feature = "mcp-server")]
pub(crate) fn persisted_output_path(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("<persisted-output>\n")?;
    let (_, after) = rest.split_once(" All of it was saved to: ")?;
    after.split_once("\n\nPreview").map(|(path, _)| path)
}

/// The text of a panic payload (`&str` or `String`), or a note that it had none.
pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "(no panic message)".to_owned()
    }
}

/// SPEC §5.4 step 8's message for a panic in `what` (`"the tool"`, `"a PreToolUse observer"`):
/// `"WHAT panicked: PAYLOAD"`.
pub(crate) fn panicked(what: &str, payload: &(dyn std::any::Any + Send)) -> String {
    format!("{what} panicked: {}", panic_text(payload))
}
