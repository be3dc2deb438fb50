//! The definitive gate (SPEC §4.4), the auto threshold (SPEC §4.5) and the tool list of a
//! request with tool search.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use serde_json::Value;
use tool_sdk::DynTool;

use super::config::{ToolSearchConfig, ToolSearchMode};
use super::deferral::{TOOL_SEARCH_NAME, is_deferred_tool};
use super::delta::available_deferred_tools;
use super::history::discovered_tool_names;
use crate::pool::find_tool_by_name;

/// Tokens a counting API adds for the request around the tools, subtracted from its count
/// (SPEC §4.5 `TOOL_TOKEN_COUNT_OVERHEAD`).
pub(crate) const TOOL_TOKEN_COUNT_OVERHEAD: u64 = 500;
/// Context window, in tokens, of a model without the `[1m]` marker.
pub(crate) const MODEL_CONTEXT_WINDOW_DEFAULT: u64 = 200_000;
/// Context window, in tokens, of a model id containing `[1m]`.
pub(crate) const MODEL_CONTEXT_WINDOW_1M: u64 = 1_000_000;

/// Counts the tokens of the deferred tools' definitions (SPEC §4.5 token path), for example
/// with a provider's token-counting API.
pub trait TokenCounter: Send + Sync {
    /// The total token count of a request made of `deferred`, or `None` when counting is
    /// unavailable or failed. A count of 0 also means unavailable.
    fn count_tokens<'a>(&'a self, deferred: &'a [Arc<dyn DynTool>]) -> BoxFuture<'a, Option<u64>>;
}

/// The default counter: never counts, so the threshold uses the character estimate.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CharEstimate;

impl TokenCounter for CharEstimate {
    fn count_tokens<'a>(&'a self, _: &'a [Arc<dyn DynTool>]) -> BoxFuture<'a, Option<u64>> {
        Box::pin(async { None })
    }
}

impl ToolSearchConfig {
    /// The context window in tokens for `model` (SPEC §4.5).
    pub fn context_window_for(&self, model: &str) -> u64 {
        if let Some(window) = self.context_window {
            return window;
        }
        if !self.disable_1m_context && model.to_lowercase().contains("[1m]") {
            MODEL_CONTEXT_WINDOW_1M
        } else {
            MODEL_CONTEXT_WINDOW_DEFAULT
        }
    }

    /// `floor(context_window × auto_percentage / 100)` tokens (SPEC §4.5).
    pub fn token_threshold(&self, model: &str) -> u64 {
        self.context_window_for(model) * u64::from(self.auto_percentage.min(100)) / 100
    }

    /// `floor(token_threshold × 2.5)` chars (SPEC §4.5 `CHARS_PER_TOKEN`, 2.5), in integers.
    pub fn char_threshold(&self, model: &str) -> u64 {
        self.token_threshold(model) * 5 / 2
    }
}

/// The chars of the deferred tools for the fallback (SPEC §4.5): for each tool, the UTF-16
/// length of its name, its `prompt()` and its input schema as compact JSON.
pub fn deferred_chars(deferred: &[Arc<dyn DynTool>]) -> u64 {
    deferred
        .iter()
        .map(|tool| {
            let schema = serde_json::to_string(tool.input_schema()).unwrap_or_default();
            utf16_len(tool.name()) + utf16_len(&tool.prompt()) + utf16_len(&schema)
        })
        .sum()
}

fn utf16_len(text: &str) -> u64 {
    text.encode_utf16().count() as u64
}

/// The definitive gate of SPEC §4.4 with the auto threshold of §4.5, holding the token-count
/// memo (keyed by the deferred names joined with `,`, not by model).
pub struct ToolSearchGate {
    config: ToolSearchConfig,
    counter: Arc<dyn TokenCounter>,
    memo: Mutex<HashMap<String, Option<u64>>>,
}

impl std::fmt::Debug for ToolSearchGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSearchGate")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl ToolSearchGate {
    /// A gate for `config` using the character estimate.
    pub fn new(config: ToolSearchConfig) -> Self {
        Self::with_counter(config, Arc::new(CharEstimate))
    }

    /// A gate for `config` that counts tokens with `counter` first.
    pub fn with_counter(config: ToolSearchConfig, counter: Arc<dyn TokenCounter>) -> Self {
        Self {
            config,
            counter,
            memo: Mutex::new(HashMap::new()),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ToolSearchConfig {
        &self.config
    }

    /// SPEC §4.4 `isToolSearchEnabled`: the model supports `tool_reference`, ToolSearch (by name
    /// or alias) is in `tools`, and the mode is `Tst`, or `TstAuto` with the threshold reached.
    pub async fn is_enabled(&self, model: &str, tools: &[Arc<dyn DynTool>]) -> bool {
        if !self.config.model_supports_tool_reference(model)
            || find_tool_by_name(tools, TOOL_SEARCH_NAME).is_none()
        {
            return false;
        }
        match self.config.mode {
            ToolSearchMode::Tst => true,
            ToolSearchMode::Standard => false,
            ToolSearchMode::TstAuto => self.threshold_reached(model, tools).await,
        }
    }

    /// SPEC §4.5: with a token count `total > 0`, `max(0, total − 500) ≥ token_threshold`;
    /// otherwise `deferred_chars` `≥ char_threshold`.
    pub async fn threshold_reached(&self, model: &str, tools: &[Arc<dyn DynTool>]) -> bool {
        let deferred: Vec<Arc<dyn DynTool>> = tools
            .iter()
            .filter(|tool| is_deferred_tool(tool.as_ref(), &self.config.deferral))
            .cloned()
            .collect();
        match self.token_count(&deferred).await {
            Some(total) => {
                total.saturating_sub(TOOL_TOKEN_COUNT_OVERHEAD)
                    >= self.config.token_threshold(model)
            }
            None => deferred_chars(&deferred) >= self.config.char_threshold(model),
        }
    }

    async fn token_count(&self, deferred: &[Arc<dyn DynTool>]) -> Option<u64> {
        let key = deferred
            .iter()
            .map(|tool| tool.name())
            .collect::<Vec<_>>()
            .join(",");
        if let Some(count) = self
            .memo
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return *count;
        }
        let count = self
            .counter
            .count_tokens(deferred)
            .await
            .filter(|&total| total > 0);
        self.memo
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, count);
        count
    }
}

/// The tools of one request (SPEC §4.4).
#[derive(Debug, Clone)]
pub struct RequestTools {
    /// The tools to send, in pool order.
    pub tools: Vec<Arc<dyn DynTool>>,
    /// Whether tool search is on for this request.
    pub tool_search: bool,
    /// Names among `tools` to send with `"defer_loading": true`.
    pub defer_loading: Vec<String>,
    /// The `<available-deferred-tools>` block to send first as a meta user message, when search
    /// is on and the delta gate is off.
    pub available_deferred_tools: Option<String>,
}

impl RequestTools {
    /// The tool list of a request (SPEC §4.4). `search_enabled` is the answer of
    /// [`ToolSearchGate::is_enabled`]; search is switched off for this request when no tool is
    /// deferred and no MCP server is pending (`has_pending_mcp_servers`). With search on: every
    /// non-deferred tool, ToolSearch, and the deferred tools named in `tool_reference` blocks
    /// (or compact boundaries) of `messages`, each of those deferred ones marked
    /// `defer_loading`; plus the `<available-deferred-tools>` block when
    /// `config.deferred_delta` is off. With search off: every tool except ToolSearch (the host
    /// then strips `tool_reference` blocks from its history with
    /// [`RequestTools::strip_tool_references`]).
    pub fn choose(
        pool: &[Arc<dyn DynTool>],
        messages: &[Value],
        search_enabled: bool,
        has_pending_mcp_servers: bool,
        config: &ToolSearchConfig,
    ) -> Self {
        request_tools(
            pool,
            messages,
            search_enabled,
            has_pending_mcp_servers,
            config,
        )
    }

    /// Removes every `tool_reference` block from the `tool_result` contents of the user
    /// messages of a history (what a request with search off does, SPEC §4.4); returns how
    /// many were removed.
    pub fn strip_tool_references(messages: &mut [Value]) -> usize {
        super::history::strip_tool_references(messages)
    }

    /// `true` when `name`'s definition carries `"defer_loading": true`.
    pub fn defers(&self, name: &str) -> bool {
        self.defer_loading.iter().any(|deferred| deferred == name)
    }

    /// Adds `"defer_loading": true` to the definitions (objects with a `name`) of deferred
    /// tools in a rendered `tools` array; other definitions are left as they are.
    pub fn mark_deferred(&self, definitions: &mut Value) {
        let Some(items) = definitions.as_array_mut() else {
            return;
        };
        for item in items {
            let deferred = item
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(|name| self.defers(name));
            if let (true, Some(object)) = (deferred, item.as_object_mut()) {
                object.insert("defer_loading".to_owned(), Value::Bool(true));
            }
        }
    }
}

/// The tool list of a request (SPEC §4.4). `search_enabled` is the answer of
/// [`ToolSearchGate::is_enabled`]; search is switched off for this request when no tool is
/// deferred and no MCP server is pending. With search on: every non-deferred tool, ToolSearch,
/// and the deferred tools named in `tool_reference` blocks (or compact boundaries) of
/// `messages`, each of those deferred ones marked `defer_loading`; plus the
/// `<available-deferred-tools>` block when `config.deferred_delta` is off. With search off:
/// every tool except ToolSearch (the host then strips `tool_reference` blocks from its history
/// with [`RequestTools::strip_tool_references`]).
pub fn request_tools(
    pool: &[Arc<dyn DynTool>],
    messages: &[Value],
    search_enabled: bool,
    has_pending_mcp_servers: bool,
    config: &ToolSearchConfig,
) -> RequestTools {
    let rules = &config.deferral;
    let any_deferred = pool
        .iter()
        .any(|tool| is_deferred_tool(tool.as_ref(), rules));
    let search = search_enabled && (any_deferred || has_pending_mcp_servers);
    if !search {
        return RequestTools {
            tools: pool
                .iter()
                .filter(|tool| !tool.meta().matches_name(TOOL_SEARCH_NAME))
                .cloned()
                .collect(),
            tool_search: false,
            defer_loading: Vec::new(),
            available_deferred_tools: None,
        };
    }
    let discovered = discovered_tool_names(messages);
    let mut tools = Vec::new();
    let mut defer_loading = Vec::new();
    for tool in pool {
        if !is_deferred_tool(tool.as_ref(), rules) || tool.meta().matches_name(TOOL_SEARCH_NAME) {
            tools.push(Arc::clone(tool));
        } else if discovered.contains(tool.name()) {
            defer_loading.push(tool.name().to_owned());
            tools.push(Arc::clone(tool));
        }
    }
    RequestTools {
        tools,
        tool_search: true,
        defer_loading,
        available_deferred_tools: (!config.deferred_delta)
            .then(|| available_deferred_tools(pool, rules)),
    }
}
