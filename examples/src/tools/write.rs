//! [`Write`]: create a file, or replace one's whole content.

use std::fs;
use std::io::ErrorKind;
use std::path::Path;

use tool_sdk::prelude::*;

use super::{io_error, run_blocking};
use crate::file_state::write_atomically;
use crate::workspace::{Workspace, not_a_regular_file, special_file_kind};

/// Writes a file to the workspace.
///
/// Usage:
/// - This tool will overwrite the existing file if there is one at the provided path.
/// - If this is an existing file, you MUST use the Read tool first to read the file's
///   contents. This tool will fail if you did not read the file first, or if it changed
///   since you read it.
/// - The file is replaced atomically: readers see the old content or the new, never a part.
/// - The file_path parameter should be an absolute path; a relative path is taken relative to
///   the workspace root. Files outside the workspace root cannot be written.
/// - Missing parent directories are created.
/// - ALWAYS prefer editing existing files with the Edit tool. NEVER write new files unless
///   explicitly required.
/// - NEVER proactively create documentation files (*.md) or README files. Only create
///   documentation files if explicitly requested by the User.
#[tool(
    name = "Write",
    max_result_size_chars = 100_000,
    search_hint = "create or overwrite a file"
)]
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Write {
    /// The absolute path to the file to write (must be absolute, not relative)
    pub file_path: String,
    /// The content to write to the file
    pub content: String,
}

#[tool]
impl Tool for Write {
    type Output = String;

    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let workspace = Workspace::from_context(ctx)?;
        let path = workspace.resolve(&self.file_path)?;
        workspace.reads().check_writable(&path)?;
        if ctx.is_aborted() {
            return Err(ToolError::aborted(""));
        }
        let target = path.clone();
        let text = run_blocking(move || write(&target, &self.content)).await?;
        workspace.reads().record(&path);
        Ok(ToolResult::new(text))
    }
}

/// Writes `content` to `path` (already resolved), creating parent directories, and says
/// whether the file was created or updated.
fn write(path: &Path, content: &str) -> Result<String, ToolError> {
    let existed = match fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => {
            return Err(ToolError::new(format!(
                "{} is a directory; Write can only create or overwrite files.",
                path.display()
            )));
        }
        Ok(metadata) => {
            if let Some(kind) = special_file_kind(&metadata.file_type()) {
                return Err(not_a_regular_file(path, kind));
            }
            true
        }
        Err(error) if error.kind() == ErrorKind::NotFound => false,
        Err(error) => return Err(io_error("write", path, &error)),
    };
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|error| io_error("create", parent, &error))?;
    }
    write_atomically(path, content.as_bytes()).map_err(|error| io_error("write", path, &error))?;
    Ok(if existed {
        format!("The file {} has been updated.", path.display())
    } else {
        format!("File created successfully at: {}", path.display())
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use serde_json::json;
    use tool_sdk::{DynTool, TypedTool};

    use super::*;
    use crate::tools::fixture::Fixture;

    #[tokio::test]
    async fn creates_a_file_and_its_parent_directories() {
        let fx = Fixture::new();
        let input = json!({"file_path": fx.path("a/b/c.txt"), "content": "hi\n"});
        assert_eq!(
            fx.call::<Write>(input).await.unwrap(),
            format!("File created successfully at: {}", fx.path("a/b/c.txt"))
        );
        assert_eq!(fx.read("a/b/c.txt"), "hi\n");
    }

    #[tokio::test]
    async fn overwrites_an_existing_file() {
        let fx = Fixture::new();
        fx.write_seen("f.txt", "old content that is longer");
        let input = json!({"file_path": "f.txt", "content": "new"});
        assert_eq!(
            fx.call::<Write>(input).await.unwrap(),
            format!("The file {} has been updated.", fx.path("f.txt"))
        );
        assert_eq!(fx.read("f.txt"), "new");
    }

    #[tokio::test]
    async fn a_directory_is_an_error() {
        let fx = Fixture::new();
        fx.write_seen("d/x", "");
        let input = json!({"file_path": "d", "content": "x"});
        assert_eq!(
            fx.call::<Write>(input).await.unwrap_err(),
            format!(
                "{} is a directory; Write can only create or overwrite files.",
                fx.path("d")
            )
        );
    }

    #[tokio::test]
    async fn paths_outside_the_root_are_refused() {
        let fx = Fixture::new();
        let outside = tempfile::TempDir::new().unwrap();
        symlink(outside.path(), fx.root().join("out")).unwrap();
        let through_link = json!({"file_path": "out/new/f.txt", "content": "x"});
        let error = fx.call::<Write>(through_link).await.unwrap_err();
        assert!(
            error.starts_with("Path out/new/f.txt resolves through a symbolic link to "),
            "{error}"
        );
        assert!(!outside.path().join("new").exists());
        let dots = json!({"file_path": "a/../../escape.txt", "content": "x"});
        let error = fx.call::<Write>(dots).await.unwrap_err();
        assert!(
            error.starts_with("Path a/../../escape.txt (resolved to "),
            "{error}"
        );
    }

    #[tokio::test]
    async fn a_cancelled_call_writes_nothing() {
        let fx = Fixture::new();
        fx.abort.cancel();
        let input = json!({"file_path": "f.txt", "content": "x"});
        assert_eq!(
            fx.call::<Write>(input).await.unwrap_err(),
            "[Request interrupted by user for tool use]"
        );
        assert!(!fx.root().join("f.txt").exists());
    }

    #[test]
    fn schema_and_flags() {
        let tool = TypedTool::of::<Write>(None);
        assert_eq!(
            tool.input_schema()["required"],
            json!(["file_path", "content"])
        );
        let call = tool
            .parse_input(&json!({"file_path": "a", "content": ""}))
            .unwrap();
        assert!(!call.is_read_only() && !call.is_concurrency_safe());
    }
}

#[cfg(test)]
mod read_first_tests {
    use serde_json::json;

    use super::*;
    use crate::tools::Read;
    use crate::tools::fixture::{Fixture, set_mtime};

    #[tokio::test]
    async fn overwriting_needs_a_fresh_read_and_leaves_no_temporary_file() {
        let fx = Fixture::new();
        fx.write("f.txt", "original");
        let input = json!({"file_path": "f.txt", "content": "replaced"});
        let error = fx.call::<Write>(input.clone()).await.unwrap_err();
        assert!(
            error.contains("has not been read in this session"),
            "{error}"
        );
        assert_eq!(fx.read("f.txt"), "original");
        fx.call::<Read>(json!({"file_path": "f.txt"}))
            .await
            .unwrap();
        set_mtime(&fx.root().join("f.txt"), 1_000_000);
        let error = fx.call::<Write>(input.clone()).await.unwrap_err();
        assert!(
            error.contains("has changed since it was last read"),
            "{error}"
        );
        fx.call::<Read>(json!({"file_path": "f.txt"}))
            .await
            .unwrap();
        fx.call::<Write>(input).await.unwrap();
        assert_eq!(fx.read("f.txt"), "replaced");
        let names: Vec<_> = fs::read_dir(fx.root())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["f.txt"], "no temporary file is left behind");
    }
}
