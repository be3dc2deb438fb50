//! [`Bash`]: run a shell command in the workspace root.

pub mod background;
pub mod classify;
pub mod process;
pub mod rules;

use std::borrow::Cow;
use std::time::Duration;

use tool_sdk::prelude::*;
use tool_sdk::{InterruptBehavior, PermissionMatcher, SearchOrRead};

use crate::workspace::Workspace;
pub use background::BackgroundShells;
pub use classify::is_read_only_command;
use process::{Ending, Finished};

/// Timeout when the call gives none, in milliseconds (2 minutes).
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Longest timeout a call may ask for, in milliseconds (10 minutes).
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// Executes a bash command in the workspace root, with an optional timeout.
///
/// Usage:
/// - The command runs with `bash -c` in the workspace root, in a process group of its own;
///   stdin is closed. Each call starts a fresh shell: `cd` and variables do not carry over.
/// - timeout is in milliseconds: 120000 (2 minutes) when omitted, at most 600000 (10
///   minutes). When it passes, every process the command started is killed.
/// - Output longer than 30000 characters keeps its beginning and its end, with the number
///   of characters left out in between.
/// - A command that exits with a non-zero code is an error whose text starts with
///   `Exit code N`, followed by stderr and stdout.
/// - Set run_in_background to start a long-running command and get its id at once; stop it
///   with TaskStop. Its output is not kept.
/// - Prefer the Read, Glob, Grep, Edit and Write tools over `cat`, `find`, `grep`, `sed` and
///   `echo >` for file work.
/// - Read-only commands (`ls`, `cat`, `git status`, `git log`, `git diff`, `rg`, ...) may run
///   in parallel with other read-only calls; anything that writes, redirects output to a
///   file, or is unknown runs alone.
#[tool(
    name = "Bash",
    search_hint = "execute shell commands",
    read_only = Self::is_read_only_input,
    concurrency_safe = Self::is_read_only_input,
    max_result_size_chars = 30_000,
    task = "optional",
    example = r#"{"command": "git status", "description": "Show working tree status"}"#,
    example = r#"{"command": "cargo test --workspace", "timeout": 600000, "description": "Run the workspace tests"}"#
)]
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Bash {
    /// The command to execute
    pub command: String,
    /// Optional timeout in milliseconds (max 600000)
    #[serde(default)]
    #[schemars(schema_with = "timeout_schema")]
    pub timeout: Option<f64>,
    /// Clear, concise description of what this command does in 5-10 words, in active voice.
    /// Examples:
    /// Input: ls
    /// Output: List files in current directory
    ///
    /// Input: git status
    /// Output: Show working tree status
    pub description: Option<String>,
    /// Set to true to run this command in the background. Use TaskStop to stop it.
    pub run_in_background: Option<bool>,
    /// Set this to true to dangerously override sandbox mode and run commands without
    /// sandboxing. This host has no sandbox, so the value changes nothing.
    #[serde(rename = "dangerouslyDisableSandbox")]
    pub dangerously_disable_sandbox: Option<bool>,
}

/// The `timeout` property's schema: exactly the values [`Bash`] accepts, a number of
/// milliseconds above 0 and at most [`MAX_TIMEOUT_MS`] (the reference's type, `number`).
fn timeout_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "number",
        "exclusiveMinimum": 0,
        "maximum": MAX_TIMEOUT_MS
    })
}

impl Bash {
    /// Whether this input's command only reads ([`is_read_only_command`]).
    pub fn is_read_only_input(&self) -> bool {
        is_read_only_command(&self.command)
    }

    /// The timeout this input asks for, after checking its range.
    fn timeout(&self) -> Result<Duration, ToolError> {
        let Some(ms) = self.timeout else {
            return Ok(Duration::from_millis(DEFAULT_TIMEOUT_MS));
        };
        if !(ms.is_finite() && ms > 0.0 && ms <= MAX_TIMEOUT_MS as f64) {
            return Err(ToolError::new(format!(
                "timeout must be a number of milliseconds above 0 and at most {MAX_TIMEOUT_MS} \
                 (10 minutes); got {ms}. Omit it for the 120000 ms default."
            )));
        }
        Ok(Duration::from_secs_f64(ms / 1000.0))
    }
}

#[tool]
impl Tool for Bash {
    type Output = String;

    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let root = Workspace::from_context(ctx)?.root().to_path_buf();
        let timeout = self.timeout()?;
        if self.command.trim().is_empty() {
            return Err(ToolError::new(
                "command is empty: give the shell command to run.",
            ));
        }
        if self.run_in_background == Some(true) {
            let shells = ctx.get::<BackgroundShells>().ok_or_else(|| {
                ToolError::new(
                    "run_in_background needs a host that keeps background shells, and this \
                     one put no BackgroundShells into the tool context; run the command \
                     without run_in_background.",
                )
            })?;
            let id = shells
                .spawn(&self.command, &root)
                .map_err(|error| ToolError::new(format!("Could not start bash: {error}")))?;
            return Ok(ToolResult::new(format!(
                "Command running in background with ID: {id}"
            )));
        }
        let finished = process::run(&self.command, &root, timeout, ctx.abort(), |elapsed| {
            ctx.report_progress(&format!("running for {}s", elapsed.as_secs()));
        })
        .await
        .map_err(|error| ToolError::new(format!("Could not start bash: {error}")))?;
        result_of(finished).map(ToolResult::new)
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    fn prepare_permission_matcher(&self) -> Option<PermissionMatcher> {
        let allowed = self.command.clone();
        let restricted = self.command.clone();
        Some(PermissionMatcher::per_behavior(
            move |rule| rules::rule_covers(rule, &allowed),
            move |rule| rules::rule_restricts(rule, &restricted),
        ))
    }

    fn is_search_or_read_command(&self) -> SearchOrRead {
        let first = classify::simple_commands(&self.command)
            .and_then(|commands| commands.into_iter().next())
            .and_then(|words| words.into_iter().next())
            .unwrap_or_default();
        SearchOrRead {
            is_search: matches!(first.as_str(), "find" | "grep" | "rg" | "egrep" | "fgrep"),
            is_read: matches!(
                first.as_str(),
                "cat" | "head" | "tail" | "less" | "more" | "wc"
            ),
        }
    }

    fn to_auto_classifier_input(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.command)
    }

    fn description(&self) -> Cow<'_, str> {
        match &self.description {
            Some(text) if !text.trim().is_empty() => Cow::Borrowed(text),
            _ => Cow::Borrowed(&self.command),
        }
    }
}

/// The result text of a finished command, or the shell error (SPEC §5.4 step 7): `Exit code
/// N`, stderr, stdout for a failure.
fn result_of(finished: Finished) -> Result<String, ToolError> {
    let Finished {
        stdout,
        stderr,
        ending,
    } = finished;
    let unseen = stdout.unseen + stderr.unseen;
    match ending {
        Ending::Exited(0) => Ok(joined(
            stdout.text.trim_end_matches('\n'),
            stderr.text.trim_end_matches('\n'),
            unseen,
        )),
        Ending::Exited(code) => Err(ToolError::shell(
            code,
            false,
            trimmed(stdout.capped()),
            trimmed(stderr.capped()),
        )),
        Ending::TimedOut(after) => Err(ToolError::new(format!(
            "Command timed out after {} ms and was stopped with everything it started.",
            after.as_millis()
        ))
        .with_output(trimmed(stdout.capped()), trimmed(stderr.capped()))),
        Ending::Cancelled => Err(ToolError::shell(
            137,
            true,
            trimmed(stdout.capped()),
            trimmed(stderr.capped()),
        )),
    }
}

fn trimmed(text: String) -> String {
    text.trim_end_matches('\n').to_owned()
}

/// stdout, then stderr on the next line, capped once together (`unseen`: chars read but not
/// kept in their middles).
fn joined(stdout: &str, stderr: &str, unseen: usize) -> String {
    let text = match (stdout.is_empty(), stderr.is_empty()) {
        (_, true) => stdout.to_owned(),
        (true, false) => stderr.to_owned(),
        (false, false) => format!("{stdout}\n{stderr}"),
    };
    process::cap_joined(&text, unseen)
}

#[cfg(test)]
mod tests;
