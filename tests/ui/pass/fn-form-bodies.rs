//! Function bodies the function form must accept as written: the fn is kept as the user wrote
//! it, so inference from the declared return type, `ref` patterns, borrowed inputs and
//! attributes on the fn and inner attributes in its body behave as in any other `async fn`.
#![deny(warnings)]

use std::borrow::Cow;
use tool_sdk::prelude::*;

/// A JSON document as text.
#[derive(Deserialize, JsonSchema)]
pub struct DocArgs {
    /// The document.
    pub text: String,
}

/// Parses a document; the value's type comes from the declared return type only, through an
/// early `return` before a method call on it.
#[tool(name = "Parse", max_result_size_chars = 1_000)]
async fn parse(input: DocArgs) -> Result<Vec<u32>, ToolError> {
    let values = serde_json::from_str(&input.text).map_err(|e| ToolError::new(e.to_string()))?;
    if input.text.len() < 3 {
        return Ok(values);
    }
    Ok(values.into_iter().rev().collect())
}

/// Builds a default value; its type comes from the declared return type only.
#[tool(name = "Empty", max_result_size_chars = 1_000)]
async fn empty(_input: DocArgs) -> Result<Vec<String>, ToolError> {
    let mut out = Default::default();
    if false {
        return Ok(out);
    }
    out.push(String::new());
    Ok(out)
}

/// Binds its input by reference in the parameter pattern.
#[tool(name = "Length", max_result_size_chars = 100)]
async fn length(ref input: DocArgs, ctx: &ToolUseContext) -> Result<usize, ToolError> {
    let _ = ctx.tool_use_id();
    Ok(input.text.len())
}

/// A label that may borrow static text.
#[derive(Deserialize, JsonSchema)]
pub struct Labelled<'a> {
    /// The label.
    pub label: Cow<'a, str>,
}

/// Takes an input with a named lifetime beside the context.
#[tool(name = "Label", max_result_size_chars = 100)]
async fn label(input: Labelled<'static>, ctx: &ToolUseContext) -> Result<String, ToolError> {
    let _ = ctx.tool_use_id();
    Ok(input.label.into_owned())
}

/// Deprecated, still served; the attribute stays on the fn.
#[deprecated(note = "use Label")]
#[tool(name = "OldLabel", max_result_size_chars = 100)]
async fn old_label(input: Labelled<'static>) -> Result<String, ToolError> {
    Ok(input.label.into_owned())
}

mod old {
    // The derives name the type in impls of their own: allowed for the whole module.
    #![allow(deprecated)]
    use tool_sdk::prelude::*;

    /// An input kept for older callers.
    #[deprecated(note = "use DocArgs")]
    #[derive(Deserialize, JsonSchema)]
    pub struct OldDocArgs {
        /// The document.
        pub text: String,
    }
}

/// Takes a deprecated input; the user's own `allow` is the only one needed.
#[allow(deprecated)]
#[tool(name = "OldParse", max_result_size_chars = 100)]
async fn old_parse(input: old::OldDocArgs) -> Result<usize, ToolError> {
    Ok(input.text.len())
}

/// An inner attribute at the top of the body stays where it is written (the body is passed on
/// as written, never parsed and printed again).
#[tool(name = "Quiet", max_result_size_chars = 100)]
async fn quiet(input: DocArgs) -> Result<usize, ToolError> {
    #![allow(unused_variables)]
    let unused = input.text.len();
    Ok(0)
}

fn main() {
    assert_eq!(<quiet as ToolSpec>::NAME, "Quiet");
    assert_eq!(<parse as ToolSpec>::NAME, "Parse");
    assert_eq!(<empty as ToolSpec>::NAME, "Empty");
    assert_eq!(<length as ToolSpec>::NAME, "Length");
    assert_eq!(<label as ToolSpec>::NAME, "Label");
}
