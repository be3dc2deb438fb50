//! [`Edit`]: exact string replacement in a file.

use std::fs;
use std::io::ErrorKind;
use std::path::Path;

use tool_sdk::prelude::*;

use super::{io_error, missing_file, numbered_line, read_text, run_blocking};
use crate::file_state::write_atomically;
use crate::workspace::{Workspace, not_a_regular_file, special_file_kind};

/// Lines of context shown above and below an edit in the success snippet.
const SNIPPET_CONTEXT_LINES: usize = 4;

/// Performs exact string replacements in files.
///
/// Usage:
/// - You must use your `Read` tool at least once in the conversation before editing. This
///   tool will error if you attempt an edit without reading the file, or if the file changed
///   since you read it.
/// - The file_path parameter should be an absolute path; a relative path is taken relative to
///   the workspace root. Files outside the workspace root cannot be edited.
/// - When editing text from Read tool output, ensure you preserve the exact indentation (tabs/
///   spaces) as it appears AFTER the line number prefix. The line number prefix format is:
///   spaces + line number + arrow. Everything after that arrow is the actual file content to
///   match. Never include any part of the line number prefix in the old_string or new_string.
/// - The edit will FAIL if `old_string` is not unique in the file. Either provide a larger
///   string with more surrounding context to make it unique or use `replace_all` to change
///   every instance of `old_string`.
/// - Use `replace_all` for replacing and renaming strings across the file. This parameter is
///   useful if you want to rename a variable for instance.
/// - An empty `old_string` creates a new file whose content is `new_string` (or fills an
///   existing empty file).
#[tool(
    name = "Edit",
    max_result_size_chars = 100_000,
    search_hint = "modify file contents in place"
)]
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Edit {
    /// The absolute path to the file to modify
    pub file_path: String,
    /// The text to replace
    pub old_string: String,
    /// The text to replace it with (must be different from old_string)
    pub new_string: String,
    /// Replace all occurrences of old_string (default false)
    #[serde(default)]
    pub replace_all: bool,
}

#[tool]
impl Tool for Edit {
    type Output = String;

    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let workspace = Workspace::from_context(ctx)?;
        let path = workspace.resolve(&self.file_path)?;
        if self.old_string == self.new_string {
            return Err(ToolError::new(
                "No changes to make: old_string and new_string are exactly the same.",
            ));
        }
        if ctx.is_aborted() {
            return Err(ToolError::aborted(""));
        }
        workspace.reads().check_writable(&path)?;
        let target = path.clone();
        let opener = workspace.clone();
        let text = run_blocking(move || self.apply(&opener, &target)).await?;
        workspace.reads().record(&path);
        Ok(ToolResult::new(text))
    }
}

impl Edit {
    /// Edits the file at `path` (already resolved) and says what happened.
    fn apply(&self, workspace: &Workspace, path: &Path) -> Result<String, ToolError> {
        match fs::metadata(path) {
            Err(error) if error.kind() == ErrorKind::NotFound => {
                return if self.old_string.is_empty() {
                    self.create(path)
                } else {
                    Err(missing_file(path))
                };
            }
            Err(error) => return Err(io_error("edit", path, &error)),
            Ok(metadata) if metadata.is_dir() => {
                return Err(ToolError::new(format!(
                    "{} is a directory, not a file.",
                    path.display()
                )));
            }
            Ok(metadata) => {
                if let Some(kind) = special_file_kind(&metadata.file_type()) {
                    return Err(not_a_regular_file(path, kind));
                }
            }
        }
        let content = read_text(workspace, path, "edit")?;
        let (updated, count) = self.replace(path, &content)?;
        write_atomically(path, updated.as_bytes())
            .map_err(|error| io_error("write", path, &error))?;
        Ok(if count > 1 {
            format!(
                "The file {} has been updated. All {count} occurrences of old_string were \
                 replaced with new_string.",
                path.display()
            )
        } else {
            let start = content.find(&self.old_string).unwrap_or(0);
            updated_message(path, &updated, start, &self.new_string)
        })
    }

    /// The new content and the number of replacements, or why the edit cannot be made.
    fn replace(&self, path: &Path, content: &str) -> Result<(String, usize), ToolError> {
        let old = self.old_string.as_str();
        if old.is_empty() {
            if !content.is_empty() {
                return Err(ToolError::new(format!(
                    "Cannot create new file - file already exists: {}. To change it, give \
                     the text to replace as old_string.",
                    path.display()
                )));
            }
            return Ok((self.new_string.clone(), 1));
        }
        match content.matches(old).count() {
            0 => Err(ToolError::new(format!(
                "String to replace not found in file.\nString: {old}"
            ))),
            count if count > 1 && !self.replace_all => Err(ToolError::new(format!(
                "Found {count} matches of the string to replace, but replace_all is false. To \
                 replace all occurrences, set replace_all to true. To replace only one \
                 occurrence, please provide more context to uniquely identify the \
                 instance.\nString: {old}"
            ))),
            count => Ok((content.replace(old, &self.new_string), count)),
        }
    }

    /// Creates a missing file (and its parent directories) with `new_string`.
    fn create(&self, path: &Path) -> Result<String, ToolError> {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|error| io_error("create", parent, &error))?;
        }
        write_atomically(path, self.new_string.as_bytes())
            .map_err(|error| io_error("write", path, &error))?;
        Ok(format!("File created successfully at: {}", path.display()))
    }
}

/// "The file PATH has been updated." and, in `cat -n` style, the edited lines of `updated`
/// (which start at byte `start` and hold `new_string`) with a few lines around them.
fn updated_message(path: &Path, updated: &str, start: usize, new_string: &str) -> String {
    let headline = format!("The file {} has been updated.", path.display());
    let first = updated[..start].matches('\n').count();
    // A trailing newline ends the last edited line; it does not start another one.
    let edited = new_string.strip_suffix('\n').unwrap_or(new_string);
    let last = first + edited.matches('\n').count();
    let snippet: Vec<String> = (1..)
        .zip(updated.lines())
        .skip(first.saturating_sub(SNIPPET_CONTEXT_LINES))
        .take(last + SNIPPET_CONTEXT_LINES + 1 - first.saturating_sub(SNIPPET_CONTEXT_LINES))
        .map(|(number, line)| numbered_line(number, line))
        .collect();
    if snippet.is_empty() {
        return headline;
    }
    format!(
        "{headline} Here's the result of running `cat -n` on a snippet of the edited \
         file:\n{}",
        snippet.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use serde_json::json;
    use tool_sdk::{DynTool, TypedTool};

    use super::*;
    use crate::tools::fixture::Fixture;

    fn ten_lines() -> String {
        (1..=10).map(|n| format!("line{n}\n")).collect()
    }

    fn snippet(lines: &[(u64, &str)]) -> String {
        let lines: Vec<String> = lines
            .iter()
            .map(|&(number, text)| numbered_line(number, text))
            .collect();
        lines.join("\n")
    }

    #[tokio::test]
    async fn replaces_a_unique_string_and_shows_a_snippet() {
        let fx = Fixture::new();
        fx.write_seen("f.txt", &ten_lines());
        let input =
            json!({"file_path": "f.txt", "old_string": "line5\n", "new_string": "five\n5\n"});
        let out = fx.call::<Edit>(input).await.unwrap();
        assert_eq!(
            out,
            format!(
                "The file {} has been updated. Here's the result of running `cat -n` on a \
                 snippet of the edited file:\n{}",
                fx.path("f.txt"),
                snippet(&[
                    (1, "line1"),
                    (2, "line2"),
                    (3, "line3"),
                    (4, "line4"),
                    (5, "five"),
                    (6, "5"),
                    (7, "line6"),
                    (8, "line7"),
                    (9, "line8"),
                    (10, "line9"),
                ])
            )
        );
        assert_eq!(
            fx.read("f.txt"),
            ten_lines().replace("line5\n", "five\n5\n")
        );
    }

    #[tokio::test]
    async fn several_matches_need_replace_all() {
        let fx = Fixture::new();
        fx.write_seen("f.txt", "a x a x a");
        let input = json!({"file_path": "f.txt", "old_string": "a", "new_string": "b"});
        assert_eq!(
            fx.call::<Edit>(input).await.unwrap_err(),
            "Found 3 matches of the string to replace, but replace_all is false. To replace \
             all occurrences, set replace_all to true. To replace only one occurrence, please \
             provide more context to uniquely identify the instance.\nString: a"
        );
        assert_eq!(fx.read("f.txt"), "a x a x a");
        let all = json!({"file_path": "f.txt", "old_string": "a", "new_string": "b", "replace_all": true});
        assert_eq!(
            fx.call::<Edit>(all).await.unwrap(),
            format!(
                "The file {} has been updated. All 3 occurrences of old_string were replaced \
                 with new_string.",
                fx.path("f.txt")
            )
        );
        assert_eq!(fx.read("f.txt"), "b x b x b");
    }

    #[tokio::test]
    async fn a_missing_string_is_an_error() {
        let fx = Fixture::new();
        fx.write_seen("f.txt", "hello");
        let input = json!({"file_path": "f.txt", "old_string": "bye", "new_string": "x"});
        assert_eq!(
            fx.call::<Edit>(input).await.unwrap_err(),
            "String to replace not found in file.\nString: bye"
        );
    }

    #[tokio::test]
    async fn identical_strings_are_an_error() {
        let fx = Fixture::new();
        fx.write_seen("f.txt", "hello");
        let input = json!({"file_path": "f.txt", "old_string": "hello", "new_string": "hello"});
        assert_eq!(
            fx.call::<Edit>(input).await.unwrap_err(),
            "No changes to make: old_string and new_string are exactly the same."
        );
    }

    #[tokio::test]
    async fn a_missing_file_is_an_error() {
        let fx = Fixture::new();
        let input = json!({"file_path": "nope.txt", "old_string": "a", "new_string": "b"});
        assert_eq!(
            fx.call::<Edit>(input).await.unwrap_err(),
            format!("File does not exist: {}", fx.path("nope.txt"))
        );
    }

    #[tokio::test]
    async fn an_empty_old_string_creates_a_file() {
        let fx = Fixture::new();
        let input = json!({"file_path": "new/dir/f.txt", "old_string": "", "new_string": "hi\n"});
        assert_eq!(
            fx.call::<Edit>(input).await.unwrap(),
            format!("File created successfully at: {}", fx.path("new/dir/f.txt"))
        );
        assert_eq!(fx.read("new/dir/f.txt"), "hi\n");
        let again = json!({"file_path": "new/dir/f.txt", "old_string": "", "new_string": "x"});
        assert_eq!(
            fx.call::<Edit>(again).await.unwrap_err(),
            format!(
                "Cannot create new file - file already exists: {}. To change it, give the \
                 text to replace as old_string.",
                fx.path("new/dir/f.txt")
            )
        );
    }

    #[tokio::test]
    async fn an_empty_old_string_fills_an_empty_file() {
        let fx = Fixture::new();
        fx.write_seen("empty.txt", "");
        let input = json!({"file_path": "empty.txt", "old_string": "", "new_string": "one\ntwo"});
        assert_eq!(
            fx.call::<Edit>(input).await.unwrap(),
            format!(
                "The file {} has been updated. Here's the result of running `cat -n` on a \
                 snippet of the edited file:\n{}",
                fx.path("empty.txt"),
                snippet(&[(1, "one"), (2, "two")])
            )
        );
    }

    #[tokio::test]
    async fn a_directory_is_an_error() {
        let fx = Fixture::new();
        fx.write_seen("d/f.txt", "");
        let input = json!({"file_path": "d", "old_string": "a", "new_string": "b"});
        assert_eq!(
            fx.call::<Edit>(input).await.unwrap_err(),
            format!("{} is a directory, not a file.", fx.path("d"))
        );
    }

    #[tokio::test]
    async fn files_behind_an_outside_symlink_are_refused() {
        let fx = Fixture::new();
        let outside = tempfile::TempDir::new().unwrap();
        fs::write(outside.path().join("f.txt"), "a").unwrap();
        symlink(outside.path(), fx.root().join("out")).unwrap();
        let input = json!({"file_path": "out/f.txt", "old_string": "a", "new_string": "b"});
        let error = fx.call::<Edit>(input).await.unwrap_err();
        assert!(
            error.starts_with("Path out/f.txt resolves through a symbolic link to "),
            "{error}"
        );
        assert_eq!(
            fs::read_to_string(outside.path().join("f.txt")).unwrap(),
            "a"
        );
        let dots = json!({"file_path": "../f.txt", "old_string": "", "new_string": "b"});
        let error = fx.call::<Edit>(dots).await.unwrap_err();
        assert!(error.starts_with("Path ../f.txt (resolved to "), "{error}");
    }

    #[test]
    fn schema_and_flags() {
        let tool = TypedTool::of::<Edit>(None);
        let schema = tool.input_schema();
        let keys = crate::tools::fixture::sorted_property_names(schema);
        assert_eq!(
            keys,
            ["file_path", "new_string", "old_string", "replace_all"]
        );
        assert_eq!(
            schema["required"],
            json!(["file_path", "old_string", "new_string"])
        );
        let call = tool
            .parse_input(&json!({"file_path": "a", "old_string": "b", "new_string": "c"}))
            .unwrap();
        assert!(!call.is_read_only() && !call.is_concurrency_safe() && !call.is_destructive());
    }
}

#[cfg(test)]
mod read_first_tests {
    use serde_json::json;

    use super::*;
    use crate::tools::Read;
    use crate::tools::fixture::{Fixture, set_mtime};

    #[tokio::test]
    async fn an_unread_or_changed_file_is_refused_until_read_again() {
        let fx = Fixture::new();
        fx.write("f.txt", "alpha\n");
        let edit = json!({"file_path": "f.txt", "old_string": "alpha", "new_string": "beta"});
        let error = fx.call::<Edit>(edit.clone()).await.unwrap_err();
        assert_eq!(
            error,
            format!(
                "{} has not been read in this session. Read it with the Read tool first, then \
                 write it.",
                fx.path("f.txt")
            )
        );
        assert_eq!(fx.read("f.txt"), "alpha\n");
        fx.call::<Read>(json!({"file_path": "f.txt"}))
            .await
            .unwrap();
        // Someone else changes the file after the read.
        fs::write(fx.root().join("f.txt"), "alpha and more\n").unwrap();
        set_mtime(&fx.root().join("f.txt"), 2_000_000_000);
        let error = fx.call::<Edit>(edit.clone()).await.unwrap_err();
        assert!(
            error.contains("has changed since it was last read"),
            "{error}"
        );
        assert_eq!(fx.read("f.txt"), "alpha and more\n");
        fx.call::<Read>(json!({"file_path": "f.txt"}))
            .await
            .unwrap();
        fx.call::<Edit>(edit).await.unwrap();
        assert_eq!(fx.read("f.txt"), "beta and more\n");
        // The tool's own write counts as seen: a second edit needs no new read.
        let again = json!({"file_path": "f.txt", "old_string": "beta", "new_string": "gamma"});
        fx.call::<Edit>(again).await.unwrap();
        assert_eq!(fx.read("f.txt"), "gamma and more\n");
    }
}
