//! [`Orchestrator`]: the public entry for running tool calls. It holds the tool lookup, the
//! [`CallRunner`] every call of a turn shares, and the shell-class predicate of the streaming
//! executor, and hands them to the batch runner, the streaming executor or a single call.

use std::fmt;
use std::sync::Arc;

use tool_sdk::{DynTool, ToolUseBlock};

use super::call::{CallOutcome, CallRunner, SchemaHintFn};
use super::config::OrchestratorConfig;
use super::lookup::ToolLookup;
use super::observer::ToolObserver;
use super::partition::{Batch, PreparedCall, partition, prepare};
use super::run::{self, ToolUseStream};
use super::streaming::{self, ShellToolPredicate, StreamingToolExecutor};
use super::turn::{Signals, TurnState};
use crate::ToolPermissionContext;
use crate::permissions::CanUseTool;

/// Runs tool calls: holds the tool pool, the [`OrchestratorConfig`] and the host hooks
/// (permissions, observers, the schema-not-sent hint, the shell-class predicate). Cheap to
/// clone.
#[derive(Clone)]
pub struct Orchestrator {
    lookup: Arc<ToolLookup>,
    runner: Arc<CallRunner>,
    is_shell_tool: ShellToolPredicate,
}

impl fmt::Debug for Orchestrator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.lookup.tools().iter().map(|tool| tool.name()).collect();
        f.debug_struct("Orchestrator")
            .field("tools", &names)
            .field("config", &self.runner.config)
            .field("observers", &self.runner.observers.len())
            .field("schema_hint", &self.runner.schema_hint.is_some())
            .finish_non_exhaustive()
    }
}

impl Orchestrator {
    /// An orchestrator over `tools` (looked up by name or alias, SPEC §8.1), with no observers,
    /// no schema hint, and `Bash` as the only shell-class tool.
    pub fn new(tools: &[Arc<dyn DynTool>], config: OrchestratorConfig) -> Self {
        Self {
            lookup: Arc::new(ToolLookup::new(tools)),
            runner: Arc::new(CallRunner::new(config)),
            is_shell_tool: Arc::new(|name| name == "Bash"),
        }
    }

    fn edit_runner(mut self, change: impl FnOnce(&mut CallRunner)) -> Self {
        change(Arc::make_mut(&mut self.runner));
        self
    }

    /// Adds an observer; observers run in the order they were added.
    #[must_use]
    pub fn with_observer(self, observer: Arc<dyn ToolObserver>) -> Self {
        self.edit_runner(|runner| runner.observers.push(observer))
    }

    /// Sets the tools a call may still reach when no pool tool answers its name, but only
    /// through one of their aliases (SPEC §5.4 step 1: the reference looks in all base tools
    /// and keeps a match made by alias, so a renamed tool's old name keeps working).
    #[must_use]
    pub fn with_alias_fallback(mut self, tools: &[Arc<dyn DynTool>]) -> Self {
        Arc::make_mut(&mut self.lookup).set_alias_fallback(tools);
        self
    }

    /// Sets the permission rules and mode every call is checked against (SPEC §5.4 step 6,
    /// §6); the default is the default mode with no rules, where the tool's own
    /// `check_permissions` decides.
    #[must_use]
    pub fn with_permissions(self, permissions: ToolPermissionContext) -> Self {
        self.edit_runner(|runner| runner.permissions = permissions)
    }

    /// Sets the host's permission prompt, asked when the pipeline ends in "ask". Without one,
    /// such calls are refused with a message saying approval was needed.
    #[must_use]
    pub fn with_can_use_tool(self, host: Arc<dyn CanUseTool>) -> Self {
        self.edit_runner(|runner| runner.can_use_tool = Some(host))
    }

    /// Sets the provider of the schema-not-sent hint (SPEC §8.3): for a tool whose input failed
    /// to parse, the text appended inside the `<tool_use_error>` wrapper, or `None`. The text
    /// should start with its own blank line (`"\n\n..."`).
    #[must_use]
    pub fn with_schema_hint(
        self,
        hint: impl Fn(&dyn DynTool) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        let hint: SchemaHintFn = Arc::new(hint);
        self.edit_runner(|runner| runner.schema_hint = Some(hint))
    }

    /// Adds a `tower` layer around every call this orchestrator runs, past steps 1–3 of
    /// SPEC §5.4 (see [`super::middleware`]): the first layer added is the outermost. Layers
    /// are built once, here, and shared by every call.
    #[must_use]
    pub fn layer<L>(self, layer: L) -> Self
    where
        L: tower::Layer<super::middleware::ToolService> + Send + Sync + 'static,
        L::Service: tower::Service<
                super::middleware::ToolRequest,
                Response = CallOutcome,
                Error = tower::BoxError,
            > + Clone
            + Send
            + Sync
            + 'static,
        <L::Service as tower::Service<super::middleware::ToolRequest>>::Future: Send + 'static,
    {
        self.edit_runner(|runner| {
            runner.layers.push(super::middleware::wrap(layer));
            runner.stack = Some(super::middleware::stack(&runner.layers));
        })
    }

    /// Replaces the shell-class predicate (default: the name is exactly `Bash`).
    #[must_use]
    pub fn with_shell_tools(
        mut self,
        is_shell_tool: impl Fn(&str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.is_shell_tool = Arc::new(is_shell_tool);
        self
    }

    /// The tool pool.
    pub fn tools(&self) -> &[Arc<dyn DynTool>] {
        self.lookup.tools()
    }

    /// The configuration.
    pub fn config(&self) -> &OrchestratorConfig {
        &self.runner.config
    }

    /// The tool answering `name` (a primary name or an alias, exact and case-sensitive), as
    /// the pool's `find_tool_by_name` finds it but through a hash index, so the time does not
    /// grow with the pool (SPEC §8.1); then a tool of the alias fallback answering `name` as
    /// an alias ([`Orchestrator::with_alias_fallback`]).
    pub fn find_tool(&self, name: &str) -> Option<&Arc<dyn DynTool>> {
        self.lookup.find(name)
    }

    /// The batches `blocks` would run in (SPEC §5.1), honouring the lenient-input opt-out.
    pub fn partition(&self, blocks: &[ToolUseBlock]) -> Vec<Batch> {
        partition(blocks, &self.lookup, &self.runner.config)
    }

    /// Looks up and parses one block, as [`Orchestrator::partition`] does for each. The
    /// prepared call keeps the block ([`PreparedCall::block`]); its input is parsed where it
    /// is ([`DynTool::parse_input`](tool_sdk::DynTool::parse_input) borrows it), and copied
    /// only when it must change before the parse (the lenient or coercing opt-outs, the input
    /// policy's repairs) or when the tool keeps it whole (a tool defined at run time).
    pub fn prepare(&self, block: ToolUseBlock) -> PreparedCall {
        prepare(block, &self.lookup, &self.runner.config)
    }

    /// Runs one call, [`prepare`](Orchestrator::prepare)d from its `tool_use` block, through
    /// every outcome of SPEC §5.4, seeing `turn`'s state and stop signals, and returns exactly
    /// one result for its id. Panics inside become the call's error result. The call's progress
    /// reports go to `progress` as they happen (on the tool's task; the sink must not block),
    /// or are dropped when it is `None`.
    ///
    /// This is the door for hosts that run calls one at a time (a server answering
    /// `tools/call`); preparing first lets such a host look at the call (for instance at
    /// [`PreparedCall::is_concurrency_safe`]) without parsing its input twice. A model's whole
    /// message goes through [`Orchestrator::run_tools`] or [`Orchestrator::streaming`].
    ///
    /// ```
    /// # use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
    /// # use tool_sdk::ToolUseBlock;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let orchestrator = Orchestrator::new(&[], OrchestratorConfig::default());
    /// let block: ToolUseBlock = serde_json::from_value(serde_json::json!(
    ///     {"id": "toolu_1", "name": "Nope", "input": {}}
    /// )).unwrap();
    /// let call = orchestrator.prepare(block);
    /// let outcome = orchestrator.run_tool_use(call, &TurnState::default(), None).await;
    /// assert!(outcome.result.is_error);
    /// assert_eq!(outcome.result.tool_use_id, "toolu_1");
    /// # }
    /// ```
    pub async fn run_tool_use(
        &self,
        call: PreparedCall,
        turn: &TurnState,
        progress: Option<tool_sdk::context::ProgressSink>,
    ) -> CallOutcome {
        let signals = Signals::of(turn);
        self.run_with(call, Arc::new(turn.extensions.clone()), &signals, progress)
            .await
    }

    /// [`Orchestrator::run_tool_use`] with the call's host state and stop signals given as
    /// they are (the MCP server builds them per request, so there is no turn to copy from).
    pub(crate) async fn run_with(
        &self,
        call: PreparedCall,
        extensions: Arc<tool_sdk::Extensions>,
        signals: &Signals,
        progress: Option<tool_sdk::context::ProgressSink>,
    ) -> CallOutcome {
        self.runner.run(call, extensions, signals, progress).await
    }

    /// [`run_with`](Self::run_with) a call whose block the caller keeps (split from its
    /// [`PreparedCall`]): the block's input is read where it is, and is still the caller's
    /// when the run ends or is dropped.
    #[cfg(feature = "mcp-server")]
    pub(crate) async fn run_borrowed(
        &self,
        block: &ToolUseBlock,
        prepared: super::partition::Prepared,
        extensions: Arc<tool_sdk::Extensions>,
        signals: &Signals,
        progress: Option<tool_sdk::context::ProgressSink>,
    ) -> CallOutcome {
        self.runner
            .run_borrowed(block, prepared, extensions, signals, progress)
            .await
    }

    /// Runs every block of one assistant message (SPEC §5.2) and streams the updates.
    ///
    /// Blocks are batched once, up front ([`Orchestrator::partition`], SPEC §5.1). A
    /// concurrency-safe batch runs at most [`OrchestratorConfig::effective_concurrency`] calls
    /// at once, each in its own tokio task and each seeing the state from before the batch;
    /// results are streamed as calls finish, and afterwards the batch's context modifiers are
    /// applied in block order and one [`ToolUseUpdate::ContextChanged`](super::ToolUseUpdate)
    /// follows. Any other call runs alone; its modifier is applied at once and followed by a
    /// `ContextChanged`. Every block gets exactly one result, also when `turn.abort` or
    /// `turn.interrupt` fires.
    ///
    /// Calls start at once when this is called inside a tokio runtime, otherwise when the
    /// stream is first polled (which must be inside one: calls are tokio tasks).
    pub fn run_tools(&self, blocks: Vec<ToolUseBlock>, turn: TurnState) -> ToolUseStream {
        let batches = self.partition(&blocks);
        run::start(Arc::clone(&self.runner), batches, blocks, turn)
    }

    /// A streaming executor for one assistant response (SPEC §5.5). Called inside a tokio
    /// runtime, calls start as blocks are added; called outside one, they start when the
    /// [`updates`](StreamingToolExecutor::updates) are first polled inside one.
    pub fn streaming(&self, turn: TurnState) -> StreamingToolExecutor {
        streaming::start(
            Arc::clone(&self.lookup),
            Arc::clone(&self.runner),
            Arc::clone(&self.is_shell_tool),
            turn,
        )
    }
}
