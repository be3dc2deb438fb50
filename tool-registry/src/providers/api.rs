//! [`ModelApi`]: the one name for "which API": what `--format` chooses, what definitions are
//! written for, what a response's calls are read from and the answer is written in.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;
use tool_sdk::{DynTool, ToolResultBlock};

use super::calls::ToolCalls;
use super::gemini::GeminiNames;
use super::namespaces::ResponsesNames;
use super::pairing::ResultsError;
use super::stream::ResponseStream;
use super::{ReadError, anthropic, gemini, mcp, openai_chat, openai_responses};
use crate::export::shape::DefinitionShape;
use crate::export::{RenderRequest, SchemaCache, SchemaError};

/// A model API (or MCP's `tools/list`) this crate writes tool definitions for, and reads tool
/// calls from and answers them in.
///
/// Its text form (`FromStr` / `Display`) is the `--format` value of `tool-host`:
/// `anthropic`, `openai-chat`, `openai-responses`, `gemini`, `gemini-openapi`, `mcp`.
///
/// | API | definitions | calls in | answer out |
/// |---|---|---|---|
/// | [`Anthropic`](Self::Anthropic) (Messages) | `{"name","description","input_schema"}` | `tool_use` blocks | one user message of `tool_result` blocks |
/// | [`OpenAiChat`](Self::OpenAiChat) (Chat Completions) | `{"type":"function","function":{..}}` | `tool_calls` | one `tool` message per call (an array) |
/// | [`OpenAiResponses`](Self::OpenAiResponses) | `{"type":"function","name",..}` (with tool search, [`OpenAiToolSearch`](super::OpenAiToolSearch): MCP servers as `namespace` tools) | `function_call` items, a `namespace` mapped back to the pool name | `function_call_output` items (an array) |
/// | [`Gemini`](Self::Gemini) (`generateContent`) | `functionDeclarations` entries with `parametersJsonSchema` | `functionCall` parts | a content of `functionResponse` parts |
/// | [`GeminiOpenApi`](Self::GeminiOpenApi) | `functionDeclarations` entries with OpenAPI-subset `parameters` | as Gemini | as Gemini |
/// | [`Mcp`](Self::Mcp) (`tools/list`) | `{"name","title"?,"description","inputSchema",..}` | — | — |
///
/// A streamed response of any of the model APIs is read by [`ModelApi::stream`].
///
/// MCP has no model response: a served pool's calls arrive as `tools/call` requests, which
/// the MCP server answers, so reading calls and writing answers for [`Mcp`](Self::Mcp) is an
/// error.
///
/// `#[non_exhaustive]`: model APIs are added as providers ship them, so a `match` outside this
/// crate needs a `_` arm ([`ModelApi::ALL`] lists the ones this version knows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ModelApi {
    /// Anthropic Messages (<https://docs.anthropic.com/en/docs/build-with-claude/tool-use>).
    #[default]
    Anthropic,
    /// OpenAI Chat Completions
    /// (<https://platform.openai.com/docs/api-reference/chat/object>), with strict mode.
    OpenAiChat,
    /// OpenAI Responses (<https://platform.openai.com/docs/api-reference/responses>), with
    /// strict mode.
    OpenAiResponses,
    /// Gemini `generateContent` (<https://ai.google.dev/gemini-api/docs/function-calling>),
    /// input schemas as JSON Schema in `FunctionDeclaration.parametersJsonSchema` (`$defs`,
    /// `$ref`, `anyOf`, maps and recursive types kept; keywords Gemini would ignore rewritten
    /// where an equivalent exists, see `gemini::check_declaration`), names mapped to the
    /// cross-provider pattern ([`GeminiNames`]). The default. What the sources say about
    /// which models take the field (read 2026-12-03): the reference lists it beside
    /// `parameters` with no model restriction; googleapis/python-genai#1147 (2025-07-18) reports
    /// it working on `gemini-2.0-flash-001`, while on the Live models `gemini-2.0-flash-live-001`
    /// and `gemini-2.5-flash-preview-native-audio-dialog` the model called the function with
    /// empty arguments (not a refusal); livekit/agents#7302 (comment of 2026-09-16) reports the
    /// Live setup of `gemini-3.1-flash-live-preview` and `gemini-3.8-live` accepting it; and
    /// google-genai 3.6.1 sends it for Agent Platform MCP tools
    /// (`_mcp_utils.agent_platform_to_gemini_tool`).
    /// Sources: <https://ai.google.dev/api/caching#FunctionDeclaration>
    /// (`parametersJsonSchema`, "mutually exclusive with `parameters`") and
    /// `google/genai/types.py` `FunctionDeclaration.parameters_json_schema` (google-genai
    /// 3.6.1).
    Gemini,
    /// Gemini with input schemas in `FunctionDeclaration.parameters`: the OpenAPI 3.0 subset
    /// `Schema` (the portable profile, `gemini::portable_schema`), for the cases where the
    /// sources above show `parametersJsonSchema` not used: the older Live models of
    /// python-genai#1147 (calls came with empty arguments), and clients or gateways that
    /// forward `parameters` only. Calls and answers are as [`Gemini`](Self::Gemini).
    /// An integer or number `enum` keeps its type and lists the allowed values in the
    /// description (the subset's `enum` holds strings); the orchestrator still checks the
    /// values against the tool's own schema. A tool's first example input goes into the root
    /// `example`; for a tool that asks, the others go into the description.
    GeminiOpenApi,
    /// MCP `tools/list` (MCP 2025-11-25, "Tools"): definitions only.
    Mcp,
}

// Each API's cached renders have slots of their own in the schema cache.
const _: () = {
    use crate::export::shape::{SHAPE_SLOTS, STRICT_SLOTS, StrictMode};
    let apis = ModelApi::ALL;
    let mut i = 0;
    while i < apis.len() {
        if let Some(shape) = apis[i].shape() {
            assert!(shape.slot < SHAPE_SLOTS);
            if let StrictMode::Schema { slot } = shape.strict {
                assert!(slot < STRICT_SLOTS);
            }
            let mut j = i + 1;
            while j < apis.len() {
                if let Some(other) = apis[j].shape() {
                    assert!(shape.slot != other.slot);
                    if let (StrictMode::Schema { slot: a }, StrictMode::Schema { slot: b }) =
                        (shape.strict, other.strict)
                    {
                        assert!(a != b);
                    }
                }
                j += 1;
            }
        }
        i += 1;
    }
};

impl ModelApi {
    /// The Anthropic code execution tool version that programmatic tool calling names: the
    /// `type` of the server tool a request sends (`{"type": this, "name": "code_execution"}`)
    /// and the value naming code in a tool's `allowed_callers`. Anthropic's guide says
    /// programmatic tool calling requires `code_execution_20260120`
    /// (<https://platform.claude.com/docs/en/agents-and-tools/tool-use/programmatic-tool-calling>,
    /// read 2026-12-03) or later; calls from code are recognised whatever `code_execution_*`
    /// version their `caller` names.
    ///
    /// Limit: the version is fixed. The `anthropic` SDK 2.16.0 already lists a newer one,
    /// `code_execution_20260521` (`types/tool_param.py` `allowed_callers`); a host that sends
    /// that code execution tool must write its definitions' `allowed_callers` itself, since
    /// the exports name this version.
    pub const ANTHROPIC_CODE_EXECUTION: &'static str = "code_execution_20260120";

    /// Every API, in the order `--format` lists them.
    pub const ALL: [ModelApi; 6] = [
        Self::Anthropic,
        Self::OpenAiChat,
        Self::OpenAiResponses,
        Self::Gemini,
        Self::GeminiOpenApi,
        Self::Mcp,
    ];

    /// The text form: `anthropic`, `openai-chat`, `openai-responses`, `gemini`,
    /// `gemini-openapi` or `mcp`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::OpenAiChat => "openai-chat",
            Self::OpenAiResponses => "openai-responses",
            Self::Gemini => "gemini",
            Self::GeminiOpenApi => "gemini-openapi",
            Self::Mcp => "mcp",
        }
    }

    /// The definition shape the schema cache renders this API's definitions in; `None` for
    /// Gemini, whose declarations depend on the whole tool list (the name map).
    const fn shape(self) -> Option<&'static DefinitionShape> {
        match self {
            Self::Anthropic => Some(&anthropic::SHAPE),
            Self::OpenAiChat => Some(&openai_chat::SHAPE),
            Self::OpenAiResponses => Some(&openai_responses::SHAPE),
            Self::Gemini | Self::GeminiOpenApi => None,
            Self::Mcp => Some(&mcp::SHAPE),
        }
    }

    /// `true` for the APIs whose definitions say who may call a tool (`allowed_callers`):
    /// Anthropic and OpenAI Responses (`tool_sdk::callers`).
    pub(crate) const fn has_callers(self) -> bool {
        matches!(self, Self::Anthropic | Self::OpenAiResponses)
    }

    /// The tools this API's definitions offer: all of `tools`, except that an API without
    /// `allowed_callers` ([`ModelApi::has_callers`]) leaves out a tool only code may call
    /// (`Callers::Programmatic`), since every call the model could make to it would be
    /// refused.
    fn offered<'a>(self, tools: &'a [Arc<dyn DynTool>]) -> Cow<'a, [Arc<dyn DynTool>]> {
        if self.has_callers() || tools.iter().all(|tool| tool.meta().callers.allows_direct()) {
            return Cow::Borrowed(tools);
        }
        Cow::Owned(
            tools
                .iter()
                .filter(|tool| tool.meta().callers.allows_direct())
                .cloned()
                .collect(),
        )
    }

    /// The definitions of `tools` for this API, in order, from the session `cache` (each
    /// tool's definition captured at its first render and byte-identical afterwards, SPEC
    /// §8.4), with `request`'s per-request fields added to copies. A tool only code may call
    /// is left out for the APIs without `allowed_callers` (OpenAI Chat, Gemini, MCP; see
    /// `tool_sdk::callers::Callers`). For
    /// [`Gemini`](Self::Gemini): the bare `functionDeclarations` entries
    /// `{"name","description","parametersJsonSchema"?}` (a request sends them as
    /// `"tools": [{"functionDeclarations": [...]}]`), names mapped as
    /// [`GeminiNames::for_tools`] says, and of `request` only `lenient_input` applied (see
    /// [`RenderRequest`]); for [`GeminiOpenApi`](Self::GeminiOpenApi) the same with
    /// `"parameters"` in the OpenAPI subset instead.
    ///
    /// # Errors
    /// [`SchemaError`] naming the tool and field: an OpenAI API in strict mode under
    /// [`StrictPolicy::Error`](crate::export::StrictPolicy::Error) with a schema outside
    /// strict mode's subset, or ([`GeminiOpenApi`](Self::GeminiOpenApi)) a schema that cannot
    /// be made portable.
    pub fn definitions(
        self,
        cache: &SchemaCache,
        tools: &[Arc<dyn DynTool>],
        request: &RenderRequest,
    ) -> Result<Vec<Value>, SchemaError> {
        let offered = self.offered(tools);
        let tools = offered.as_ref();
        match self.shape() {
            Some(shape) => cache.render(tools, shape, request),
            None => gemini::declarations(cache, tools, request, self.gemini_form()),
        }
    }

    /// [`ModelApi::definitions`] as the compact JSON text of the array: the bytes sent. A warm
    /// render copies each cached definition's text instead of serialising it again.
    ///
    /// # Errors
    /// As [`ModelApi::definitions`].
    pub fn definitions_json(
        self,
        cache: &SchemaCache,
        tools: &[Arc<dyn DynTool>],
        request: &RenderRequest,
    ) -> Result<String, SchemaError> {
        let offered = self.offered(tools);
        let tools = offered.as_ref();
        match self.shape() {
            Some(shape) => cache.render_json(tools, shape, request),
            None => gemini::declarations(cache, tools, request, self.gemini_form())
                .map(|d| Value::from(d).to_string()),
        }
    }

    /// The tool calls of a response (or of its assistant message / content) in this API's
    /// shape; `tools` is the pool the definitions were written for (Gemini maps refused names
    /// back through it, OpenAI Responses maps a call inside a namespace, `{"name",
    /// "namespace"}`, back to its pool name through it; the others ignore it). A call whose arguments are not JSON is read as
    /// a call that failed alone ([`ModelToolCall::input`](super::ModelToolCall::input) is
    /// `Err`), answered with an error result and never run.
    ///
    /// # Errors
    /// [`ReadError`] when the value does not have the API's shape, a call lacks the id it
    /// would be answered by, or the API is [`Mcp`](Self::Mcp).
    pub fn read_calls(
        self,
        response: &Value,
        tools: &[Arc<dyn DynTool>],
    ) -> Result<ToolCalls, ReadError> {
        let calls = match self {
            Self::Anthropic => anthropic::read_calls(response),
            Self::OpenAiChat => openai_chat::read_calls(response),
            Self::OpenAiResponses => {
                openai_responses::read_calls(response, &ResponsesNames::for_tools(tools))
            }
            Self::Gemini | Self::GeminiOpenApi => {
                gemini::read_calls(response, &GeminiNames::for_tools(&self.offered(tools)))
            }
            Self::Mcp => Err(ReadError::NotAModelApi),
        }?;
        Ok(calls.check_callers(tools, self.has_callers()))
    }

    /// A reader for a streamed response of this API ([`ResponseStream`]): bytes in as they
    /// arrive, each tool call out as soon as it is complete (SPEC §5.5), the text so far, and
    /// at the end the whole assistant message in this API's shape. `tools` as for
    /// [`ModelApi::read_calls`] (Gemini maps refused names back through it).
    ///
    /// # Errors
    /// [`ReadError::NotAModelApi`] for [`Mcp`](Self::Mcp).
    pub fn stream(self, tools: &[Arc<dyn DynTool>]) -> Result<ResponseStream, ReadError> {
        let stream = match self {
            Self::Anthropic => ResponseStream::anthropic(),
            Self::OpenAiChat => ResponseStream::openai_chat(),
            Self::OpenAiResponses => {
                ResponseStream::openai_responses(ResponsesNames::for_tools(tools))
            }
            Self::Gemini | Self::GeminiOpenApi => {
                ResponseStream::gemini(GeminiNames::for_tools(&self.offered(tools)))
            }
            Self::Mcp => return Err(ReadError::NotAModelApi),
        };
        Ok(stream.checking_callers(tools, self.has_callers()))
    }

    /// The answer to `calls` in this API's shape, every call answered exactly once and in
    /// call order ([`ToolCalls::pair`]): Anthropic a user message
    /// `{"role":"user","content":[tool_result, ...]}`, OpenAI Chat an array of `tool`
    /// messages, OpenAI Responses an array of `function_call_output` items, Gemini a content
    /// `{"role":"user","parts":[functionResponse, ...]}`. `tools` as for
    /// [`ModelApi::read_calls`].
    ///
    /// # Errors
    /// [`ResultsError`] as [`ToolCalls::pair`] (a call with no result, a result for no call),
    /// or for [`Mcp`](Self::Mcp).
    pub fn write_results(
        self,
        calls: &ToolCalls,
        results: Vec<ToolResultBlock>,
        tools: &[Arc<dyn DynTool>],
    ) -> Result<Value, ResultsError> {
        match self {
            Self::Anthropic => anthropic::results_message(calls, results),
            Self::OpenAiChat => openai_chat::results_messages(calls, results).map(Value::from),
            Self::OpenAiResponses => {
                openai_responses::results_items(calls, results).map(Value::from)
            }
            Self::Gemini | Self::GeminiOpenApi => gemini::results_content(
                calls,
                results,
                &GeminiNames::for_tools(&self.offered(tools)),
            ),
            Self::Mcp => Err(ResultsError::NotAModelApi),
        }
    }
}

impl ModelApi {
    /// The declaration field a Gemini format writes (JSON Schema for any other API, unused).
    fn gemini_form(self) -> gemini::ParametersForm {
        if self == Self::GeminiOpenApi {
            gemini::ParametersForm::OpenApi
        } else {
            gemini::ParametersForm::JsonSchema
        }
    }
}

impl std::fmt::Display for ModelApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ModelApi {
    type Err = String;

    /// `anthropic`, `openai-chat`, `openai-responses`, `gemini`, `gemini-openapi` or `mcp`.
    ///
    /// # Errors
    /// Any other text, with a message listing the accepted ones.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|api| api.as_str() == text)
            .ok_or_else(|| {
                format!(
                    "unknown format `{text}`; use anthropic, openai-chat, openai-responses, gemini, gemini-openapi or mcp"
                )
            })
    }
}
