//! `tools/list` for a served pool: every tool's MCP definition, built once per pool from the
//! byte-stable schema cache, cut into pages with opaque cursors (MCP 2025-11-25, server
//! utilities, pagination).

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{ListToolsResult, Tool};
use serde_json::Value;
use tool_sdk::DynTool;

use crate::export::{ExportTarget, RenderRequest, SchemaCache};

/// The default number of tools per `tools/list` page.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// The listing of one pool: its tools' definitions in pool order, and which of them declare an
/// output schema (those answer with `structuredContent`).
#[derive(Debug)]
pub(crate) struct Listing {
    /// Distinguishes the cursors of this pool from those of an earlier one.
    generation: u64,
    tools: Vec<Tool>,
    page_size: usize,
    /// Tool name → has an `outputSchema` in the listing.
    structured: HashMap<String, bool>,
}

impl Listing {
    /// The listing of `tools`, captured through `cache` and rendered for `request` (so the
    /// definitions are the bytes `definitions --format mcp` prints), with each tool's own `$schema` kept on its
    /// `inputSchema` (SEP-1613: a schema states its dialect; none means 2020-12).
    ///
    /// # Errors
    /// The name of a tool whose definition rmcp's `Tool` type refuses, with the reason.
    pub(crate) fn build(
        tools: &[Arc<dyn DynTool>],
        cache: &SchemaCache,
        request: &RenderRequest,
        generation: u64,
        page_size: usize,
    ) -> Result<Self, String> {
        let definitions = cache
            .render(tools, ExportTarget::Mcp, request)
            .map_err(|error| error.to_string())?;
        let mut listed = Vec::with_capacity(definitions.len());
        let mut structured = HashMap::with_capacity(definitions.len());
        for (tool, mut definition) in tools.iter().zip(definitions) {
            if let Some(dialect) = tool.input_schema().get("$schema")
                && let Some(Value::Object(schema)) = definition.get_mut("inputSchema")
            {
                schema.shift_insert(0, "$schema".to_owned(), dialect.clone());
            }
            structured.insert(
                tool.name().to_owned(),
                definition.get("outputSchema").is_some(),
            );
            let tool: Tool = serde_json::from_value(definition).map_err(|error| {
                format!("tool `{}` cannot be listed over MCP: {error}", tool.name())
            })?;
            listed.push(tool);
        }
        Ok(Self {
            generation,
            tools: listed,
            page_size: page_size.max(1),
            structured,
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

    /// Whether `name` declares an output schema (so its results carry `structuredContent`).
    pub(crate) fn has_output_schema(&self, name: &str) -> bool {
        self.structured.get(name).copied().unwrap_or(false)
    }

    /// The page starting at `cursor` (the first page for `None`). A cursor is
    /// `GENERATION:OFFSET`; one from another pool or not made here is refused with `-32602`,
    /// as MCP asks for an invalid cursor.
    pub(crate) fn page(&self, cursor: Option<&str>) -> Result<ListToolsResult, ErrorData> {
        let start = match cursor {
            None => 0,
            Some(cursor) => self.offset_of(cursor).ok_or_else(|| {
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
        let end = (start + self.page_size).min(self.tools.len());
        let mut result = ListToolsResult::with_all_items(self.tools[start..end].to_vec());
        if end < self.tools.len() {
            result.next_cursor = Some(format!("{}:{end}", self.generation));
        }
        Ok(result)
    }

    fn offset_of(&self, cursor: &str) -> Option<usize> {
        let (generation, offset) = cursor.split_once(':')?;
        let offset: usize = offset.parse().ok()?;
        (generation.parse::<u64>().ok()? == self.generation && offset < self.tools.len())
            .then_some(offset)
    }
}
