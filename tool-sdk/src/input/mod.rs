//! Parsing a `tool_use` input into a tool's typed input, with errors the model can act on
//! (SPEC §5.4 step 3). Three concerns, one file each:
//!
//! - `issues`: what can be wrong with an input and how it is worded for the model;
//! - `check`: the schema check, which finds every structural issue at once (missing, unexpected
//!   and mistyped parameters, in nested objects and array items too);
//! - `typed`: reading a checked input into the tool's type, locating any refusal by path;
//!
//! and `serde_text`, the one place that reads serde's error wording; `policy`, how an input is
//! read before any check (README "Input policy"); `validator`, the one validator of every
//! tool (native and imported), with the plain check as its fast path; `engine`, the JSON
//! Schema engine it uses for every other schema, which the runtime (`tool-registry`) registers.
//!
//! Only the last step of `parse` is generic over the input type; everything before it is
//! written once.

mod check;
pub mod coerce;
mod engine;
mod issues;
pub mod policy;
mod serde_text;
mod typed;
mod validator;

use serde_json::Value;

pub use engine::{CompiledSchema, SchemaEngine};
pub use issues::{InputError, InputIssue, json_type};
pub use validator::InputValidator;

/// serde's refusal `message` of the value at `path`, as the input issue a tool call reports:
/// for tool-registry's tests of the JSON Schema engine, which compare the two.
#[cfg(feature = "test-support")]
#[doc(hidden)]
pub use serde_text::classify as serde_issue;

use crate::tool::ToolInput;

/// Parses `input` into `T`, after reading it under the input policy and checking it against
/// the schema `validator` was built from. `input` is read where it is: it is copied only when
/// the input policy or coercion has to change it before it fits.
///
/// The check comes first so that every issue is reported at once, not only the first one
/// serde meets. Only when it finds nothing does serde read the value; a refusal of serde's
/// own (a custom `deserialize_with`, a string too long for a fixed array) is reported with
/// the path of the refused value.
///
/// # Errors
/// An [`InputError`] listing the issues.
pub(crate) fn parse<T: ToolInput>(
    input: &Value,
    validator: &InputValidator,
) -> Result<T, InputError> {
    let mut repaired = None;
    // `match`es rather than `?` and `map_err` with a closure: each of those is one more
    // function per tool type.
    #[expect(
        clippy::question_mark,
        reason = "`?` adds a `FromResidual` impl per tool type"
    )]
    let input = match validator.checked(input, &mut repaired) {
        Ok(input) => input,
        Err(error) => return Err(error),
    };
    let trail = typed::Trail::new(validator.reads_integral_floats());
    match T::__deserialize(typed::Located::new(input, &trail)) {
        Ok(parsed) => Ok(parsed),
        Err(error) => Err(refused(&trail, &error)),
    }
}

/// Serde's refusal of a checked input, as one issue at the refused value's path.
fn refused(trail: &typed::Trail, error: &serde_json::Error) -> InputError {
    InputError::new(vec![serde_text::classify(
        &trail.path(),
        &error.to_string(),
    )])
}
