//! Live MCP servers in the tool pool, through rmcp's client (feature `mcp`).
//!
//! [`McpManager`] connects to every configured server at once, over stdio (a child process,
//! killed with its connection, its whole process group with it) or streamable HTTP, lists
//! each server's tools with pagination and turns them, through the import normaliser that
//! recorded lists share, into [`crate::dynamic::DynamicTool`]s
//! named `mcp__SERVER__TOOL` (SPEC §10), deferred (SPEC §4.1), whose calls reach the server
//! under the raw tool name. Server entries load from the `mcpServers` JSON of Claude Code and
//! Claude Desktop ([`McpServerConfig::from_mcp_servers_json`]).
//!
//! ```no_run
//! use tool_registry::mcp::{McpManager, McpServerConfig};
//! # async fn demo() {
//! let git = McpServerConfig::stdio("git", "uvx", vec!["mcp-server-git".into()]);
//! let manager = McpManager::connect(vec![git]).await;
//! for server in manager.servers() {
//!     println!("{}: {} ({} tools)", server.name, server.status, server.tools.len());
//! }
//! let mcp_tools = manager.tools(); // for ToolPool::assemble
//! # let _ = mcp_tools;
//! manager.shutdown().await;
//! # }
//! ```
//!
//! Calls follow MCP 2025-11-25: arguments forwarded as JSON; a per-server timeout
//! (120 s by default) ending in an error result; host cancellation sent as
//! `notifications/cancelled`; server progress passed to the call's context (so to
//! `ToolUseUpdate::Progress`); `isError` results and JSON-RPC errors both become error
//! `tool_result`s with the server's text; content blocks mapped to Anthropic blocks; and
//! `structuredContent` kept in a [`StructuredContentStore`] when the host provides one.

mod answers;
mod call;
mod client;
mod config;
mod follow;
mod lifecycle;
mod manager;
mod oauth;
mod results;
#[cfg(feature = "mcp-server")]
pub mod serve;
mod trace;

pub use config::{McpConfigError, McpServerConfig, McpTransportConfig};
pub use manager::{McpManager, McpServerSnapshot, McpServerStatus};
pub use oauth::{ClientCredentials, Logout, LoopbackLogin, McpOAuth, OAuthLogin};
pub use results::StructuredContentStore;
