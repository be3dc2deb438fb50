//! What a tool's call produces and how it becomes `tool_result` content: the output bound
//! ([`ToolOutputValue`]), the default mapping, [`finish`], which maps a call's result, and
//! [`Finish`], the call's future with that mapping (a function-form tool's futures are in
//! `crate::fn_form`). Only `Finish`'s `poll` is generic over the call (a few lines per tool);
//! the rest is generic over the output type only, so tools that share an output type share one
//! copy.

use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

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
/// [`OutputMapping::MAP`]). `#[inline]` so that an optimised build turns `map`, a constant at
/// every call site, into a direct call.
#[inline]
pub(crate) fn finish<O>(
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

/// How a tool type's output becomes `tool_result` content, as a constant of the type:
/// implemented for every tool type (`T: Tool`, in `crate::tool`). [`Finish`] reads
/// it from its type parameter, so the mapping is a direct call an optimised build can inline
/// (a function pointer held in the future would be an indirect call). `pub` only because it
/// bounds [`Finish`]'s `Future` impl: it cannot be named outside the crate, and the blanket
/// impl in `tool.rs` is its only implementation.
pub trait OutputMapping {
    /// What the tool's call produces.
    type Output;
    /// The mapping: the output and the call's `tool_use_id` in, the content out.
    const MAP: fn(Self::Output, &str) -> ToolResultContent;
}

pin_project_lite::pin_project! {
    /// A call's future (`F`, the future of `Tool::call` of the tool type `T`) whose result is
    /// mapped by `T`'s [`OutputMapping`] when it is ready: the tool's runner
    /// (`Tool::__run`) boxes it as it is. A plain struct rather than an `async` block, so that
    /// a tool compiles one state machine (its `call`'s), not a second one around it. Public
    /// (hidden) for the runner `#[tool]` writes; not meant to be used by hand.
    #[doc(hidden)]
    #[must_use = "futures do nothing unless polled"]
    pub struct Finish<'a, T, F> {
        #[pin]
        call: F,
        ctx: &'a ToolUseContext,
        tool: PhantomData<fn() -> T>,
    }
}

impl<'a, T, F> Finish<'a, T, F> {
    /// The future of `call`, run with `ctx`, its output to be mapped as `T` maps it.
    #[inline]
    pub fn new(call: F, ctx: &'a ToolUseContext) -> Self {
        Self {
            call,
            ctx,
            tool: PhantomData,
        }
    }
}

impl<T, F> Future for Finish<'_, T, F>
where
    T: OutputMapping,
    F: Future<Output = Result<ToolResult<T::Output>, ToolError>>,
{
    type Output = Result<ToolOutput, ToolError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        match this.call.poll(cx) {
            Poll::Ready(result) => Poll::Ready(finish(result, this.ctx, T::MAP)),
            Poll::Pending => Poll::Pending,
        }
    }
}
