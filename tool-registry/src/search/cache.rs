//! The description cache of SPEC §3.8: tool descriptions (`prompt()` texts) memoized by tool
//! name, cleared whenever the set of deferred tool names changes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tool_sdk::DynTool;

/// Tool descriptions memoized by tool name only (SPEC §3.8 `getToolDescriptionMemoized`).
///
/// A description is computed once per name and kept, even if the tool's `prompt()` changes
/// later, until the cache is cleared: by [`DescriptionCache::maybe_invalidate`] when the
/// deferred names differ from the previous call's, or by [`DescriptionCache::clear`] (the
/// reference runs it on `/clear`). Cloning shares the cache; a host keeps one per session and
/// hands it to every [`SearchState`](super::SearchState) it builds.
#[derive(Clone, Default)]
pub struct DescriptionCache {
    inner: Arc<Mutex<CacheInner>>,
}

#[derive(Default)]
struct CacheInner {
    key: Option<String>,
    descriptions: HashMap<String, Arc<str>>,
    generation: u64,
}

impl std::fmt::Debug for DescriptionCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("DescriptionCache")
            .field("entries", &inner.descriptions.len())
            .field("generation", &inner.generation)
            .finish()
    }
}

impl DescriptionCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, CacheInner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The invalidation key of SPEC §3.8: the names sorted in UTF-16 code-unit order (the
    /// JavaScript default sort) and joined with `,`.
    pub fn key_for(deferred: &[Arc<dyn DynTool>]) -> String {
        let mut names: Vec<&str> = deferred.iter().map(|tool| tool.name()).collect();
        names.sort_by(|a, b| utf16_cmp(a, b));
        names.join(",")
    }

    /// Clears the cache when the deferred names differ from those of the previous call; returns
    /// `true` when it cleared. The first call only records the key.
    pub fn maybe_invalidate(&self, deferred: &[Arc<dyn DynTool>]) -> bool {
        let key = Self::key_for(deferred);
        let mut inner = self.lock();
        if inner.key.as_deref() == Some(key.as_str()) {
            return false;
        }
        let had_key = inner.key.is_some();
        inner.key = Some(key);
        if had_key {
            inner.descriptions.clear();
            inner.generation += 1;
        }
        had_key
    }

    /// The memoized description of the tool named `name` (primary name, exact): its `prompt()`
    /// the first time it is asked for, `""` when no tool in `tools` has that name.
    pub fn description(&self, name: &str, tools: &[Arc<dyn DynTool>]) -> Arc<str> {
        if let Some(description) = self.lock().descriptions.get(name) {
            return Arc::clone(description);
        }
        let description: Arc<str> = tools
            .iter()
            .find(|tool| tool.name() == name)
            .map_or_else(|| Arc::from(""), |tool| Arc::from(tool.prompt().as_ref()));
        let mut inner = self.lock();
        let entry = inner
            .descriptions
            .entry(name.to_owned())
            .or_insert(description);
        Arc::clone(entry)
    }

    /// The memoized description of `tool`, memoized under its primary name: what
    /// [`DescriptionCache::description`] returns when `tool` is the first tool of that name in
    /// the pool, without searching the pool.
    pub fn description_for(&self, tool: &dyn DynTool) -> Arc<str> {
        if let Some(description) = self.lock().descriptions.get(tool.name()) {
            return Arc::clone(description);
        }
        let description: Arc<str> = Arc::from(tool.prompt().as_ref());
        let mut inner = self.lock();
        let entry = inner
            .descriptions
            .entry(tool.name().to_owned())
            .or_insert(description);
        Arc::clone(entry)
    }

    /// Empties the cache and forgets the key (SPEC §3.8 `clearToolSearchDescriptionCache`).
    pub fn clear(&self) {
        let mut inner = self.lock();
        inner.descriptions.clear();
        inner.key = None;
        inner.generation += 1;
    }

    /// Counts the clears so far; a search state built before the latest clear rebuilds its
    /// index.
    pub fn generation(&self) -> u64 {
        self.lock().generation
    }

    /// How many descriptions are memoized.
    pub fn len(&self) -> usize {
        self.lock().descriptions.len()
    }

    /// `true` when nothing is memoized.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Compares two strings in UTF-16 code-unit order, the order of JavaScript's default sort.
pub fn utf16_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    a.encode_utf16().cmp(b.encode_utf16())
}
