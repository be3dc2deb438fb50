//! [`Orchestrator`]: the tools, the configuration and the host hooks that every call of a turn
//! shares, and [`TurnState`], what the host hands to a turn.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use tool_sdk::{CancellationToken, DynTool, Extensions, ToolUseBlock};

use super::config::OrchestratorConfig;
use super::observer::ToolObserver;
use super::partition::{Batch, PreparedCall, partition_by, prepare_call_by};
use super::tool_use::CallOutcome;
use crate::permissions::{CanUseTool, ToolPermissionContext};

/// Gives the schema-not-sent hint for a tool whose input failed to parse (SPEC §8.3), or
/// `None`. The text is appended inside the `<tool_use_error>` wrapper, so it should start with
/// its own blank line (`"\n\n..."`).
pub type SchemaHintFn = Arc<dyn Fn(&dyn DynTool) -> Option<String> + Send + Sync>;

/// Says whether a tool (by primary name) is shell-class: its error results cancel the running
/// siblings in the streaming executor (SPEC §5.5; default: the tool named `Bash`).
pub type ShellToolPredicate = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// What the host hands to a turn: the state tools may read and change, and the two stop
/// signals (SPEC §5.5).
#[derive(Debug, Clone, Default)]
pub struct TurnState {
    /// Host state. Context modifiers returned by tools edit it (SPEC §5.2).
    pub extensions: Extensions,
    /// A hard abort. Calls not yet started answer with the cancel message (SPEC §5.4 step 2);
    /// running calls are stopped and answer with the reject message (SPEC §5.5), whatever
    /// their `interrupt_behavior`.
    pub abort: CancellationToken,
    /// A user interrupt (the user sent a new message). Calls not yet started answer with the
    /// cancel message; running calls whose `interrupt_behavior` is `Cancel` are stopped with
    /// the reject message; running `Block` calls finish normally (SPEC §5.5).
    pub interrupt: CancellationToken,
}

/// Runs tool calls: holds the tool pool, the [`OrchestratorConfig`] and the host hooks
/// (observers, the schema-not-sent hint, the shell-class predicate). Cheap to clone.
#[derive(Clone)]
pub struct Orchestrator {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) tools: Vec<Arc<dyn DynTool>>,
    /// Primary names and aliases to positions in `tools`; the first tool answering a name
    /// wins, as in a scan (SPEC §8.1). Hashed with foldhash: names are short and the table is
    /// built once from the pool, so SipHash's flooding resistance buys nothing here and costs
    /// about 15 ns a lookup.
    pub(crate) index: HashMap<String, usize, foldhash::fast::RandomState>,
    /// Tools outside the pool that answer only through an alias (SPEC §5.4 step 1).
    pub(crate) alias_fallback: Vec<Arc<dyn DynTool>>,
    /// The rules and mode every call is checked against (SPEC §6).
    pub(crate) permissions: ToolPermissionContext,
    /// The host's permission prompt, asked when the pipeline ends in "ask".
    pub(crate) can_use_tool: Option<Arc<dyn CanUseTool>>,
    pub(crate) config: OrchestratorConfig,
    pub(crate) observers: Vec<Arc<dyn ToolObserver>>,
    pub(crate) schema_hint: Option<SchemaHintFn>,
    pub(crate) is_shell_tool: ShellToolPredicate,
}

impl Inner {
    pub(crate) fn find_tool(&self, name: &str) -> Option<&Arc<dyn DynTool>> {
        match self.index.get(name) {
            Some(&position) => Some(&self.tools[position]),
            None => self
                .alias_fallback
                .iter()
                .find(|tool| tool.meta().aliases.iter().any(|alias| alias == name)),
        }
    }
}

impl fmt::Debug for Orchestrator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.inner.tools.iter().map(|tool| tool.name()).collect();
        f.debug_struct("Orchestrator")
            .field("tools", &names)
            .field("config", &self.inner.config)
            .field("observers", &self.inner.observers.len())
            .field("schema_hint", &self.inner.schema_hint.is_some())
            .finish_non_exhaustive()
    }
}

impl Orchestrator {
    /// An orchestrator over `tools` (looked up by name or alias, SPEC §8.1), with no observers,
    /// no schema hint, and `Bash` as the only shell-class tool.
    pub fn new(tools: &[Arc<dyn DynTool>], config: OrchestratorConfig) -> Self {
        let mut index =
            HashMap::with_capacity_and_hasher(tools.len(), foldhash::fast::RandomState::default());
        for (position, tool) in tools.iter().enumerate() {
            let meta = tool.meta();
            for name in std::iter::once(&meta.name).chain(&meta.aliases) {
                index.entry(name.to_string()).or_insert(position);
            }
        }
        Self {
            inner: Arc::new(Inner {
                tools: tools.to_vec(),
                index,
                alias_fallback: Vec::new(),
                permissions: ToolPermissionContext::default(),
                can_use_tool: None,
                config,
                observers: Vec::new(),
                schema_hint: None,
                is_shell_tool: Arc::new(|name| name == "Bash"),
            }),
        }
    }

    fn edit(mut self, change: impl FnOnce(&mut Inner)) -> Self {
        match Arc::get_mut(&mut self.inner) {
            Some(inner) => change(inner),
            None => {
                let old = &self.inner;
                let mut inner = Inner {
                    tools: old.tools.clone(),
                    index: old.index.clone(),
                    alias_fallback: old.alias_fallback.clone(),
                    permissions: old.permissions.clone(),
                    can_use_tool: old.can_use_tool.clone(),
                    config: old.config.clone(),
                    observers: old.observers.clone(),
                    schema_hint: old.schema_hint.clone(),
                    is_shell_tool: Arc::clone(&old.is_shell_tool),
                };
                change(&mut inner);
                self.inner = Arc::new(inner);
            }
        }
        self
    }

    /// Adds an observer; observers run in the order they were added.
    #[must_use]
    pub fn with_observer(self, observer: Arc<dyn ToolObserver>) -> Self {
        self.edit(|inner| inner.observers.push(observer))
    }

    /// Sets the tools a call may still reach when no pool tool answers its name, but only
    /// through one of their aliases (SPEC §5.4 step 1: the reference looks in all base tools
    /// and keeps a match made by alias, so a renamed tool's old name keeps working).
    #[must_use]
    pub fn with_alias_fallback(self, tools: &[Arc<dyn DynTool>]) -> Self {
        let tools = tools.to_vec();
        self.edit(|inner| inner.alias_fallback = tools)
    }

    /// Sets the permission rules and mode every call is checked against (SPEC §5.4 step 6,
    /// §6); the default is the default mode with no rules, where the tool's own
    /// `check_permissions` decides.
    #[must_use]
    pub fn with_permissions(self, permissions: ToolPermissionContext) -> Self {
        self.edit(|inner| inner.permissions = permissions)
    }

    /// Sets the host's permission prompt, asked when the pipeline ends in "ask". Without one,
    /// such calls are refused with a message saying approval was needed.
    #[must_use]
    pub fn with_can_use_tool(self, host: Arc<dyn CanUseTool>) -> Self {
        self.edit(|inner| inner.can_use_tool = Some(host))
    }

    /// Sets the provider of the schema-not-sent hint (SPEC §8.3).
    #[must_use]
    pub fn with_schema_hint(self, hint: SchemaHintFn) -> Self {
        self.edit(|inner| inner.schema_hint = Some(hint))
    }

    /// Replaces the shell-class predicate (default: the name is exactly `Bash`).
    #[must_use]
    pub fn with_shell_tools(self, is_shell_tool: ShellToolPredicate) -> Self {
        self.edit(|inner| inner.is_shell_tool = is_shell_tool)
    }

    /// The tool pool.
    pub fn tools(&self) -> &[Arc<dyn DynTool>] {
        &self.inner.tools
    }

    /// The configuration.
    pub fn config(&self) -> &OrchestratorConfig {
        &self.inner.config
    }

    /// The tool answering `name` (a primary name or an alias, exact and case-sensitive), as
    /// [`crate::find_tool_by_name`] finds it but through a hash index, so the time does not
    /// grow with the pool (SPEC §8.1); then a tool of the alias fallback answering `name` as
    /// an alias ([`Orchestrator::with_alias_fallback`]).
    pub fn find_tool(&self, name: &str) -> Option<&Arc<dyn DynTool>> {
        self.inner.find_tool(name)
    }

    /// The batches `blocks` would run in (SPEC §5.1), honouring the lenient-input opt-out.
    pub fn partition(&self, blocks: &[ToolUseBlock]) -> Vec<Batch> {
        partition_by(
            blocks,
            |name| self.find_tool(name).cloned(),
            &self.inner.config,
        )
    }

    /// Looks up and parses one block, as [`Orchestrator::partition`] does for each.
    pub fn prepare(&self, block: &ToolUseBlock) -> PreparedCall {
        prepare_call_by(
            block,
            |name| self.find_tool(name).cloned(),
            &self.inner.config,
        )
    }

    /// Runs one block through every outcome of SPEC §5.4, seeing `turn`'s state and stop
    /// signals, and returns exactly one result for its id. Progress reports are dropped; use
    /// [`Orchestrator::run_tools`] to receive them. Panics inside become the call's error result.
    pub async fn run_tool_use(&self, block: &ToolUseBlock, turn: &TurnState) -> CallOutcome {
        let call = self.prepare(block);
        let signals = Signals::of(turn);
        self.inner
            .run_prepared(call, Arc::new(turn.extensions.clone()), &signals, None)
            .await
    }

    pub(crate) fn is_shell_tool(&self, name: &str) -> bool {
        let predicate = &self.inner.is_shell_tool;
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| predicate(name))).unwrap_or(false)
    }
}

/// The stop signals one call watches.
#[derive(Clone, Default)]
pub(crate) struct Signals {
    pub(crate) abort: CancellationToken,
    pub(crate) interrupt: CancellationToken,
    pub(crate) sibling: Option<SiblingAbort>,
}

impl Signals {
    pub(crate) fn of(turn: &TurnState) -> Self {
        Self {
            abort: turn.abort.clone(),
            interrupt: turn.interrupt.clone(),
            sibling: None,
        }
    }
}

/// Fired when a shell-class call fails in the streaming executor; carries the failed call's
/// `NAME(summary)`.
#[derive(Clone, Default)]
pub(crate) struct SiblingAbort {
    pub(crate) token: CancellationToken,
    pub(crate) description: Arc<OnceLock<Option<String>>>,
}

impl SiblingAbort {
    pub(crate) fn fire(&self, description: Option<String>) {
        let _ = self.description.set(description);
        self.token.cancel();
    }

    pub(crate) fn message(&self) -> String {
        super::messages::sibling_errored(self.description.get().cloned().flatten().as_deref())
    }
}
