//! The function form's side of the SDK: `#[tool(...)] async fn name(input: Args, ctx:
//! &ToolUseContext) -> Result<T, E>`.
//!
//! `#[tool]` on a function writes, per tool, the function, a tool type wrapping its input, that
//! type's [`ToolInput`] (the input's own) and one [`FnTool`] impl: the output and return
//! types, the tool's facts as one [`Facts`] constant, and the call of the function. Every
//! other trait a tool has comes from blanket impls written once rather than per tool:
//! [`DeclaredFacts`], [`Tool`] and [`ToolImpl`] over `FnTool` here, and
//! [`ToolSpec`](crate::ToolSpec) over `DeclaredFacts` (`crate::facts`). An edit of one tool's
//! body re-checks every tool's items in the crate, so fewer items per tool keeps that rebuild
//! short.
//!
//! The futures read the function's result through [`FnTool::Return`] ([`FnReturn`]):
//! [`FnCall`] is the tool's `call`, [`FinishFn`] its runner. Only their `poll`s are generic over
//! the function's future.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::future::BoxFuture;

use crate::context::ToolUseContext;
use crate::facts::{DeclaredFacts, Facts};
use crate::output::{OutputMapping, ToolOutputValue, finish};
use crate::overrides::Overrides;
use crate::result::{ToolError, ToolOutput, ToolResult};
use crate::tool::{Tool, ToolImpl, ToolInput};

/// What `#[tool]` on an `async fn` writes for the tool type it makes, the one impl per tool
/// the blanket [`DeclaredFacts`] and [`Tool`] impls below read. `Return` is the function's
/// return type as written (`Result<T, E>`, or an alias of one such as `std::io::Result<T>`),
/// bound by [`FnReturn`], so the function's error type is checked against `Into<ToolError>`
/// once, where the impl names it, and the futures that read it ([`FnCall`], [`FinishFn`])
/// carry no bound that could report it again; `__call` is the function's future, checked to be
/// `Send` once, where it is declared. Public (hidden) for the code `#[tool]` writes; not meant
/// to be implemented by hand.
#[doc(hidden)]
pub trait FnTool: ToolInput + Send + Sync + 'static {
    /// What a successful call produces: `T` of the function's `Result<T, E>`, or `X` when `T`
    /// is `ToolResult<X>`.
    type Output: ToolOutputValue + Send + 'static;
    /// The function's return type.
    type Return: FnReturn<Self::Output>;
    /// The tool's facts, which [`DeclaredFacts::FACTS`] gives on.
    const FACTS: Facts;
    /// The function called with the tool's input and `ctx`: its own future. The one place the
    /// future is checked to be `Send`, so a function that holds a non-`Send` value across an
    /// `.await` is reported once.
    fn __call(self, ctx: &ToolUseContext) -> impl Future<Output = Self::Return> + Send;
}

/// A function-form tool's facts are its [`FnTool::FACTS`]; [`ToolSpec`](crate::ToolSpec)
/// follows from them.
#[diagnostic::do_not_recommend]
impl<T: FnTool> DeclaredFacts for T {
    const FACTS: Facts = <T as FnTool>::FACTS;
}

/// A function-form tool overrides no hook: its [`ToolImpl`] is this one impl, not one that
/// `#[tool]` writes per tool. `do_not_recommend`, so that an `impl Tool` without `#[tool]` is
/// still reported as `ToolImpl`'s own message says, not as a missing `FnTool`.
#[diagnostic::do_not_recommend]
impl<T: FnTool> ToolImpl for T {
    const __OVERRIDES: Overrides = Overrides::NONE;
}

/// A function-form tool's behaviour: its call is the function's, and it overrides no hook.
/// `do_not_recommend`, so that a tool without `impl Tool` is still reported as `Tool`'s own
/// message says.
#[diagnostic::do_not_recommend]
impl<T: FnTool> Tool for T {
    type Output = T::Output;

    // The function's future in `FinishFn`, not `call`'s future: `call` is compiled only where
    // someone calls it.
    fn __run(self, ctx: &ToolUseContext) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(FinishFn::<Self, _>::new(self.__call(ctx), ctx))
    }

    #[inline]
    fn call(
        self,
        ctx: &ToolUseContext,
    ) -> impl Future<Output = Result<ToolResult<Self::Output>, ToolError>> + Send {
        FnCall::<Self, _>::new(self.__call(ctx))
    }
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
