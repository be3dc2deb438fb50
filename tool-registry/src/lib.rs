//! Everything that works on many tools: collecting the linked `#[tool]`s, ordering and lookup,
//! provider definitions, and running a model's batch of `tool_use` blocks. It also registers
//! the JSON Schema engine (`tool_sdk::input::SchemaEngine`, built on `jsonschema`) that checks
//! every tool input schema beyond tool-sdk's fast path, in any program that names it.
//!
//! ```
//! use tool_registry::{Orchestrator, OrchestratorConfig, ToolRegistry, TurnState};
//! use tool_sdk::prelude::*;
//! use tool_sdk::ToolUseBlock;
//!
//! /// Echoes its text.
//! #[tool(name = "Echo", read_only, concurrency_safe, max_result_size_chars = 1_000)]
//! #[derive(Deserialize, JsonSchema)]
//! pub struct Echo {
//!     /// What to echo.
//!     pub text: String,
//! }
//!
//! #[tool]
//! impl Tool for Echo {
//!     type Output = String;
//!     async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
//!         Ok(ToolResult::new(self.text))
//!     }
//! }
//!
//! # #[tokio::main]
//! # async fn main() {
//! let registry = ToolRegistry::collect().expect("tool names are unique");
//! let blocks: Vec<ToolUseBlock> = serde_json::from_value(serde_json::json!([
//!     {"id": "toolu_1", "name": "Echo", "input": {"text": "hi"}},
//!     {"id": "toolu_2", "name": "Nope", "input": {}},
//! ])).unwrap();
//! let orchestrator = Orchestrator::new(registry.tools(), OrchestratorConfig::default());
//! let turn = orchestrator
//!     .run_tools(blocks, TurnState::default())
//!     .collect_results()
//!     .await;
//! assert_eq!(turn.results[0].text(), "hi");
//! assert!(turn.results[1].is_error);
//! # }
//! ```

pub mod docs;
pub mod dynamic;
pub mod examples;
pub mod export;
mod json_schema;
#[cfg(feature = "mcp")]
pub mod mcp;
mod mcp_names;
mod messages;
pub mod orchestration;
pub mod permissions;
mod pool;
pub mod providers;
mod registry;
pub mod search;
#[cfg(feature = "otel")]
pub mod telemetry;
#[cfg(feature = "test-support")]
pub mod test_support;

// The names of the author's path (collect, assemble the pool, run), each at the root only;
// everything else is reached through its module.
pub use orchestration::config::OrchestratorConfig;
pub use orchestration::orchestrator::Orchestrator;
pub use orchestration::turn::TurnState;
pub use permissions::context::ToolPermissionContext;
pub use pool::{CoordinatorFilter, PoolConfig, PoolError, ToolPool};
pub use registry::{CollectOptions, RegistryError, SkipReason, SkippedTool, ToolRegistry};
