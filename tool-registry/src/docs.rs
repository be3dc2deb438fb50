//! A documentation catalog per tool: one Markdown page and one JSON entry for every tool of a
//! pool, native `#[tool]`s and imported (JSON-defined, MCP) tools alike, built from what the
//! model is shown ([`DynTool::prompt`], [`DynTool::input_schema`]) and the tool's declared
//! facts ([`tool_sdk::ToolMeta`]).
//!
//! ```
//! use tool_registry::docs::ToolDoc;
//! use tool_registry::dynamic::{DynamicTool, ToolDefinition, ToolHandler};
//!
//! let definition: ToolDefinition = serde_json::from_value(serde_json::json!({
//!     "name": "Weather",
//!     "description": "Current weather for a city.",
//!     "input_schema": {"type": "object", "properties": {
//!         "city": {"type": "string", "description": "City name"},
//!         "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"}
//!     }, "required": ["city"]}
//! })).unwrap();
//! let tool = DynamicTool::from_definition(definition, ToolHandler::fixed_text("sunny")).unwrap();
//! let doc = ToolDoc::of(&tool);
//! let page = doc.to_markdown();
//! assert!(page.starts_with("# Weather\n"));
//! assert!(page.contains("| `city` | string | yes | - | City name |"));
//! assert!(page.contains("| `units` | `\"metric\"` \\| `\"imperial\"` | no | `\"metric\"` | - |"));
//! ```

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Value, json};
use tool_sdk::{DynTool, MaxResultSize};

/// One row of a tool's input table: a property of the input schema (nested properties of
/// objects and of array items get dotted paths such as `todos[].status`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputRow {
    /// The property's path from the input's root.
    pub name: String,
    /// Its type as a short text (`string`, `integer`, `array of object`, `"a" | "b"`).
    pub type_text: String,
    /// Whether its parent object requires it.
    pub required: bool,
    /// Its `default`, if the schema gives one.
    pub default: Option<Value>,
    /// Its `description`, if any.
    pub description: Option<String>,
    /// Bounds and formats (`minimum`, `maxLength`, ...) as `key: value` texts.
    pub constraints: Vec<String>,
}

/// Everything the catalog says about one tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDoc {
    /// The primary name.
    pub name: String,
    /// Other names it answers to.
    pub aliases: Vec<String>,
    /// The description the model is shown.
    pub description: String,
    /// The ToolSearch capability phrase, if any.
    pub search_hint: Option<String>,
    /// `built-in`, or `mcp:SERVER` for an MCP tool.
    pub kind: String,
    /// The declared flags: `read_only`, `concurrency_safe`, `destructive`, `open_world`,
    /// `idempotent`, each `yes`, `no`, `default` or `per-input`.
    pub flags: Vec<(String, String)>,
    /// The result-size limit in chars, `None` for unbounded.
    pub max_result_size_chars: Option<usize>,
    /// Loaded through ToolSearch only.
    pub should_defer: bool,
    /// Never deferred.
    pub always_load: bool,
    /// Strict schema adherence requested.
    pub strict: bool,
    /// The input table.
    pub inputs: Vec<InputRow>,
    /// The input schema as the model is shown it.
    pub input_schema: Value,
    /// An example input built from the schema: every required property, with its default,
    /// first enum value or a placeholder of its type.
    pub example_input: Value,
}

impl ToolDoc {
    /// The catalog entry of `tool`.
    pub fn of(tool: &dyn DynTool) -> Self {
        let meta = tool.meta();
        let schema = tool.input_schema().clone();
        let mut inputs = Vec::new();
        input_rows("", &schema, &mut inputs);
        let flags = [
            ("read_only", meta.read_only),
            ("concurrency_safe", meta.concurrency_safe),
            ("destructive", meta.destructive),
            ("open_world", meta.open_world),
            ("idempotent", meta.idempotent),
        ]
        .into_iter()
        .map(|(name, flag)| (name.to_owned(), flag.label().to_owned()))
        .collect();
        Self {
            name: meta.name.to_string(),
            aliases: meta.aliases.iter().map(ToString::to_string).collect(),
            description: tool.prompt().into_owned(),
            search_hint: meta.search_hint.as_ref().map(ToString::to_string),
            kind: meta.mcp_info.as_ref().map_or_else(
                || "built-in".to_owned(),
                |info| format!("mcp:{}", info.server_name),
            ),
            flags,
            max_result_size_chars: match meta.max_result_size_chars {
                MaxResultSize::Chars(chars) => Some(chars),
                MaxResultSize::Unbounded => None,
            },
            should_defer: meta.should_defer,
            always_load: meta.always_load,
            strict: meta.strict,
            example_input: example(&schema),
            input_schema: schema,
            inputs,
        }
    }

    /// The file name of the tool's page: its name with characters outside
    /// `[A-Za-z0-9_-]` replaced by `_`, plus `.md`.
    pub fn file_name(&self) -> String {
        let stem: String = self
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("{stem}.md")
    }

    /// The tool's Markdown page: description, inputs, flags, limits, aliases, search hint and
    /// an example `tool_use` input.
    pub fn to_markdown(&self) -> String {
        let mut page = format!(
            "# {}\n\n{}\n\n## Input\n\n",
            self.name,
            self.description.trim()
        );
        if self.inputs.is_empty() {
            page.push_str("This tool takes no parameters: the model sends `{}`.\n");
        } else {
            page.push_str("| Property | Type | Required | Default | Description |\n");
            page.push_str("|---|---|---|---|---|\n");
            for row in &self.inputs {
                let mut description = row.description.as_deref().map_or_else(String::new, cell);
                if !row.constraints.is_empty() {
                    if !description.is_empty() {
                        description.push_str("<br>");
                    }
                    let _ = write!(description, "({})", cell(&row.constraints.join(", ")));
                }
                let _ = writeln!(
                    page,
                    "| `{}` | {} | {} | {} | {} |",
                    row.name,
                    row.type_text.replace('|', "\\|"),
                    if row.required { "yes" } else { "no" },
                    row.default.as_ref().map_or_else(
                        || "-".to_owned(),
                        |value| format!("`{}`", cell(&value.to_string()))
                    ),
                    if description.is_empty() {
                        "-".to_owned()
                    } else {
                        description
                    },
                );
            }
        }
        page.push_str("\n## Facts\n\n| | |\n|---|---|\n");
        let _ = writeln!(page, "| Kind | {} |", self.kind);
        let aliases = if self.aliases.is_empty() {
            "-".to_owned()
        } else {
            self.aliases
                .iter()
                .map(|a| format!("`{a}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(page, "| Aliases | {aliases} |");
        for (flag, value) in &self.flags {
            let _ = writeln!(page, "| {flag} | {value} |");
        }
        let limit = self.max_result_size_chars.map_or_else(
            || "unbounded (never persisted)".to_owned(),
            |chars| format!("{chars} chars"),
        );
        let _ = writeln!(page, "| Max result size | {limit} |");
        let _ = writeln!(
            page,
            "| Deferred (ToolSearch only) | {} |",
            yes_no(self.should_defer)
        );
        let _ = writeln!(page, "| Always loaded | {} |", yes_no(self.always_load));
        let _ = writeln!(page, "| Strict schema | {} |", yes_no(self.strict));
        let hint = self
            .search_hint
            .as_deref()
            .map_or_else(|| "-".to_owned(), cell);
        let _ = writeln!(page, "| Search hint | {hint} |");
        let example = serde_json::to_string_pretty(&json!({
            "type": "tool_use",
            "id": "toolu_example",
            "name": self.name,
            "input": self.example_input,
        }))
        .unwrap_or_default();
        let _ = write!(
            page,
            "\n## Example\n\nA `tool_use` block with every required property (values from the \
             schema's defaults and enums, or placeholders):\n\n```json\n{example}\n```\n"
        );
        let schema = serde_json::to_string_pretty(&self.input_schema).unwrap_or_default();
        let _ = write!(page, "\n## Input schema\n\n```json\n{schema}\n```\n");
        page
    }
}

/// The catalog's `index.md`: one row per tool with a link to its page, its first sentence,
/// its kind and whether it is deferred.
pub fn index_markdown(docs: &[ToolDoc]) -> String {
    let mut page = format!(
        "# Tools\n\n{} tools in the pool, in pool order.\n\n| Tool | Kind | Deferred | Summary |\n|---|---|---|---|\n",
        docs.len()
    );
    for doc in docs {
        let summary = first_sentence(&doc.description);
        let _ = writeln!(
            page,
            "| [{}]({}) | {} | {} | {} |",
            doc.name,
            doc.file_name(),
            doc.kind,
            yes_no(doc.should_defer),
            cell(&summary)
        );
    }
    page
}

/// The catalog as JSON (`tools.json`): `{"tools": [ToolDoc, ...]}`.
pub fn catalog_json(docs: &[ToolDoc]) -> Value {
    json!({ "tools": docs })
}

fn yes_no(value: bool) -> &'static str {
    if value { "yes" } else { "no" }
}

/// `text` made safe for one Markdown table cell: pipes escaped, line breaks as `<br>`.
fn cell(text: &str) -> String {
    text.trim()
        .replace('|', "\\|")
        .replace("\r\n", "<br>")
        .replace('\n', "<br>")
}

/// The first sentence of the description's first paragraph (its lines joined; a leading
/// `- ` dropped; a later bullet ends the paragraph), for the index.
fn first_sentence(text: &str) -> String {
    let mut paragraph = String::new();
    for line in text.trim().lines().map(str::trim) {
        if line.is_empty() || (!paragraph.is_empty() && line.starts_with("- ")) {
            break;
        }
        if !paragraph.is_empty() {
            paragraph.push(' ');
        }
        paragraph.push_str(line.strip_prefix("- ").unwrap_or(line));
    }
    match paragraph.find(". ") {
        Some(end) => paragraph[..=end].to_owned(),
        None => paragraph,
    }
}

/// Appends the rows of `schema`'s properties (recursively) with `prefix` before their names.
fn input_rows(prefix: &str, schema: &Value, rows: &mut Vec<InputRow>) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for (name, property) in properties {
        let path = format!("{prefix}{name}");
        let constraints = [
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "minLength",
            "maxLength",
            "pattern",
            "format",
            "minItems",
            "maxItems",
        ]
        .iter()
        .filter_map(|key| property.get(*key).map(|value| format!("{key}: {value}")))
        .collect();
        rows.push(InputRow {
            name: path.clone(),
            type_text: type_text(property),
            required: required.contains(&name.as_str()),
            default: property.get("default").cloned(),
            description: property
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
            constraints,
        });
        input_rows(&format!("{path}."), property, rows);
        if let Some(items) = property.get("items") {
            input_rows(&format!("{path}[]."), items, rows);
        }
    }
}

/// A short type text for a property schema.
fn type_text(schema: &Value) -> String {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(|v| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(" | ");
    }
    if let Some(value) = schema.get("const") {
        return format!("`{value}`");
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            return options
                .iter()
                .map(type_text)
                .collect::<Vec<_>>()
                .join(" | ");
        }
    }
    match schema.get("type") {
        Some(Value::String(kind)) if kind == "array" => match schema.get("items") {
            Some(items) => format!("array of {}", type_text(items)),
            None => "array".to_owned(),
        },
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ => "any".to_owned(),
    }
}

/// An example value for `schema`: its default, first enum value, or a placeholder.
fn example(schema: &Value) -> Value {
    if let Some(default) = schema.get("default") {
        return default.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|v| v.first())
    {
        return first.clone();
    }
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(first) = schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|v| v.first())
        {
            return example(first);
        }
    }
    let kind = match schema.get("type") {
        Some(Value::Array(kinds)) => kinds.iter().find(|k| *k != "null").and_then(Value::as_str),
        Some(kind) => kind.as_str(),
        None => None,
    };
    match kind {
        Some("object") | None if schema.get("properties").is_some() => {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let mut object = serde_json::Map::new();
            if let Some(properties) = schema["properties"].as_object() {
                for (name, property) in properties {
                    if required.contains(&name.as_str()) {
                        object.insert(name.clone(), example(property));
                    }
                }
            }
            Value::Object(object)
        }
        Some("object") => json!({}),
        Some("array") => schema
            .get("items")
            .map_or_else(|| json!([]), |items| json!([example(items)])),
        Some("string") => json!("text"),
        Some("integer") => json!(
            schema
                .get("minimum")
                .and_then(Value::as_i64)
                .unwrap_or(1)
                .max(1)
        ),
        Some("number") => json!(1),
        Some("boolean") => json!(false),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamic::{DynamicTool, ToolDefinition, ToolHandler};

    fn tool(definition: Value) -> DynamicTool {
        let definition: ToolDefinition = serde_json::from_value(definition).unwrap();
        DynamicTool::from_definition(definition, ToolHandler::fixed_text("ok")).unwrap()
    }

    #[test]
    fn nested_properties_get_rows_and_the_example_has_every_required_one() {
        let todo = tool(json!({
            "name": "TodoWrite",
            "description": "Replaces the todo\nlist. More text.\n- a bullet",
            "input_schema": {"type": "object", "properties": {"todos": {"type": "array",
                "description": "The list",
                "items": {"type": "object", "properties": {
                    "content": {"type": "string", "minLength": 1},
                    "status": {"type": "string", "enum": ["pending", "completed"]}
                }, "required": ["content", "status"]}}}, "required": ["todos"]}
        }));
        let doc = ToolDoc::of(&todo);
        let names: Vec<&str> = doc.inputs.iter().map(|row| row.name.as_str()).collect();
        assert_eq!(names, ["todos", "todos[].content", "todos[].status"]);
        assert_eq!(doc.inputs[0].type_text, "array of object");
        assert_eq!(doc.inputs[1].constraints, ["minLength: 1"]);
        assert_eq!(
            doc.example_input,
            json!({"todos": [{"content": "text", "status": "pending"}]})
        );
        let page = doc.to_markdown();
        assert!(
            page.contains("| `todos[].status` | `\"pending\"` \\| `\"completed\"` | yes | - | - |"),
            "{page}"
        );
        assert!(
            page.contains("| Max result size | 100000 chars |"),
            "{page}"
        );
        let index = index_markdown(&[doc]);
        assert!(
            index.contains(
                "| [TodoWrite](TodoWrite.md) | built-in | no | Replaces the todo list. |"
            ),
            "{index}"
        );
    }

    #[test]
    fn a_tool_without_parameters_says_so() {
        let ping = tool(json!({"name": "Ping", "description": "Ping.",
                               "input_schema": {"type": "object", "properties": {}}}));
        let doc = ToolDoc::of(&ping);
        assert_eq!(doc.file_name(), "Ping.md");
        assert!(doc.to_markdown().contains("This tool takes no parameters"));
        assert_eq!(catalog_json(&[doc])["tools"][0]["name"], "Ping");
    }
}
