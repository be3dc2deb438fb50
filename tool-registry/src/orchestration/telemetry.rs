//! The telemetry of one call, in the OpenTelemetry GenAI semantic conventions (the
//! `execute_tool` span of `docs/gen-ai/gen-ai-spans.md`, open-telemetry/semantic-conventions-genai,
//! its `main` of November 2026, built on semantic-conventions v1.41.1; Development status):
//! an `execute_tool {gen_ai.tool.name}`
//! span of kind `INTERNAL` with `gen_ai.operation.name`, `gen_ai.tool.name`,
//! `gen_ai.tool.call.id`, `gen_ai.tool.type`, `error.type` and an `ERROR` status on failure,
//! and, opted in through [`OrchestratorConfig::capture_tool_content`](super::OrchestratorConfig),
//! `gen_ai.tool.call.arguments` / `gen_ai.tool.call.result`.
//!
//! The span is an ordinary `tracing` span (target `tool_registry::execute_tool`, level INFO)
//! whose `otel.*` fields are the ones `tracing-opentelemetry` reads for the span's name, kind
//! and status; with the `otel` feature the call's duration also goes to the
//! `gen_ai.execute_tool.duration` histogram (seconds) of the global meter.

#[cfg(feature = "otel")]
use std::time::Instant;

use tool_sdk::{DynTool, ToolUseBlock};

/// Why a call ended in an error result: its `error.type`. The values are this SDK's own
/// low-cardinality names for the steps of SPEC §5.4 that can refuse a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// No tool answers the name (step 1).
    UnknownTool,
    /// The turn was aborted or interrupted before or while the call ran (steps 2, 8).
    Cancelled,
    /// The input does not fit the schema, or parsing it panicked (step 3).
    InvalidInput,
    /// The tool's own `validate_input` refused it (step 4).
    ValidationFailed,
    /// A PreToolUse observer stopped it (step 5).
    HookStopped,
    /// A deny rule or the permission prompt refused it, or no one could approve it (step 6).
    PermissionDenied,
    /// The tool ran and answered with an error (step 7), marked passing or not
    /// (`ToolError::retryable`).
    ToolError {
        /// The tool said the same call may succeed if made again.
        retryable: bool,
    },
    /// The tool, an observer or a middleware layer panicked (step 8).
    Panic,
    /// A middleware `Timeout` stopped the call.
    Timeout,
    /// A middleware layer answered with an error.
    Middleware,
}

impl Failure {
    /// The `error.type` value.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::UnknownTool => "unknown_tool",
            Self::Cancelled => "cancelled",
            Self::InvalidInput => "invalid_input",
            Self::ValidationFailed => "validation_failed",
            Self::HookStopped => "hook_stopped",
            Self::PermissionDenied => "permission_denied",
            Self::ToolError { .. } => "tool_error",
            Self::Panic => "panic",
            Self::Timeout => "timeout",
            Self::Middleware => "middleware_error",
        }
    }
}

/// The tool's canonical name, or the name the call gave when no tool answers it.
fn name_of<'a>(block: &'a ToolUseBlock, tool: Option<&'a dyn DynTool>) -> &'a str {
    tool.map_or(block.name.as_str(), DynTool::name)
}

/// `gen_ai.tool.type`: an MCP tool calls another service (`extension`); every other tool
/// runs here (`function`).
fn type_of(tool: &dyn DynTool) -> &'static str {
    if tool.meta().is_mcp {
        "extension"
    } else {
        "function"
    }
}

/// The `execute_tool` span of one call (and, with the `otel` feature, when it started and the
/// tool's name, for the duration histogram).
pub(crate) struct CallSpan {
    span: tracing::Span,
    capture_content: bool,
    #[cfg(feature = "otel")]
    timed: (Instant, String),
}

impl CallSpan {
    /// Opens the span of `block`, answered by `tool` (`None`: no tool answers it). With
    /// `capture_content`, the input is recorded as `gen_ai.tool.call.arguments`.
    pub(crate) fn open(
        block: &ToolUseBlock,
        tool: Option<&dyn DynTool>,
        capture_content: bool,
    ) -> Self {
        // Every value is computed only when a subscriber wants the span.
        let span = tracing::info_span!(
            target: "tool_registry::execute_tool",
            "execute_tool",
            otel.name = %format_args!("execute_tool {}", name_of(block, tool)),
            otel.kind = "internal",
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = name_of(block, tool),
            gen_ai.tool.call.id = block.id.as_str(),
            gen_ai.tool.type = tool.map(type_of),
            error.type = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
            gen_ai.tool.call.arguments = tracing::field::Empty,
            gen_ai.tool.call.result = tracing::field::Empty,
        );
        if capture_content && !span.is_disabled() {
            span.record(
                "gen_ai.tool.call.arguments",
                tracing::field::display(&block.input),
            );
        }
        Self {
            span,
            capture_content,
            #[cfg(feature = "otel")]
            timed: (Instant::now(), name_of(block, tool).to_owned()),
        }
    }

    /// The span, to enter while the call runs.
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Records how the call ended (`failure`: why it is an error result) and, with the `otel`
    /// feature, its duration.
    pub(crate) fn finish(&self, result: &tool_sdk::ToolResultBlock, failure: Option<Failure>) {
        // Only an error result failed, whatever a step said before a layer answered.
        let failure = failure.filter(|_| result.is_error);
        if !self.span.is_disabled() {
            if let Some(failure) = failure {
                self.span.record("error.type", failure.as_str());
                self.span.record("otel.status_code", "ERROR");
            }
            if self.capture_content
                && let Ok(text) = serde_json::to_string(&result.content)
            {
                self.span.record("gen_ai.tool.call.result", text);
            }
        }
        #[cfg(feature = "otel")]
        crate::telemetry::record_tool_duration(
            &self.timed.1,
            self.timed.0.elapsed().as_secs_f64(),
            failure.map(Failure::as_str),
        );
    }
}
