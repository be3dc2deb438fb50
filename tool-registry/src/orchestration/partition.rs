//! Splitting a model's `tool_use` blocks into batches (SPEC §5.1).

use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use tool_sdk::{DynTool, InputError, ToolCall, ToolUseBlock};

use super::config::OrchestratorConfig;
use super::lookup::ToolLookup;
use crate::messages;

/// One `tool_use` block, looked up and parsed once.
pub struct PreparedCall {
    /// The block as the model sent it.
    pub(crate) block: ToolUseBlock,
    /// What the lookup and the parse found.
    pub(crate) prepared: Prepared,
}

/// What looking up and parsing one block found (SPEC §5.4 steps 1 and 3).
pub enum Prepared {
    /// No tool answers to the block's name or alias.
    Unknown,
    /// The input does not fit the tool's schema.
    Invalid {
        /// The tool the block names.
        tool: Arc<dyn DynTool>,
        /// What is wrong with the input.
        error: InputError,
    },
    /// Parsing the input panicked.
    Panicked {
        /// The tool the block names.
        tool: Arc<dyn DynTool>,
        /// The panic payload's text.
        message: String,
    },
    /// The call is parsed and may run.
    Ready {
        /// The tool the block names.
        tool: Arc<dyn DynTool>,
        /// The parsed call.
        call: Box<dyn ToolCall>,
        /// Whether the tool says this input may run alongside other concurrency-safe calls
        /// (a panic there counts as no).
        is_concurrency_safe: bool,
    },
}

impl Prepared {
    /// The tool the block names, unless it is unknown.
    pub(crate) fn tool(&self) -> Option<&Arc<dyn DynTool>> {
        match self {
            Prepared::Unknown => None,
            Prepared::Invalid { tool, .. }
            | Prepared::Panicked { tool, .. }
            | Prepared::Ready { tool, .. } => Some(tool),
        }
    }
}

impl PreparedCall {
    /// The `tool_use` block as the model sent it (its id, name and input).
    pub fn block(&self) -> &ToolUseBlock {
        &self.block
    }

    /// The tool the block names, unless it is unknown.
    pub fn tool(&self) -> Option<&Arc<dyn DynTool>> {
        self.prepared.tool()
    }

    /// Whether this call may run alongside other concurrency-safe calls: only a ready call
    /// whose tool says so.
    pub fn is_concurrency_safe(&self) -> bool {
        matches!(
            self.prepared,
            Prepared::Ready {
                is_concurrency_safe: true,
                ..
            }
        )
    }
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unknown => f.write_str("Unknown"),
            Self::Invalid { tool, error } => f
                .debug_struct("Invalid")
                .field("tool", &tool.name())
                .field("error", error)
                .finish(),
            Self::Panicked { tool, message } => f
                .debug_struct("Panicked")
                .field("tool", &tool.name())
                .field("message", message)
                .finish(),
            Self::Ready {
                tool,
                is_concurrency_safe,
                ..
            } => f
                .debug_struct("Ready")
                .field("tool", &tool.name())
                .field("is_concurrency_safe", is_concurrency_safe)
                .finish_non_exhaustive(),
        }
    }
}

impl std::fmt::Debug for PreparedCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedCall")
            .field("id", &self.block.id)
            .field("name", &self.block.name)
            .field("prepared", &self.prepared)
            .finish()
    }
}

/// A run of calls that execute together: several concurrency-safe calls, or one other call.
#[derive(Debug)]
pub struct Batch {
    /// `true` when every call in the batch is concurrency-safe.
    pub is_concurrency_safe: bool,
    /// The calls, in block order.
    pub calls: Vec<PreparedCall>,
}

/// Looks up and parses every block once, then groups them (SPEC §5.1): a call is
/// concurrency-safe only if its tool exists, its input parses, and the tool says so for that
/// input (a panic there counts as unsafe). Consecutive safe calls share a batch; every other
/// call is a batch of its own. Block order is kept. Every tool parses strictly; see
/// `partition_tool_calls_with` for the lenient opt-out, and
/// [`Orchestrator::partition`](crate::Orchestrator::partition) for the same over an
/// orchestrator's pool and alias fallback.
// Used by the crate's tests and `test_support` only.
#[cfg_attr(not(any(test, feature = "test-support")), allow(dead_code))]
pub fn partition_tool_calls(blocks: &[ToolUseBlock], tools: &[Arc<dyn DynTool>]) -> Vec<Batch> {
    partition_tool_calls_with(blocks, tools, &OrchestratorConfig::default())
}

/// [`partition_tool_calls`], parsing the input of the tools in
/// `config.lenient_input_tools` leniently (unknown root keys dropped).
// Used by the crate's tests and `test_support` only.
#[cfg_attr(not(any(test, feature = "test-support")), allow(dead_code))]
pub(crate) fn partition_tool_calls_with(
    blocks: &[ToolUseBlock],
    tools: &[Arc<dyn DynTool>],
    config: &OrchestratorConfig,
) -> Vec<Batch> {
    partition(blocks, &ToolLookup::new(tools), config)
}

pub(crate) fn partition(
    blocks: &[ToolUseBlock],
    lookup: &ToolLookup,
    config: &OrchestratorConfig,
) -> Vec<Batch> {
    let mut batches: Vec<Batch> = Vec::new();
    for block in blocks {
        let call = prepare(block.clone(), lookup, config);
        let safe = call.is_concurrency_safe();
        match batches.last_mut() {
            Some(last) if safe && last.is_concurrency_safe => last.calls.push(call),
            _ => batches.push(Batch {
                is_concurrency_safe: safe,
                calls: vec![call],
            }),
        }
    }
    batches
}

/// Looks up and parses one block: the per-block step of [`partition`]. The block is kept in
/// the prepared call and its input parsed where it is; only a tool under the lenient or
/// coercing opt-outs, which change the input before the parse, gets a copy here.
pub(crate) fn prepare(
    block: ToolUseBlock,
    lookup: &ToolLookup,
    config: &OrchestratorConfig,
) -> PreparedCall {
    let Some(tool) = lookup.find(&block.name).cloned() else {
        return PreparedCall {
            block,
            prepared: Prepared::Unknown,
        };
    };
    let adjusted = adjusted_input(&block.input, &*tool, config);
    let input = adjusted.as_ref().unwrap_or(&block.input);
    let prepared = match catch_unwind(AssertUnwindSafe(|| tool.parse_input(input))) {
        Ok(Ok(call)) => {
            let is_concurrency_safe =
                catch_unwind(AssertUnwindSafe(|| call.is_concurrency_safe())).unwrap_or(false);
            Prepared::Ready {
                tool,
                call,
                is_concurrency_safe,
            }
        }
        Ok(Err(error)) => Prepared::Invalid { tool, error },
        Err(payload) => Prepared::Panicked {
            tool,
            message: messages::panic_text(&*payload),
        },
    };
    PreparedCall { block, prepared }
}

/// The input `tool` parses under the lenient and coercing opt-outs, when either applies to it
/// (unknown root keys dropped, mistyped values coerced); `None` to parse `input` as sent.
pub(crate) fn adjusted_input(
    input: &serde_json::Value,
    tool: &dyn DynTool,
    config: &OrchestratorConfig,
) -> Option<serde_json::Value> {
    let lenient = config.lenient_input_tools.contains(tool.name());
    let coerces = config.coerces(tool.name());
    if !lenient && !coerces {
        return None;
    }
    let mut input = input.clone();
    if lenient {
        drop_unknown_keys(&mut input, tool.input_schema());
    }
    if coerces {
        tool_sdk::input::coerce::coerce(&mut input, tool.input_schema());
    }
    Some(input)
}

/// Removes the root keys of `input` that `schema` does not list (the lenient opt-out).
pub(crate) fn drop_unknown_keys(input: &mut serde_json::Value, schema: &serde_json::Value) {
    if let serde_json::Value::Object(map) = input {
        let known: Vec<&str> = tool_sdk::schema::root_property_names(schema).collect();
        map.retain(|key, _| known.contains(&key.as_str()));
    }
}

impl Batch {
    /// A human-readable plan, one line per batch:
    /// `batch 1: concurrent [Glob toolu_1, Grep toolu_2]` or `batch 2: serial [Edit toolu_3]`.
    pub fn describe_all(batches: &[Batch]) -> String {
        describe_batches(batches)
    }
}

/// [`Batch::describe_all`].
pub fn describe_batches(batches: &[Batch]) -> String {
    let mut text = String::new();
    for (index, batch) in batches.iter().enumerate() {
        let mode = if batch.is_concurrency_safe {
            "concurrent"
        } else {
            "serial"
        };
        let calls: Vec<String> = batch
            .calls
            .iter()
            .map(|call| format!("{} {}", call.block.name, call.block.id))
            .collect();
        let _ = writeln!(text, "batch {}: {mode} [{}]", index + 1, calls.join(", "));
    }
    text
}
