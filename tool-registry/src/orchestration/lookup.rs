//! Finding the tool a `tool_use` block names (SPEC §5.4 step 1, §8.1).

use std::collections::HashMap;
use std::sync::Arc;

use tool_sdk::DynTool;

/// The pool, indexed by every name it answers to, and the tools reachable only by alias.
#[derive(Clone)]
pub(crate) struct ToolLookup {
    tools: Vec<Arc<dyn DynTool>>,
    /// Primary names and aliases to positions in `tools`; the first tool answering a name
    /// wins, as in a scan (SPEC §8.1). Hashed with foldhash: names are short and the table is
    /// built once from the pool, so SipHash's flooding resistance buys nothing here and costs
    /// about 15 ns a lookup.
    index: HashMap<String, usize, foldhash::fast::RandomState>,
    /// Tools outside the pool that answer only through an alias (SPEC §5.4 step 1).
    alias_fallback: Vec<Arc<dyn DynTool>>,
}

impl ToolLookup {
    /// A lookup over `tools`, with no alias fallback.
    pub(crate) fn new(tools: &[Arc<dyn DynTool>]) -> Self {
        let mut index =
            HashMap::with_capacity_and_hasher(tools.len(), foldhash::fast::RandomState::default());
        for (position, tool) in tools.iter().enumerate() {
            let meta = tool.meta();
            for name in std::iter::once(&meta.name).chain(&meta.aliases) {
                index.entry(name.to_string()).or_insert(position);
            }
        }
        Self {
            tools: tools.to_vec(),
            index,
            alias_fallback: Vec::new(),
        }
    }

    /// Replaces the tools reachable only through one of their aliases.
    pub(crate) fn set_alias_fallback(&mut self, tools: &[Arc<dyn DynTool>]) {
        self.alias_fallback = tools.to_vec();
    }

    /// The pool, in order.
    pub(crate) fn tools(&self) -> &[Arc<dyn DynTool>] {
        &self.tools
    }

    /// The pool tool answering `name` (primary name or alias, exact), else an alias-fallback
    /// tool answering it as an alias.
    #[inline]
    pub(crate) fn find(&self, name: &str) -> Option<&Arc<dyn DynTool>> {
        match self.index.get(name) {
            Some(&position) => Some(&self.tools[position]),
            None => self
                .alias_fallback
                .iter()
                .find(|tool| tool.meta().aliases.iter().any(|alias| alias == name)),
        }
    }
}
