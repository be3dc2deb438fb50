//! Tool search and deferred loading (SPEC §3, §4, §8.2, §8.3).
//!
//! Deferred tools (MCP tools, and tools declared `should_defer`) are sent to the model by name
//! only; the model loads their definitions by calling the [`ToolSearch`] tool, which answers with
//! `tool_reference` blocks. This module holds:
//!
//! - which tools are deferred (SPEC §4.1, [`DeferralRules::is_deferred`]), with the reference's
//!   build flags as [`DeferralRules`];
//! - the [`ToolSearch`] tool, the [`SearchState`] a host puts into the host state so the tool
//!   sees the pool, and the search itself: `select:` and keyword ranking over a prebuilt
//!   index (SPEC §3.2–§3.6), result mapping (§3.7), the [`DescriptionCache`] (§3.8);
//! - [`ToolSearchConfig`] / [`ToolSearchMode`] (SPEC §4.2, §4.3), the definitive gate and the
//!   auto threshold with a pluggable [`TokenCounter`] ([`ToolSearchGate`], SPEC §4.4, §4.5),
//!   and the tool list of a request ([`RequestTools::choose`]);
//! - the deferred-tools delta and the `<available-deferred-tools>` block (SPEC §8.2, §4.4);
//! - the schema-not-sent hint ([`schema_not_sent_hint`], SPEC §8.3), which a host gives the
//!   orchestrator with `Orchestrator::with_schema_hint`.
//!
//! # How a host opts in
//!
//! `#[tool]` registers ToolSearch like any tool, but [`ToolRegistry::collect`](crate::ToolRegistry::collect)
//! leaves it out (it is `#[tool(opt_in)]`): in the reference ToolSearch is part of the base tools only when the
//! optimistic gate (SPEC §4.3) is on, and that gate depends on host configuration. A host that
//! wants search calls [`ToolSearchConfig::insert_tool_search`] on its tool list, and
//! inserts a [`SearchState`] for the pool into the host state:
//!
//! ```
//! use std::sync::Arc;
//! use tool_registry::search::{SearchState, ToolSearchConfig};
//! use tool_sdk::{CancellationToken, Extensions, ToolUseContext};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let config = ToolSearchConfig::default();
//! let mut tools = Vec::new();
//! assert!(config.insert_tool_search(&mut tools));
//! let state = SearchState::new(tools.clone());
//! let ctx = ToolUseContext::new("toolu_1", CancellationToken::new(), Arc::new(Extensions::new().with(state)));
//! let call = tools[0].parse_input(&serde_json::json!({"query": "select:ToolSearch"})).unwrap();
//! let output = call.call(&ctx).await.unwrap();
//! assert_eq!(serde_json::to_value(&output.content).unwrap(),
//!            serde_json::json!([{"type": "tool_reference", "tool_name": "ToolSearch"}]));
//! # }
//! ```

pub(crate) mod cache;
pub(crate) mod config;
pub(crate) mod deferral;
pub(crate) mod delta;
pub(crate) mod gate;
pub(crate) mod hint;
pub(crate) mod history;
pub(crate) mod index;
pub(crate) mod state;
pub(crate) mod tokens;
pub(crate) mod tool;

pub use cache::DescriptionCache;
pub use config::{ApiProvider, ToolSearchConfig, ToolSearchMode};
pub(crate) use deferral::is_deferred_tool;
pub use deferral::{DeferralRules, TOOL_SEARCH_NAME};
pub use delta::DeferredToolsDelta;
pub use gate::{RequestTools, TokenCounter, ToolSearchGate};
pub use hint::schema_not_sent_hint;
pub use state::{SearchState, ToolSearchOutput};
pub use tool::ToolSearch;
