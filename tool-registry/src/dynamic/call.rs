//! The [`ToolCall`] of a run-time tool: an input already checked against the tool's JSON
//! Schema, its flags, and the host-supplied handler that runs it.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use tool_sdk::{
    PermissionResult, ToolCall, ToolError, ToolOutput, ToolResultContent, ToolUseContext,
    ValidationResult,
};

type HandlerFn = dyn Fn(Value, ToolUseContext) -> BoxFuture<'static, Result<ToolResultContent, ToolError>>
    + Send
    + Sync;

/// The host's code behind a run-time tool: called with the checked input (JSON) and the call's
/// context, it returns the `tool_result` content or an error. Cheap to clone.
///
/// ```
/// use tool_registry::dynamic::ToolHandler;
/// use tool_sdk::{ToolResultContent, ToolError};
/// let handler = ToolHandler::new(|input, _ctx| async move {
///     Ok::<_, ToolError>(ToolResultContent::Text(format!("got {input}")))
/// });
/// # let _ = handler;
/// ```
#[derive(Clone)]
pub struct ToolHandler(Arc<HandlerFn>);

impl ToolHandler {
    /// A handler from an async function of the input and the context.
    pub fn new<F, Fut>(handler: F) -> Self
    where
        F: Fn(Value, ToolUseContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolResultContent, ToolError>> + Send + 'static,
    {
        Self(Arc::new(move |input, ctx| Box::pin(handler(input, ctx))))
    }

    /// A handler that answers every call with `text`.
    pub fn fixed_text(text: impl Into<String>) -> Self {
        let text: Arc<str> = Arc::from(text.into());
        Self::new(move |_input, _ctx| {
            let text = Arc::clone(&text);
            async move { Ok(ToolResultContent::Text(text.to_string())) }
        })
    }

    /// A handler that fails every call with `message` (an error `tool_result`).
    pub fn failing(message: impl Into<String>) -> Self {
        let message: Arc<str> = Arc::from(message.into());
        Self::new(move |_input, _ctx| {
            let message = Arc::clone(&message);
            async move { Err(ToolError::new(message.to_string())) }
        })
    }

    /// Runs the handler.
    pub fn call(
        &self,
        input: Value,
        ctx: ToolUseContext,
    ) -> BoxFuture<'static, Result<ToolResultContent, ToolError>> {
        (self.0)(input, ctx)
    }
}

impl std::fmt::Debug for ToolHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ToolHandler(..)")
    }
}

/// Per-call facts of a run-time tool: the same for every input.
#[derive(Debug, Clone)]
pub(crate) struct CallFacts {
    pub read_only: bool,
    pub concurrency_safe: bool,
    pub destructive: bool,
    pub open_world: bool,
    pub user_facing_name: Arc<str>,
    pub description: Arc<str>,
    pub permission: PermissionResult,
}

/// One checked call of a run-time tool.
pub(crate) struct JsonCall {
    pub input: Value,
    pub facts: Arc<CallFacts>,
    pub handler: ToolHandler,
}

impl ToolCall for JsonCall {
    fn is_read_only(&self) -> bool {
        self.facts.read_only
    }

    fn is_concurrency_safe(&self) -> bool {
        self.facts.concurrency_safe
    }

    fn is_destructive(&self) -> bool {
        self.facts.destructive
    }

    fn is_open_world(&self) -> bool {
        self.facts.open_world
    }

    fn user_facing_name(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.facts.user_facing_name)
    }

    fn description(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.facts.description)
    }

    fn validate_input<'a>(&'a self, _ctx: &'a ToolUseContext) -> BoxFuture<'a, ValidationResult> {
        Box::pin(async { ValidationResult::Ok })
    }

    fn check_permissions<'a>(
        &'a self,
        _ctx: &'a ToolUseContext,
    ) -> BoxFuture<'a, PermissionResult> {
        let permission = self.facts.permission.clone();
        Box::pin(async move { permission })
    }

    fn call<'c>(
        self: Box<Self>,
        ctx: &'c ToolUseContext,
    ) -> BoxFuture<'c, Result<ToolOutput, ToolError>> {
        let JsonCall { input, handler, .. } = *self;
        // The handler owns its context: a clone, with the same id, state, progress sink and
        // abort token (a detached context makes its token here), so cancelling the caller's
        // context reaches the handler. The handler itself runs only when the future is polled.
        let ctx = ctx.clone();
        Box::pin(async move {
            let content = handler.call(input, ctx).await?;
            Ok(ToolOutput {
                content,
                new_messages: Vec::new(),
                context_modifier: None,
            })
        })
    }
}
