//! The model API a file or a definitions list is in: `--format` of `tool-host definitions`
//! and `tool-host run`.

use serde_json::Value;
use std::sync::Arc;
use tool_registry::ToolRegistry;
use tool_registry::export::{ExportTarget, SchemaCache};
use tool_registry::providers::gemini::{GeminiDeclarations, GeminiNames};
use tool_registry::providers::{ToolCalls, anthropic, gemini, openai_chat, openai_responses};

use tool_sdk::{DynTool, ToolResultBlock};

use crate::pool_options::PoolOptions;

/// `definitions --format`: an export target, or Gemini function declarations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefinitionsFormat {
    /// anthropic, openai-chat, openai-responses or mcp.
    Export(ExportTarget),
    /// Gemini `functionDeclarations` with the portable schema profile.
    Gemini,
}

impl std::str::FromStr for DefinitionsFormat {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text == "gemini" {
            return Ok(Self::Gemini);
        }
        text.parse().map(Self::Export).map_err(|_| {
            format!(
                "unknown format `{text}`; use anthropic, openai-chat, openai-responses, gemini or mcp"
            )
        })
    }
}

/// The Gemini function declarations of the pool `options` describe; a tool whose schema
/// cannot be made portable fails the command, naming the tool and field.
pub fn gemini_definitions(
    registry: &ToolRegistry,
    options: &PoolOptions,
) -> Result<Vec<Value>, String> {
    let pool = options.build(registry)?;
    let exported = GeminiDeclarations::new(&SchemaCache::new(), pool.tools())
        .map_err(|error| error.to_string())?;
    for (name, sent) in exported.names.renamed() {
        eprintln!("tool-host: `{name}` is sent to Gemini as `{sent}`");
    }
    Ok(exported.declarations)
}

/// `run --format`: the API the assistant message is in, and the answer is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ApiFormat {
    /// Anthropic Messages: `tool_use` blocks in, a user message of `tool_result`s out.
    #[default]
    Anthropic,
    /// OpenAI Chat Completions: `tool_calls` in, `tool` messages out.
    OpenAiChat,
    /// OpenAI Responses: `function_call` items in, `function_call_output` items out.
    OpenAiResponses,
    /// Gemini: `functionCall` parts in, a content of `functionResponse` parts out.
    Gemini,
}

impl std::str::FromStr for ApiFormat {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "anthropic" => Ok(Self::Anthropic),
            "openai-chat" => Ok(Self::OpenAiChat),
            "openai-responses" => Ok(Self::OpenAiResponses),
            "gemini" => Ok(Self::Gemini),
            other => Err(format!(
                "unknown format `{other}`; use anthropic, openai-chat, openai-responses or gemini"
            )),
        }
    }
}

impl ApiFormat {
    /// The tool calls of `message`; `tools` is the pool (Gemini maps the names it refuses).
    pub fn read(self, message: &Value, tools: &[Arc<dyn DynTool>]) -> Result<ToolCalls, String> {
        match self {
            Self::Anthropic => anthropic::read_calls(message).map_err(|e| e.to_string()),
            Self::OpenAiChat => openai_chat::read_calls(message).map_err(|e| e.to_string()),
            Self::OpenAiResponses => {
                openai_responses::read_calls(message).map_err(|e| e.to_string())
            }
            Self::Gemini => gemini::read_calls(message, &GeminiNames::for_tools(tools))
                .map_err(|e| e.to_string()),
        }
    }

    /// The answer to `calls` in this API's shape; `tools` as for [`ApiFormat::read`].
    pub fn write(
        self,
        calls: &ToolCalls,
        results: Vec<ToolResultBlock>,
        tools: &[Arc<dyn DynTool>],
    ) -> Result<Value, String> {
        let written = match self {
            Self::Anthropic => anthropic::results_message(calls, results),
            Self::OpenAiChat => openai_chat::results_messages(calls, results).map(Value::from),
            Self::OpenAiResponses => {
                openai_responses::results_items(calls, results).map(Value::from)
            }
            Self::Gemini => gemini::results_content(calls, results, &GeminiNames::for_tools(tools)),
        };
        written.map_err(|error| error.to_string())
    }
}
