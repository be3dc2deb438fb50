//! [`SearchState`]: the pool a model is using, as the ToolSearch tool finds it in the host
//! state, and the search itself (SPEC §3.2, §3.4).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use tool_sdk::{DynTool, ResultBlock, ToolResultContent};

use super::cache::DescriptionCache;
use super::deferral::{DeferralRules, is_deferred_tool};
use super::index::{IndexEntry, SearchIndex};
use super::tokens::js_trim;

/// What ToolSearch returns (SPEC §3.1): the matched primary names, the query as given, how many
/// tools are deferred, and the MCP servers still connecting (only when nothing matched and some
/// are; omitted from JSON when empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSearchOutput {
    /// Primary names, best first.
    pub matches: Vec<String>,
    /// The query exactly as the model sent it.
    pub query: String,
    /// Number of deferred tools in the pool.
    pub total_deferred_tools: usize,
    /// Names of MCP servers that are still connecting.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending_mcp_servers: Vec<String>,
}

/// The text sent when nothing matched (SPEC §3.7).
pub const NO_MATCH_TEXT: &str = "No deferred tools matched the query";

impl ToolSearchOutput {
    /// The `tool_result` content (SPEC §3.7): one `tool_reference` block per match, in order;
    /// with no match, "No deferred tools matched the query" followed, when servers are still connecting, by
    /// `. Some MCP servers are still connecting: A, B. ...`.
    pub fn to_content(&self) -> ToolResultContent {
        if !self.matches.is_empty() {
            return ToolResultContent::Blocks(
                self.matches
                    .iter()
                    .map(|name| ResultBlock::ToolReference {
                        tool_name: name.clone(),
                    })
                    .collect(),
            );
        }
        let mut text = NO_MATCH_TEXT.to_owned();
        if !self.pending_mcp_servers.is_empty() {
            text.push_str(&format!(
                ". Some MCP servers are still connecting: {}. Their tools will be available soon, so search again shortly.",
                self.pending_mcp_servers.join(", ")
            ));
        }
        ToolResultContent::Text(text)
    }
}

/// The pool the model is using, as ToolSearch sees it at call time (the reference's
/// `ctx.options.tools`, SPEC §3.2).
///
/// A host inserts one into the host state (`Extensions::insert`) whenever its pool changes; the
/// ToolSearch tool reads it with `ctx.get::<SearchState>()`. The deferred list, the
/// descriptions and the keyword index are built on the first search and reused until the
/// pool or the `DescriptionCache` changes (a state built for another deferred set, or
/// `DescriptionCache::clear`), so a search over 10,000 deferred tools costs well under a
/// millisecond after the first.
pub struct SearchState {
    pool: Arc<[Arc<dyn DynTool>]>,
    rules: DeferralRules,
    pending_mcp_servers: Vec<String>,
    cache: DescriptionCache,
    prepared: Mutex<Option<Arc<Prepared>>>,
}

impl std::fmt::Debug for SearchState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchState")
            .field("pool", &self.pool.len())
            .field("rules", &self.rules)
            .field("pending_mcp_servers", &self.pending_mcp_servers)
            .finish_non_exhaustive()
    }
}

struct Prepared {
    generation: u64,
    deferred: Vec<Arc<dyn DynTool>>,
    index: SearchIndex,
    /// Lowercased primary name → first position in the pool.
    pool_names: HashMap<String, usize>,
    /// Primary name or alias → first deferred id and first pool position that answer to it.
    exact: HashMap<String, FirstMatch>,
}

#[derive(Clone, Copy)]
struct FirstMatch {
    deferred: Option<usize>,
    pool: usize,
}

impl SearchState {
    /// The state for `pool` (in pool order, SPEC §7), with default [`DeferralRules`], no
    /// pending servers and a fresh `DescriptionCache`.
    pub fn new(pool: impl Into<Arc<[Arc<dyn DynTool>]>>) -> Self {
        Self {
            pool: pool.into(),
            rules: DeferralRules::default(),
            pending_mcp_servers: Vec::new(),
            cache: DescriptionCache::new(),
            prepared: Mutex::new(None),
        }
    }

    /// Uses `rules` to decide which tools are deferred (SPEC §4.1).
    #[must_use]
    pub fn with_rules(mut self, rules: DeferralRules) -> Self {
        self.rules = rules;
        self
    }

    /// The MCP servers still connecting, named in no-match answers (SPEC §3.2, §3.7).
    #[must_use]
    pub fn with_pending_mcp_servers(mut self, servers: Vec<String>) -> Self {
        self.pending_mcp_servers = servers;
        self
    }

    /// Shares the session's description cache (SPEC §3.8).
    #[must_use]
    pub fn with_description_cache(mut self, cache: DescriptionCache) -> Self {
        self.cache = cache;
        self
    }

    /// The pool, in order.
    pub fn pool(&self) -> &[Arc<dyn DynTool>] {
        &self.pool
    }

    /// The MCP servers still connecting.
    pub fn pending_mcp_servers(&self) -> &[String] {
        &self.pending_mcp_servers
    }

    /// The deferred tools of the pool, in pool order (SPEC §4.1).
    pub fn deferred(&self) -> Vec<Arc<dyn DynTool>> {
        self.prepared().deferred.clone()
    }

    /// Heap bytes of the keyword index and bytes of the text it indexes (names, hints and
    /// descriptions of the deferred tools), in that order.
    pub fn index_size(&self) -> (usize, usize) {
        let prepared = self.prepared();
        (
            prepared.index.heap_bytes(),
            prepared.index.indexed_text_bytes(),
        )
    }

    fn prepared(&self) -> Arc<Prepared> {
        let mut slot = self.prepared.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(prepared) = slot.as_ref()
            && prepared.generation == self.cache.generation()
        {
            return Arc::clone(prepared);
        }
        let prepared = Arc::new(self.prepare());
        *slot = Some(Arc::clone(&prepared));
        prepared
    }

    fn prepare(&self) -> Prepared {
        let deferred: Vec<Arc<dyn DynTool>> = self
            .pool
            .iter()
            .filter(|tool| is_deferred_tool(tool.as_ref(), &self.rules))
            .cloned()
            .collect();
        self.cache.maybe_invalidate(&deferred);
        let descriptions: Vec<Arc<str>> = deferred
            .iter()
            .map(|tool| self.cache.description_for(tool.as_ref()))
            .collect();
        let generation = self.cache.generation();
        let index = SearchIndex::build(deferred.iter().zip(&descriptions).map(
            |(tool, description)| IndexEntry {
                name: tool.name(),
                search_hint: tool.meta().search_hint.as_deref(),
                description,
            },
        ));
        let mut pool_names = HashMap::with_capacity(self.pool.len());
        let mut exact: HashMap<String, FirstMatch> = HashMap::with_capacity(self.pool.len());
        let mut next_deferred = 0;
        for (position, tool) in self.pool.iter().enumerate() {
            pool_names
                .entry(tool.name().to_lowercase())
                .or_insert(position);
            let deferred_id = (next_deferred < deferred.len()
                && Arc::ptr_eq(&deferred[next_deferred], tool))
            .then(|| {
                next_deferred += 1;
                next_deferred - 1
            });
            let meta = tool.meta();
            for name in std::iter::once(&meta.name).chain(&meta.aliases) {
                let entry = exact.entry(name.to_string()).or_insert(FirstMatch {
                    deferred: None,
                    pool: position,
                });
                if entry.deferred.is_none() {
                    entry.deferred = deferred_id;
                }
            }
        }
        Prepared {
            generation,
            deferred,
            index,
            pool_names,
            exact,
        }
    }

    /// Runs one ToolSearch query (SPEC §3.2): `select:` when the raw query matches
    /// `/^select:(.+)$/i`, keyword search otherwise. `max_results` applies to keyword search
    /// only; ToolSearch's input guarantees 1..=100, and 0 here yields no keyword matches.
    pub fn search(&self, query: &str, max_results: usize) -> ToolSearchOutput {
        let prepared = self.prepared();
        let matches = match select_names(query) {
            Some(names) => self.select(&prepared, &names),
            None => keyword_search(&prepared, &self.pool, query, max_results),
        };
        let pending_mcp_servers = if matches.is_empty() {
            self.pending_mcp_servers.clone()
        } else {
            Vec::new()
        };
        ToolSearchOutput {
            matches,
            query: query.to_owned(),
            total_deferred_tools: prepared.deferred.len(),
            pending_mcp_servers,
        }
    }

    fn select(&self, prepared: &Prepared, names: &[&str]) -> Vec<String> {
        let mut found: Vec<String> = Vec::new();
        let mut missing: Vec<&str> = Vec::new();
        for &name in names {
            // `findToolByName(deferred, n) ?? findToolByName(tools, n)`, by table lookup.
            let tool = prepared.exact.get(name).map(|first| match first.deferred {
                Some(id) => &prepared.deferred[id],
                None => &self.pool[first.pool],
            });
            match tool {
                Some(tool) => {
                    if !found.iter().any(|seen| seen == tool.name()) {
                        found.push(tool.name().to_owned());
                    }
                }
                None => missing.push(name),
            }
        }
        if !missing.is_empty() {
            tracing::debug!(?missing, "ToolSearch select: names not in the pool");
        }
        found
    }
}

/// The names of a `select:` query (SPEC §3.2): `None` unless the raw, untrimmed query starts
/// with `select:` in any ASCII case and continues with at least one char and no line
/// terminator; otherwise the comma-separated names, trimmed, empty ones dropped.
///
/// ```
/// use tool_registry::test_support::select_names;
/// assert_eq!(select_names("SELECT: Read, ,Edit"), Some(vec!["Read", "Edit"]));
/// assert_eq!(select_names(" select:Read"), None);
/// assert_eq!(select_names("select:"), None);
/// assert_eq!(select_names("select:a\nb"), None);
/// ```
pub fn select_names(query: &str) -> Option<Vec<&str>> {
    let prefix = query.get(..7)?;
    if !prefix.eq_ignore_ascii_case("select:") {
        return None;
    }
    let rest = &query[7..];
    if rest.is_empty() || rest.contains(['\n', '\r', '\u{2028}', '\u{2029}']) {
        return None;
    }
    Some(
        rest.split(',')
            .map(js_trim)
            .filter(|name| !name.is_empty())
            .collect(),
    )
}

/// SPEC §3.4: the exact-name fast path (deferred tools first, then the whole pool), the
/// `mcp__` prefix path, then ranked keyword search over the deferred tools.
fn keyword_search(
    prepared: &Prepared,
    pool: &[Arc<dyn DynTool>],
    query: &str,
    max_results: usize,
) -> Vec<String> {
    let lowered = query.to_lowercase();
    let q = js_trim(&lowered);
    let deferred_name = |id: usize| prepared.deferred[id].name().to_owned();
    if let Some(id) = prepared.index.exact_name(q) {
        return vec![deferred_name(id)];
    }
    if let Some(&position) = prepared.pool_names.get(q) {
        return vec![pool[position].name().to_owned()];
    }
    let by_prefix = prepared.index.mcp_prefix(q, max_results);
    if !by_prefix.is_empty() {
        return by_prefix.into_iter().map(deferred_name).collect();
    }
    prepared
        .index
        .rank(q, max_results)
        .into_iter()
        .map(deferred_name)
        .collect()
}
