//! `tool-host definitions --tool-search KIND`: the `tools` array with the model API's own tool
//! search (SPEC §3, §4): deferred tools marked `defer_loading`, the API's search tool added,
//! and for OpenAI Responses each MCP server's tools grouped into a `namespace`.

use clap::ValueEnum;
use tool_registry::ToolRegistry;
use tool_registry::export::{RenderRequest, SchemaCache, StrictPolicy};
use tool_registry::providers::{AnthropicToolSearch, ModelApi, OpenAiToolSearch};
use tool_registry::search::DeferralRules;

use crate::pool_options::PoolOptions;

/// Which provider-side tool search the definitions are written for.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderSearch {
    /// OpenAI Responses: `{"type":"tool_search"}`, run by OpenAI.
    Hosted,
    /// OpenAI Responses: `tool_search` with `"execution":"client"`, answered by the host.
    Client,
    /// Anthropic: `tool_search_tool_bm25_20251119`.
    Bm25,
    /// Anthropic: `tool_search_tool_regex_20251119`.
    Regex,
}

/// The definitions of the pool `options` describe for `api` with `search`. For Anthropic the
/// `anthropic-beta` header the request must send is said on stderr.
///
/// # Errors
/// A search kind the API does not have (`hosted`/`client` are OpenAI Responses', `bm25`/`regex`
/// Anthropic's), or what [`crate::pool_options::definitions`] refuses.
pub fn definitions(
    registry: &ToolRegistry,
    options: &PoolOptions,
    api: ModelApi,
    strict: bool,
    search: ProviderSearch,
) -> Result<Vec<serde_json::Value>, String> {
    let pool = options.build(registry)?;
    let cache = SchemaCache::new();
    let request = RenderRequest {
        strict,
        strict_policy: StrictPolicy::DropStrict,
        ..RenderRequest::default()
    };
    let rules = DeferralRules::default();
    let tools = pool.tools();
    match (api, search) {
        (ModelApi::OpenAiResponses, ProviderSearch::Hosted | ProviderSearch::Client) => {
            let search = if search == ProviderSearch::Hosted {
                OpenAiToolSearch::Hosted
            } else {
                OpenAiToolSearch::Client
            };
            search.tools(&cache, tools, &rules, &request)
        }
        (ModelApi::Anthropic, ProviderSearch::Bm25 | ProviderSearch::Regex) => {
            let search = if search == ProviderSearch::Bm25 {
                AnthropicToolSearch::Bm25
            } else {
                AnthropicToolSearch::Regex
            };
            search.request(&cache, tools, &rules, &request).map(|sent| {
                eprintln!("tool-host: send the header anthropic-beta: {}", sent.beta_header);
                sent.tools
            })
        }
        _ => {
            return Err(format!(
                "--tool-search {} does not apply to --format {api}: use hosted or client with --format openai-responses, bm25 or regex with --format anthropic",
                search
                    .to_possible_value()
                    .map_or_else(String::new, |value| value.get_name().to_owned())
            ));
        }
    }
    .map_err(|error| error.to_string())
}
