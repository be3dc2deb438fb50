//! Running a model's batch of `tool_use` blocks (SPEC §5.2) and one call through every outcome
//! of SPEC §5.4.

use std::sync::Arc;

use futures::StreamExt;
use futures::stream;
use tokio::task::JoinHandle;
use tool_sdk::{
    CancellationToken, ContextModifier, DynTool, Extensions, PermissionResult, ToolResultBlock,
    ToolResultContent, ToolUseBlock, ToolUseContext, ValidationResult,
};

use super::messages;
use super::partition::{Prepared, PreparedCall, partition_tool_calls};

/// Default cap on calls running at once in a concurrency-safe batch (SPEC §5.3).
pub const DEFAULT_MAX_CONCURRENCY: usize = 10;

/// How the orchestrator runs batches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrchestratorConfig {
    /// Most calls of one concurrency-safe batch running at once; at least 1 (a 0 is read as
    /// [`DEFAULT_MAX_CONCURRENCY`], never as "run nothing").
    pub max_concurrency: usize,
}

impl Default for OrchestratorConfig {
    fn default() -> Self {
        Self {
            max_concurrency: DEFAULT_MAX_CONCURRENCY,
        }
    }
}

impl OrchestratorConfig {
    fn effective_concurrency(&self) -> usize {
        if self.max_concurrency == 0 {
            DEFAULT_MAX_CONCURRENCY
        } else {
            self.max_concurrency
        }
    }
}

/// What a turn's calls share and may change: the host state and the abort signal.
#[derive(Debug, Clone, Default)]
pub struct TurnState {
    /// Host state. Context modifiers returned by tools edit it (SPEC §5.2).
    pub extensions: Extensions,
    /// Fires to cancel the turn; calls not yet started answer with the cancel message.
    pub abort: CancellationToken,
}

/// Runs every block of one assistant message and returns one `tool_result` per block, in
/// block order (SPEC §5.2).
///
/// Blocks are batched by [`partition_tool_calls`]. A concurrency-safe batch runs with at most
/// `config.max_concurrency` calls at once, every call seeing the state from before the batch;
/// their context modifiers are applied afterwards in block order. Any other call runs alone
/// and its modifier is applied at once. Each call runs in its own tokio task, so a panicking
/// tool yields an error result for that call only. Must be called inside a tokio runtime.
pub async fn run_tools(
    blocks: &[ToolUseBlock],
    tools: &[Arc<dyn DynTool>],
    state: &mut TurnState,
    config: &OrchestratorConfig,
) -> Vec<ToolResultBlock> {
    let mut results = Vec::with_capacity(blocks.len());
    for batch in partition_tool_calls(blocks, tools) {
        let snapshot = Arc::new(state.extensions.clone());
        if batch.is_concurrency_safe {
            let outcomes: Vec<CallOutcome> = stream::iter(batch.calls)
                .map(|call| run_tool_use(call, Arc::clone(&snapshot), state.abort.clone()))
                .buffered(config.effective_concurrency())
                .collect()
                .await;
            for outcome in outcomes {
                if let Some(modifier) = outcome.context_modifier {
                    modifier.apply(&mut state.extensions);
                }
                results.push(outcome.result);
            }
        } else {
            for call in batch.calls {
                let snapshot = Arc::new(state.extensions.clone());
                let outcome = run_tool_use(call, snapshot, state.abort.clone()).await;
                if let Some(modifier) = outcome.context_modifier {
                    modifier.apply(&mut state.extensions);
                }
                results.push(outcome.result);
            }
        }
    }
    results
}

/// What one call produced.
#[derive(Debug)]
pub struct CallOutcome {
    /// The `tool_result` for the call's `tool_use` id.
    pub result: ToolResultBlock,
    /// The call's context modifier, if it succeeded with one.
    pub context_modifier: Option<ContextModifier>,
    /// Messages the tool asked to append after the result.
    pub new_messages: Vec<serde_json::Value>,
}

impl CallOutcome {
    fn error(id: &str, text: String) -> Self {
        Self {
            result: ToolResultBlock::error(id, text),
            context_modifier: None,
            new_messages: Vec::new(),
        }
    }
}

/// Runs one prepared call through SPEC §5.4: unknown tool, cancelled before start, invalid
/// input, `validate_input`, `check_permissions`, the call, and panics anywhere in them. Always
/// returns exactly one result for the call's id.
pub async fn run_tool_use(
    call: PreparedCall,
    extensions: Arc<Extensions>,
    abort: CancellationToken,
) -> CallOutcome {
    let PreparedCall {
        block,
        tool,
        parsed,
        ..
    } = call;
    let (Some(tool), Some(parsed)) = (tool, parsed) else {
        return CallOutcome::error(&block.id, messages::no_such_tool(&block.name));
    };
    if abort.is_cancelled() {
        return CallOutcome::error(&block.id, messages::CANCEL_MESSAGE.to_owned());
    }
    let parsed = match parsed {
        Ok(parsed) => parsed,
        Err(Prepared::Invalid(error)) => {
            let details = error.format_for(tool.name());
            return CallOutcome::error(&block.id, messages::input_validation_error(&details, ""));
        }
        Err(Prepared::Panicked(text)) => {
            return CallOutcome::error(
                &block.id,
                messages::error_calling_tool(tool.name(), &panicked(&text)),
            );
        }
    };
    let id = block.id.clone();
    let name = tool.name().to_owned();
    let task = AbortOnDrop(tokio::spawn(async move {
        let ctx = ToolUseContext::new(block.id.as_str(), abort, extensions);
        execute(tool, parsed, ctx).await
    }));
    match task.join().await {
        Ok(outcome) => outcome,
        Err(error) if error.is_panic() => {
            let text = super::panic_text(&*error.into_panic());
            CallOutcome::error(&id, messages::error_calling_tool(&name, &panicked(&text)))
        }
        Err(_) => CallOutcome::error(&id, messages::CANCEL_MESSAGE.to_owned()),
    }
}

fn panicked(text: &str) -> String {
    format!("the tool panicked: {text}")
}

async fn execute(
    tool: Arc<dyn DynTool>,
    mut parsed: Box<dyn tool_sdk::ToolCall>,
    ctx: ToolUseContext,
) -> CallOutcome {
    let id = ctx.tool_use_id().to_owned();
    if let ValidationResult::Invalid { message, .. } = parsed.validate_input(&ctx).await {
        return CallOutcome::error(&id, messages::tool_use_error(&message));
    }
    match parsed.check_permissions(&ctx).await {
        PermissionResult::Allow {
            updated_input: None,
        } => {}
        PermissionResult::Allow {
            updated_input: Some(input),
        } => match tool.parse_input(input) {
            Ok(updated) => parsed = updated,
            Err(error) => {
                let details = error.format_for(tool.name());
                return CallOutcome::error(&id, messages::input_validation_error(&details, ""));
            }
        },
        PermissionResult::Deny { message } => return CallOutcome::error(&id, message),
        PermissionResult::Ask { message } | PermissionResult::Passthrough { message } => {
            return CallOutcome::error(&id, messages::approval_unavailable(tool.name(), &message));
        }
    }
    match parsed.call(ctx).await {
        Ok(output) => {
            let content = if is_empty_content(&output.content) {
                ToolResultContent::Text(messages::empty_result(tool.name()))
            } else {
                output.content
            };
            CallOutcome {
                result: ToolResultBlock::success(id, content),
                context_modifier: output.context_modifier,
                new_messages: output.new_messages,
            }
        }
        Err(error) => CallOutcome::error(&id, error.to_model_text()),
    }
}

/// SPEC §9 step 1: empty or whitespace text, an empty array, or only empty text blocks.
fn is_empty_content(content: &ToolResultContent) -> bool {
    match content {
        ToolResultContent::Text(text) => text.trim().is_empty(),
        ToolResultContent::Blocks(blocks) => blocks.iter().all(
            |block| matches!(block, tool_sdk::ResultBlock::Text { text } if text.trim().is_empty()),
        ),
    }
}

/// A task handle that aborts the task when dropped, so no call outlives a dropped `run_tools`.
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> AbortOnDrop<T> {
    async fn join(mut self) -> Result<T, tokio::task::JoinError> {
        (&mut self.0).await
    }
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
