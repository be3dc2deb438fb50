//! Internals that the crate's own tests, benchmarks and fuzz targets check directly: the
//! reference's algorithms one by one (name cleaning, rule parsing, search tokenising, result
//! persistence, schema rewrites). Behind the `test-support` feature, outside the public API and
//! its compatibility promise: a program that uses the SDK goes through the doors the other
//! modules document (`Orchestrator`, `ToolPool`, `SchemaCache`, the `providers` and `search`
//! modules), which run all of these.

pub use crate::export::cache::cache_key;
pub use crate::export::schema::export_input_schema;
pub use crate::export::strict::strict_schema;
pub use crate::mcp_names::{
    MAX_TOOL_NAME_CHARS, McpNameParts, build_mcp_tool_name, exported_mcp_tool_name, fnv1a_32,
    is_filtered_ide_tool, mcp_info_from_string, mcp_prefix, normalize_name_for_mcp,
    shorten_tool_name,
};
pub use crate::messages::{CANCEL_MESSAGE, REJECT_MESSAGE, streaming_discarded};
pub use crate::orchestration::config::parse_max_concurrency;
pub use crate::orchestration::partition::partition_tool_calls;
pub use crate::orchestration::persistence::{
    PREVIEW_SIZE_CHARS, enforce_message_budget, is_empty_content, persistence_threshold,
    process_result,
};
pub use crate::orchestration::streaming::call_description;
pub use crate::permissions::matching::{
    filter_tools_by_deny_rules, tool_matches_rule, tool_name_for_permission_check,
};
pub use crate::permissions::pipeline::{
    PermissionDecision, decide_permission, permission_denied_message,
};
pub use crate::permissions::rule::{LEGACY_TOOL_NAMES, legacy_tool_name, parse_rule};
pub use crate::pool::{
    assemble_tool_pool, find_tool_for_use, get_tools, is_mcp_tool, merge_and_filter_tools,
};
pub use crate::providers::gemini::schema::portable_schema;
pub use crate::search::cache::utf16_cmp;
pub use crate::search::config::parse_auto_percentage;
pub use crate::search::delta::available_deferred_tools;
pub use crate::search::gate::deferred_chars;
pub use crate::search::history::discovered_tool_names;
pub use crate::search::index::{IndexEntry, SearchIndex};
pub use crate::search::state::{NO_MATCH_TEXT, select_names};
pub use crate::search::tokens::{ParsedToolName, is_word_byte, js_trim, parse_tool_name};
pub use crate::search::tool::{MISSING_STATE, tool_search_prompt, tool_search_tool};

/// The text of an error result that came with none (Anthropic refuses an empty error result).
pub const EMPTY_ERROR_TEXT: &str = crate::providers::anthropic::EMPTY_ERROR_TEXT;
/// The prefix of the id given to a Gemini call that came without one.
pub const MADE_UP_ID_PREFIX: &str = crate::providers::gemini::MADE_UP_ID_PREFIX;

/// The Anthropic definitions of `tools` as the compact JSON text, written straight from the
/// tools ([`crate::providers::anthropic::tools_json`]).
pub fn anthropic_tools_json(tools: &[std::sync::Arc<dyn tool_sdk::DynTool>]) -> String {
    crate::providers::anthropic::tools_json(tools)
}

/// One tool's Anthropic definition, captured and built as a value (the path the
/// [`SchemaCache`](crate::export::SchemaCache) takes), to compare with the text render.
pub fn anthropic_tool_definition(tool: &dyn tool_sdk::DynTool) -> serde_json::Value {
    (crate::providers::anthropic::SHAPE.write)(
        &crate::export::captured::CachedTool::capture(tool),
        None,
    )
}
