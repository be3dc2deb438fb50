//! The streaming executor (SPEC §5.5): calls start while the model's response still streams,
//! results come out in the order the blocks arrived, and a failing shell-class call cancels
//! its running siblings.

use std::sync::Arc;

use futures::StreamExt as _;
use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tool_sdk::{Extensions, ToolUseBlock};

use super::call::{CallOutcome, CallRunner};
use super::lookup::ToolLookup;
use super::partition::{PreparedCall, prepare};
use super::run::{
    ToolUseStream, TurnOutcome, UpdateSender, apply_modifier, spawn_call, update_channel,
};
use super::turn::{SiblingAbort, Signals, TurnState};
use crate::messages;
use crate::providers::ModelToolCall;
use crate::providers::stream::CallSink;

/// Says whether a tool (by primary name) is shell-class: its error results cancel the running
/// siblings in the streaming executor (SPEC §5.5; default: the tool named `Bash`).
pub(crate) type ShellToolPredicate = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// Longest call summary, in chars, in the sibling-cancelled message (SPEC §5.5).
pub(crate) const SUMMARY_CHARS: usize = 40;

/// Runs `tool_use` blocks as they arrive from a streamed model response (SPEC §5.5).
///
/// Feed blocks with [`StreamingToolExecutor::add_tool`], say the response ended with
/// [`StreamingToolExecutor::finish`], and read the updates from
/// [`StreamingToolExecutor::updates`] (also while adding). The executor is a [`CallSink`]:
/// a [`ResponseStream`](crate::providers::stream::ResponseStream) (from
/// [`ModelApi::stream`](crate::providers::ModelApi::stream)) reading the model's response
/// adds each call the moment it is complete. Rules:
/// - a call starts when nothing runs, or when it and everything running are concurrency-safe;
///   the queue is scanned in order, and a blocked non-safe call stops the scan. There is no
///   concurrency cap, as in the reference;
/// - an unknown tool is answered at once and counts as safe;
/// - results come out in arrival order, except that only a running *non-safe* call holds back
///   the results after it; progress comes out at once;
/// - only the context modifiers of non-safe calls are applied (at once, when they finish);
/// - an error result of a shell-class tool ([`Orchestrator::with_shell_tools`](crate::Orchestrator::with_shell_tools), default `Bash`)
///   cancels every call that has not finished, each told which call failed;
/// - [`TurnState::abort`] / [`TurnState::interrupt`] act as in
///   [`Orchestrator::run_tools`](crate::Orchestrator::run_tools).
pub struct StreamingToolExecutor {
    commands: Option<UnboundedSender<Command>>,
    stream: ToolUseStream,
}

impl std::fmt::Debug for StreamingToolExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamingToolExecutor")
            .field("open", &self.commands.is_some())
            .field("stream", &self.stream)
            .finish()
    }
}

enum Command {
    Add(ToolUseBlock),
    Discard,
}

/// Starts a streaming executor over `lookup` with `runner` (see
/// [`Orchestrator::streaming`](crate::Orchestrator::streaming)).
pub(crate) fn start(
    lookup: Arc<ToolLookup>,
    runner: Arc<CallRunner>,
    is_shell_tool: ShellToolPredicate,
    turn: TurnState,
) -> StreamingToolExecutor {
    let (commands, receiver) = unbounded_channel();
    let (sender, updates) = update_channel();
    let extensions = turn.extensions.clone();
    let config = runner.config.clone();
    let driver = Box::pin(drive(lookup, runner, is_shell_tool, turn, receiver, sender));
    StreamingToolExecutor {
        commands: Some(commands),
        stream: ToolUseStream::new(&config, updates, driver, Vec::new(), extensions),
    }
}

impl StreamingToolExecutor {
    /// Adds a `tool_use` block that just finished streaming; it may start at once. Blocks
    /// added after [`finish`](Self::finish) or [`discard`](Self::discard) are ignored.
    pub fn add_tool(&mut self, block: ToolUseBlock) {
        if let Some(commands) = &self.commands
            && commands.send(Command::Add(block.clone())).is_ok()
        {
            self.stream.push_block(block);
        }
    }

    /// No more blocks will come; the updates end once every call is answered.
    pub fn finish(&mut self) {
        self.commands = None;
    }

    /// Abandons the response (the reference's streaming fallback): every call not yet
    /// answered gets the "discarded" error result and running calls are stopped.
    pub fn discard(&mut self) {
        if let Some(commands) = self.commands.take() {
            let _ = commands.send(Command::Discard);
        }
    }

    /// The updates: one result per added block, progress, context changes.
    pub fn updates(&mut self) -> &mut ToolUseStream {
        &mut self.stream
    }

    /// [`finish`](Self::finish)es and collects every result in arrival order.
    pub async fn collect_results(mut self) -> TurnOutcome {
        self.finish();
        self.stream.collect_results().await
    }
}

enum Status {
    Queued(Box<PreparedCall>),
    Running,
    Done(CallOutcome),
    Yielded,
}

type Running = FuturesUnordered<BoxFuture<'static, (usize, CallOutcome)>>;

struct Entry {
    id: String,
    name: String,
    input: Value,
    safe: bool,
    status: Status,
    context_changed: bool,
}

struct Driver {
    lookup: Arc<ToolLookup>,
    runner: Arc<CallRunner>,
    is_shell_tool: ShellToolPredicate,
    signals: Signals,
    sibling: SiblingAbort,
    extensions: Extensions,
    sender: UpdateSender,
    entries: Vec<Entry>,
}

async fn drive(
    lookup: Arc<ToolLookup>,
    runner: Arc<CallRunner>,
    is_shell_tool: ShellToolPredicate,
    turn: TurnState,
    mut commands: UnboundedReceiver<Command>,
    sender: UpdateSender,
) {
    let sibling = SiblingAbort::default();
    let mut signals = Signals::of(&turn);
    signals.sibling = Some(sibling.clone());
    let mut driver = Driver {
        lookup,
        runner,
        is_shell_tool,
        signals,
        sibling,
        extensions: turn.extensions,
        sender,
        entries: Vec::new(),
    };
    let mut running: Running = FuturesUnordered::new();
    let mut open = true;
    loop {
        driver.start_ready(&mut running);
        driver.yield_ready();
        if !open
            && running.is_empty()
            && driver
                .entries
                .iter()
                .all(|e| matches!(e.status, Status::Yielded))
        {
            return;
        }
        tokio::select! {
            command = commands.recv(), if open => match command {
                Some(Command::Add(block)) => driver.add(block),
                Some(Command::Discard) => {
                    drop(running);
                    driver.discard();
                    return;
                }
                None => open = false,
            },
            Some((index, outcome)) = running.next(), if !running.is_empty() => driver.finished(index, outcome),
            else => return,
        }
    }
}

impl Driver {
    fn add(&mut self, block: ToolUseBlock) {
        let (id, name, input) = (block.id.clone(), block.name.clone(), block.input.clone());
        let call = prepare(block, &self.lookup, &self.runner.config);
        let unknown = call.tool().is_none();
        let safe = unknown || call.is_concurrency_safe();
        let status = if unknown {
            Status::Done(CallOutcome::error(&id, messages::no_such_tool(&name)))
        } else {
            Status::Queued(Box::new(call))
        };
        let entry = Entry {
            id,
            name,
            input,
            safe,
            status,
            context_changed: false,
        };
        self.entries.push(entry);
    }

    /// Starts queued calls in order while the start rule allows (SPEC §5.5).
    fn start_ready(&mut self, running: &mut Running) {
        if self.sender.is_closed() {
            return;
        }
        let sink = self.sender.progress_sink();
        for index in 0..self.entries.len() {
            if !matches!(self.entries[index].status, Status::Queued(_)) {
                continue;
            }
            let safe = self.entries[index].safe;
            let can_start = {
                let mut executing = self.executing();
                match executing.next() {
                    None => true,
                    Some(first) => safe && first.safe && executing.all(|e| e.safe),
                }
            };
            if !can_start {
                if safe {
                    continue;
                }
                break;
            }
            let Status::Queued(call) =
                std::mem::replace(&mut self.entries[index].status, Status::Running)
            else {
                unreachable!("checked Queued above");
            };
            let snapshot = Arc::new(self.extensions.clone());
            running.push(Box::pin(spawn_call(
                &self.runner,
                *call,
                &snapshot,
                &self.signals,
                &sink,
                index,
            )));
        }
    }

    fn executing(&self) -> impl Iterator<Item = &Entry> {
        self.entries
            .iter()
            .filter(|e| matches!(e.status, Status::Running))
    }

    fn finished(&mut self, index: usize, mut outcome: CallOutcome) {
        let entry = &mut self.entries[index];
        if outcome.result.is_error && is_shell(&self.is_shell_tool, &entry.name) {
            self.sibling
                .fire(call_description(&entry.name, &entry.input));
        }
        if !entry.safe
            && let Some(modifier) = outcome.context_modifier.take()
        {
            apply_modifier(modifier, &mut self.extensions);
            entry.context_changed = true;
        }
        entry.status = Status::Done(outcome);
    }

    /// Yields finished results in arrival order; a running non-safe call holds back the rest.
    fn yield_ready(&mut self) {
        for (index, entry) in self.entries.iter_mut().enumerate() {
            match &entry.status {
                Status::Done(_) => {
                    let Status::Done(outcome) =
                        std::mem::replace(&mut entry.status, Status::Yielded)
                    else {
                        unreachable!("matched Done above");
                    };
                    self.sender.result(index, outcome);
                    if entry.context_changed {
                        self.sender.context_changed(&self.extensions);
                    }
                }
                Status::Running if !entry.safe => break,
                _ => {}
            }
        }
    }

    /// Answers every unfinished call with the "discarded" error, then yields everything.
    fn discard(&mut self) {
        for entry in &mut self.entries {
            if matches!(entry.status, Status::Queued(_) | Status::Running) {
                entry.status = Status::Done(CallOutcome::error(
                    &entry.id,
                    messages::streaming_discarded(),
                ));
            }
        }
        self.yield_ready();
    }
}

/// Whether `name` is shell-class under `predicate`; a panic in it counts as "no".
fn is_shell(predicate: &ShellToolPredicate, name: &str) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| predicate(name))).unwrap_or(false)
}

/// `NAME(summary)` of a call for the sibling-cancelled message (SPEC §5.5): the summary is the
/// input's `command`, else `file_path`, else `pattern` (strings only), cut to
/// 40 chars plus `…` when longer; `None` when there is no summary.
pub fn call_description(name: &str, input: &Value) -> Option<String> {
    let summary = ["command", "file_path", "pattern"]
        .iter()
        .find_map(|key| input.get(key).and_then(Value::as_str))?;
    let short: String = summary.chars().take(SUMMARY_CHARS).collect();
    let ellipsis = if summary.chars().count() > SUMMARY_CHARS {
        "…"
    } else {
        ""
    };
    Some(format!("{name}({short}{ellipsis})"))
}

impl CallSink for StreamingToolExecutor {
    /// Adds the call's `tool_use` block, so it may start at once; a call whose arguments
    /// failed is not run (its error result comes from
    /// [`ToolCalls::pair`](crate::providers::ToolCalls::pair)).
    fn call_ready(&mut self, call: &ModelToolCall) {
        if let Some(block) = call.to_block() {
            self.add_tool(block);
        }
    }
}
