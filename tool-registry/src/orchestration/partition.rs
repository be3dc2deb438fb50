//! Splitting a model's `tool_use` blocks into batches (SPEC §5.1).

use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use tool_sdk::{DynTool, InputError, ToolCall, ToolUseBlock};

use super::config::OrchestratorConfig;
use crate::pool::find_tool_by_name;

/// One `tool_use` block, looked up and parsed once.
pub struct PreparedCall {
    /// The block as the model sent it.
    pub block: ToolUseBlock,
    /// The tool it names, if any answers to that name or alias.
    pub tool: Option<Arc<dyn DynTool>>,
    /// The parsed call, or why the input was refused (`None` when there is no tool).
    pub parsed: Option<Result<Box<dyn ToolCall>, Prepared>>,
    /// Whether this call may run alongside other concurrency-safe calls.
    pub is_concurrency_safe: bool,
}

/// Why a call could not be prepared.
#[derive(Debug)]
pub enum Prepared {
    /// The input does not fit the schema.
    Invalid(InputError),
    /// Parsing panicked; the payload text.
    Panicked(String),
}

impl std::fmt::Debug for PreparedCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedCall")
            .field("id", &self.block.id)
            .field("name", &self.block.name)
            .field("is_concurrency_safe", &self.is_concurrency_safe)
            .finish_non_exhaustive()
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
/// [`partition_tool_calls_with`] for the lenient opt-out.
pub fn partition_tool_calls(blocks: &[ToolUseBlock], tools: &[Arc<dyn DynTool>]) -> Vec<Batch> {
    partition_tool_calls_with(blocks, tools, &OrchestratorConfig::default())
}

/// [`partition_tool_calls`], parsing the input of the tools in
/// `config.lenient_input_tools` leniently (unknown root keys dropped).
pub fn partition_tool_calls_with(
    blocks: &[ToolUseBlock],
    tools: &[Arc<dyn DynTool>],
    config: &OrchestratorConfig,
) -> Vec<Batch> {
    partition_by(
        blocks,
        |name| find_tool_by_name(tools, name).cloned(),
        config,
    )
}

pub(crate) fn partition_by(
    blocks: &[ToolUseBlock],
    find: impl Fn(&str) -> Option<Arc<dyn DynTool>>,
    config: &OrchestratorConfig,
) -> Vec<Batch> {
    let mut batches: Vec<Batch> = Vec::new();
    for block in blocks {
        let call = prepare_call_by(block, &find, config);
        match batches.last_mut() {
            Some(last) if call.is_concurrency_safe && last.is_concurrency_safe => {
                last.calls.push(call)
            }
            _ => batches.push(Batch {
                is_concurrency_safe: call.is_concurrency_safe,
                calls: vec![call],
            }),
        }
    }
    batches
}

/// Looks up and parses one block (the per-block step of [`partition_tool_calls_with`]).
pub fn prepare_call(
    block: &ToolUseBlock,
    tools: &[Arc<dyn DynTool>],
    config: &OrchestratorConfig,
) -> PreparedCall {
    prepare_call_by(
        block,
        |name| find_tool_by_name(tools, name).cloned(),
        config,
    )
}

pub(crate) fn prepare_call_by(
    block: &ToolUseBlock,
    find: impl Fn(&str) -> Option<Arc<dyn DynTool>>,
    config: &OrchestratorConfig,
) -> PreparedCall {
    let tool = find(&block.name);
    let parsed = tool.as_ref().map(|tool| {
        let mut input = block.input.clone();
        if config.lenient_input_tools.contains(tool.name()) {
            drop_unknown_keys(&mut input, tool.input_schema());
        }
        match catch_unwind(AssertUnwindSafe(|| tool.parse_input(input))) {
            Ok(Ok(call)) => Ok(call),
            Ok(Err(error)) => Err(Prepared::Invalid(error)),
            Err(payload) => Err(Prepared::Panicked(crate::orchestration::panic_text(
                &*payload,
            ))),
        }
    });
    let is_concurrency_safe = match &parsed {
        Some(Ok(call)) => {
            catch_unwind(AssertUnwindSafe(|| call.is_concurrency_safe())).unwrap_or(false)
        }
        _ => false,
    };
    PreparedCall {
        block: block.clone(),
        tool,
        parsed,
        is_concurrency_safe,
    }
}

/// Removes the root keys of `input` that `schema` does not list (the lenient opt-out).
pub(crate) fn drop_unknown_keys(input: &mut serde_json::Value, schema: &serde_json::Value) {
    if let serde_json::Value::Object(map) = input {
        let known: Vec<&str> = tool_sdk::schema::root_property_names(schema).collect();
        map.retain(|key, _| known.contains(&key.as_str()));
    }
}

/// A human-readable plan, one line per batch:
/// `batch 1: concurrent [Glob toolu_1, Grep toolu_2]` or `batch 2: serial [Edit toolu_3]`.
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
