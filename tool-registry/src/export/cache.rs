//! The session schema cache (SPEC §8.4): each tool's definition is captured at its first render
//! and rendered byte-identically afterwards, whatever changes in the tool, until `clear()`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard, Weak};

use serde_json::{Map, Value};
use tool_sdk::DynTool;

use super::captured::CachedTool;
use super::shape::{DefinitionShape, SHAPE_SLOTS, STRICT_SLOTS, StrictMode};
use super::strict::{SchemaError, StrictPolicy};
use crate::pool::is_mcp_tool;

/// A captured tool and its renders, each made once: the base definition per API shape (a
/// value, and its compact JSON text once a render asks for text), and the strict-mode forms.
#[derive(Debug)]
struct Entry {
    tool: Arc<CachedTool>,
    rendered: [OnceLock<Rendered>; SHAPE_SLOTS],
    rendered_strict: [OnceLock<Result<Rendered, SchemaError>>; STRICT_SLOTS],
}

impl Entry {
    fn new(tool: CachedTool) -> Self {
        Self {
            tool: Arc::new(tool),
            rendered: Default::default(),
            rendered_strict: Default::default(),
        }
    }

    /// The base definition in `shape` (no per-request fields), rendered once.
    ///
    /// # Errors
    /// [`SchemaError`] for a strict-mode shape with `strict` under [`StrictPolicy::Error`].
    fn base(
        &self,
        shape: &DefinitionShape,
        strict: bool,
        policy: StrictPolicy,
        lenient: bool,
    ) -> Result<&Rendered, SchemaError> {
        let tool = &*self.tool;
        if let StrictMode::Schema { slot } = shape.strict
            && !lenient
            && shape.asks_strict(tool, strict)
        {
            match self.rendered_strict[slot].get_or_init(|| {
                tool.strict_input_schema()
                    .map(|schema| Rendered::new((shape.write)(tool, Some(schema))))
                    .map_err(Clone::clone)
            }) {
                Ok(rendered) => return Ok(rendered),
                Err(error) if policy == StrictPolicy::Error => return Err(error.clone()),
                Err(error) => tracing::warn!(%error, "sending the tool without strict mode"),
            }
        }
        Ok(self.rendered[shape.slot].get_or_init(|| Rendered::new((shape.write)(tool, None))))
    }
}

/// One rendered definition: the value, and its compact JSON text once a render asks for it.
#[derive(Debug)]
struct Rendered {
    value: Value,
    json: OnceLock<String>,
}

impl Rendered {
    fn new(value: Value) -> Self {
        Self {
            value,
            json: OnceLock::new(),
        }
    }

    /// The compact JSON text of the definition, serialised at the first call.
    fn json(&self) -> &str {
        self.json.get_or_init(|| self.value.to_string())
    }
}

/// Per-request choices: added to a copy of each cached definition, never to the cache. Gemini
/// definitions take none of them (Gemini has no strict mode, no deferred loading and no cache
/// control, and its portable schemas never state `additionalProperties`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RenderRequest {
    /// Ask the OpenAI APIs for strict mode for every tool (tools that set `strict` get it
    /// anyway). Anthropic definitions carry `"strict": true` only for tools that set it.
    pub strict: bool,
    /// What happens to a tool that cannot be strict.
    pub strict_policy: StrictPolicy,
    /// Anthropic only: names of tools sent with `"defer_loading": true` (SPEC §4.4).
    pub defer_loading: Vec<String>,
    /// Anthropic only: a `cache_control` object (e.g. `{"type":"ephemeral"}`) put on the last
    /// built-in tool (the last tool that is not an MCP tool), so the built-in prefix is cached.
    pub cache_control: Option<Value>,
    /// Tools (by primary name) whose input keys outside their schema are dropped rather than
    /// refused: set it to the orchestrator's
    /// [`lenient_input_tools`](crate::OrchestratorConfig::lenient_input_tools), so the
    /// definitions sent advertise what the orchestrator running the calls accepts: the input
    /// schema's root has no `additionalProperties: false`, for every API. Strict mode
    /// (OpenAI's, and Anthropic's `"strict": true`) requires that `false`, so these tools are
    /// not strict: under [`StrictPolicy::Error`] asking for it is a [`SchemaError`] on
    /// `(root)`; under [`StrictPolicy::DropStrict`] they are sent without it, with a warning.
    pub lenient_input: BTreeSet<String>,
}

/// [`SchemaError::reason`] for a lenient tool asked to be strict.
const LENIENT_REASON: &str = "the orchestrator drops its unknown keys (lenient input), which strict mode's `additionalProperties: false` would deny";

/// The session's definitions cache (SPEC §8.4), shared by every render of a session.
///
/// Key: the tool's name, or `NAME:<schema JSON>` for tools with a raw JSON Schema
/// (`has_json_schema`), so an MCP tool whose schema changes gets a new entry. The first render
/// of a key captures name, description, schema, `strict`, title, hints and output schema;
/// later renders reuse them byte for byte even if the tool's flags or prompt change.
///
/// A tool instance with a raw JSON Schema (an `Arc<dyn DynTool>` whose `has_json_schema` is
/// true), rendered once, is found again by identity without building its key, since the key
/// holds the whole schema text and serialising it was most of a warm render. So such a tool's
/// name and schema must not change while the same instance is in use; MCP tools are rebuilt
/// from each `tools/list`, which makes new instances and so new keys. The cache keeps a `Weak`
/// to each instance it remembers (so that its address is not reused by another tool), which
/// makes `Arc::get_mut` on that tool return `None` until [`SchemaCache::clear`]. The first
/// render of a new instance takes the write lock once to remember it.
///
/// ```
/// use tool_registry::export::{RenderRequest, SchemaCache};
/// use tool_registry::providers::ModelApi;
/// let cache = SchemaCache::new();
/// let tools = tool_registry::ToolRegistry::collect().unwrap();
/// let first = ModelApi::Anthropic.definitions_json(&cache, tools.tools(), &RenderRequest::default()).unwrap();
/// let again = ModelApi::Anthropic.definitions_json(&cache, tools.tools(), &RenderRequest::default()).unwrap();
/// assert_eq!(first, again);
/// ```
#[derive(Debug, Default)]
pub struct SchemaCache {
    state: RwLock<CacheState>,
}

/// Both maps under one lock, so that `clear` and a render never leave an instance pointing at
/// a forgotten entry.
#[derive(Debug, Default)]
struct CacheState {
    /// The captured entries by SPEC §8.4 key.
    entries: HashMap<String, Arc<Entry>>,
    /// The entry of each tool instance already rendered, by the address of its `Arc`. The
    /// `Weak` keeps that allocation from being freed and its address reused for another tool
    /// while the entry exists, so an address found here is the same instance.
    by_instance: HashMap<usize, (Weak<dyn DynTool>, Arc<Entry>)>,
    /// `by_instance`'s size at which dropped instances are swept out next.
    sweep_at: usize,
}

impl CacheState {
    fn remember(&mut self, tool: &Arc<dyn DynTool>, entry: &Arc<Entry>) {
        // Instances come and go (MCP tools are rebuilt on reconnects, a pool may be collected
        // anew each turn): sweep out the dropped ones whenever the map has doubled since the
        // last sweep, at amortised O(1). Until a sweep, a dropped instance's allocation (the
        // tool struct's own bytes, its fields already dropped) stays pinned by its `Weak`; the
        // map holds at most max(64, twice the live instances, twice the entries) of them.
        if self.by_instance.len() >= self.sweep_at.max(64) {
            self.by_instance
                .retain(|_, (instance, _)| instance.strong_count() > 0);
            self.by_instance.shrink_to(2 * self.by_instance.len());
            self.sweep_at = 2 * self.by_instance.len().max(self.entries.len());
        }
        self.by_instance
            .entry(instance_address(tool))
            .or_insert_with(|| (Arc::downgrade(tool), Arc::clone(entry)));
    }
}

/// The address `CacheState::by_instance` knows a tool instance by.
fn instance_address(tool: &Arc<dyn DynTool>) -> usize {
    Arc::as_ptr(tool).cast::<()>() as usize
}

/// The cache key of `tool` (SPEC §8.4).
pub fn cache_key(tool: &dyn DynTool) -> String {
    if tool.has_json_schema() {
        format!("{}:{}", tool.name(), tool.input_schema())
    } else {
        tool.name().to_owned()
    }
}

impl SchemaCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The captured entry of `tool`, capturing it now on a miss.
    pub(crate) fn entry(&self, tool: &dyn DynTool) -> Arc<CachedTool> {
        Arc::clone(&self.keyed_entry(tool).tool)
    }

    fn keyed_entry(&self, tool: &dyn DynTool) -> Arc<Entry> {
        let key = cache_key(tool);
        if let Some(entry) = self.read().entries.get(&key) {
            return Arc::clone(entry);
        }
        let captured = Arc::new(Entry::new(CachedTool::capture(tool)));
        Arc::clone(self.write().entries.entry(key).or_insert(captured))
    }

    /// [`SchemaCache::entry`] for an instance, found by identity after its first time when its
    /// key would hold its schema (a tool keyed by name alone is cheaper to key than to
    /// remember).
    fn instance_entry(&self, tool: &Arc<dyn DynTool>) -> Arc<Entry> {
        if !tool.has_json_schema() {
            return self.keyed_entry(tool.as_ref());
        }
        if let Some((_, entry)) = self.read().by_instance.get(&instance_address(tool)) {
            return Arc::clone(entry);
        }
        let key = cache_key(tool.as_ref());
        let mut state = self.write();
        let entry = match state.entries.get(&key) {
            Some(entry) => Arc::clone(entry),
            None => {
                drop(state);
                let captured = Arc::new(Entry::new(CachedTool::capture(tool.as_ref())));
                state = self.write();
                Arc::clone(state.entries.entry(key).or_insert(captured))
            }
        };
        state.remember(tool, &entry);
        entry
    }

    fn read(&self) -> RwLockReadGuard<'_, CacheState> {
        self.state
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, CacheState> {
        self.state
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Why each of `tools` that would be sent in OpenAI strict mode cannot be: the tools that
    /// declare `strict` (or every tool, when `strict` is `true`) whose input schema is outside
    /// strict mode's subset, each error naming the tool and the field (in pool order). Under
    /// [`StrictPolicy::DropStrict`] these tools are sent without strict mode; a host shows these as
    /// warnings.
    pub fn strict_problems(&self, tools: &[Arc<dyn DynTool>], strict: bool) -> Vec<SchemaError> {
        tools
            .iter()
            .filter_map(|tool| {
                let entry = self.entry(tool.as_ref());
                if !(strict || entry.strict) {
                    return None;
                }
                entry.strict_input_schema().err().cloned()
            })
            .collect()
    }

    /// Forgets every entry (the reference clears on auth changes and logout).
    pub fn clear(&self) {
        *self.write() = CacheState::default();
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.read().entries.len()
    }

    /// `true` when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.read().entries.is_empty()
    }

    /// The definitions of `tools` in `shape`, in order, with the per-request fields of
    /// `request` added to copies. The public door is
    /// [`ModelApi::definitions`](crate::providers::ModelApi::definitions).
    ///
    /// # Errors
    /// [`SchemaError`] naming the tool and field, for a strict-mode shape under
    /// [`StrictPolicy::Error`].
    pub(crate) fn render(
        &self,
        tools: &[Arc<dyn DynTool>],
        shape: &DefinitionShape,
        request: &RenderRequest,
    ) -> Result<Vec<Value>, SchemaError> {
        let mut definitions = Vec::with_capacity(tools.len());
        self.each(tools, shape, request, |rendered, extra| {
            let mut definition = rendered.value.clone();
            extra.apply(&mut definition);
            definitions.push(definition);
        })?;
        Ok(definitions)
    }

    /// [`SchemaCache::render`] as the compact JSON text of the array: the bytes sent. Cached
    /// definitions are copied as text, so a warm render does not serialise them again.
    ///
    /// # Errors
    /// As [`SchemaCache::render`].
    pub(crate) fn render_json(
        &self,
        tools: &[Arc<dyn DynTool>],
        shape: &DefinitionShape,
        request: &RenderRequest,
    ) -> Result<String, SchemaError> {
        let mut text = String::from("[");
        self.each(tools, shape, request, |rendered, extra| {
            if text.len() > 1 {
                text.push(',');
            }
            if extra.is_empty() {
                text.push_str(rendered.json());
            } else {
                let mut definition = rendered.value.clone();
                extra.apply(&mut definition);
                text.push_str(&definition.to_string());
            }
        })?;
        text.push(']');
        Ok(text)
    }

    fn each<'s>(
        &self,
        tools: &[Arc<dyn DynTool>],
        shape: &'s DefinitionShape,
        request: &'s RenderRequest,
        mut visit: impl FnMut(&Rendered, PerRequest<'s>),
    ) -> Result<(), SchemaError> {
        let last_built_in = tools.iter().rposition(|tool| !is_mcp_tool(tool.as_ref()));
        let deferred: HashSet<&str> = request.defer_loading.iter().map(String::as_str).collect();
        for (index, tool) in tools.iter().enumerate() {
            let entry = self.instance_entry(tool);
            let lenient = request.lenient_input.contains(entry.tool.name.as_str());
            if lenient {
                lenient_without_strict(&entry.tool, shape, request)?;
            }
            let rendered = entry.base(shape, request.strict, request.strict_policy, lenient)?;
            let extra = PerRequest {
                open_root: lenient.then_some(shape),
                defer_loading: shape.request_fields && deferred.contains(entry.tool.name.as_str()),
                cache_control: request
                    .cache_control
                    .as_ref()
                    .filter(|_| shape.request_fields && Some(index) == last_built_in),
            };
            visit(rendered, extra);
        }
        Ok(())
    }
}

/// For a lenient tool: `Ok` when strict mode is not asked for it in `shape`, or is to be
/// dropped (with a warning); the [`SchemaError`] under [`StrictPolicy::Error`].
fn lenient_without_strict(
    tool: &CachedTool,
    shape: &DefinitionShape,
    request: &RenderRequest,
) -> Result<(), SchemaError> {
    if !shape.asks_strict(tool, request.strict) {
        return Ok(());
    }
    let error = SchemaError::strict(&tool.name, "(root)", LENIENT_REASON);
    match request.strict_policy {
        StrictPolicy::Error => Err(error),
        StrictPolicy::DropStrict => {
            tracing::warn!(%error, "sending the tool without strict mode");
            Ok(())
        }
    }
}

/// The per-request fields of one definition.
struct PerRequest<'a> {
    defer_loading: bool,
    cache_control: Option<&'a Value>,
    /// Set for a lenient tool: the shape whose input schema root is opened.
    open_root: Option<&'a DefinitionShape>,
}

impl PerRequest<'_> {
    fn is_empty(&self) -> bool {
        !self.defer_loading && self.cache_control.is_none() && self.open_root.is_none()
    }

    fn apply(&self, definition: &mut Value) {
        if let Some(shape) = self.open_root {
            open_root(definition, shape);
        }
        if self.defer_loading {
            definition["defer_loading"] = Value::Bool(true);
        }
        if let Some(cache_control) = self.cache_control {
            definition["cache_control"] = cache_control.clone();
        }
    }
}

/// A lenient tool's definition: no `additionalProperties: false` at its input schema's root,
/// and no `"strict": true` of a tool-flag strict mode (which requires it). Schema strict modes
/// were rendered without strict mode already.
fn open_root(definition: &mut Value, shape: &DefinitionShape) {
    if shape.strict == StrictMode::ToolFlag
        && let Value::Object(map) = definition
    {
        map.shift_remove("strict");
    }
    if let Some(Value::Object(schema)) = shape.input_schema_mut(definition) {
        open_input_root(schema);
    }
}

/// A lenient tool's input schema root (export shape): its `additionalProperties: false`, if
/// any, removed, so the schema admits the unknown keys the orchestrator drops.
pub(crate) fn open_input_root(schema: &mut Map<String, Value>) {
    if has_closed_root(schema) {
        schema.shift_remove("additionalProperties");
    }
}

/// Whether `schema`'s root says `additionalProperties: false`: what [`open_input_root`]
/// removes, so a caller holding a shared schema copies it only when there is something to open.
pub(crate) fn has_closed_root(schema: &Map<String, Value>) -> bool {
    schema.get("additionalProperties") == Some(&Value::Bool(false))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::export::RenderRequest;

    /// A shape that writes only the input schema, the part these tests look at.
    const SHAPE: DefinitionShape = DefinitionShape {
        slot: 0,
        write: |tool, _| json!({"input_schema": tool.input_schema.clone()}),
        input_schema_at: &["input_schema"],
        strict: StrictMode::None,
        request_fields: false,
    };

    /// A run-time tool with a schema of its own, as an MCP import makes one per `tools/list`.
    fn plain(property: &str) -> Arc<dyn DynTool> {
        let definition = json!({
            "name": "Plain",
            "description": "plain",
            "input_schema": {"type": "object", "properties": {property: {"type": "string"}}},
        });
        Arc::new(
            crate::dynamic::DynamicTool::from_json(
                &definition,
                crate::dynamic::ToolHandler::fixed_text(""),
            )
            .expect("a valid definition"),
        )
    }

    #[test]
    fn dropped_instances_are_forgotten_before_they_pile_up() {
        let cache = SchemaCache::new();
        let request = RenderRequest::default();
        // Fresh instances with their own schemas, each rendered then dropped, as MCP
        // reconnects make them; every hundredth is kept alive.
        let mut live = Vec::new();
        for i in 0..1_000 {
            let property = format!("p{i}");
            let fresh = vec![plain(&property)];
            let rendered = cache.render(&fresh, &SHAPE, &request).unwrap();
            assert!(
                rendered[0]["input_schema"]["properties"]
                    .get(&property)
                    .is_some(),
                "{rendered:?}"
            );
            if i % 100 == 0 {
                live.push(fresh);
            }
        }
        let state = cache.read();
        assert_eq!(state.entries.len(), 1_000);
        let remembered = state.by_instance.len();
        let dead = state
            .by_instance
            .values()
            .filter(|(instance, _)| instance.strong_count() == 0)
            .count();
        assert!(remembered <= 2 * 1_000, "{remembered}");
        assert!(dead <= remembered - live.len(), "{dead} of {remembered}");
        for fresh in &live {
            assert!(
                state.by_instance.contains_key(&instance_address(&fresh[0])),
                "a live instance was forgotten"
            );
        }
    }

    #[test]
    fn dropped_instances_of_one_key_are_swept_out() {
        let cache = SchemaCache::new();
        let request = RenderRequest::default();
        let mut live = Vec::new();
        for i in 0..1_000 {
            let fresh = vec![plain("same")];
            cache.render(&fresh, &SHAPE, &request).unwrap();
            if i % 100 == 0 {
                live.push(fresh);
            }
        }
        let state = cache.read();
        assert_eq!(state.entries.len(), 1);
        let dead = state
            .by_instance
            .values()
            .filter(|(instance, _)| instance.strong_count() == 0)
            .count();
        assert!(dead < 64, "{dead} dropped instances still pinned");
        for fresh in &live {
            assert!(state.by_instance.contains_key(&instance_address(&fresh[0])));
        }
    }
}
