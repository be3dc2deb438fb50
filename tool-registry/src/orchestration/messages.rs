//! Every model-facing text the orchestrator writes, in one place (SPEC §5.4, §9).
//!
//! The wording is tool-sdk's own; the structure is the reference's (SPEC "How tool-sdk adapts"
//! rule 6): the `<tool_use_error>` wrapper where the reference has one, the
//! `InputValidationError:` prefix, the `Error calling tool (NAME):` prefix, tool names as given.

/// Wraps `text` in `<tool_use_error>...</tool_use_error>`.
pub fn tool_use_error(text: &str) -> String {
    format!("<tool_use_error>{text}</tool_use_error>")
}

/// SPEC §5.4 step 1: no tool answers to `name` (by name or alias).
pub fn no_such_tool(name: &str) -> String {
    tool_use_error(&format!("Error: No such tool available: {name}"))
}

/// SPEC §5.4 step 2 (the reference's CANCEL_MESSAGE): the call was cancelled before it started.
pub const CANCEL_MESSAGE: &str = "The user does not want this action to happen right now. STOP what you are doing and wait until the user tells you how to continue.";

/// SPEC §5.4 step 3: the input does not fit the schema; `details` is
/// `InputError::format_for(name)`, `hint` the schema-not-sent hint or empty.
pub fn input_validation_error(details: &str, hint: &str) -> String {
    tool_use_error(&format!("InputValidationError: {details}{hint}"))
}

/// SPEC §5.4 step 8: something other than the call itself failed (a hook, a permission check,
/// a panic).
pub fn error_calling_tool(name: &str, message: &str) -> String {
    tool_use_error(&format!("Error calling tool ({name}): {message}"))
}

/// SPEC §9 step 1: a successful call returned nothing.
pub fn empty_result(name: &str) -> String {
    format!("({name} completed with no output)")
}

/// SPEC §5.4 step 6: the tool asked for approval and the host has no way to ask.
pub fn approval_unavailable(name: &str, reason: &str) -> String {
    format!(
        "Permission to use {name} was not granted: it needs approval and this host cannot ask for it. {reason}"
    )
}
