//! The captured form of one tool (SPEC §8.4): everything any export target needs, read from
//! the tool once, so later renders do not depend on the tool any more.

use std::borrow::Cow;
use std::sync::OnceLock;

use serde_json::Value;
use tool_sdk::callers::Callers;
use tool_sdk::{DeclaredFlag, DynTool};

use super::schema::{export_input_schema, mcp_input_object};
use super::strict::{SchemaError, strict_schema};

/// The four hints of an MCP `annotations` object, resolved fail-closed (SPEC §10).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolvedHints {
    /// `readOnlyHint`: true only when read-only is declared for every input.
    pub read_only: bool,
    /// `destructiveHint`: as declared; undeclared (or per-input) → `true` unless read-only.
    pub destructive: bool,
    /// `idempotentHint`: as declared; undeclared → `true` only for read-only tools.
    pub idempotent: bool,
    /// `openWorldHint`: as declared; undeclared → `true`.
    pub open_world: bool,
}

impl ResolvedHints {
    /// The hints of `tool`'s declared flags.
    pub fn of(tool: &dyn DynTool) -> Self {
        let meta = tool.meta();
        let read_only = meta.read_only.for_every_input();
        let or = |flag: DeclaredFlag, undeclared: bool| match flag {
            DeclaredFlag::Always => true,
            DeclaredFlag::Never => false,
            DeclaredFlag::Default | DeclaredFlag::PerInput => undeclared,
        };
        Self {
            read_only,
            destructive: or(meta.destructive, !read_only),
            idempotent: or(meta.idempotent, read_only),
            open_world: or(meta.open_world, true),
        }
    }
}

/// What is captured of one tool at its first render: everything every target needs.
#[derive(Debug)]
pub struct CachedTool {
    /// The exported name.
    pub name: String,
    /// The description sent (the tool's prompt).
    pub description: String,
    /// The input schema in export shape ([`export_input_schema`]).
    pub input_schema: Value,
    /// The input schema as MCP lists it, when that is not the export shape (a root
    /// `allOf`/`anyOf`/`oneOf` kept as given; `super::schema::mcp_input_object`).
    pub mcp_input_schema: Option<Value>,
    /// Whether the tool asked for strict schema adherence.
    pub strict: bool,
    /// The display title, if any.
    pub title: Option<String>,
    /// The MCP annotation hints.
    pub hints: ResolvedHints,
    /// The output schema, if the tool has one.
    pub output_schema: Option<Value>,
    /// The declared example inputs that parse as JSON objects, in order (text that does not is
    /// left out here and reported by [`ToolRegistry::check_examples`](crate::ToolRegistry::check_examples)).
    pub examples: Vec<Value>,
    /// Whether the tool asked for its examples in the description where an API has no slot
    /// for them ([`ToolMeta::examples_in_description`](tool_sdk::ToolMeta::examples_in_description)).
    pub examples_in_description: bool,
    /// Who may call the tool (programmatic tool calling), as declared.
    pub callers: Callers,
    strict_schema: OnceLock<Result<Value, SchemaError>>,
}

impl CachedTool {
    /// Captures `tool` now.
    pub fn capture(tool: &dyn DynTool) -> Self {
        Self {
            name: tool.name().to_owned(),
            description: tool.prompt().into_owned(),
            input_schema: export_input_schema(tool.input_schema()),
            mcp_input_schema: mcp_input_object(tool.input_schema()).map(Value::Object),
            strict: tool.meta().strict,
            title: tool.meta().title.as_deref().map(str::to_owned),
            hints: ResolvedHints::of(tool),
            output_schema: tool.output_schema().cloned(),
            examples: object_examples(tool),
            examples_in_description: tool.meta().examples_in_description,
            callers: tool.meta().callers,
            strict_schema: OnceLock::new(),
        }
    }

    /// The description for an API with no slot for example inputs (OpenAI Chat Completions
    /// and Responses, MCP, Gemini's `parametersJsonSchema` form): the description as it is,
    /// or, when the tool asks for it and has examples, the description followed by a blank
    /// line, `Example inputs:` and one compact JSON object per line.
    pub(crate) fn description_without_example_slot(&self) -> Cow<'_, str> {
        self.description_with_examples_after(0)
    }

    /// The description for an API whose slot took the first `slotted` examples (Gemini's
    /// subset `Schema` has one root `example`): as [`Self::description_without_example_slot`]
    /// with the examples from `slotted` on, the description alone when none is left.
    pub(crate) fn description_with_examples_after(&self, slotted: usize) -> Cow<'_, str> {
        with_examples(
            Cow::Borrowed(&self.description),
            self.examples_in_description,
            self.examples.get(slotted..).unwrap_or_default(),
        )
    }

    /// The input schema transformed for OpenAI strict mode, computed once.
    ///
    /// # Errors
    /// [`SchemaError`] when the schema has a map or a tuple.
    pub fn strict_input_schema(&self) -> Result<&Value, &SchemaError> {
        self.strict_schema
            .get_or_init(|| strict_schema(&self.name, &self.input_schema))
            .as_ref()
    }
}

/// [`CachedTool::description_without_example_slot`] for a tool not captured (MCP `tools/list`
/// as `tool-host serve` lists it builds each definition straight from the tool): the same
/// text `definitions --format mcp` writes.
#[cfg(feature = "mcp-server")]
pub(crate) fn description_without_example_slot(tool: &dyn DynTool) -> Cow<'_, str> {
    if !tool.meta().examples_in_description {
        return tool.prompt();
    }
    let examples = object_examples(tool);
    Cow::Owned(with_examples(tool.prompt(), true, &examples).into_owned())
}

/// `description`, or, when `asked` and there are `examples`, `description` followed by a
/// blank line, `Example inputs:` and one compact JSON object per line.
fn with_examples<'a>(description: Cow<'a, str>, asked: bool, examples: &[Value]) -> Cow<'a, str> {
    if !asked || examples.is_empty() {
        return description;
    }
    let mut text = description.trim_end().to_owned();
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str("Example inputs:");
    for example in examples {
        text.push('\n');
        text.push_str(&example.to_string());
    }
    Cow::Owned(text)
}

/// `tool`'s declared example inputs that parse as JSON objects, in order ([`CachedTool::examples`]).
pub(crate) fn object_examples(tool: &dyn DynTool) -> Vec<Value> {
    tool.meta()
        .examples
        .iter()
        .filter_map(|text| serde_json::from_str::<Value>(text).ok())
        .filter(Value::is_object)
        .collect()
}
