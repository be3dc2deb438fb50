//! A served call's answer: its `tool_result` as an MCP `CallToolResult` (content blocks,
//! `structuredContent` when the tool lists an output schema), or the JSON-RPC error the call
//! asked for instead.

use std::sync::{Arc, Mutex};

use rmcp::ErrorData;
use rmcp::model::CallToolResult;
use serde_json::Value;
use tool_sdk::{DynTool, Extensions};

use super::served_call::ServedCall;
use super::{Served, StructuredContentStore, content};
use crate::orchestration::CallOutcome;

/// What a call's answer is made from, besides its outcome.
pub(crate) struct Answered {
    /// The host state of the call's session, which its context modifier edits (`None` for a
    /// stateless request: the modifier does not outlive it).
    pub(crate) host_state: Option<Arc<Mutex<Extensions>>>,
    pub(crate) served_call: ServedCall,
    /// Where the tool's structured content goes: `Some` exactly for a tool that lists an
    /// output schema (and is answered with structured content).
    pub(crate) store: Option<Arc<StructuredContentStore>>,
    /// The tool called.
    pub(crate) tool: Arc<dyn DynTool>,
}

impl Answered {
    /// The call's answer for `outcome`; applies the call's context modifier to its session.
    ///
    /// # Errors
    /// The JSON-RPC error the call set ([`ServedCall::require`], [`ServedCall::fail`]).
    pub(crate) async fn answer(
        self,
        served: &Served,
        outcome: CallOutcome,
    ) -> Result<CallToolResult, ErrorData> {
        let Self {
            host_state,
            served_call,
            store,
            tool,
        } = self;
        let canonical = tool.name();
        if let (Some(modifier), Some(host_state)) = (outcome.context_modifier, host_state) {
            modifier.apply(&mut host_state.lock().unwrap_or_else(|e| e.into_inner()));
        }
        let result = outcome.result;
        if let Some(error) = served_call.take_error() {
            return Err(error);
        }
        if result.is_error {
            return Ok(content::error_result(content::error_text(&result)));
        }
        let block_id = &result.tool_use_id;
        let has_output_schema = store.is_some();
        // A result too large for the persistence limit arrives as a preview of a saved file;
        // the structured content is still the whole result, read back from that file.
        let persisted = if has_output_schema {
            content::persisted_text(
                &result.content,
                served.orchestrator.config().result_dir.as_deref(),
                block_id,
            )
            .await
        } else {
            None
        };
        let structured = if has_output_schema {
            store
                .and_then(|store| store.take(block_id))
                .or_else(|| match &persisted {
                    Some(text) => serde_json::from_str::<Value>(text)
                        .ok()
                        .filter(Value::is_object),
                    None => content::structured_from_text(&result.content),
                })
        } else {
            None
        };
        if structured.is_none() && has_output_schema {
            // What a tool advertises, it returns: a listed `outputSchema` promises
            // `structuredContent` (clients check it), so a result that cannot be one is an error.
            return Ok(content::error_result(format!(
                "`{canonical}` declares an output schema (MCP outputSchema) but its result is not \
                 a JSON object, so it cannot be answered as structured content. Make the tool \
                 return an object, or stop declaring the schema (a tool that overrides \
                 map_result declares none unless it overrides output_schema too)."
            )));
        }
        let blocks = served_call
            .take_content()
            .unwrap_or_else(|| content::content_blocks(result.content));
        Ok(content::success_result(
            blocks,
            structured,
            persisted.is_some(),
        ))
    }
}
