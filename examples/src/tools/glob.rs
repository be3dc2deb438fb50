//! [`Glob`]: the files whose paths match a glob pattern, oldest first.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkBuilder;
use tool_sdk::CancellationToken;
use tool_sdk::prelude::*;

use super::{io_error, run_blocking};
use crate::workspace::Workspace;

/// Most paths listed; more are cut and [`TRUNCATED_NOTE`] is appended.
pub const MAX_RESULTS: usize = 100;
/// The line appended when more than [`MAX_RESULTS`] files matched.
pub const TRUNCATED_NOTE: &str =
    "(Results are truncated. Consider using a more specific path or pattern.)";
/// The result when nothing matched.
pub const NO_FILES: &str = "No files found";

/// - Fast file pattern matching tool that works with any codebase size
/// - Supports glob patterns like "**/*.js" or "src/**/*.ts"; "*" does not cross "/", so
///   "*.js" matches only in the searched directory itself
/// - Returns matching file paths (absolute, one per line) sorted by modification time, oldest
///   first, at most 100 of them
/// - Hidden files are included (the `.git` directory is not); files ignored by .gitignore or
///   .ignore files are skipped, and symbolic links are not followed
/// - Use this tool when you need to find files by name patterns
/// - You can call multiple tools in a single response. It is always better to speculatively
///   perform multiple searches in parallel if they are potentially useful.
#[tool(
    name = "Glob",
    read_only,
    concurrency_safe,
    max_result_size_chars = 100_000,
    search_hint = "find files by name pattern or wildcard"
)]
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Glob {
    /// The glob pattern to match files against
    pub pattern: String,
    /// The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter "undefined" or "null" - simply omit it for the default behavior. Must be a valid directory path if provided.
    pub path: Option<String>,
}

#[tool]
impl Tool for Glob {
    type Output = String;

    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let workspace = Workspace::from_context(ctx)?;
        let (base, pattern) = self.search_base(workspace)?;
        let matcher = GlobBuilder::new(&pattern)
            .literal_separator(true)
            .build()
            .map_err(|error| {
                ToolError::new(format!("Invalid glob pattern {}: {error}", self.pattern))
            })?
            .compile_matcher();
        let abort = ctx.abort().clone();
        run_blocking(move || find(&base, &matcher, &abort))
            .await
            .map(ToolResult::new)
    }
}

impl Glob {
    /// The directory to walk and the pattern to match against paths relative to it. An
    /// absolute pattern brings its own directory: its leading components without wildcards.
    fn search_base(&self, workspace: &Workspace) -> Result<(PathBuf, String), ToolError> {
        if self.pattern.starts_with('/') {
            let (base, rest) = split_absolute(&self.pattern);
            return Ok((workspace.resolve(&base)?, rest));
        }
        let base = workspace.resolve(self.path.as_deref().unwrap_or(""))?;
        let pattern = self.pattern.strip_prefix("./").unwrap_or(&self.pattern);
        Ok((base, pattern.to_owned()))
    }
}

/// `/a/b/**/*.rs` → (`/a/b`, `**/*.rs`); a pattern without wildcards keeps its last component
/// as the pattern.
fn split_absolute(pattern: &str) -> (String, String) {
    let components: Vec<&str> = pattern.split('/').collect();
    let literal = components
        .iter()
        .take_while(|component| !component.contains(['*', '?', '[', '{']))
        .count()
        .min(components.len() - 1);
    let base = components[..literal].join("/");
    let base = if base.is_empty() {
        "/".to_owned()
    } else {
        base
    };
    (base, components[literal..].join("/"))
}

/// The result text: matching files under `base`, oldest first, at most [`MAX_RESULTS`].
fn find(
    base: &Path,
    matcher: &GlobMatcher,
    abort: &CancellationToken,
) -> Result<String, ToolError> {
    match fs::metadata(base) {
        Ok(metadata) if metadata.is_dir() => {}
        Ok(_) => {
            return Err(ToolError::new(format!(
                "Path is not a directory: {}",
                base.display()
            )));
        }
        Err(error) if error.kind() == ErrorKind::NotFound => {
            return Err(ToolError::new(format!(
                "Directory does not exist: {}",
                base.display()
            )));
        }
        Err(error) => return Err(io_error("search", base, &error)),
    }
    let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
    // Hidden files are listed, as the reference Glob lists `.claude/...` files in recorded
    // sessions; the `.git` directory itself never is.
    let walk = WalkBuilder::new(base)
        .require_git(false)
        .hidden(false)
        .filter_entry(|entry| entry.file_name() != ".git")
        .build();
    for entry in walk {
        if abort.is_cancelled() {
            return Err(ToolError::aborted(""));
        }
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            continue;
        }
        let relative = entry.path().strip_prefix(base).unwrap_or(entry.path());
        if matcher.is_match(relative) {
            let modified = entry
                .metadata()
                .ok()
                .and_then(|metadata| metadata.modified().ok())
                .unwrap_or(UNIX_EPOCH);
            found.push((modified, entry.into_path()));
        }
    }
    if found.is_empty() {
        return Ok(NO_FILES.to_owned());
    }
    found.sort();
    let mut text = found
        .iter()
        .take(MAX_RESULTS)
        .map(|(_, path)| path.display().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    if found.len() > MAX_RESULTS {
        text.push('\n');
        text.push_str(TRUNCATED_NOTE);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tools::fixture::{Fixture, set_mtime};

    #[tokio::test]
    async fn lists_matches_oldest_first() {
        let fx = Fixture::new();
        for (name, mtime) in [("b.rs", 300), ("a.rs", 100), ("c.rs", 200), ("d.txt", 50)] {
            fx.write(name, "");
            set_mtime(&fx.root().join(name), mtime);
        }
        let out = fx.call::<Glob>(json!({"pattern": "*.rs"})).await;
        let expected = [fx.path("a.rs"), fx.path("c.rs"), fx.path("b.rs")].join("\n");
        assert_eq!(out.unwrap(), expected);
    }

    #[tokio::test]
    async fn a_star_stays_in_one_directory_and_double_star_recurses() {
        let fx = Fixture::new();
        fx.write("top.rs", "");
        fx.write("src/deep/inner.rs", "");
        set_mtime(&fx.root().join("top.rs"), 1);
        set_mtime(&fx.root().join("src/deep/inner.rs"), 2);
        let top = fx.call::<Glob>(json!({"pattern": "*.rs"})).await;
        assert_eq!(top.unwrap(), fx.path("top.rs"));
        let all = fx.call::<Glob>(json!({"pattern": "**/*.rs"})).await;
        assert_eq!(
            all.unwrap(),
            [fx.path("top.rs"), fx.path("src/deep/inner.rs")].join("\n")
        );
        let under = fx
            .call::<Glob>(json!({"pattern": "src/**/*.{rs,ts}"}))
            .await;
        assert_eq!(under.unwrap(), fx.path("src/deep/inner.rs"));
    }

    #[tokio::test]
    async fn path_and_absolute_patterns_choose_the_directory() {
        let fx = Fixture::new();
        fx.write("a.md", "");
        fx.write("docs/b.md", "");
        let in_docs = fx
            .call::<Glob>(json!({"pattern": "*.md", "path": "docs"}))
            .await;
        assert_eq!(in_docs.unwrap(), fx.path("docs/b.md"));
        let absolute = format!("{}/docs/*.md", fx.root().display());
        let out = fx.call::<Glob>(json!({"pattern": absolute})).await;
        assert_eq!(out.unwrap(), fx.path("docs/b.md"));
        let literal = fx.path("a.md");
        let out = fx.call::<Glob>(json!({"pattern": literal})).await;
        assert_eq!(out.unwrap(), fx.path("a.md"));
    }

    #[tokio::test]
    async fn gitignored_files_and_git_dirs_are_skipped_but_hidden_files_are_listed() {
        let fx = Fixture::new();
        fx.write(".gitignore", "ignored.txt\nbuild/\n");
        fx.write("ignored.txt", "");
        fx.write("build/out.txt", "");
        fx.write(".git/HEAD.txt", "");
        fx.write(".claude/notes.txt", "");
        set_mtime(&fx.root().join(".claude/notes.txt"), 1);
        fx.write("kept.txt", "");
        set_mtime(&fx.root().join("kept.txt"), 2);
        let out = fx.call::<Glob>(json!({"pattern": "**/*.txt"})).await;
        assert_eq!(
            out.unwrap(),
            format!("{}\n{}", fx.path(".claude/notes.txt"), fx.path("kept.txt"))
        );
    }

    #[tokio::test]
    async fn more_than_100_matches_are_truncated() {
        let fx = Fixture::new();
        for n in 0..101 {
            let name = format!("f{n:03}.txt");
            fx.write(&name, "");
            set_mtime(&fx.root().join(&name), n);
        }
        let out = fx.call::<Glob>(json!({"pattern": "*.txt"})).await.unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 101);
        assert_eq!(lines[0], fx.path("f000.txt"));
        assert_eq!(lines[99], fx.path("f099.txt"));
        assert_eq!(lines[100], TRUNCATED_NOTE);
    }

    #[tokio::test]
    async fn no_match_says_no_files_found() {
        let fx = Fixture::new();
        fx.write("a.txt", "");
        let out = fx.call::<Glob>(json!({"pattern": "*.rs"})).await;
        assert_eq!(out.unwrap(), "No files found");
    }

    #[tokio::test]
    async fn a_bad_directory_is_an_error() {
        let fx = Fixture::new();
        fx.write("file.txt", "");
        let missing = fx
            .call::<Glob>(json!({"pattern": "*", "path": "nope"}))
            .await;
        assert_eq!(
            missing.unwrap_err(),
            format!("Directory does not exist: {}", fx.path("nope"))
        );
        let file = fx
            .call::<Glob>(json!({"pattern": "*", "path": "file.txt"}))
            .await;
        assert_eq!(
            file.unwrap_err(),
            format!("Path is not a directory: {}", fx.path("file.txt"))
        );
    }

    #[tokio::test]
    async fn an_invalid_pattern_is_an_error() {
        let fx = Fixture::new();
        let out = fx.call::<Glob>(json!({"pattern": "a[b"})).await;
        assert!(
            out.unwrap_err().starts_with("Invalid glob pattern a[b: "),
            "unexpected text"
        );
    }

    #[tokio::test]
    async fn directories_outside_the_root_are_refused() {
        let fx = Fixture::new();
        let out = fx
            .call::<Glob>(json!({"pattern": "*", "path": "/etc"}))
            .await;
        assert_eq!(
            out.unwrap_err(),
            format!(
                "Path /etc is outside the workspace root {}; only files under the root can be \
                 accessed.",
                fx.root().display()
            )
        );
        let out = fx.call::<Glob>(json!({"pattern": "/etc/*.conf"})).await;
        assert!(out.unwrap_err().starts_with("Path /etc is outside"));
    }

    #[tokio::test]
    async fn a_cancelled_call_stops() {
        let fx = Fixture::new();
        fx.write("a.txt", "");
        fx.abort.cancel();
        let out = fx.call::<Glob>(json!({"pattern": "*"})).await;
        assert_eq!(
            out.unwrap_err(),
            "[Request interrupted by user for tool use]"
        );
    }

    #[test]
    fn absolute_patterns_split_at_the_first_wildcard() {
        assert_eq!(
            split_absolute("/a/b/**/*.rs"),
            ("/a/b".to_owned(), "**/*.rs".to_owned())
        );
        assert_eq!(
            split_absolute("/a/b.rs"),
            ("/a".to_owned(), "b.rs".to_owned())
        );
        assert_eq!(split_absolute("/*.rs"), ("/".to_owned(), "*.rs".to_owned()));
    }
}
