//! The one import normaliser: every `tools/list` entry, from a recorded list
//! (`mcp_tools_from_list`, `--mcp-tools-json`) or a live server (`McpManager`), goes through
//! [`normalize_tools`] before it becomes a tool, so both give the same pool for the same list.
//! One bad entry is skipped with a warning and never costs the server its other tools.
//!
//! Each entry is read on its own. A `null` or malformed entry (no string `name`, an
//! `inputSchema` that is not an object), or one repeating an earlier entry's name, is skipped
//! with a warning naming the server and the index. A root `$ref` into `$defs`/`definitions` is
//! resolved, a schema without `type` gets `"type": "object"`, absent annotations take the MCP
//! specification's defaults, and exported names that collide after cleaning (`a.b` and `a_b`
//! are both `mcp__s__a_b`) get a stable suffix from the raw name's hash.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::definition::{ToolAnnotations, check_name};
use crate::mcp_names::{
    MAX_TOOL_NAME_CHARS, build_mcp_tool_name, exported_mcp_tool_name, fnv1a_32,
    is_filtered_ide_tool, normalize_name_for_mcp,
};

/// One `tools/list` entry skipped on import, with the reason naming the field. Shown by
/// `Display` as ``MCP server `S`, tool #I: skipped: REASON``.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedEntry {
    /// The server.
    pub server: String,
    /// The entry's position in the merged `tools/list` pages, from 0.
    pub index: usize,
    /// Why, naming the field.
    pub reason: String,
}

impl std::fmt::Display for SkippedEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MCP server `{}`, tool #{}: skipped: {}",
            self.server, self.index, self.reason
        )
    }
}

/// Fills absent hints with the MCP specification's defaults (MCP 2025-11-25,
/// `ToolAnnotations`): `readOnlyHint` false,
/// `destructiveHint` true, `idempotentHint` false, `openWorldHint` true. For a read-only tool,
/// where the spec gives the two write hints no meaning, the values that hold for it are taken
/// instead (not destructive, idempotent), as the MCP export reads undeclared native flags.
fn with_spec_defaults(mut annotations: ToolAnnotations) -> ToolAnnotations {
    let read_only = annotations.read_only_hint.unwrap_or(false);
    annotations.read_only_hint = Some(read_only);
    annotations.destructive_hint = Some(annotations.destructive_hint.unwrap_or(!read_only));
    annotations.idempotent_hint = Some(annotations.idempotent_hint.unwrap_or(read_only));
    annotations.open_world_hint = Some(annotations.open_world_hint.unwrap_or(true));
    annotations
}

/// One entry of a `tools/list` result, as MCP defines it (the fields tool-sdk reads), after the
/// import normaliser.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct McpToolDescription {
    /// The tool's name on its server.
    pub(crate) name: String,
    /// A display name.
    pub(crate) title: Option<String>,
    /// What the tool does.
    pub(crate) description: Option<String>,
    /// The input JSON Schema.
    pub(crate) input_schema: Value,
    /// The output JSON Schema, if any.
    pub(crate) output_schema: Option<Value>,
    /// Behaviour hints.
    pub(crate) annotations: Option<ToolAnnotations>,
    /// Extra data; `anthropic/searchHint` and `anthropic/alwaysLoad` are read.
    pub(crate) meta: Option<Value>,
}

/// One imported tool: its cleaned description and the name it is exported under.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NormalizedTool {
    /// The description; `name` is the raw name the server is called with.
    pub description: McpToolDescription,
    /// The exported name (`mcp__SERVER__TOOL`, cleaned, ≤ 64 chars, unique on the server; the
    /// raw name in no-prefix mode).
    pub exported_name: String,
}

/// The tools of one server after normalising, and the entries skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct NormalizedList {
    /// The tools, in the server's order.
    pub tools: Vec<NormalizedTool>,
    /// The entries skipped, each also logged with `tracing::warn!`.
    pub skipped: Vec<SkippedEntry>,
}

/// Normalises the raw `tools` entries of `server` (every page merged, in order). With
/// `no_prefix`, tools keep their raw names, which must then be valid tool names.
pub(crate) fn normalize_tools(server: &str, entries: &[Value], no_prefix: bool) -> NormalizedList {
    let mut list = NormalizedList::default();
    let mut first_index: HashMap<String, usize> = HashMap::new();
    for (index, entry) in entries.iter().enumerate() {
        let normalized = normalize_entry(entry).and_then(|description| {
            let exported_name = if no_prefix {
                check_name(&description.name).map_err(|problem| {
                    format!(
                        "tool `{}`: `name` {problem} (needed without the `mcp__SERVER__` prefix)",
                        description.name
                    )
                })?;
                description.name.clone()
            } else {
                exported_mcp_tool_name(server, &description.name)
            };
            if !no_prefix && is_filtered_ide_tool(&exported_name) {
                return Ok(None);
            }
            if let Some(first) = first_index.get(&description.name) {
                return Err(format!(
                    "tool `{}`: `name` repeats tool #{first}, which is kept",
                    description.name
                ));
            }
            first_index.insert(description.name.clone(), index);
            Ok(Some(NormalizedTool {
                description,
                exported_name,
            }))
        });
        match normalized {
            // A tool of the reference's IDE server that it drops (SPEC §10); a no-prefix name
            // never has the `mcp__ide__` form.
            Ok(None) => {}
            Ok(Some(tool)) => list.tools.push(tool),
            Err(reason) => {
                let skipped = SkippedEntry {
                    server: server.to_owned(),
                    index,
                    reason,
                };
                tracing::warn!("{skipped}");
                list.skipped.push(skipped);
            }
        }
    }
    if !no_prefix {
        suffix_collisions(server, &mut list.tools);
    }
    list
}

fn normalize_entry(entry: &Value) -> Result<McpToolDescription, String> {
    let Some(object) = entry.as_object() else {
        return Err(format!("the entry is {entry}, not a tool object"));
    };
    let name = match object.get("name") {
        Some(Value::String(name)) if !name.is_empty() => name.clone(),
        Some(Value::String(_)) => return Err("`name` is empty".to_owned()),
        Some(other) => return Err(format!("`name` is {other}, not a string")),
        None => return Err("`name` is missing".to_owned()),
    };
    let input_schema = match object.get("inputSchema") {
        Some(Value::Object(schema)) => normalize_schema(schema.clone()),
        Some(other) => {
            return Err(format!(
                "tool `{name}`: `inputSchema` is {other}, not a JSON Schema object"
            ));
        }
        None => return Err(format!("tool `{name}`: `inputSchema` is missing")),
    };
    let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
    let output_schema = match object.get("outputSchema") {
        Some(Value::Object(schema)) => Some(normalize_schema(schema.clone())),
        _ => None,
    };
    let annotations = object
        .get("annotations")
        .and_then(|value| ToolAnnotations::deserialize(value).ok());
    Ok(McpToolDescription {
        name,
        title: text("title"),
        description: text("description"),
        input_schema,
        output_schema,
        annotations: Some(with_spec_defaults(annotations.unwrap_or_default())),
        meta: object.get("_meta").filter(|meta| meta.is_object()).cloned(),
    })
}

/// A root `$ref` to `#/$defs/X` or `#/definitions/X` replaced by that definition (the
/// definitions kept beside it for inner references); `"type": "object"` added when there is
/// no `type`.
fn normalize_schema(mut schema: Map<String, Value>) -> Value {
    if let Some(Value::String(reference)) = schema.get("$ref").cloned() {
        let target = ["#/$defs/", "#/definitions/"].iter().find_map(|prefix| {
            let name = reference.strip_prefix(prefix)?;
            let defs = schema.get(&prefix[2..prefix.len() - 1])?;
            defs.get(name)?.as_object().cloned()
        });
        if let Some(target) = target {
            schema.remove("$ref");
            for (key, value) in target {
                schema.entry(key).or_insert(value);
            }
        }
    }
    if !schema.contains_key("type") {
        schema.insert("type".to_owned(), Value::String("object".to_owned()));
    }
    Value::Object(schema)
}

/// Names shared by two tools get `_` and 8 hex digits of the raw name's hash, except for a
/// tool whose raw name is already clean (it keeps the plain name), so the result does not
/// depend on the server's order.
fn suffix_collisions(server: &str, tools: &mut [NormalizedTool]) {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for tool in tools.iter() {
        *counts.entry(tool.exported_name.clone()).or_default() += 1;
    }
    for tool in tools.iter_mut() {
        if counts[&tool.exported_name] < 2 {
            continue;
        }
        let raw = &tool.description.name;
        let full = build_mcp_tool_name(server, raw);
        if normalize_name_for_mcp(raw) == *raw {
            continue;
        }
        let suffix = format!("_{:08x}", fnv1a_32(raw.as_bytes()));
        let keep = MAX_TOOL_NAME_CHARS - suffix.len();
        let base: String = full.chars().take(keep).collect();
        tool.exported_name = base + &suffix;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bad_entries_are_skipped_and_the_rest_kept() {
        let entries = vec![
            json!(null),
            json!({"name": "ok", "inputSchema": {"type": "object"}}),
            json!({"name": 3, "inputSchema": {}}),
            json!({"name": "noschema"}),
            json!({"name": "strschema", "inputSchema": "x"}),
            json!({"name": "untyped", "inputSchema": {"properties": {}}}),
        ];
        let list = normalize_tools("s", &entries, false);
        let names: Vec<&str> = list
            .tools
            .iter()
            .map(|t| t.exported_name.as_str())
            .collect();
        assert_eq!(names, ["mcp__s__ok", "mcp__s__untyped"]);
        assert_eq!(list.tools[1].description.input_schema["type"], "object");
        let indexes: Vec<usize> = list.skipped.iter().map(|s| s.index).collect();
        assert_eq!(indexes, [0, 2, 3, 4]);
        assert!(list.skipped[0].to_string().contains("`s`, tool #0"));
    }

    #[test]
    fn root_ref_is_resolved() {
        let schema = normalize_schema(
            json!({"$ref": "#/$defs/In", "$defs": {"In": {"type": "object", "properties": {"a": {"type": "string"}}}}})
                .as_object()
                .unwrap()
                .clone(),
        );
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["a"]["type"], "string");
        assert!(schema.get("$ref").is_none());
    }

    #[test]
    fn collisions_get_order_independent_suffixes() {
        let a = json!({"name": "a.b", "inputSchema": {}});
        let b = json!({"name": "a_b", "inputSchema": {}});
        let c = json!({"name": "a b", "inputSchema": {}});
        let one = normalize_tools("s", &[a.clone(), b.clone(), c.clone()], false);
        let two = normalize_tools("s", &[c, b, a], false);
        let mut first: Vec<_> = one.tools.iter().map(|t| t.exported_name.clone()).collect();
        let mut second: Vec<_> = two.tools.iter().map(|t| t.exported_name.clone()).collect();
        first.sort();
        second.sort();
        assert_eq!(first, second);
        assert!(first.contains(&"mcp__s__a_b".to_owned()));
        assert_eq!(
            first.iter().collect::<std::collections::HashSet<_>>().len(),
            3
        );
        let plain = one.tools.iter().find(|t| t.exported_name == "mcp__s__a_b");
        assert_eq!(plain.map(|t| t.description.name.as_str()), Some("a_b"));
        assert!(first.iter().all(|name| name.len() <= 64));
    }

    #[test]
    fn annotations_take_spec_defaults() {
        let list = normalize_tools("s", &[json!({"name": "t", "inputSchema": {}})], false);
        let annotations = list.tools[0].description.annotations.clone().unwrap();
        assert_eq!(annotations.destructive_hint, Some(true));
        assert_eq!(annotations.open_world_hint, Some(true));
        assert_eq!(annotations.read_only_hint, Some(false));
    }

    #[test]
    fn a_repeated_name_is_skipped_and_the_first_kept() {
        let entries = [
            json!({"name": "t", "description": "first", "inputSchema": {}}),
            json!({"name": "t", "description": "second", "inputSchema": {}}),
        ];
        let list = normalize_tools("s", &entries, false);
        assert_eq!(list.tools.len(), 1);
        assert_eq!(
            list.tools[0].description.description.as_deref(),
            Some("first")
        );
        assert_eq!(list.skipped[0].index, 1);
        assert!(
            list.skipped[0].reason.contains("repeats tool #0"),
            "{}",
            list.skipped[0]
        );
    }

    #[test]
    fn without_prefix_raw_names_are_kept_or_the_entry_skipped() {
        let entries = [
            json!({"name": "ok_name", "inputSchema": {}}),
            json!({"name": "a.b", "inputSchema": {}}),
        ];
        let list = normalize_tools("s", &entries, true);
        assert_eq!(list.tools.len(), 1);
        assert_eq!(list.tools[0].exported_name, "ok_name");
        assert_eq!(list.skipped[0].index, 1);
        assert!(
            list.skipped[0].reason.contains("`name`"),
            "{}",
            list.skipped[0]
        );
    }
}
