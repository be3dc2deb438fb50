//! `tools/list` for a served pool: every tool's MCP definition, built once per pool and kept
//! byte-stable for it, cut into pages with opaque cursors (MCP 2025-11-25, server utilities,
//! pagination).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, PoisonError, RwLock};

use rmcp::ErrorData;
use rmcp::model::{JsonObject, ListToolsResult, Tool, ToolAnnotations};
use serde_json::Value;
use tool_sdk::DynTool;

use crate::export::captured::description_without_example_slot;
use crate::export::{
    RenderRequest, ResolvedHints, export_input_object, has_closed_root, is_older_dialect,
    mcp_input_object, open_input_root,
};
#[cfg(doc)]
use crate::export::{SchemaCache, captured::CachedTool};
use crate::providers::mcp::listed_output_schema;

/// How long a client may take a served `tools/list` as fresh (its `ttlMs`, SEP-2549): one
/// minute. A change of the pool within it is announced (`notifications/tools/list_changed`,
/// `subscriptions/listen`); its `cacheScope` is `private`, since a listing may come to differ
/// between clients.
pub(crate) const LIST_FRESH_FOR_MS: u64 = 60_000;

/// The listing of one pool: its tools' definitions in pool order, and which of them declare an
/// output schema (those answer with `structuredContent`).
#[derive(Debug)]
pub(crate) struct Listing {
    /// Distinguishes the cursors of this pool from those of an earlier one.
    generation: u64,
    tools: Vec<Tool>,
    page_size: usize,
    /// Tool name → its index in `tools` (foldhash, as the orchestrator's lookup: read on
    /// every `tools/call`, twice).
    index: HashMap<String, usize, foldhash::fast::RandomState>,
    /// The OAuth scopes each tool declares (`#[tool(scopes = ...)]`), by index.
    scopes: Vec<Vec<String>>,
}

impl Listing {
    /// The listing of `tools` for `request` (less the tools only code may call), each tool's
    /// definition built now, straight into rmcp's `Tool`. The definitions are byte for byte those [`SchemaCache::render`] gives a
    /// fresh cache for [`ModelApi::Mcp`](crate::providers::ModelApi::Mcp) (what `definitions --format mcp` prints), with
    /// each tool's own `$schema` kept on its `inputSchema` (SEP-1613: a schema states its
    /// dialect; none means 2020-12), except that a schema in an older dialect is listed as the
    /// 2020-12 schema the export rewrote it into, without `$schema`. The listing is then the
    /// served pool's byte-stable cache: every `tools/list` of this pool pages through it.
    ///
    /// # Errors
    /// Two tools with the same name, named in the message: a client calls a tool by its name,
    /// so a server's tool names must be unique (calls would reach only the first of them).
    /// Pools assembled by [`crate::ToolPool`] never have that; an orchestrator built from a
    /// hand-made list can.
    pub(crate) fn build(
        tools: &[Arc<dyn DynTool>],
        request: &RenderRequest,
        generation: u64,
        page_size: usize,
    ) -> Result<Self, String> {
        let mut listed = Vec::with_capacity(tools.len());
        let mut index =
            HashMap::with_capacity_and_hasher(tools.len(), foldhash::fast::RandomState::default());
        let mut scopes = Vec::with_capacity(tools.len());
        // A tool only code may call is not offered: MCP has no `allowed_callers`, and a
        // `tools/call` of it is refused as an unknown tool (`tool_sdk::callers::Callers`).
        for tool in tools
            .iter()
            .filter(|tool| tool.meta().callers.allows_direct())
        {
            scopes.push(
                tool.meta()
                    .scopes
                    .iter()
                    .map(|scope| scope.to_string())
                    .collect(),
            );
            let lenient = request.lenient_input.contains(tool.name());
            let definition = mcp_tool(tool.as_ref(), lenient);
            if index.insert(tool.name().to_owned(), listed.len()).is_some() {
                return Err(format!(
                    "two tools are named `{}`: an MCP server's tool names must be unique, since \
                     clients call tools by name; rename one of them or leave one out of the pool",
                    tool.name()
                ));
            }
            listed.push(definition);
        }
        Ok(Self {
            generation,
            tools: listed,
            page_size: page_size.max(1),
            index,
            scopes,
        })
    }

    /// Whether this listing serves the same pages as `previous`; if so it takes over
    /// `previous`'s cursors, so that a client paging through an unchanged listing goes on.
    pub(crate) fn continues(&mut self, previous: &Listing) -> bool {
        let same = self.page_size == previous.page_size && self.tools == previous.tools;
        if same {
            self.generation = previous.generation;
        }
        same
    }

    /// Every listed tool, in pool order.
    pub(crate) fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The listed definition of the tool `name` (its primary name).
    pub(crate) fn tool(&self, name: &str) -> Option<&Tool> {
        self.index.get(name).map(|&at| &self.tools[at])
    }

    /// The OAuth scopes the tool `name` (its primary name) declares.
    pub(crate) fn scopes(&self, name: &str) -> &[String] {
        self.index
            .get(name)
            .map(|&at| self.scopes[at].as_slice())
            .unwrap_or_default()
    }

    /// Every scope some tool declares.
    pub(crate) fn all_scopes(&self) -> std::collections::BTreeSet<String> {
        self.scopes.iter().flatten().cloned().collect()
    }

    /// The page starting at `cursor` (the first page for `None`). A cursor is
    /// `GENERATION:OFFSET`; one from another pool or not made here is refused with `-32602`,
    /// as MCP asks for an invalid cursor. Each page carries its caching hints (SEP-2549):
    /// fresh for [`LIST_FRESH_FOR_MS`], private. With an `admission` (the server checks
    /// access tokens), the tools its token lacks the scopes for are left out, and offsets
    /// count the others.
    pub(crate) fn page(
        &self,
        cursor: Option<&str>,
        admission: Option<&super::auth::Admission>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools: Vec<&Tool> = self
            .tools
            .iter()
            .zip(&self.scopes)
            .filter(|(tool, scopes)| {
                admission.is_none_or(|admission| admission.missing(&tool.name, scopes).is_none())
            })
            .map(|(tool, _)| tool)
            .collect();
        self.page_of(cursor, &tools)
    }

    fn page_of(&self, cursor: Option<&str>, tools: &[&Tool]) -> Result<ListToolsResult, ErrorData> {
        let start = match cursor {
            None => 0,
            Some(cursor) => self.offset_of(cursor, tools.len()).ok_or_else(|| {
                ErrorData::invalid_params(
                    format!(
                        "invalid cursor `{cursor}`: pass the nextCursor of the previous \
                         tools/list page, or no cursor for the first page (the tool list may \
                         have changed since)"
                    ),
                    None,
                )
            })?,
        };
        let end = (start + self.page_size).min(tools.len());
        let mut result = ListToolsResult::with_all_items(
            tools[start..end].iter().map(|&tool| tool.clone()).collect(),
        );
        result.ttl_ms = Some(LIST_FRESH_FOR_MS);
        result.cache_scope = Some(rmcp::model::CacheScope::Private);
        if end < tools.len() {
            result.next_cursor = Some(format!("{}:{end}", self.generation));
        }
        Ok(result)
    }

    fn offset_of(&self, cursor: &str, len: usize) -> Option<usize> {
        let (generation, offset) = cursor.split_once(':')?;
        let offset: usize = offset.parse().ok()?;
        (generation.parse::<u64>().ok()? == self.generation && offset < len).then_some(offset)
    }
}

/// The MCP definition of `tool` as rmcp's `Tool`: the fields of [`ModelApi::Mcp`](crate::providers::ModelApi::Mcp)'s
/// definition (as [`CachedTool::capture`] reads them, the description with the examples a
/// tool asks for, `description_without_example_slot`), with the input schema's root opened
/// for a `lenient` tool.
fn mcp_tool(tool: &dyn DynTool, lenient: bool) -> Tool {
    let mut input = listed_input_schema(tool);
    if lenient && has_closed_root(&input) {
        open_input_root(Arc::make_mut(&mut input));
    }
    let hints = ResolvedHints::of(tool);
    let description = description_without_example_slot(tool).into_owned();
    // The name as the tool holds it (a `#[tool]` type's is static, so rmcp's copies of the
    // definition, `get_tool` once per `tools/call`, need not copy it), unless the tool answers
    // `name()` with another: it is called by that one.
    let name = if tool.name() == tool.meta().name {
        tool.meta().name.clone()
    } else {
        Cow::Owned(tool.name().to_owned())
    };
    let mut listed = Tool::new(name, description, input).with_annotations(
        ToolAnnotations::new()
            .read_only(hints.read_only)
            .destructive(hints.destructive)
            .idempotent(hints.idempotent)
            .open_world(hints.open_world),
    );
    listed.title = tool.meta().title.as_deref().map(str::to_owned);
    if let Some(output) = listed_output_schema(tool.output_schema()) {
        listed = listed.with_raw_output_schema(Arc::new(output));
    }
    listed
}

/// Each process-wide input schema's listed form ([`DynTool::shared_input_schema`]: one per
/// tool type, coercion setting and output-schema fallback), by the schema's address: built at
/// its first listing and shared by every listing after it, as rmcp's per-type schema cache is.
/// Bounded by the number of such schemas.
static LISTED_INPUT: LazyLock<RwLock<HashMap<usize, Arc<JsonObject>>>> =
    LazyLock::new(RwLock::default);

/// The `inputSchema` listed for `tool`: its input schema in export shape with its own
/// `$schema` first, from [`LISTED_INPUT`] when the schema is process-wide.
fn listed_input_schema(tool: &dyn DynTool) -> Arc<JsonObject> {
    let Some(shared) = tool.shared_input_schema() else {
        return Arc::new(listed_input_of(tool.input_schema()));
    };
    let key = std::ptr::from_ref(shared) as usize;
    if let Some(known) = LISTED_INPUT
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
    {
        return Arc::clone(known);
    }
    let built = Arc::new(listed_input_of(shared));
    Arc::clone(
        LISTED_INPUT
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key)
            .or_insert(built),
    )
}

/// `schema` as MCP lists it ([`mcp_input_object`], else export shape, [`export_input_object`])
/// with its own `$schema`, if any, first;
/// a schema in an older dialect is listed as the 2020-12 schema the export rewrote it into,
/// with no `$schema` (2020-12 is MCP's default).
fn listed_input_of(schema: &Value) -> JsonObject {
    let mut input = mcp_input_object(schema).unwrap_or_else(|| export_input_object(schema));
    if let Some(dialect) = schema.get("$schema")
        && !is_older_dialect(schema)
    {
        input.shift_insert(0, "$schema".to_owned(), dialect.clone());
    }
    input
}

/// The scopes the tools of the pool served now declare.
pub(super) struct PoolScopes(pub(super) Arc<super::Shared>);

impl super::auth::DeclaredScopes for PoolScopes {
    fn of(&self, name: &str) -> Option<(String, Vec<String>)> {
        let served = self.0.served();
        let listed = served.orchestrator.find_tool(name)?.name().to_owned();
        let scopes = served.listing.scopes(&listed).to_vec();
        Some((listed, scopes))
    }

    fn all(&self) -> std::collections::BTreeSet<String> {
        self.0.served().listing.all_scopes()
    }
}
