//! What a tool's call produces and how it becomes `tool_result` content: the output bound
//! ([`ToolOutputValue`]), the default mapping, [`finish`], which maps a call's result, and
//! [`Finish`], the call's future with that mapping, and a function-form tool's futures
//! ([`FnCall`], its `call`, and [`FinishFn`], its runner), which read the function's result
//! through [`FnTool`]. Only their `poll`s are generic over the call (a few lines per tool); the rest is
//! generic over the output type only, so tools that share an output type share one copy.

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

/// How a function-form tool's own result becomes a call's result: implemented by `#[tool]` on
/// an `async fn`, on the tool type it writes. `Return` is the function's return type as
/// written (`Result<T, E>`, or an alias of one such as `std::io::Result<T>`), bound by
/// [`FnReturn`], so the function's error type is checked against `Into<ToolError>` once, where
/// the impl names it, and the futures that read it ([`FnCall`], [`FinishFn`]) carry no bound
/// that could report it again; `__call` is the function's future, checked to be `Send` once,
/// where it is declared. Public (hidden) for the code `#[tool]` writes; not meant to be
/// implemented by hand.
#[doc(hidden)]
pub trait FnTool: crate::Tool {
    /// The function's return type.
    type Return: FnReturn<Self::Output>;
    /// The function called with the tool's input and `ctx`: its own future. The one place the
    /// future is checked to be `Send`, so a function that holds a non-`Send` value across an
    /// `.await` is reported once.
    fn __call(self, ctx: &ToolUseContext) -> impl Future<Output = Self::Return> + Send;
}

/// A function-form tool's result as a call's: the success through `ToolResult::from` (a plain
/// value, or a [`ToolResult`] as it is), the error through `Into<ToolError>` ([`FnError`]). Implemented for
/// every such `Result`, generic over its three types only, so tools that share them share one
/// copy.
#[doc(hidden)]
pub trait FnReturn<O> {
    /// The result as the call's.
    fn into_call_result(self) -> Result<ToolResult<O>, ToolError>;
}

impl<T, E, O> FnReturn<O> for Result<T, E>
where
    E: FnError,
    ToolResult<O>: From<T>,
{
    fn into_call_result(self) -> Result<ToolResult<O>, ToolError> {
        match self {
            Ok(output) => Ok(ToolResult::from(output)),
            Err(error) => Err(error.into_tool_error()),
        }
    }
}

/// What a function-form tool's error type must be: `Into<ToolError>`. Implemented for every
/// such type through one `do_not_recommend` blanket impl, so that an error type without the
/// conversion is reported with what to do (implement `From`, or turn on the `anyhow` feature
/// for `anyhow::Error`) rather than with a list of `ToolError`'s `From` impls.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a tool function's error type, and `ToolError` cannot be made from it",
    label = "no `From<{Self}> for ToolError`",
    note = "return `Result<_, ToolError>`, or implement `From<{Self}> for ToolError` for an error type of your own; `std::io::Error`, `String` and `&str` convert already",
    note = "for `anyhow::Result`, turn on tool-sdk's `anyhow` feature: `features = [\"anyhow\"]` on the tool-sdk line of Cargo.toml"
)]
pub trait FnError {
    /// `Into::into`.
    fn into_tool_error(self) -> ToolError;
}

#[diagnostic::do_not_recommend]
impl<E: Into<ToolError>> FnError for E {
    fn into_tool_error(self) -> ToolError {
        self.into()
    }
}

pin_project_lite::pin_project! {
    /// The future of a function-form tool's `call`: the function's own future (`F`), its
    /// result read by the tool type `T`'s [`FnTool::Return`] when it is ready. A plain
    /// struct rather than an `async` block around the function's future, so that the tool
    /// compiles one state machine (the function's), not two. Public (hidden) for the code
    /// `#[tool]` writes; not meant to be used by hand.
    #[doc(hidden)]
    #[must_use = "futures do nothing unless polled"]
    pub struct FnCall<T, F> {
        #[pin]
        call: F,
        tool: PhantomData<fn() -> T>,
    }
}

impl<T, F> FnCall<T, F> {
    /// The function's future `call`, its result to be read as `T` reads it.
    #[inline]
    pub fn new(call: F) -> Self {
        Self {
            call,
            tool: PhantomData,
        }
    }
}

impl<T, F> Future for FnCall<T, F>
where
    T: FnTool,
    F: Future<Output = T::Return>,
{
    type Output = Result<ToolResult<T::Output>, ToolError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().call.poll(cx) {
            Poll::Ready(result) => Poll::Ready(result.into_call_result()),
            Poll::Pending => Poll::Pending,
        }
    }
}

pin_project_lite::pin_project! {
    /// A function-form tool's runner future: the function's own future (`F`), its result read
    /// by the tool type `T`'s [`FnTool::Return`] and mapped by its [`OutputMapping`] in one
    /// `poll`. The runner (`Tool::__run`) boxes it around the function's future directly, not
    /// around `call`'s, so a function-form tool compiles the function's state machine and this
    /// one `poll`, as a struct-form tool compiles its `call` and [`Finish`]'s; its `call`
    /// (`#[inline]`, [`FnCall`]) is compiled only where someone calls it. Public (hidden) for
    /// the code `#[tool]` writes; not meant to be used by hand.
    #[doc(hidden)]
    #[must_use = "futures do nothing unless polled"]
    pub struct FinishFn<'a, T, F> {
        #[pin]
        call: F,
        ctx: &'a ToolUseContext,
        tool: PhantomData<fn() -> T>,
    }
}

impl<'a, T, F> FinishFn<'a, T, F> {
    /// The function's future `call`, run with `ctx`, its result to be read and mapped as `T`
    /// does.
    #[inline]
    pub fn new(call: F, ctx: &'a ToolUseContext) -> Self {
        Self {
            call,
            ctx,
            tool: PhantomData,
        }
    }
}

impl<T, F> Future for FinishFn<'_, T, F>
where
    T: FnTool,
    F: Future<Output = T::Return>,
{
    type Output = Result<ToolOutput, ToolError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        match this.call.poll(cx) {
            Poll::Ready(result) => Poll::Ready(finish(result.into_call_result(), this.ctx, T::MAP)),
            Poll::Pending => Poll::Pending,
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
