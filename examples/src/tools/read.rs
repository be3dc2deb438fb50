//! [`Read`]: a window of a text file's lines in `cat -n` style.

use std::fs;
use std::io::{BufRead, BufReader, ErrorKind};
use std::path::Path;

use tool_sdk::CancellationToken;
use tool_sdk::prelude::*;

use super::{io_error, missing_file, numbered_line, run_blocking};
use crate::workspace::{Workspace, not_a_regular_file, special_file_kind};

/// Lines shown when the call gives no `limit`.
pub const DEFAULT_LINE_LIMIT: u64 = 2000;
/// Longest line shown in full, in chars; longer lines end in [`TRUNCATED_LINE_MARK`].
pub const MAX_LINE_CHARS: usize = 2000;
/// What replaces the rest of a line longer than [`MAX_LINE_CHARS`].
pub const TRUNCATED_LINE_MARK: &str = "... [truncated]";
/// Largest file read without `offset` or `limit`, in bytes (256 KiB, as Claude Code).
pub const MAX_WHOLE_FILE_BYTES: u64 = 256 * 1024;
/// The result for a file that exists but has no content.
pub const EMPTY_FILE_NOTE: &str =
    "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>";

/// Bytes at the start of a file searched for a NUL byte to recognise binary files.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;
/// Lines read between two checks of the abort signal.
const ABORT_CHECK_LINES: u64 = 4096;

/// Reads a text file from the workspace.
///
/// Usage:
/// - The file_path parameter should be an absolute path; a relative path is taken relative to
///   the workspace root. Files outside the workspace root cannot be read.
/// - By default, it reads up to 2000 lines starting from the beginning of the file.
/// - You can optionally specify a line offset and limit (especially handy for long files), but
///   it's recommended to read the whole file by not providing these parameters.
/// - Files larger than 256 KB must be read in portions, with offset and limit.
/// - Any lines longer than 2000 characters will be truncated.
/// - Results are returned using cat -n format, with line numbers starting at 1.
/// - This tool reads text only: images and PDFs are refused as binary files, and Jupyter
///   notebooks are shown as their JSON text.
/// - This tool can only read files, not directories. To list the files in a directory, use
///   the Glob tool.
/// - If you read a file that exists but has empty contents you will receive a warning in
///   place of file contents.
#[tool(
    name = "Read",
    read_only,
    concurrency_safe,
    max_result_size_chars = unbounded,
    search_hint = "read files, images, PDFs, notebooks"
)]
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Read {
    /// The absolute path to the file to read
    pub file_path: String,
    /// The line number to start reading from. Only provide if the file is too large to read at once
    pub offset: Option<u64>,
    /// The number of lines to read. Only provide if the file is too large to read at once.
    pub limit: Option<u64>,
}

#[tool]
impl Tool for Read {
    type Output = String;

    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let workspace = Workspace::from_context(ctx)?;
        let path = workspace.resolve(&self.file_path)?;
        if self.limit == Some(0) {
            return Err(ToolError::new(
                "limit must be a positive number of lines; omit it to read up to 2000 lines.",
            ));
        }
        let abort = ctx.abort().clone();
        let target = path.clone();
        let opener = workspace.clone();
        let text = run_blocking(move || self.read(&opener, &target, &abort)).await?;
        workspace.reads().record(&path);
        Ok(ToolResult::new(text))
    }
}

impl Read {
    /// The result text for the file at `path` (already resolved).
    fn read(
        &self,
        workspace: &Workspace,
        path: &Path,
        abort: &CancellationToken,
    ) -> Result<String, ToolError> {
        let metadata = fs::metadata(path).map_err(|error| match error.kind() {
            ErrorKind::NotFound => missing_file(path),
            _ => io_error("read", path, &error),
        })?;
        if metadata.is_dir() {
            return Err(ToolError::new(format!(
                "{} is a directory, not a file. Use the Glob tool to list the files in it.",
                path.display()
            )));
        }
        if let Some(kind) = special_file_kind(&metadata.file_type()) {
            return Err(not_a_regular_file(path, kind));
        }
        if metadata.len() == 0 {
            return Ok(EMPTY_FILE_NOTE.to_owned());
        }
        if self.offset.is_none() && self.limit.is_none() && metadata.len() > MAX_WHOLE_FILE_BYTES {
            return Err(ToolError::new(format!(
                "File content ({} KB) exceeds maximum allowed size (256 KB). Please use offset \
                 and limit parameters to read specific portions of the file, or use the Grep \
                 tool to search for specific content.",
                metadata.len().div_ceil(1024)
            )));
        }
        let file = workspace.open_file(path)?;
        let mut reader = BufReader::with_capacity(BINARY_SNIFF_BYTES, file);
        let head = reader
            .fill_buf()
            .map_err(|error| io_error("read", path, &error))?;
        if head.contains(&0) {
            return Err(ToolError::new(format!(
                "Cannot read {}: it is a binary file (it contains NUL bytes), and this tool \
                 shows only text files.",
                path.display()
            )));
        }
        self.numbered_lines(path, reader, abort)
    }

    /// Lines `offset..offset + limit` of `reader`, numbered; or the note for an offset past
    /// the end.
    fn numbered_lines(
        &self,
        path: &Path,
        mut reader: impl BufRead,
        abort: &CancellationToken,
    ) -> Result<String, ToolError> {
        // Claude Code treats offset 0 like 1: both start at the first line.
        let first = self.offset.unwrap_or(1).max(1);
        let end = first.saturating_add(self.limit.unwrap_or(DEFAULT_LINE_LIMIT));
        let mut lines = Vec::new();
        let mut number = 0;
        let mut buffer = Vec::new();
        let mut ended_with_newline = false;
        while number + 1 < end {
            buffer.clear();
            let read = reader
                .read_until(b'\n', &mut buffer)
                .map_err(|error| io_error("read", path, &error))?;
            if read == 0 {
                // Like the reference (which splits the text on "\n"), a final newline is
                // followed by one more, empty, line.
                if ended_with_newline {
                    number += 1;
                    if number >= first {
                        lines.push(numbered_line(number, ""));
                    }
                }
                break;
            }
            ended_with_newline = buffer.ends_with(b"\n");
            number += 1;
            if number % ABORT_CHECK_LINES == 0 && abort.is_cancelled() {
                return Err(ToolError::aborted(""));
            }
            if number >= first {
                lines.push(numbered_line(number, &shown_line(&buffer)));
            }
        }
        if lines.is_empty() {
            return Ok(format!(
                "<system-reminder>Warning: the file exists but is shorter than the provided \
                 offset ({first}). The file has {number} lines.</system-reminder>"
            ));
        }
        Ok(lines.join("\n"))
    }
}

/// A raw line without its terminator (`\n` or `\r\n`), decoded lossily, cut to
/// [`MAX_LINE_CHARS`].
fn shown_line(raw: &[u8]) -> String {
    let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    let text = String::from_utf8_lossy(raw);
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!("{}{TRUNCATED_LINE_MARK}", &text[..cut]),
        None => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use serde_json::json;
    use tool_sdk::{DynTool, TypedTool};

    use super::*;
    use crate::tools::fixture::Fixture;

    #[tokio::test]
    async fn shows_every_line_numbered_like_cat_n() {
        let fx = Fixture::new();
        fx.write("a.txt", "first\r\nsecond\n\nfourth");
        let out = fx
            .call::<Read>(json!({"file_path": fx.path("a.txt")}))
            .await;
        assert_eq!(
            out.unwrap(),
            "     1\u{2192}first\n     2\u{2192}second\n     3\u{2192}\n     4\u{2192}fourth"
        );
    }

    #[tokio::test]
    async fn relative_paths_are_read_from_the_root() {
        let fx = Fixture::new();
        fx.write("dir/a.txt", "x\n");
        let out = fx.call::<Read>(json!({"file_path": "dir/a.txt"})).await;
        assert_eq!(out.unwrap(), "     1\u{2192}x\n     2\u{2192}");
    }

    #[tokio::test]
    async fn offset_and_limit_select_a_window() {
        let fx = Fixture::new();
        fx.write("a.txt", "1\n2\n3\n4\n5\n");
        let window = json!({"file_path": "a.txt", "offset": 2, "limit": 2});
        assert_eq!(
            fx.call::<Read>(window).await.unwrap(),
            "     2\u{2192}2\n     3\u{2192}3"
        );
        let from_zero = json!({"file_path": "a.txt", "offset": 0, "limit": 1});
        assert_eq!(fx.call::<Read>(from_zero).await.unwrap(), "     1\u{2192}1");
        // The final newline is followed by an empty line 6, as in the reference.
        let tail = json!({"file_path": "a.txt", "offset": 4});
        assert_eq!(
            fx.call::<Read>(tail).await.unwrap(),
            "     4\u{2192}4\n     5\u{2192}5\n     6\u{2192}"
        );
    }

    #[tokio::test]
    async fn reads_at_most_2000_lines_by_default() {
        let fx = Fixture::new();
        let text: String = (1..=2001).map(|n| format!("line {n}\n")).collect();
        fx.write("long.txt", &text);
        let out = fx
            .call::<Read>(json!({"file_path": "long.txt"}))
            .await
            .unwrap();
        assert_eq!(out.lines().count(), 2000);
        assert!(out.ends_with("  2000\u{2192}line 2000"));
    }

    #[tokio::test]
    async fn long_lines_are_truncated() {
        let fx = Fixture::new();
        fx.write("wide.txt", &"é".repeat(2500));
        let out = fx
            .call::<Read>(json!({"file_path": "wide.txt"}))
            .await
            .unwrap();
        assert_eq!(
            out,
            format!("     1\u{2192}{}... [truncated]", "é".repeat(2000))
        );
    }

    #[tokio::test]
    async fn an_offset_past_the_end_says_how_long_the_file_is() {
        let fx = Fixture::new();
        fx.write("a.txt", "1\n2");
        let out = fx
            .call::<Read>(json!({"file_path": "a.txt", "offset": 5}))
            .await;
        assert_eq!(
            out.unwrap(),
            "<system-reminder>Warning: the file exists but is shorter than the provided offset \
             (5). The file has 2 lines.</system-reminder>"
        );
    }

    #[tokio::test]
    async fn an_empty_file_gets_a_note() {
        let fx = Fixture::new();
        fx.write("empty.txt", "");
        let out = fx.call::<Read>(json!({"file_path": "empty.txt"})).await;
        assert_eq!(out.unwrap(), EMPTY_FILE_NOTE);
    }

    #[tokio::test]
    async fn a_missing_file_is_an_error() {
        let fx = Fixture::new();
        let out = fx.call::<Read>(json!({"file_path": "nope.txt"})).await;
        assert_eq!(
            out.unwrap_err(),
            format!("File does not exist: {}", fx.path("nope.txt"))
        );
    }

    #[tokio::test]
    async fn a_directory_is_an_error() {
        let fx = Fixture::new();
        fx.write("sub/a.txt", "");
        let out = fx.call::<Read>(json!({"file_path": "sub"})).await;
        assert_eq!(
            out.unwrap_err(),
            format!(
                "{} is a directory, not a file. Use the Glob tool to list the files in it.",
                fx.path("sub")
            )
        );
    }

    #[tokio::test]
    async fn binary_files_are_refused() {
        let fx = Fixture::new();
        fx.write("img.png", "\u{89}PNG\r\n\u{1a}\n\0\0\0");
        let out = fx.call::<Read>(json!({"file_path": "img.png"})).await;
        assert_eq!(
            out.unwrap_err(),
            format!(
                "Cannot read {}: it is a binary file (it contains NUL bytes), and this tool \
                 shows only text files.",
                fx.path("img.png")
            )
        );
    }

    #[tokio::test]
    async fn large_files_need_offset_or_limit() {
        let fx = Fixture::new();
        fx.write("big.txt", &"x\n".repeat(200 * 1024));
        let whole = fx.call::<Read>(json!({"file_path": "big.txt"})).await;
        assert!(
            whole
                .unwrap_err()
                .starts_with("File content (400 KB) exceeds maximum allowed size (256 KB).")
        );
        let part = fx
            .call::<Read>(json!({"file_path": "big.txt", "limit": 1}))
            .await;
        assert_eq!(part.unwrap(), "     1\u{2192}x");
    }

    #[tokio::test]
    async fn a_zero_limit_is_an_error() {
        let fx = Fixture::new();
        fx.write("a.txt", "x");
        let out = fx
            .call::<Read>(json!({"file_path": "a.txt", "limit": 0}))
            .await;
        assert_eq!(
            out.unwrap_err(),
            "limit must be a positive number of lines; omit it to read up to 2000 lines."
        );
    }

    #[tokio::test]
    async fn paths_outside_the_root_are_refused() {
        let fx = Fixture::new();
        let out = fx.call::<Read>(json!({"file_path": "../x.txt"})).await;
        let root = fx.root();
        assert_eq!(
            out.unwrap_err(),
            format!(
                "Path ../x.txt (resolved to {}) is outside the workspace root {}; only files \
                 under the root can be accessed.",
                root.parent().unwrap().join("x.txt").display(),
                root.display()
            )
        );
    }

    #[tokio::test]
    async fn symlinks_out_of_the_root_are_refused() {
        let fx = Fixture::new();
        let outside = tempfile::TempDir::new().unwrap();
        let secret = fs::canonicalize(outside.path()).unwrap().join("secret.txt");
        fs::write(&secret, "top secret").unwrap();
        symlink(&secret, fx.root().join("link.txt")).unwrap();
        let out = fx.call::<Read>(json!({"file_path": "link.txt"})).await;
        assert_eq!(
            out.unwrap_err(),
            format!(
                "Path link.txt resolves through a symbolic link to {}, which is outside the \
                 workspace root {}; only files under the root can be accessed.",
                secret.display(),
                fx.root().display()
            )
        );
    }

    #[tokio::test]
    async fn without_a_workspace_the_call_fails() {
        let tool = TypedTool::of::<Read>(None);
        let call = tool
            .parse_input(&json!({"file_path": "/etc/hosts"}))
            .unwrap();
        let error = call
            .call(&ToolUseContext::detached("toolu_1"))
            .await
            .unwrap_err();
        assert!(
            error
                .message()
                .starts_with("No workspace root is configured")
        );
    }

    #[test]
    fn schema_has_claude_codes_fields_and_flags() {
        let tool = TypedTool::of::<Read>(None);
        let schema = tool.input_schema();
        let keys = crate::tools::fixture::sorted_property_names(schema);
        assert_eq!(keys, ["file_path", "limit", "offset"]);
        assert_eq!(schema["required"], json!(["file_path"]));
        let call = tool.parse_input(&json!({"file_path": "a"})).unwrap();
        assert!(call.is_read_only() && call.is_concurrency_safe() && !call.is_destructive());
    }
}
