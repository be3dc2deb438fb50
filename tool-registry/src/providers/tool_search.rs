//! Provider-side tool search: deferred tools sent with `defer_loading: true` and the API's own
//! search tool, instead of (or besides) our client-side ToolSearch tool (SPEC §3, §4).
//!
//! The pool, the deferred set ([`is_deferred_tool`]) and the deferred-tools delta stay as they
//! are; a host picks per request which search the model gets:
//!
//! - **Anthropic** ([`anthropic_tool_search_request`]): every deferred tool carries
//!   `"defer_loading": true`, and the server tool `{"type":"tool_search_tool_bm25_20251119",
//!   "name":"tool_search_tool_bm25"}` (or the `regex` variant) is added; the request must
//!   send the beta header [`AnthropicToolSearch::BETA`]. Source: Anthropic's tool search
//!   tool guide, <https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool>,
//!   and the SDK types `BetaToolSearchToolBm25_20251119` / `BetaToolSearchToolRegex_20251119`.
//! - **OpenAI Responses** ([`openai_tool_search_request`]): deferred functions carry
//!   `"defer_loading": true`, MCP tools are grouped into one `{"type":"namespace"}` per server
//!   (`defer_loading` goes on the functions inside, not on the namespace; members named
//!   without their `mcp__SERVER__` prefix, see `super::namespaces`), and a
//!   `{"type":"tool_search"}` tool is added, hosted by OpenAI or executed by the client
//!   (`"execution":"client"`): the model then emits `tool_search_call` items, answered with
//!   `tool_search_output` items listing the loaded definitions ([`answer_tool_search_call`],
//!   which runs our own search). A hosted search's `tool_search_call` / `tool_search_output`
//!   items are OpenAI's: a host sends them back with the rest of the output and answers
//!   nothing. Tools that join mid-conversation (a server that connected later) go in an
//!   `{"type":"additional_tools","role":"developer","tools":[...]}` input item
//!   ([`OpenAiToolSearch::additional_tools`]) instead of changing `tools`, which keeps the
//!   prompt cache. Sources: OpenAI's tool search guide,
//!   <https://developers.openai.com/api/docs/guides/tools-tool-search>, and the `openai` 3.60.0
//!   Python SDK types `types/responses/tool_search_tool_param.py` (`ToolSearchToolParam`:
//!   `type`, `execution` `"server"`/`"client"`, `description`, `parameters`),
//!   `response_input_item_param.py` (`ToolSearchCall`, `AdditionalTools`: `role` only
//!   `"developer"`, `tools`) and `response_tool_search_output_item_param_param.py`, all read
//!   2026-12-03.
//!
//! Our ToolSearch tool is left out of these requests: the API's search replaces it. Anthropic
//! has no namespace for tools the host runs (its `mcp_toolset` is for MCP servers the API
//! connects to itself), so there MCP tools stay flat, each named `mcp__server__tool`.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tool_sdk::DynTool;

use super::{anthropic, namespaces, openai_responses};
use crate::export::{RenderRequest, SchemaCache, SchemaError};
use crate::search::state::select_names;
use crate::search::{DeferralRules, SearchState, TOOL_SEARCH_NAME, is_deferred_tool};

/// Which of Anthropic's server-side searches the model gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AnthropicToolSearch {
    /// `tool_search_tool_bm25_20251119`: natural-language queries ranked by BM25.
    #[default]
    Bm25,
    /// `tool_search_tool_regex_20251119`: the model writes Python `re.search` patterns.
    Regex,
}

impl AnthropicToolSearch {
    /// The `anthropic-beta` header value a request with Anthropic's tool search tool must send.
    pub const BETA: &str = "advanced-tool-use-2025-11-20";

    /// The server tool definition: `{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}`
    /// or the regex one.
    pub fn definition(self) -> Value {
        match self {
            Self::Bm25 => {
                json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
            }
            Self::Regex => {
                json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
            }
        }
    }
}

/// The tools of an Anthropic request using server-side tool search, and the beta header.
#[derive(Debug, Clone, PartialEq)]
pub struct AnthropicToolSearchRequest {
    /// The `tools` array: the search tool first, then the pool in order (without our
    /// ToolSearch), deferred tools with `"defer_loading": true`.
    pub tools: Vec<Value>,
    /// The `anthropic-beta` header value to send ([`AnthropicToolSearch::BETA`]).
    pub beta_header: &'static str,
}

/// The `tools` of an Anthropic request in which `search` finds the deferred tools of `pool`
/// (by [`is_deferred_tool`] under `rules`), rendered through the session `cache` with
/// `request`'s other choices (`cache_control`, `strict`).
///
/// # Errors
/// As [`ModelApi::definitions`](super::ModelApi::definitions).
pub fn anthropic_tool_search_request(
    cache: &SchemaCache,
    pool: &[Arc<dyn DynTool>],
    rules: &DeferralRules,
    search: AnthropicToolSearch,
    request: &RenderRequest,
) -> Result<AnthropicToolSearchRequest, SchemaError> {
    let tools = without_tool_search(pool);
    let mut request = request.clone();
    request.defer_loading = tools
        .iter()
        .filter(|tool| is_deferred_tool(tool.as_ref(), rules))
        .map(|tool| tool.name().to_owned())
        .collect();
    let mut definitions = vec![search.definition()];
    definitions.extend(cache.render(&tools, &anthropic::SHAPE, &request)?);
    Ok(AnthropicToolSearchRequest {
        tools: definitions,
        beta_header: AnthropicToolSearch::BETA,
    })
}

fn without_tool_search(pool: &[Arc<dyn DynTool>]) -> Vec<Arc<dyn DynTool>> {
    pool.iter()
        .filter(|tool| tool.name() != TOOL_SEARCH_NAME || tool.meta().is_mcp)
        .cloned()
        .collect()
}

/// Who runs OpenAI's `tool_search`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OpenAiToolSearch {
    /// `{"type":"tool_search"}`: OpenAI searches the deferred definitions itself.
    #[default]
    Hosted,
    /// `{"type":"tool_search","execution":"client",...}`: the model emits
    /// `tool_search_call` items and the host answers them ([`ToolSearchCall::answer`]).
    Client,
}

/// The parameters of the client-executed `tool_search` tool: the same query forms as our
/// ToolSearch (SPEC §3.2).
fn client_search_tool() -> Value {
    json!({
        "type": "tool_search",
        "execution": "client",
        "description": "Finds deferred tools by keywords, or by exact names with \"select:Name1,Name2\", and loads their definitions. A name is a function's name, \"namespace.function\" for a function inside a namespace, or a namespace's name to load all of its functions.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Keywords, \"+word\" to require a word in the name, or \"select:\" followed by comma-separated names (a function, namespace.function, or a whole namespace)."},
                "max_results": {"type": "integer", "minimum": 1, "maximum": 100, "description": "Most matches returned for a keyword query (default 5)."}
            },
            "required": ["query"],
            "additionalProperties": false
        }
    })
}

/// The `tools` array of an OpenAI Responses request with tool search over `pool`: non-MCP
/// tools as functions in pool order (deferred ones with `"defer_loading": true`), then one
/// `namespace` per MCP server (in order of first appearance) holding its tools, each with
/// `"defer_loading": true` when deferred and named without its `mcp__SERVER__` prefix, then
/// the `tool_search` tool. Calls come back as `{"name","namespace"}`, which
/// [`ModelApi::read_calls`](super::ModelApi::read_calls) maps to the pool names.
///
/// # Errors
/// As [`ModelApi::definitions`](super::ModelApi::definitions) (strict mode under [`crate::export::StrictPolicy::Error`]).
pub fn openai_tool_search_request(
    cache: &SchemaCache,
    pool: &[Arc<dyn DynTool>],
    rules: &DeferralRules,
    search: OpenAiToolSearch,
    request: &RenderRequest,
) -> Result<Vec<Value>, SchemaError> {
    let tools = without_tool_search(pool);
    let definitions = cache.render(&tools, &openai_responses::SHAPE, request)?;
    let top_level = namespaces::top_level_names(&tools);
    let mut out = namespaces::group(
        &tools,
        definitions,
        &top_level,
        namespaces::GroupOrder::FunctionsFirst,
        |tool| is_deferred_tool(tool, rules),
    );
    out.push(match search {
        OpenAiToolSearch::Hosted => json!({"type": "tool_search"}),
        OpenAiToolSearch::Client => client_search_tool(),
    });
    Ok(out)
}

/// A client-executed `tool_search_call` item of a Responses output.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSearchCall {
    /// Its `call_id`, repeated by the output.
    pub call_id: String,
    /// The `query` argument (empty when the call is malformed).
    pub query: String,
    /// The `max_results` argument, 5 when absent.
    pub max_results: usize,
    /// Why the call could not be read (its `arguments` are not JSON, or have no string
    /// `query`), naming the item and the field; `None` for a well-formed call. A malformed
    /// call is still answered, with no tools loaded, so that it and its siblings all get a
    /// `tool_search_output`; a host shows this text to the user or in its log.
    pub error: Option<String>,
}

/// The client-executed `tool_search_call` items of a Responses output, in order (hosted ones,
/// which OpenAI answers, are skipped; so is a client call without a string `call_id`, which
/// no output could answer: a warning names its item).
///
/// # Errors
/// [`super::ReadError`] when there is no item array.
pub fn read_tool_search_calls(response: &Value) -> Result<Vec<ToolSearchCall>, super::ReadError> {
    let mut calls = Vec::new();
    for (index, item) in openai_responses::output_items(response)?.iter().enumerate() {
        if item.get("type").and_then(Value::as_str) != Some("tool_search_call")
            || item.get("execution").and_then(Value::as_str) != Some("client")
        {
            continue;
        }
        let Some(call_id) = item.get("call_id").and_then(Value::as_str) else {
            tracing::warn!(
                item = %format!("output[{index}]"),
                "a client `tool_search_call` has no string `call_id`, so it cannot be answered; it is left out"
            );
            continue;
        };
        let mut call = ToolSearchCall {
            call_id: call_id.to_owned(),
            query: String::new(),
            max_results: 5,
            error: None,
        };
        match search_arguments(item) {
            Ok((query, max_results)) => {
                call.query = query;
                call.max_results = max_results;
            }
            Err(field) => {
                call.error = Some(format!(
                    "output[{index}]: the `tool_search_call` {field}; it is answered with no tools loaded"
                ));
            }
        }
        calls.push(call);
    }
    Ok(calls)
}

/// The `query` and `max_results` (default 5, clamped to 1..=100) of a `tool_search_call`'s
/// `arguments` (an object or JSON text), or what is wrong with them.
fn search_arguments(item: &Value) -> Result<(String, usize), &'static str> {
    let arguments = match item.get("arguments") {
        Some(Value::String(text)) => super::parse_arguments("tool_search", text)
            .map_err(|_| "has `arguments` that are not a JSON object")?,
        Some(other) => other.clone(),
        None => Value::Object(Map::new()),
    };
    let query = arguments
        .get("query")
        .and_then(Value::as_str)
        .ok_or("has no string `arguments.query`")?;
    let max_results = arguments
        .get("max_results")
        .and_then(Value::as_u64)
        .map_or(5, |n| usize::try_from(n.clamp(1, 100)).unwrap_or(5));
    Ok((query.to_owned(), max_results))
}

/// `query` with the names of a `select:` query mapped from what the model saw in the
/// export (`namespace.member`, a namespace, a bare member name) to pool names
/// (`super::namespaces::ResponsesNames::pool_names_for`); a keyword query as it stands.
fn pool_query(query: &str, pool: &[Arc<dyn DynTool>]) -> String {
    let Some(names) = select_names(query) else {
        return query.to_owned();
    };
    let responses = namespaces::ResponsesNames::for_tools(pool);
    let mapped: Vec<String> = names
        .iter()
        .flat_map(|name| responses.pool_names_for(name))
        .collect();
    format!("select:{}", mapped.join(","))
}

/// Answers a client-executed `tool_search_call` with our search over `state`'s pool:
/// `{"type":"tool_search_output","call_id","execution":"client","tools":[...]}` with the
/// Responses function definition of every match (rendered through `cache`, with
/// `"defer_loading": true` kept off so the definitions load), an MCP server's matches inside
/// their namespace as in the request.
///
/// # Errors
/// As [`ModelApi::definitions`](super::ModelApi::definitions).
pub fn answer_tool_search_call(
    call: &ToolSearchCall,
    state: &SearchState,
    cache: &SchemaCache,
    request: &RenderRequest,
) -> Result<Value, SchemaError> {
    let matches = if call.error.is_some() {
        Vec::new()
    } else {
        let query = pool_query(&call.query, state.pool());
        state.search(&query, call.max_results).matches
    };
    let mut matched: Vec<Arc<dyn DynTool>> = Vec::new();
    for name in &matches {
        if let Some(tool) = state.pool().iter().find(|tool| tool.name() == name) {
            matched.push(Arc::clone(tool));
        }
    }
    let definitions = cache.render(&matched, &openai_responses::SHAPE, request)?;
    // Named as in the request over the whole pool; the matches keep their rank order.
    let top_level = namespaces::top_level_names(state.pool());
    let tools = namespaces::group(
        &matched,
        definitions,
        &top_level,
        namespaces::GroupOrder::AsGiven,
        |_| false,
    );
    Ok(json!({
        "type": "tool_search_output",
        "call_id": call.call_id,
        "execution": "client",
        "tools": tools,
    }))
}

impl AnthropicToolSearch {
    /// The `tools` of an Anthropic request in which this search finds the deferred tools of
    /// `pool` (deferred under `rules`, SPEC §4.1), rendered through the session `cache` with
    /// `request`'s other choices (`cache_control`, `strict`): the search tool first, then the
    /// pool in order without our ToolSearch, deferred tools with `"defer_loading": true`; and
    /// the `anthropic-beta` header to send.
    ///
    /// # Errors
    /// As [`ModelApi::definitions`](super::ModelApi::definitions).
    pub fn request(
        self,
        cache: &SchemaCache,
        pool: &[Arc<dyn DynTool>],
        rules: &DeferralRules,
        request: &RenderRequest,
    ) -> Result<AnthropicToolSearchRequest, SchemaError> {
        anthropic_tool_search_request(cache, pool, rules, self, request)
    }
}

impl OpenAiToolSearch {
    /// The `tools` array of an OpenAI Responses request with this tool search over `pool`:
    /// non-MCP tools as functions in pool order (deferred ones with `"defer_loading": true`),
    /// then one `namespace` per MCP server (in order of first appearance) holding its tools,
    /// each with `"defer_loading": true` when deferred and named without its `mcp__SERVER__`
    /// prefix, then the `tool_search` tool. Calls come back as `{"name","namespace"}`, which
    /// [`ModelApi::read_calls`](super::ModelApi::read_calls) and
    /// [`ModelApi::stream`](super::ModelApi::stream), given the same pool, map back to the
    /// pool names. Built-in and JSON tools have no group, so they stay top-level.
    ///
    /// # Errors
    /// As [`ModelApi::definitions`](super::ModelApi::definitions) (strict mode under [`crate::export::StrictPolicy::Error`]).
    pub fn tools(
        self,
        cache: &SchemaCache,
        pool: &[Arc<dyn DynTool>],
        rules: &DeferralRules,
        request: &RenderRequest,
    ) -> Result<Vec<Value>, SchemaError> {
        openai_tool_search_request(cache, pool, rules, self, request)
    }

    /// The input item that makes `tools` available from this point of the conversation on,
    /// for tools that joined the pool after the request's `tools` array was written (an MCP
    /// server that connected later): `{"type":"additional_tools","role":"developer",
    /// "tools":[...]}`, grouped and deferred exactly as [`OpenAiToolSearch::tools`] groups them
    /// (without a second `tool_search` tool). Appending it to `input`, rather than changing
    /// `tools`, keeps the cached prefix of the conversation. Shape: `AdditionalTools` in
    /// `openai/types/responses/response_input_item_param.py` of the `openai` 3.60.0 Python
    /// SDK (read 2026-12-03): `role` may only be `"developer"`. Our ToolSearch tool is left
    /// out, as in [`OpenAiToolSearch::tools`].
    ///
    /// Pass only the tools that joined. When a server already in the request's `tools` gains
    /// tools, this item holds a second namespace of the same name with the new ones; the API
    /// reference does not say how it treats two namespaces of one name (read 2026-12-03).
    /// Namespace names are checked against the top-level functions among `tools` only: a new
    /// server named like a top-level function of the earlier `tools` (say `Read`) is written
    /// as `Read` here while the call readers, given the whole pool, expect `Read_` + hash, so
    /// its calls are refused with an error result (never run as the function); give such a
    /// server another name.
    ///
    /// # Errors
    /// As [`ModelApi::definitions`](super::ModelApi::definitions).
    pub fn additional_tools(
        cache: &SchemaCache,
        tools: &[Arc<dyn DynTool>],
        rules: &DeferralRules,
        request: &RenderRequest,
    ) -> Result<Value, SchemaError> {
        let tools = without_tool_search(tools);
        let definitions = cache.render(&tools, &openai_responses::SHAPE, request)?;
        let top_level = namespaces::top_level_names(&tools);
        let grouped = namespaces::group(
            &tools,
            definitions,
            &top_level,
            namespaces::GroupOrder::FunctionsFirst,
            |tool| is_deferred_tool(tool, rules),
        );
        Ok(json!({"type": "additional_tools", "role": "developer", "tools": grouped}))
    }
}

impl ToolSearchCall {
    /// The client-executed `tool_search_call` items of an OpenAI Responses response (a
    /// response, or its `output` array), in order; other items are skipped.
    ///
    /// A call whose `arguments` are not JSON or have no string `query` is read with its
    /// [`error`](ToolSearchCall::error) set, and [`ToolSearchCall::answer`] answers it with no
    /// tools loaded: one malformed call never leaves its siblings unanswered. A call without
    /// a string `call_id` cannot be answered by any output: it is left out, with a `tracing`
    /// warning naming its item. `max_results` defaults to 5 and is clamped to 1..=100.
    ///
    /// # Errors
    /// [`ReadError::Shape`](super::ReadError::Shape) when the response has no `output` item
    /// array.
    pub fn read_all(response: &Value) -> Result<Vec<ToolSearchCall>, super::ReadError> {
        read_tool_search_calls(response)
    }

    /// The `tool_search_output` item that answers this call:
    /// `{"type":"tool_search_output","call_id","execution":"client","tools":[...]}`, where
    /// `tools` holds the OpenAI Responses definitions of the tools the search over the pool of
    /// `state` matched (SPEC §3: `select:` names or keyword ranking, at most `max_results`),
    /// rendered through `cache` with `request`; empty when nothing matched or the call is
    /// malformed ([`error`](ToolSearchCall::error) set). The names of a
    /// `select:` query are those the model saw in the export: a top-level function's name,
    /// `NAMESPACE.member`, a member name alone when only one namespace has it, or a namespace's
    /// name for all of its members (pool names such as `mcp__crm__list_open_orders` work too).
    ///
    /// # Errors
    /// As [`ModelApi::definitions`](super::ModelApi::definitions).
    pub fn answer(
        &self,
        state: &SearchState,
        cache: &SchemaCache,
        request: &RenderRequest,
    ) -> Result<Value, SchemaError> {
        answer_tool_search_call(self, state, cache, request)
    }
}
