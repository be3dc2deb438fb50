//! [`Grep`]: regular-expression search over the workspace's files, with ripgrep's own
//! libraries and Claude Code's output modes.

mod mode;
mod sink;

use std::fs;
use std::io::ErrorKind;
use std::path::Path;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use ignore::WalkBuilder;
use ignore::overrides::{Override, OverrideBuilder};
use ignore::types::{Types, TypesBuilder};
use tool_sdk::CancellationToken;
use tool_sdk::prelude::*;

pub use self::mode::OutputMode;
use self::sink::FileSink;
use super::{io_error, run_blocking};
use crate::workspace::Workspace;

/// A powerful search tool built on ripgrep's libraries.
///
/// Usage:
/// - ALWAYS use Grep for search tasks. NEVER invoke `grep` or `rg` as a Bash command.
/// - Supports full regex syntax (e.g., "log.*Error", "function\s+\w+")
/// - Filter files with the glob parameter (e.g., "*.js", "**/*.tsx") or the type parameter
///   (e.g., "js", "py", "rust")
/// - Output modes: "content" shows matching lines, "files_with_matches" shows only file paths
///   (default), "count" shows match counts
/// - Pattern syntax: uses ripgrep (not grep) - literal braces need escaping (use
///   `interface\{\}` to find `interface{}` in Go code)
/// - Multiline matching: by default patterns match within single lines only. For cross-line
///   patterns like `struct \{[\s\S]*?field`, use `multiline: true`
/// - Hidden files and files ignored by .gitignore or .ignore files are not searched; paths in
///   the results are absolute, in path order
#[tool(
    name = "Grep",
    read_only,
    concurrency_safe,
    max_result_size_chars = 20_000,
    search_hint = "search file contents with regular expressions",
    example = r#"{"pattern": "fn main", "type": "rust"}"#,
    example = r#"{"pattern": "TODO|FIXME", "glob": "*.{ts,tsx}", "output_mode": "content", "-n": true}"#
)]
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Grep {
    /// The regular expression pattern to search for in file contents
    pub pattern: String,
    /// File or directory to search in (rg PATH). Defaults to current working directory.
    pub path: Option<String>,
    /// Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}") - maps to rg --glob
    pub glob: Option<String>,
    /// Output mode: "content" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), "files_with_matches" shows file paths (supports head_limit), "count" shows match counts (supports head_limit). Defaults to "files_with_matches".
    // `with`: schemars would add `null` to the enum of an `Option` (tool-sdk strips the `null`
    // only from `type`); `default` keeps the field optional.
    #[serde(default)]
    #[schemars(with = "OutputMode")]
    pub output_mode: Option<OutputMode>,
    /// Number of lines to show before each match (rg -B). Requires output_mode: "content", ignored otherwise.
    #[serde(rename = "-B")]
    pub before_context: Option<u64>,
    /// Number of lines to show after each match (rg -A). Requires output_mode: "content", ignored otherwise.
    #[serde(rename = "-A")]
    pub after_context: Option<u64>,
    /// Number of lines to show before and after each match (rg -C). Requires output_mode: "content", ignored otherwise.
    #[serde(rename = "-C")]
    pub context: Option<u64>,
    /// Show line numbers in output (rg -n). Requires output_mode: "content", ignored otherwise. Defaults to true.
    #[serde(rename = "-n")]
    pub line_numbers: Option<bool>,
    /// Case insensitive search (rg -i)
    #[serde(rename = "-i")]
    pub case_insensitive: Option<bool>,
    /// File type to search (rg --type). Common types: js, py, rust, go, java, etc. More efficient than include for standard file types.
    #[serde(rename = "type")]
    pub file_type: Option<String>,
    /// Limit output to first N lines/entries, equivalent to "| head -N". Works across all output modes: content (limits output lines), files_with_matches (limits file paths), count (limits count entries). When unspecified, shows all results from ripgrep.
    pub head_limit: Option<u64>,
    /// Skip first N lines/entries before applying head_limit, equivalent to "| tail -n +N | head -N". Works across all output modes. Defaults to 0.
    pub offset: Option<u64>,
    /// Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false.
    pub multiline: Option<bool>,
}

#[tool]
impl Tool for Grep {
    type Output = String;

    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let target = Workspace::from_context(ctx)?.resolve(self.path.as_deref().unwrap_or(""))?;
        let search = Search::new(&self, &target)?;
        let abort = ctx.abort().clone();
        run_blocking(move || search.run(&target, &abort))
            .await
            .map(ToolResult::new)
    }
}

/// One Grep call's settings, checked and compiled.
struct Search {
    matcher: RegexMatcher,
    mode: OutputMode,
    before: usize,
    after: usize,
    line_numbers: bool,
    multiline: bool,
    types: Option<Types>,
    overrides: Option<Override>,
    offset: usize,
    head_limit: Option<usize>,
}

/// One line (content mode) or one file (the other modes), with its number of matches.
struct Entry {
    text: String,
    matches: u64,
}

fn to_usize(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

impl Search {
    fn new(input: &Grep, target: &Path) -> Result<Self, ToolError> {
        let mode = input.output_mode.unwrap_or_default();
        let context = |own: Option<u64>| match mode {
            OutputMode::Content => to_usize(own.or(input.context).unwrap_or(0)),
            _ => 0,
        };
        let multiline = input.multiline.unwrap_or(false);
        Ok(Self {
            matcher: matcher(input, multiline)?,
            mode,
            before: context(input.before_context),
            after: context(input.after_context),
            line_numbers: input.line_numbers.unwrap_or(true),
            multiline,
            types: input.file_type.as_deref().map(file_types).transpose()?,
            overrides: input
                .glob
                .as_deref()
                .map(|glob| glob_filter(target, glob))
                .transpose()?,
            offset: to_usize(input.offset.unwrap_or(0)),
            // `head_limit: 0` means no limit, as in Claude Code.
            head_limit: input.head_limit.filter(|&limit| limit > 0).map(to_usize),
        })
    }

    /// The result text for a search of `target` (a file or a directory).
    fn run(&self, target: &Path, abort: &CancellationToken) -> Result<String, ToolError> {
        let metadata = fs::metadata(target).map_err(|error| match error.kind() {
            ErrorKind::NotFound => {
                ToolError::new(format!("Path does not exist: {}", target.display()))
            }
            _ => io_error("search", target, &error),
        })?;
        let mut searcher = SearcherBuilder::new()
            .line_number(true)
            .multi_line(self.multiline)
            .before_context(self.before)
            .after_context(self.after)
            .binary_detection(BinaryDetection::quit(b'\0'))
            .build();
        let mut entries = Vec::new();
        if metadata.is_file() {
            self.search_file(&mut searcher, target, abort, &mut entries);
        } else {
            for entry in self.walker(target).build() {
                if abort.is_cancelled() {
                    break;
                }
                let Ok(entry) = entry else { continue };
                if entry.file_type().is_some_and(|kind| kind.is_file()) {
                    self.search_file(&mut searcher, entry.path(), abort, &mut entries);
                }
            }
        }
        if abort.is_cancelled() {
            return Err(ToolError::aborted(""));
        }
        Ok(self.render(entries))
    }

    /// The directory walk: ripgrep's default filters (hidden files, .gitignore and .ignore,
    /// even outside a git repository), `type` and `glob`, in path order. Symbolic links are
    /// not followed.
    fn walker(&self, root: &Path) -> WalkBuilder {
        let mut walker = WalkBuilder::new(root);
        walker.require_git(false).sort_by_file_path(Path::cmp);
        if let Some(types) = &self.types {
            walker.types(types.clone());
        }
        if let Some(overrides) = &self.overrides {
            walker.overrides(overrides.clone());
        }
        walker
    }

    /// Searches one file and adds its entries; unreadable files are skipped, as ripgrep
    /// skips them with a warning.
    fn search_file(
        &self,
        searcher: &mut Searcher,
        path: &Path,
        abort: &CancellationToken,
        entries: &mut Vec<Entry>,
    ) {
        let mut sink = FileSink {
            matcher: &self.matcher,
            abort,
            mode: self.mode,
            line_numbers: self.line_numbers,
            path: path.display().to_string(),
            matches: 0,
            lines: Vec::new(),
        };
        if searcher
            .search_path(&self.matcher, path, &mut sink)
            .is_err()
            || sink.matches == 0
        {
            return;
        }
        match self.mode {
            OutputMode::FilesWithMatches => entries.push(Entry {
                text: sink.path,
                matches: sink.matches,
            }),
            OutputMode::Count => entries.push(Entry {
                text: format!("{}:{}", sink.path, sink.matches),
                matches: sink.matches,
            }),
            OutputMode::Content => {
                // ripgrep separates the context groups of different files too.
                if (self.before > 0 || self.after > 0) && !entries.is_empty() {
                    entries.push(Entry {
                        text: "--".to_owned(),
                        matches: 0,
                    });
                }
                entries.extend(
                    sink.lines
                        .into_iter()
                        .map(|text| Entry { text, matches: 0 }),
                );
            }
        }
    }

    /// Applies `offset` then `head_limit`, and formats the entries for `mode`.
    fn render(&self, mut entries: Vec<Entry>) -> String {
        let total = entries.len();
        let skipped = self.offset.min(total);
        let shown: Vec<Entry> = entries
            .drain(skipped..)
            .take(self.head_limit.unwrap_or(usize::MAX))
            .collect();
        let lines = || {
            shown
                .iter()
                .map(|entry| entry.text.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        };
        let text = match self.mode {
            OutputMode::FilesWithMatches if shown.is_empty() => "No files found".to_owned(),
            OutputMode::Content | OutputMode::Count if shown.is_empty() => {
                "No matches found".to_owned()
            }
            OutputMode::FilesWithMatches => {
                format!(
                    "Found {}\n{}",
                    plural(shown.len() as u64, "file", "files"),
                    lines()
                )
            }
            OutputMode::Content => lines(),
            OutputMode::Count => {
                let occurrences = shown.iter().map(|entry| entry.matches).sum();
                format!(
                    "{}\n\nFound {} across {}.",
                    lines(),
                    plural(occurrences, "total occurrence", "total occurrences"),
                    plural(shown.len() as u64, "file", "files"),
                )
            }
        };
        if total > 0 && (skipped > 0 || skipped + shown.len() < total) {
            let limit = self
                .head_limit
                .map_or_else(|| "none".to_owned(), |limit| limit.to_string());
            return format!(
                "{text}\n\n[Showing results with pagination = limit: {limit}, offset: {}]",
                self.offset
            );
        }
        text
    }
}

fn plural(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// The regex as ripgrep builds it: `^`/`$` at line boundaries; without `multiline`, matches
/// never span a line break.
fn matcher(input: &Grep, multiline: bool) -> Result<RegexMatcher, ToolError> {
    let mut builder = RegexMatcherBuilder::new();
    builder
        .case_insensitive(input.case_insensitive.unwrap_or(false))
        .multi_line(true);
    if multiline {
        builder.dot_matches_new_line(true);
    } else {
        builder.line_terminator(Some(b'\n'));
    }
    builder.build(&input.pattern).map_err(|error| {
        let hint = if !multiline && input.pattern.contains("\\n") {
            "\nTo match across lines, set multiline: true."
        } else {
            ""
        };
        ToolError::new(format!(
            "Invalid regular expression {}: {error}{hint}",
            input.pattern
        ))
    })
}

/// ripgrep's built-in file types, narrowed to `name`.
fn file_types(name: &str) -> Result<Types, ToolError> {
    TypesBuilder::new()
        .add_defaults()
        .select(name)
        .build()
        .map_err(|_| {
            ToolError::new(format!(
                "Unknown file type \"{name}\": use a ripgrep type name such as js, py, rust, \
                 go or java."
            ))
        })
}

/// `glob` as ripgrep `--glob` overrides rooted at the searched directory. Several globs may be
/// given separated by spaces; outside braces, commas separate globs too.
fn glob_filter(root: &Path, glob: &str) -> Result<Override, ToolError> {
    let mut builder = OverrideBuilder::new(root);
    for part in glob.split_whitespace() {
        let globs: Vec<&str> = if part.contains('{') {
            vec![part]
        } else {
            part.split(',').filter(|glob| !glob.is_empty()).collect()
        };
        for one in globs {
            builder
                .add(one)
                .map_err(|error| ToolError::new(format!("Invalid glob {one}: {error}")))?;
        }
    }
    builder
        .build()
        .map_err(|error| ToolError::new(format!("Invalid glob {glob}: {error}")))
}

#[cfg(test)]
mod tests;
