//! The APIs definitions are rendered for, and the choice of renderer per target.

use serde_json::Value;

use super::captured::CachedTool;
use super::{anthropic, mcp, openai};

/// Which API the definitions are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExportTarget {
    /// Anthropic Messages API `tools`: `{"name","description","input_schema"}`.
    Anthropic = 0,
    /// OpenAI Chat Completions: `{"type":"function","function":{...}}`.
    OpenAiChat = 1,
    /// OpenAI Responses: `{"type":"function","name",...}`.
    OpenAiResponses = 2,
    /// MCP `tools/list`: `{"name","title","description","inputSchema","annotations",...}`.
    Mcp = 3,
}

impl ExportTarget {
    /// `true` for the two OpenAI targets, the only ones with a strict mode.
    pub fn is_openai(self) -> bool {
        matches!(self, Self::OpenAiChat | Self::OpenAiResponses)
    }
}

impl std::str::FromStr for ExportTarget {
    type Err = String;

    /// `anthropic`, `openai-chat`, `openai-responses` or `mcp`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "anthropic" => Ok(Self::Anthropic),
            "openai-chat" => Ok(Self::OpenAiChat),
            "openai-responses" => Ok(Self::OpenAiResponses),
            "mcp" => Ok(Self::Mcp),
            other => Err(format!(
                "unknown format `{other}`; use anthropic, openai-chat, openai-responses or mcp"
            )),
        }
    }
}

/// The base definition of a captured tool for `target` (no per-request fields).
/// `strict_schema` is the OpenAI strict-mode input schema when strict mode applies; the other
/// targets ignore it.
pub(super) fn definition(
    tool: &CachedTool,
    target: ExportTarget,
    strict_schema: Option<&Value>,
) -> Value {
    match target {
        ExportTarget::Anthropic => anthropic::definition(tool),
        ExportTarget::OpenAiChat => openai::definition(tool, true, strict_schema),
        ExportTarget::OpenAiResponses => openai::definition(tool, false, strict_schema),
        ExportTarget::Mcp => mcp::definition(tool),
    }
}
