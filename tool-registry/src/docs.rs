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

mod schema;
#[cfg(test)]
mod tests;

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Value, json};
use tool_sdk::{DynTool, MaxResultSize};

use schema::{example, input_rows, resolve_local_refs};

use crate::search::{DeferralRules, is_deferred_tool};

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
    /// Loaded through ToolSearch only, as the pool decides it
    /// ([`DeferralRules::is_deferred`] with the default rules).
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
    /// The tool's declared example inputs ([`tool_sdk::ToolMeta::examples`]) that parse as
    /// JSON objects; when any, the page shows these instead of [`Self::example_input`].
    pub examples: Vec<Value>,
}

impl ToolDoc {
    /// The catalog entry of `tool`.
    pub fn of(tool: &dyn DynTool) -> Self {
        let meta = tool.meta();
        let schema = tool.input_schema().clone();
        let resolved = resolve_local_refs(&schema);
        let mut inputs = Vec::new();
        input_rows("", &resolved, &mut inputs);
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
            should_defer: is_deferred_tool(tool, &DeferralRules::default()),
            always_load: meta.always_load,
            strict: meta.strict,
            example_input: example(&resolved),
            examples: meta
                .examples
                .iter()
                .filter_map(|text| serde_json::from_str::<Value>(text).ok())
                .filter(Value::is_object)
                .collect(),
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

    /// `{"type": "tool_use", "id": "toolu_example", "name", "input"}`, pretty-printed.
    fn tool_use_json(&self, input: &Value) -> String {
        serde_json::to_string_pretty(&json!({
            "type": "tool_use",
            "id": "toolu_example",
            "name": self.name,
            "input": input,
        }))
        .unwrap_or_default()
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
                    cell(&row.name),
                    cell(&row.type_text),
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
        if self.examples.is_empty() {
            let example = self.tool_use_json(&self.example_input);
            let _ = write!(
                page,
                "\n## Example\n\nA `tool_use` block with every required property (values from the \
                 schema's defaults and enums, or placeholders):\n\n```json\n{example}\n```\n"
            );
        } else {
            let _ = write!(
                page,
                "\n## Examples\n\n`tool_use` blocks with the tool's declared example inputs \
                 (also sent to the model as Anthropic `input_examples`):\n"
            );
            for input in &self.examples {
                let example = self.tool_use_json(input);
                let _ = write!(page, "\n```json\n{example}\n```\n");
            }
        }
        let schema = serde_json::to_string_pretty(&self.input_schema).unwrap_or_default();
        let _ = write!(page, "\n## Input schema\n\n```json\n{schema}\n```\n");
        page
    }
}

impl ToolDoc {
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
