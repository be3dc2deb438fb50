//! What a tool's call produces and how it becomes `tool_result` content: the output bound
//! ([`ToolOutputValue`]), the default mapping, and [`finish`], which maps a call's result. No
//! part of it is generic over the tool type, only over the output type, so tools that share
//! an output type share one copy.

use serde::Serialize;

use crate::blocks::ToolResultContent;
use crate::context::ToolUseContext;
use crate::result::{ToolError, ToolOutput, ToolResult};

/// What a tool's [`Tool::Output`](crate::Tool::Output) must be: [`Serialize`], so
/// [`Tool::map_result`](crate::Tool::map_result)'s default can turn it into text. Implemented
/// for every such type, through one `do_not_recommend` blanket impl (as for
/// [`ToolInput`](crate::ToolInput)), so a missing derive is reported as "`Paths` is a tool's
/// output: add `#[derive(Serialize)]` to it". [`OutputRef`] turns it back into `Serialize` for
/// generic code.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a tool's output: add `#[derive(Serialize)]` to it",
    label = "`{Self}` needs `Serialize`",
    note = "a successful call's output is serialized into the `tool_result` the model reads; `Serialize` comes with `tool_sdk::prelude`"
)]
pub trait ToolOutputValue {
    /// `Serialize::serialize`.
    #[doc(hidden)]
    fn __serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
}

#[diagnostic::do_not_recommend]
impl<T: Serialize + ?Sized> ToolOutputValue for T {
    fn __serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Serialize::serialize(self, serializer)
    }
}

/// A borrowed [`ToolOutputValue`] as `Serialize` again, for generic code over `T: Tool`:
/// `serde_json::to_value(OutputRef(&output))`.
#[derive(Debug)]
pub struct OutputRef<'a, T: ?Sized>(pub &'a T);

impl<T: ToolOutputValue + ?Sized> Serialize for OutputRef<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.__serialize(serializer)
    }
}

/// [`default_map_result`] for an owned output: a `String` output becomes the text as it is,
/// moved (no copy, no serialisation); anything else is serialised as [`default_map_result`]
/// does. [`Tool::map_result`](crate::Tool::map_result)'s default.
pub fn default_map_result_owned<T: ToolOutputValue + 'static>(output: T) -> ToolResultContent {
    let mut slot = Some(output);
    if let Some(text) = (&mut slot as &mut dyn std::any::Any).downcast_mut::<Option<String>>() {
        return ToolResultContent::Text(text.take().unwrap_or_default());
    }
    slot.as_ref().map_or_else(
        || ToolResultContent::Text(String::new()),
        |output| default_map_result(&OutputRef(output)),
    )
}

/// The default result mapping: strings as they are, other values as compact JSON.
pub fn default_map_result<T: Serialize + ?Sized>(output: &T) -> ToolResultContent {
    match serde_json::to_value(output) {
        Ok(serde_json::Value::String(text)) => ToolResultContent::Text(text),
        Ok(value) => ToolResultContent::Text(value.to_string()),
        Err(error) => {
            ToolResultContent::Text(format!("(the output could not be serialised: {error})"))
        }
    }
}

/// [`default_map_result_owned`] with [`crate::Tool::map_result`]'s signature (the call's
/// `tool_use_id` unused), generic over the output type only.
pub(crate) fn default_map<O: ToolOutputValue + 'static>(
    output: O,
    tool_use_id: &str,
) -> ToolResultContent {
    let _ = tool_use_id;
    default_map_result_owned(output)
}

/// A call's result as its output: the data through `map` (the tool type's
/// [`crate::tool::map_fn`]). `#[inline]` so that an optimised build turns `map`, a constant at
/// every call site, into a direct call. Public (hidden) for the runner `#[tool]` writes
/// ([`crate::Tool::__run`]); not meant to be called by hand.
#[doc(hidden)]
#[inline]
pub fn finish<O>(
    result: Result<ToolResult<O>, ToolError>,
    ctx: &ToolUseContext,
    map: fn(O, &str) -> ToolResultContent,
) -> Result<ToolOutput, ToolError> {
    match result {
        Ok(result) => Ok(ToolOutput {
            content: map(result.data, ctx.tool_use_id()),
            new_messages: result.new_messages,
            context_modifier: result.context_modifier,
        }),
        Err(error) => Err(error),
    }
}
