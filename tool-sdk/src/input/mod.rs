//! Parsing a `tool_use` input into a tool's typed input, with errors the model can act on
//! (SPEC §5.4 step 3). Three concerns, one file each:
//!
//! - `issues`: what can be wrong with an input and how it is worded for the model;
//! - `check`: the schema check, which finds every structural issue at once (missing, unexpected
//!   and mistyped parameters, in nested objects and array items too);
//! - `typed`: reading a checked input into the tool's type, locating any refusal by path;
//!
//! and `serde_text`, the one place that reads serde's error wording.
//!
//! Only the last step of [`parse`] is generic over the input type; everything before it is
//! written once.

mod check;
mod issues;
mod serde_text;
mod typed;

#[cfg(test)]
mod tests;

use serde_json::Value;

pub(crate) use check::SchemaCheck;
pub use issues::{InputError, InputIssue, json_type};

use crate::tool::ToolInput;

/// Parses `input` into `T`, after checking it against the schema `check` was built from.
///
/// The check comes first so that every issue is reported at once, not only the first one
/// serde meets. Only when it finds nothing does serde decide (enum values, number ranges and
/// the like); its refusal is reported with the path of the refused value.
///
/// # Errors
/// An [`InputError`] listing the issues.
pub(crate) fn parse<T: ToolInput>(input: Value, check: &SchemaCheck) -> Result<T, InputError> {
    checked(&input, check)?;
    let trail = typed::Trail::default();
    T::__deserialize(typed::Located::new(input, &trail)).map_err(|error| refused(&trail, &error))
}

/// The part of [`parse`] before serde: the input must be an object and pass the check.
fn checked(input: &Value, check: &SchemaCheck) -> Result<(), InputError> {
    if !input.is_object() {
        return Err(InputError::new(vec![InputIssue::TypeMismatch {
            path: "(input)".to_owned(),
            expected: "object".to_owned(),
            received: json_type(input).to_owned(),
        }]));
    }
    check.check(input).map_err(InputError::new)
}

/// Serde's refusal of a checked input, as one issue at the refused value's path.
fn refused(trail: &typed::Trail, error: &serde_json::Error) -> InputError {
    InputError::new(vec![serde_text::classify(
        &trail.path(),
        &error.to_string(),
    )])
}
