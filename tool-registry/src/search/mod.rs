//! Tool search and deferred loading (SPEC §3, §4, §8.2, §8.3).
//!
//! Deferred tools (MCP tools, and tools declared `should_defer`) are sent to the model by name
//! only; the model loads their definitions by calling the [`ToolSearch`] tool, which answers with
//! `tool_reference` blocks. This module holds:
//!
//! - [`is_deferred_tool`] (SPEC §4.1) with the reference's build flags as [`DeferralRules`];
//! - the [`ToolSearch`] tool, the [`SearchState`] a host puts into the host state so the tool
//!   sees the pool, and the search itself: `select:` and keyword ranking over a prebuilt
//!   [`SearchIndex`] (SPEC §3.2–§3.6), result mapping (§3.7), the [`DescriptionCache`] (§3.8);
//! - [`ToolSearchConfig`] / [`ToolSearchMode`] (SPEC §4.2, §4.3), the definitive gate and the
//!   auto threshold with a pluggable [`TokenCounter`] ([`ToolSearchGate`], SPEC §4.4, §4.5),
//!   and the tool list of a request ([`request_tools`]);
//! - the deferred-tools delta and the `<available-deferred-tools>` block (SPEC §8.2, §4.4);
//! - the schema-not-sent hint (SPEC §8.3).
//!
//! # How a host opts in
//!
//! `#[tool]` registers ToolSearch like any tool, but [`ToolRegistry::collect`](crate::ToolRegistry::collect)
//! leaves it out (it is `#[tool(opt_in)]`): in the reference ToolSearch is part of the base tools only when the
//! optimistic gate (SPEC §4.3) is on, and that gate depends on host configuration. A host that
//! wants search calls [`insert_tool_search`] on its tool list with its [`ToolSearchConfig`], and
//! inserts a [`SearchState`] for the pool into the host state:
//!
//! ```
//! use std::sync::Arc;
//! use tool_registry::search::{SearchState, ToolSearchConfig, insert_tool_search};
//! use tool_sdk::{CancellationToken, Extensions, ToolUseContext};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let config = ToolSearchConfig::default();
//! let mut tools = Vec::new();
//! assert!(insert_tool_search(&mut tools, &config));
//! let state = SearchState::new(tools.clone());
//! let ctx = ToolUseContext::new("toolu_1", CancellationToken::new(), Arc::new(Extensions::new().with(state)));
//! let call = tools[0].parse_input(serde_json::json!({"query": "select:ToolSearch"})).unwrap();
//! let output = call.call(&ctx).await.unwrap();
//! assert_eq!(serde_json::to_value(&output.content).unwrap(),
//!            serde_json::json!([{"type": "tool_reference", "tool_name": "ToolSearch"}]));
//! # }
//! ```

mod cache;
mod config;
mod deferral;
mod delta;
mod gate;
mod hint;
mod history;
mod index;
mod state;
mod tokens;
mod tool;

use std::cmp::Ordering;
use std::sync::Arc;

use tool_sdk::DynTool;

pub use cache::{DescriptionCache, utf16_cmp};
pub use config::{ApiProvider, ENV_VARS, ToolSearchConfig, ToolSearchMode, parse_auto_percentage};
pub use deferral::{DeferralRules, TOOL_SEARCH_NAME, is_deferred_tool};
pub use delta::{
    DeferredToolsDelta, announcements, available_deferred_tools, deferred_tools_delta,
};
pub use gate::{RequestTools, TokenCounter, ToolSearchGate, deferred_chars, request_tools};
pub use hint::schema_not_sent_hint;
pub use history::{discovered_tool_names, strip_tool_references};
pub use index::{IndexEntry, SearchIndex};
pub use state::{NO_MATCH_TEXT, SearchState, ToolSearchOutput, select_names};
pub use tokens::{ParsedToolName, is_word_byte, js_trim, parse_tool_name};
pub use tool::{MISSING_STATE, MaxResults, ToolSearch, tool_search_prompt, tool_search_tool};

/// Adds the ToolSearch tool ([`tool_search_tool`]) to `tools` when the optimistic gate of
/// `config` is on (SPEC §4.3) and no tool answers to `ToolSearch` yet. It goes where the pool
/// collation puts it among the leading built-in tools (before the first MCP tool, SPEC §7), so
/// a sorted pool stays sorted. Returns `true` when it was added.
pub fn insert_tool_search(tools: &mut Vec<Arc<dyn DynTool>>, config: &ToolSearchConfig) -> bool {
    if !config.is_enabled_optimistic()
        || tools
            .iter()
            .any(|tool| tool.meta().matches_name(TOOL_SEARCH_NAME))
    {
        return false;
    }
    let at = tools
        .iter()
        .position(|tool| {
            tool.name().starts_with("mcp__")
                || tool.meta().is_mcp
                || crate::pool::compare_tool_names(tool.name(), TOOL_SEARCH_NAME)
                    == Ordering::Greater
        })
        .unwrap_or(tools.len());
    tools.insert(at, tool_search_tool(config));
    true
}
