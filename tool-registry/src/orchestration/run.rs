//! Running a model's batch of `tool_use` blocks as a stream of updates (SPEC §5.2): progress,
//! one result per call, and context changes; and collecting that stream into a
//! [`TurnOutcome`] (written in a model API's shape by
//! [`ModelApi::write_results`](crate::providers::ModelApi::write_results)).

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use futures::{Stream, StreamExt as _, stream};
use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;
use tool_sdk::context::ProgressSink;
use tool_sdk::context::ToolProgress;
use tool_sdk::result::ContextModifier;
use tool_sdk::{Extensions, ToolResultBlock, ToolUseBlock};

use super::call::{CallOutcome, CallRunner};
use super::config::OrchestratorConfig;
use super::partition::{Batch, PreparedCall};
use super::persistence;
use super::turn::{Signals, TurnState};
use crate::messages;

/// What [`Orchestrator::run_tools`](crate::Orchestrator::run_tools) streams (SPEC §5.2).
#[derive(Debug)]
pub enum ToolUseUpdate {
    /// A running call reported progress (delivered at once, SPEC §5.5).
    Progress(ToolProgress),
    /// A call finished with its one `tool_result`.
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

/// The stream of a turn's [`ToolUseUpdate`]s. Dropping it stops the turn's calls.
///
/// It yields exactly one [`ToolUseUpdate::Result`] per `tool_use` block: if the calls stop
/// without answering a block (which only a bug could cause), a synthetic error result is
/// yielded for it before the stream ends.
pub struct ToolUseStream {
    updates: UnboundedReceiver<Sent>,
    /// The turn's driver when the stream was built outside a runtime: spawned on the first
    /// poll (so the stream may be handed to `block_on`).
    start: Option<BoxFuture<'static, ()>>,
    driver: Option<AbortOnDrop<()>>,
    /// The per-message budget and the directory results are persisted into, when both are
    /// configured.
    budget: Option<(usize, PathBuf)>,
    blocks: Vec<ToolUseBlock>,
    answered: Vec<bool>,
    /// Per block: its call's tool declares unbounded results (from its [`CallOutcome`]).
    exempt_from_budget: Vec<bool>,
    extensions: Extensions,
}

/// What a turn's driver sends its [`ToolUseStream`]: an update, and for a result whether the
/// message budget must leave it alone.
pub(crate) struct Sent {
    update: ToolUseUpdate,
    exempt_from_budget: bool,
}

/// The sending side of a [`ToolUseStream`].
#[derive(Clone)]
pub(crate) struct UpdateSender(UnboundedSender<Sent>);

/// A channel from a turn's driver to its [`ToolUseStream`].
pub(crate) fn update_channel() -> (UpdateSender, UnboundedReceiver<Sent>) {
    let (sender, receiver) = unbounded_channel();
    (UpdateSender(sender), receiver)
}

impl UpdateSender {
    fn send(&self, update: ToolUseUpdate, exempt_from_budget: bool) {
        // The stream was dropped: the turn is being stopped, so nobody needs the update.
        let _ = self.0.send(Sent {
            update,
            exempt_from_budget,
        });
    }

    /// Whether the stream was dropped: nobody wants the turn any more, so no call may start.
    pub(crate) fn is_closed(&self) -> bool {
        self.0.is_closed()
    }

    /// Sends the result of the call at `index`. Its context modifier, if still there, is
    /// dropped: the caller applies modifiers.
    pub(crate) fn result(&self, index: usize, outcome: CallOutcome) {
        let update = ToolUseUpdate::Result {
            index,
            result: outcome.result,
            new_messages: outcome.new_messages,
        };
        self.send(update, outcome.exempt_from_budget);
    }

    /// Sends the host state after modifiers were applied.
    pub(crate) fn context_changed(&self, extensions: &Extensions) {
        self.send(ToolUseUpdate::ContextChanged(extensions.clone()), false);
    }

    /// A progress sink forwarding each report as a [`ToolUseUpdate::Progress`].
    pub(crate) fn progress_sink(&self) -> ProgressSink {
        let sender = self.clone();
        Arc::new(move |report| sender.send(ToolUseUpdate::Progress(report), false))
    }
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
        config: &OrchestratorConfig,
        updates: UnboundedReceiver<Sent>,
        driver: BoxFuture<'static, ()>,
        blocks: Vec<ToolUseBlock>,
        extensions: Extensions,
    ) -> Self {
        // The calls' spans are children of the span current now (the host's turn), wherever
        // and whenever the driver runs.
        let driver: BoxFuture<'static, ()> = Box::pin(tracing::Instrument::in_current_span(driver));
        // Start at once inside a runtime; otherwise on the first poll.
        let (start, driver) = match tokio::runtime::Handle::try_current() {
            Ok(handle) => (None, Some(AbortOnDrop(handle.spawn(driver)))),
            Err(_) => (Some(driver), None),
        };
        let budget = config.message_budget_chars.zip(config.result_dir.clone());
        Self {
            updates,
            start,
            driver,
            budget,
            answered: vec![false; blocks.len()],
            exempt_from_budget: vec![false; blocks.len()],
            blocks,
            extensions,
        }
    }

    pub(crate) fn push_block(&mut self, block: ToolUseBlock) {
        self.blocks.push(block);
        self.answered.push(false);
        self.exempt_from_budget.push(false);
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
        let mut exempt = Vec::with_capacity(slots.len());
        let mut new_messages = Vec::new();
        for (index, slot) in slots.into_iter().enumerate() {
            if let Some((result, messages)) = slot {
                results.push(result);
                exempt.push(self.exempt_from_budget.get(index).copied().unwrap_or(false));
                new_messages.extend(messages);
            }
        }
        if let Some((limit, dir)) = &self.budget {
            persistence::enforce_message_budget(&mut results, *limit, dir, |index| exempt[index]);
        }
        TurnOutcome {
            results,
            new_messages,
            extensions: self.extensions.clone(),
            progress,
        }
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
            Poll::Ready(Some(Sent {
                update,
                exempt_from_budget,
            })) => {
                match &update {
                    ToolUseUpdate::Result { index, .. } => {
                        if let Some(answered) = self.answered.get_mut(*index) {
                            *answered = true;
                        }
                        if let Some(exempt) = self.exempt_from_budget.get_mut(*index) {
                            *exempt = exempt_from_budget;
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

/// Starts running `batches` (the partition of `blocks`) as [`Orchestrator::run_tools`]
/// describes, and returns the stream of their updates.
///
/// [`Orchestrator::run_tools`]: super::Orchestrator::run_tools
pub(crate) fn start(
    runner: Arc<CallRunner>,
    batches: Vec<Batch>,
    blocks: Vec<ToolUseBlock>,
    turn: TurnState,
) -> ToolUseStream {
    let (sender, updates) = update_channel();
    let extensions = turn.extensions.clone();
    let config = runner.config.clone();
    let driver = Box::pin(drive(runner, batches, turn, sender));
    ToolUseStream::new(&config, updates, driver, blocks, extensions)
}

/// Applies a modifier; a panic in it is logged and leaves the rest of the turn running.
pub(crate) fn apply_modifier(modifier: ContextModifier, extensions: &mut Extensions) {
    if let Err(payload) = std::panic::catch_unwind(AssertUnwindSafe(|| modifier.apply(extensions)))
    {
        tracing::error!(panic = %messages::panic_text(&*payload), "a context modifier panicked");
    }
}

async fn drive(
    runner: Arc<CallRunner>,
    batches: Vec<Batch>,
    turn: TurnState,
    sender: UpdateSender,
) {
    let signals = Signals::of(&turn);
    let sink = sender.progress_sink();
    let mut extensions = turn.extensions;
    let mut first = 0;
    for batch in batches {
        let count = batch.calls.len();
        if batch.is_concurrency_safe {
            let snapshot = Arc::new(extensions.clone());
            let mut modifiers: Vec<Option<ContextModifier>> = (0..count).map(|_| None).collect();
            // Calls start as the buffer takes them; none once the stream is gone.
            let tasks = batch
                .calls
                .into_iter()
                .enumerate()
                .take_while(|_| !sender.is_closed())
                .map(|(offset, call)| {
                    spawn_call(&runner, call, &snapshot, &signals, &sink, offset)
                });
            let mut running =
                stream::iter(tasks).buffer_unordered(runner.config.effective_concurrency());
            while let Some((offset, mut outcome)) = running.next().await {
                modifiers[offset] = outcome.context_modifier.take();
                sender.result(first + offset, outcome);
            }
            for modifier in modifiers.into_iter().flatten() {
                apply_modifier(modifier, &mut extensions);
            }
            sender.context_changed(&extensions);
        } else {
            for (offset, call) in batch.calls.into_iter().enumerate() {
                if sender.is_closed() {
                    return;
                }
                let snapshot = Arc::new(extensions.clone());
                let mut outcome = runner
                    .run(call, snapshot, &signals, Some(Arc::clone(&sink)))
                    .await;
                let modifier = outcome.context_modifier.take();
                sender.result(first + offset, outcome);
                if let Some(modifier) = modifier {
                    apply_modifier(modifier, &mut extensions);
                    sender.context_changed(&extensions);
                }
            }
        }
        first += count;
    }
}

/// Starts one call in its own task (aborted if the returned future is dropped) and resolves
/// with `(tag, outcome)`; a panic that escaped the call becomes its error result.
pub(crate) fn spawn_call(
    runner: &Arc<CallRunner>,
    call: PreparedCall,
    extensions: &Arc<Extensions>,
    signals: &Signals,
    sink: &ProgressSink,
    tag: usize,
) -> impl Future<Output = (usize, CallOutcome)> + Send + 'static {
    let id = call.block.id.clone();
    let name = call.block.name.clone();
    let (runner, extensions, signals, sink) = (
        Arc::clone(runner),
        Arc::clone(extensions),
        signals.clone(),
        Arc::clone(sink),
    );
    let task = AbortOnDrop(tokio::spawn(tracing::Instrument::in_current_span(
        async move { runner.run(call, extensions, &signals, Some(sink)).await },
    )));
    async move {
        let outcome = match task.join().await {
            Ok(outcome) => outcome,
            Err(error) => {
                let message = if error.is_panic() {
                    messages::panicked("the tool", &*error.into_panic())
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
