//! The nine example tools, with the inputs and result texts of Claude Code's tools of the same
//! names: the file tools [`Read`], [`Glob`], [`Grep`], [`Edit`], [`Write`] and
//! [`NotebookEdit`]; [`Bash`] and [`TaskStop`]; and [`TodoWrite`].
//!
//! Every path goes through the [`Workspace`](crate::workspace::Workspace) found in the call's
//! host state, and every file access runs on tokio's blocking pool, so concurrency-safe calls
//! (Read, Glob, Grep) really run in parallel. Paths in results are absolute.

pub mod bash;
pub mod edit;
pub mod glob;
pub mod grep;
pub mod notebook;
pub mod read;
pub mod task_stop;
pub mod todo;
pub mod write;

pub use bash::{BackgroundShells, Bash};
pub use edit::Edit;
pub use glob::Glob;
pub use grep::{Grep, OutputMode};
pub use notebook::NotebookEdit;
pub use read::Read;
pub use task_stop::TaskStop;
pub use todo::{TodoList, TodoWrite};
pub use write::Write;

use std::path::Path;

use std::sync::Arc;

use tool_sdk::{DynTool, ToolError, TypedTool};

/// The nine example tools in erased form, sorted by name, without going through link-time
/// registration (for tests and hosts that build a pool by hand).
pub fn all() -> Vec<Arc<dyn DynTool>> {
    vec![
        Arc::new(TypedTool::of::<Bash>(None)),
        Arc::new(TypedTool::of::<Edit>(None)),
        Arc::new(TypedTool::of::<Glob>(None)),
        Arc::new(TypedTool::of::<Grep>(None)),
        Arc::new(TypedTool::of::<NotebookEdit>(None)),
        Arc::new(TypedTool::of::<Read>(None)),
        Arc::new(TypedTool::of::<TaskStop>(None)),
        Arc::new(TypedTool::of::<TodoWrite>(None)),
        Arc::new(TypedTool::of::<Write>(None)),
    ]
}

/// Runs `work` on tokio's blocking thread pool and waits for it.
async fn run_blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| ToolError::new(format!("The tool's file task failed: {error}")))?
}

/// One line in `cat -n` style, as Claude Code shows file contents: the 1-based line number
/// right-aligned to 6 columns, a `→` (U+2192), the text.
fn numbered_line(number: u64, text: &str) -> String {
    format!("{number:>6}\u{2192}{text}")
}

/// The UTF-8 text of the file at `path` (resolved), opened through
/// [`Workspace::open_file`](crate::workspace::Workspace::open_file) so that a FIFO, a device
/// or a link swapped in after resolution is refused; `action` names the tool's verb in the
/// not-UTF-8 error.
fn read_text(
    workspace: &crate::workspace::Workspace,
    path: &Path,
    action: &str,
) -> Result<String, ToolError> {
    use std::io::Read as _;
    let mut file = workspace.open_file(path)?;
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::InvalidData => ToolError::new(format!(
                "Cannot {action} {}: it is not UTF-8 text.",
                path.display()
            )),
            _ => io_error("read", path, &error),
        })?;
    Ok(text)
}

/// "File does not exist: PATH", shared by Read and Edit.
fn missing_file(path: &Path) -> ToolError {
    ToolError::new(format!("File does not exist: {}", path.display()))
}

/// An I/O failure on `path`, with the path in the text.
fn io_error(action: &str, path: &Path, error: &std::io::Error) -> ToolError {
    ToolError::new(format!("Could not {action} {}: {error}", path.display()))
}

/// Shared set-up for the tools' unit tests: a temporary workspace and a way to call a tool
/// the way the registry does.
#[cfg(test)]
pub(crate) mod fixture {
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    use tempfile::TempDir;
    use tool_sdk::{CancellationToken, DynTool, Extensions, Tool, ToolUseContext, TypedTool};

    use crate::workspace::Workspace;

    /// The property names of a tool's input schema, sorted (the tests compare key sets, not
    /// the declaration order).
    pub(crate) fn sorted_property_names(schema: &serde_json::Value) -> Vec<&str> {
        let mut keys: Vec<&str> = schema["properties"]
            .as_object()
            .expect("an object schema has `properties`")
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        keys
    }

    /// A temporary directory registered as the workspace of a context.
    pub(crate) struct Fixture {
        pub(crate) dir: TempDir,
        pub(crate) ctx: ToolUseContext,
        pub(crate) abort: CancellationToken,
    }

    impl Fixture {
        pub(crate) fn new() -> Self {
            let dir = TempDir::new().unwrap();
            let workspace = Workspace::new(dir.path()).unwrap();
            let abort = CancellationToken::new();
            let ctx = ToolUseContext::new(
                "toolu_test",
                abort.clone(),
                Arc::new(Extensions::new().with(workspace)),
            );
            Self { dir, ctx, abort }
        }

        /// The canonical root.
        pub(crate) fn root(&self) -> PathBuf {
            std::fs::canonicalize(self.dir.path()).unwrap()
        }

        /// `relative` under the root, as the tools print it.
        pub(crate) fn path(&self, relative: &str) -> String {
            self.root().join(relative).display().to_string()
        }

        /// Writes `content` to `relative`, creating parent directories.
        pub(crate) fn write(&self, relative: &str, content: &str) {
            let path = self.root().join(relative);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }

        /// [`Fixture::write`], then records the file as read in this session, as if the
        /// model had read it.
        pub(crate) fn write_seen(&self, relative: &str, content: &str) {
            self.write(relative, content);
            Workspace::from_context(&self.ctx)
                .unwrap()
                .reads()
                .record(&self.root().join(relative));
        }

        pub(crate) fn read(&self, relative: &str) -> String {
            std::fs::read_to_string(self.root().join(relative)).unwrap()
        }

        /// Parses `input` as the model's JSON and runs the call: the result text, or the
        /// error text the model would see.
        pub(crate) async fn call<T: Tool>(
            &self,
            input: serde_json::Value,
        ) -> Result<String, String> {
            let tool = TypedTool::of::<T>(None);
            let call = tool
                .parse_input(&input)
                .map_err(|error| error.format_for(T::NAME))?;
            call.call(&self.ctx)
                .await
                .map(|output| output.content.text())
                .map_err(|error| error.to_model_text())
        }
    }

    /// Sets the modification time of `path`, seconds after the epoch.
    pub(crate) fn set_mtime(path: &Path, seconds: u64) {
        let time = std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds);
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(time)
            .unwrap();
    }
}
