//! One parsed call of a Rust tool type, as a [`ToolCall`]: [`ErasedCall`], the same type for
//! every tool, answering each hook from the tool type's table of [`HookFns`].
//!
//! A hook the type overrides is a function pointer into the type's own method; a hook it does
//! not override (per [`crate::overrides::Overrides`], filled in by `#[tool]` on the impl) is
//! `None`, and [`ErasedCall`] answers with the trait's default from the tool's constants, so
//! the tool type compiles no copy of it.

use std::any::Any;
use std::borrow::Cow;

use futures::future::BoxFuture;

use crate::blocks::ToolResultContent;
use crate::context::ToolUseContext;
use crate::dyn_tool::ToolCall;
use crate::output::{OutputMapping, finish};
use crate::permission::{PermissionResult, ValidationResult};
use crate::result::{ToolError, ToolOutput};
use crate::tool::HookFacts;
use crate::tool::{InterruptBehavior, PermissionMatcher, SearchOrRead, Tool};

/// A parsed input of some tool type `T`, as the hooks read it.
pub(super) type Input = dyn Any + Send + Sync;

/// A parsed input of some tool type `T`, as [`ErasedCall`] holds it: readable as [`Input`]
/// (by upcasting) and runnable, so running it needs no downcast.
pub(super) trait CallInput: Any + Send + Sync {
    /// Runs the call, through the tool's runner ([`Tool::__run`]).
    fn run(self: Box<Self>, ctx: &ToolUseContext) -> BoxFuture<'_, Result<ToolOutput, ToolError>>;
}

impl<T: Tool> CallInput for T {
    fn run(self: Box<Self>, ctx: &ToolUseContext) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        T::__run(*self, ctx)
    }
}

/// The input as `T`.
fn this<T: 'static>(input: &Input) -> &T {
    match input.downcast_ref::<T>() {
        Some(this) => this,
        None => unreachable!("a tool's hook table is only given that tool's input"),
    }
}

crate::hooks::hook_fns!();

/// [`Tool::__run`] after `T`'s own [`Tool::validate_input`], for dispatch without an
/// orchestrator (an orchestrator has run the check already); compiled only for types that
/// override the hook (or whose impl was not read by `#[tool]`). Its own state machine, not a
/// branch in the runner (a branch on a constant still puts the check's state in every tool's
/// state machine, which made release builds measurably slower) and not a wrapper around the
/// runner's future (which made dispatch slower).
pub(super) async fn run_validated<T: Tool>(
    tool: T,
    ctx: &ToolUseContext,
) -> Result<ToolOutput, ToolError> {
    if let ValidationResult::Invalid { message, .. } = tool.validate_input(ctx).await {
        return Err(ToolError::new(message));
    }
    let result = tool.call(ctx).await;
    finish(result, ctx, <T as OutputMapping>::MAP)
}

/// What an [`ErasedCall`] reads of its tool: the facts the hooks' defaults read, and the
/// hooks the type overrides.
pub(super) struct CallFacts {
    pub(super) facts: HookFacts,
    pub(super) hooks: HookFns,
}

/// One parsed call of a Rust tool type: its input, erased, and its type's table.
pub(super) struct ErasedCall {
    pub(super) facts: &'static CallFacts,
    pub(super) input: Box<dyn CallInput>,
}

impl ErasedCall {
    fn hooks(&self) -> &'static HookFns {
        &self.facts.hooks
    }

    /// What the defaults read.
    fn hook_facts(&self) -> &'static HookFacts {
        &self.facts.facts
    }

    /// The input, to be read by a hook.
    fn input(&self) -> &Input {
        &*self.input
    }
}

impl ToolCall for ErasedCall {
    crate::hooks::erased_call_hooks!();

    fn call<'c>(
        self: Box<Self>,
        ctx: &'c ToolUseContext,
    ) -> BoxFuture<'c, Result<ToolOutput, ToolError>> {
        self.input.run(ctx)
    }
}
