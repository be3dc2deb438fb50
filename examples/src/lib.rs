//! Real tools written with `tool-sdk`, with the inputs and result texts of Claude Code's tools
//! of the same names, confined to one directory tree by a [`Workspace`](workspace::Workspace):
//! the file tools [`Read`](tools::Read), [`Glob`](tools::Glob), [`Grep`](tools::Grep),
//! [`Edit`](tools::Edit), [`Write`](tools::Write) and [`NotebookEdit`](tools::NotebookEdit); the
//! shell tool [`Bash`](tools::Bash) and [`TaskStop`](tools::TaskStop) (alias `KillShell`) for its
//! background runs; and [`TodoWrite`](tools::TodoWrite), whose list lives in the host state.
//!
//! ```
//! use std::sync::Arc;
//!
//! use serde_json::json;
//! use tool_examples::tools::{Read, Write};
//! use tool_examples::workspace::Workspace;
//! use tool_sdk::{CancellationToken, DynTool, Extensions, ToolUseContext, TypedTool};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let workspace = Workspace::new(dir.path())?;
//! let notes = workspace.root().join("notes.txt");
//! // The host puts the workspace into the host state that every call sees.
//! let extensions = Extensions::new().with(workspace);
//! let ctx = ToolUseContext::new("toolu_1", CancellationToken::new(), Arc::new(extensions));
//!
//! let write = TypedTool::of::<Write>(None)
//!     .parse_input(&json!({"file_path": "notes.txt", "content": "hello\nworld"}))
//!     .expect("a valid Write input");
//! let created = write.call(&ctx).await?;
//! assert_eq!(
//!     created.content.text(),
//!     format!("File created successfully at: {}", notes.display())
//! );
//!
//! let read = TypedTool::of::<Read>(None)
//!     .parse_input(&json!({"file_path": notes}))
//!     .expect("a valid Read input");
//! assert_eq!(read.call(&ctx).await?.content.text(), "     1→hello\n     2→world");
//! # Ok(())
//! # }
//! ```
//!
//! Read, Glob and Grep are read-only and concurrency-safe; Bash is both exactly when its
//! command only reads ([`is_read_only_command`](tools::bash::is_read_only_command)); Edit,
//! Write, NotebookEdit and TodoWrite keep the fail-closed defaults (they write, and run alone).
//! Write, Edit and NotebookEdit overwrite only files read in the session and unchanged since
//! ([`ReadFileState`](file_state::ReadFileState)), and replace them atomically. All file work
//! runs on tokio's blocking pool, and Glob and Grep stop early when the call is cancelled.

// Named, so that every program linking these tools links tool-registry's JSON Schema engine
// too: their input schemas (integer fields, enums) go beyond tool-sdk's built-in check.
use tool_registry as _;

pub mod file_state;
pub mod tools;
pub mod workspace;
