//! What the cache needs to know of an API's definition shape, given by that API's module
//! (`crate::providers`): the writer of a base definition, where its input schema sits, and how
//! strict mode and the per-request fields apply. The cache itself knows no API.

use serde_json::Value;

use super::captured::CachedTool;

/// One API's definition shape.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DefinitionShape {
    /// The API's slot among the entry's cached renders: distinct per API, below
    /// [`SHAPE_SLOTS`].
    pub(crate) slot: usize,
    /// The base definition of a captured tool (no per-request fields); the second argument
    /// is the strict-mode input schema when strict mode applies, else `None`.
    pub(crate) write: fn(&CachedTool, Option<&Value>) -> Value,
    /// Where the input schema sits in a definition, as object keys from its root.
    pub(crate) input_schema_at: &'static [&'static str],
    /// How strict mode applies.
    pub(crate) strict: StrictMode,
    /// Whether `defer_loading` and `cache_control` of a request apply (Anthropic only).
    pub(crate) request_fields: bool,
}

/// How strict mode applies to an API's definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StrictMode {
    /// No strict mode (MCP).
    None,
    /// A tool that sets `strict` is sent with `"strict": true` as its writer writes it; a
    /// lenient tool loses that key (Anthropic).
    ToolFlag,
    /// OpenAI's strict mode: the request's `strict` or the tool's asks for it; the strict
    /// render is cached in this slot, below [`STRICT_SLOTS`].
    Schema {
        /// The slot among the entry's strict renders.
        slot: usize,
    },
}

/// How many APIs the cache keeps a base render for per tool.
pub(crate) const SHAPE_SLOTS: usize = 4;

/// How many APIs the cache keeps a strict-mode render for per tool.
pub(crate) const STRICT_SLOTS: usize = 2;

impl DefinitionShape {
    /// Whether strict mode is asked for `tool` under this shape (`strict`: the request asks
    /// for it for every tool).
    pub(crate) fn asks_strict(&self, tool: &CachedTool, strict: bool) -> bool {
        match self.strict {
            StrictMode::None => false,
            StrictMode::ToolFlag => tool.strict,
            StrictMode::Schema { .. } => tool.strict || strict,
        }
    }

    /// The input schema of `definition`, where this shape puts it.
    pub(crate) fn input_schema_mut<'a>(&self, definition: &'a mut Value) -> Option<&'a mut Value> {
        self.input_schema_at
            .iter()
            .try_fold(definition, |value, key| value.get_mut(*key))
    }
}
