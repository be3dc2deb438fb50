//! Running a model's batch of `tool_use` blocks as a stream of updates (SPEC §5.2): progress,
//! one result per call, and context changes; and collecting that stream into the user message.

use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use futures::{Stream, StreamExt as _, stream};
use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;
use tool_sdk::{
    ContextModifier, DynTool, Extensions, ProgressSink, ToolProgress, ToolResultBlock,
    ToolUseBlock, UserMessage,
};

use super::config::OrchestratorConfig;
use super::messages;
use super::orchestrator::{Inner, Orchestrator, Signals, TurnState};
use super::partition::{Batch, PreparedCall};
use super::persistence;
use super::tool_use::CallOutcome;
use crate::pool::find_tool_by_name;

/// What [`Orchestrator::run_tools`] streams (SPEC §5.2).
#[derive(Debug)]
pub enum ToolUseUpdate {
    /// A running call reported progress (delivered at once, SPEC §5.5).
    Progress(ToolProgress),
    /// A call finished: the user message carrying its one `tool_result`.
    Result {
        /// Position of the call's `tool_use` block in the assistant message (0-based).
        index: usize,
        /// The `tool_result`.
        result: ToolResultBlock,
        /// Messages the tool asked to append after the result.
        new_messages: Vec<Value>,
    },
    /// The host state after context modifiers were applied: after every concurrency-safe
    /// batch (its modifiers in block order), and after each other call that returned one.
    ContextChanged(Extensions),
}

impl ToolUseUpdate {
    /// For a [`ToolUseUpdate::Result`], the user message `{"role":"user","content":[result]}`.
    pub fn message(&self) -> Option<UserMessage> {
        match self {
            Self::Result { result, .. } => Some(UserMessage::from_results(vec![result.clone()])),
            _ => None,
        }
    }
}

/// Everything a turn produced, collected from a [`ToolUseStream`].
#[derive(Debug, Default)]
pub struct TurnOutcome {
    /// One `tool_result` per `tool_use` block, in block order.
    pub results: Vec<ToolResultBlock>,
    /// Messages tools asked to append, in block order.
    pub new_messages: Vec<Value>,
    /// The host state after every context modifier.
    pub extensions: Extensions,
    /// Every progress report, in arrival order.
    pub progress: Vec<ToolProgress>,
}

impl TurnOutcome {
    /// The user message answering the assistant message: every result in `tool_use` order.
    pub fn user_message(&self) -> UserMessage {
        UserMessage::from_results(self.results.clone())
    }
}

/// The stream of a turn's [`ToolUseUpdate`]s. Dropping it stops the turn's calls.
///
/// It yields exactly one [`ToolUseUpdate::Result`] per `tool_use` block: if the calls stop
/// without answering a block (which only a bug could cause), a synthetic error result is
/// yielded for it before the stream ends.
pub struct ToolUseStream {
    updates: UnboundedReceiver<ToolUseUpdate>,
    /// The turn's driver when the stream was built outside a runtime: spawned on the first
    /// poll (so the stream may be handed to `block_on`).
    start: Option<BoxFuture<'static, ()>>,
    driver: Option<AbortOnDrop<()>>,
    orchestrator: Orchestrator,
    pub(crate) blocks: Vec<ToolUseBlock>,
    answered: Vec<bool>,
    extensions: Extensions,
}

impl std::fmt::Debug for ToolUseStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolUseStream")
            .field("blocks", &self.blocks.len())
            .field("answered", &self.answered.iter().filter(|a| **a).count())
            .finish_non_exhaustive()
    }
}

impl ToolUseStream {
    pub(crate) fn new(
        orchestrator: Orchestrator,
        updates: UnboundedReceiver<ToolUseUpdate>,
        driver: BoxFuture<'static, ()>,
        blocks: Vec<ToolUseBlock>,
        extensions: Extensions,
    ) -> Self {
        // Start at once inside a runtime; otherwise on the first poll.
        let (start, driver) = match tokio::runtime::Handle::try_current() {
            Ok(handle) => (None, Some(AbortOnDrop(handle.spawn(driver)))),
            Err(_) => (Some(driver), None),
        };
        Self {
            updates,
            start,
            driver,
            orchestrator,
            answered: vec![false; blocks.len()],
            blocks,
            extensions,
        }
    }

    pub(crate) fn push_block(&mut self, block: ToolUseBlock) {
        self.blocks.push(block);
        self.answered.push(false);
    }

    /// Drives the stream to its end and returns the results in `tool_use` order, applying the
    /// per-message budget of [`OrchestratorConfig::message_budget_chars`] when set.
    pub async fn collect_results(mut self) -> TurnOutcome {
        let mut slots: Vec<Option<(ToolResultBlock, Vec<Value>)>> = Vec::new();
        let mut progress = Vec::new();
        while let Some(update) = self.next().await {
            match update {
                ToolUseUpdate::Progress(report) => progress.push(report),
                ToolUseUpdate::Result {
                    index,
                    result,
                    new_messages,
                } => {
                    if slots.len() <= index {
                        slots.resize_with(index + 1, || None);
                    }
                    slots[index] = Some((result, new_messages));
                }
                ToolUseUpdate::ContextChanged(_) => {}
            }
        }
        let mut results = Vec::with_capacity(slots.len());
        let mut new_messages = Vec::new();
        for (result, messages) in slots.into_iter().flatten() {
            results.push(result);
            new_messages.extend(messages);
        }
        self.apply_budget(&mut results);
        TurnOutcome {
            results,
            new_messages,
            extensions: self.extensions.clone(),
            progress,
        }
    }

    fn apply_budget(&self, results: &mut [ToolResultBlock]) {
        let config: &OrchestratorConfig = self.orchestrator.config();
        let (Some(limit), Some(dir)) = (config.message_budget_chars, config.result_dir.as_deref())
        else {
            return;
        };
        let tools = self.orchestrator.tools();
        let unbounded = |id: &str| {
            self.blocks
                .iter()
                .find(|block| block.id == id)
                .and_then(|block| find_tool_by_name(tools, &block.name))
                .is_some_and(|tool| tool.meta().max_result_size_chars.chars().is_none())
        };
        persistence::enforce_message_budget(results, limit, dir, unbounded);
    }

    fn synthesize_missing(&mut self) -> Option<ToolUseUpdate> {
        let index = self.answered.iter().position(|answered| !answered)?;
        self.answered[index] = true;
        let block = &self.blocks[index];
        let text = messages::error_calling_tool(
            &block.name,
            "the orchestrator stopped before this call was answered",
        );
        Some(ToolUseUpdate::Result {
            index,
            result: ToolResultBlock::error(&block.id, text),
            new_messages: Vec::new(),
        })
    }
}

impl Stream for ToolUseStream {
    type Item = ToolUseUpdate;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ToolUseUpdate>> {
        if let Some(driver) = self.start.take() {
            self.driver = Some(AbortOnDrop(tokio::spawn(driver)));
        }
        match self.updates.poll_recv(cx) {
            Poll::Ready(Some(update)) => {
                match &update {
                    ToolUseUpdate::Result { index, .. } => {
                        if let Some(answered) = self.answered.get_mut(*index) {
                            *answered = true;
                        }
                    }
                    ToolUseUpdate::ContextChanged(extensions) => {
                        self.extensions = extensions.clone();
                    }
                    ToolUseUpdate::Progress(_) => {}
                }
                Poll::Ready(Some(update))
            }
            Poll::Ready(None) => Poll::Ready(self.synthesize_missing()),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Orchestrator {
    /// Runs every block of one assistant message (SPEC §5.2) and streams the updates.
    ///
    /// Blocks are batched once, up front ([`Orchestrator::partition`], SPEC §5.1). A
    /// concurrency-safe batch runs at most [`OrchestratorConfig::effective_concurrency`] calls
    /// at once, each in its own tokio task and each seeing the state from before the batch;
    /// results are streamed as calls finish, and afterwards the batch's context modifiers are
    /// applied in block order and one [`ToolUseUpdate::ContextChanged`] follows. Any other call
    /// runs alone; its modifier is applied at once and followed by a `ContextChanged`. Every
    /// block gets exactly one result, also when `turn.abort` or `turn.interrupt` fires.
    ///
    /// Calls start at once when this is called inside a tokio runtime, otherwise when the
    /// stream is first polled (which must be inside one: calls are tokio tasks).
    pub fn run_tools(&self, blocks: Vec<ToolUseBlock>, turn: TurnState) -> ToolUseStream {
        let batches = self.partition(&blocks);
        let (sender, updates) = unbounded_channel();
        let extensions = turn.extensions.clone();
        let driver = Box::pin(drive(Arc::clone(&self.inner), batches, turn, sender));
        ToolUseStream::new(self.clone(), updates, driver, blocks, extensions)
    }
}

/// [`Orchestrator::run_tools`] with no observers and no schema hint: runs `blocks` against
/// `tools` under `config`. Collect with [`ToolUseStream::collect_results`] to get one
/// `tool_result` per block in block order.
pub fn run_tools(
    blocks: &[ToolUseBlock],
    tools: &[Arc<dyn DynTool>],
    turn: TurnState,
    config: &OrchestratorConfig,
) -> ToolUseStream {
    Orchestrator::new(tools, config.clone()).run_tools(blocks.to_vec(), turn)
}

pub(crate) fn progress_sink(sender: &UnboundedSender<ToolUseUpdate>) -> ProgressSink {
    let sender = sender.clone();
    Arc::new(move |report| {
        let _ = sender.send(ToolUseUpdate::Progress(report));
    })
}

/// Applies a modifier; a panic in it is logged and leaves the rest of the turn running.
pub(crate) fn apply_modifier(modifier: ContextModifier, extensions: &mut Extensions) {
    if let Err(payload) = std::panic::catch_unwind(AssertUnwindSafe(|| modifier.apply(extensions)))
    {
        tracing::error!(panic = %super::panic_text(&*payload), "a context modifier panicked");
    }
}

async fn drive(
    inner: Arc<Inner>,
    batches: Vec<Batch>,
    turn: TurnState,
    sender: UnboundedSender<ToolUseUpdate>,
) {
    let signals = Signals::of(&turn);
    let sink = progress_sink(&sender);
    let mut extensions = turn.extensions;
    let mut first = 0;
    for batch in batches {
        let count = batch.calls.len();
        if batch.is_concurrency_safe {
            let snapshot = Arc::new(extensions.clone());
            let mut modifiers: Vec<Option<ContextModifier>> = (0..count).map(|_| None).collect();
            let tasks =
                batch.calls.into_iter().enumerate().map(|(offset, call)| {
                    spawn_call(&inner, call, &snapshot, &signals, &sink, offset)
                });
            let mut running =
                stream::iter(tasks).buffer_unordered(inner.config.effective_concurrency());
            while let Some((offset, outcome)) = running.next().await {
                modifiers[offset] = outcome.context_modifier;
                send_result(
                    &sender,
                    first + offset,
                    outcome.result,
                    outcome.new_messages,
                );
            }
            for modifier in modifiers.into_iter().flatten() {
                apply_modifier(modifier, &mut extensions);
            }
            let _ = sender.send(ToolUseUpdate::ContextChanged(extensions.clone()));
        } else {
            for (offset, call) in batch.calls.into_iter().enumerate() {
                let snapshot = Arc::new(extensions.clone());
                let outcome = inner
                    .run_prepared(call, snapshot, &signals, Some(Arc::clone(&sink)))
                    .await;
                send_result(
                    &sender,
                    first + offset,
                    outcome.result,
                    outcome.new_messages,
                );
                if let Some(modifier) = outcome.context_modifier {
                    apply_modifier(modifier, &mut extensions);
                    let _ = sender.send(ToolUseUpdate::ContextChanged(extensions.clone()));
                }
            }
        }
        first += count;
    }
}

fn send_result(
    sender: &UnboundedSender<ToolUseUpdate>,
    index: usize,
    result: ToolResultBlock,
    new_messages: Vec<Value>,
) {
    let _ = sender.send(ToolUseUpdate::Result {
        index,
        result,
        new_messages,
    });
}

/// Starts one call in its own task (aborted if the returned future is dropped) and resolves
/// with `(tag, outcome)`; a panic that escaped the call becomes its error result.
pub(crate) fn spawn_call(
    inner: &Arc<Inner>,
    call: PreparedCall,
    extensions: &Arc<Extensions>,
    signals: &Signals,
    sink: &ProgressSink,
    tag: usize,
) -> impl Future<Output = (usize, CallOutcome)> + Send + 'static {
    let id = call.block.id.clone();
    let name = call.block.name.clone();
    let (inner, extensions, signals, sink) = (
        Arc::clone(inner),
        Arc::clone(extensions),
        signals.clone(),
        Arc::clone(sink),
    );
    let task = AbortOnDrop(tokio::spawn(async move {
        inner
            .run_prepared(call, extensions, &signals, Some(sink))
            .await
    }));
    async move {
        let outcome = match task.join().await {
            Ok(outcome) => outcome,
            Err(error) => {
                let message = if error.is_panic() {
                    super::tool_use::panicked("the tool", &*error.into_panic())
                } else {
                    "the call's task was stopped".to_owned()
                };
                CallOutcome::error(&id, messages::error_calling_tool(&name, &message))
            }
        };
        (tag, outcome)
    }
}

/// A task handle that aborts the task when dropped, so no call outlives its stream.
pub(crate) struct AbortOnDrop<T>(pub(crate) JoinHandle<T>);

impl<T> AbortOnDrop<T> {
    pub(crate) async fn join(mut self) -> Result<T, tokio::task::JoinError> {
        (&mut self.0).await
    }
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
