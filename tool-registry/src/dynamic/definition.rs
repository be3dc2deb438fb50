//! [`DynamicTool`]: a tool defined at run time by a JSON definition and a host handler.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;
use tool_sdk::callers::Callers;
use tool_sdk::tool::TaskSupport;
use tool_sdk::{
    DeclaredFlag, DefinitionSite, DynTool, InputError, MaxResultSize, PermissionResult, ToolCall,
    ToolMeta,
};

use super::call::{CallFacts, JsonCall, ToolHandler};
use crate::mcp_names::{MAX_TOOL_NAME_CHARS, MCP_PREFIX};
use tool_sdk::input::InputValidator;

/// `callers` as a list of names; a string or another value is refused naming the field and
/// the fix (serde alone would say "invalid type: string, expected a sequence").
fn callers_list<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<String>>, D::Error> {
    use serde::de::Error as _;
    match Value::deserialize(deserializer)? {
        Value::Null => Ok(None),
        Value::String(name) => Err(D::Error::custom(format!(
            "`callers` must be a list, not a string: write `\"callers\": [\"{name}\"]`"
        ))),
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::String(name) => Ok(name),
                other => Err(D::Error::custom(format!(
                    "`callers` lists names (\"direct\", \"programmatic\"), not {other}"
                ))),
            })
            .collect::<Result<_, _>>()
            .map(Some),
        other => Err(D::Error::custom(format!(
            "`callers` must be a list such as `[\"direct\", \"programmatic\"]`, not {other}"
        ))),
    }
}

/// The MCP-style hints of a tool (MCP `ToolAnnotations`); each absent hint is undeclared.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A display name.
    #[serde(default)]
    pub title: Option<String>,
    /// The tool does not change its environment.
    #[serde(default)]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy data.
    #[serde(default)]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same input has no further effect.
    #[serde(default)]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches outside the local machine.
    #[serde(default)]
    pub open_world_hint: Option<bool>,
}

/// A tool definition as JSON, for [`DynamicTool::from_definition`].
///
/// ```json
/// {"name": "Weather", "description": "Current weather for a city.",
///  "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
///  "read_only": true, "concurrency_safe": true, "search_hint": "look up the current weather"}
/// ```
///
/// `input_schema` may also be spelled `inputSchema`. Explicit flags (`read_only`, ...) win over
/// `annotations`; from annotations, `concurrency_safe` follows `readOnlyHint` as for MCP tools
/// (SPEC §10). Unknown keys are refused.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolDefinition {
    /// The primary name, `^[A-Za-z0-9_-]{1,64}$`, not starting with `mcp__`.
    pub name: String,
    /// The description sent to the API.
    pub description: String,
    /// The input JSON Schema; its root must be `{"type":"object",...}`.
    #[serde(alias = "inputSchema")]
    pub input_schema: Value,
    /// A display name (exported as the MCP `title`).
    #[serde(default)]
    pub title: Option<String>,
    /// Other names the tool answers to.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// A 3–10 word capability phrase for ToolSearch.
    #[serde(default)]
    pub search_hint: Option<String>,
    /// The tool only reads.
    #[serde(default)]
    pub read_only: Option<bool>,
    /// Calls may run in parallel with other concurrency-safe calls.
    #[serde(default)]
    pub concurrency_safe: Option<bool>,
    /// The tool may destroy data.
    #[serde(default)]
    pub destructive: Option<bool>,
    /// The tool reaches outside the local machine.
    #[serde(default)]
    pub open_world: Option<bool>,
    /// Repeating a call has no further effect.
    #[serde(default)]
    pub idempotent: Option<bool>,
    /// Whether a call may run as a task when served over MCP (`"optional"`, `"required"`;
    /// default `"forbidden"`), as `#[tool(task = ...)]` says for a Rust tool.
    #[serde(default)]
    pub task: TaskSupport,
    /// The OAuth scopes a call needs when served by a server that checks access tokens
    /// (`["files:write"]`), as `#[tool(scopes = ...)]` says for a Rust tool.
    #[serde(default)]
    pub scopes: Vec<String>,
    /// Who may call the tool (programmatic tool calling): `["direct"]` (the default: the
    /// model only), `["programmatic"]` (only code the model runs in the provider's sandbox)
    /// or both, as `#[tool(callers = ...)]` says for a Rust tool (`tool_sdk::callers`). A
    /// single string (`"programmatic"`) is refused with the fix: write a list.
    #[serde(default, deserialize_with = "callers_list")]
    pub callers: Option<Vec<String>>,
    /// MCP-style hints, used for flags not given explicitly.
    #[serde(default)]
    pub annotations: Option<ToolAnnotations>,
    /// Load through ToolSearch only.
    #[serde(default)]
    pub should_defer: bool,
    /// Never defer.
    #[serde(default)]
    pub always_load: bool,
    /// Ask providers for strict schema adherence.
    #[serde(default)]
    pub strict: bool,
    /// The opt-in coercion mode for this tool's input (`tool_sdk::input::coerce`); default off.
    #[serde(default)]
    pub coerce_input: bool,
    /// Example inputs, each a JSON object (Anthropic's `input_examples` name): exported where
    /// an API has a slot for them, as `#[tool(example = ...)]` says for a Rust tool.
    #[serde(default)]
    pub input_examples: Vec<Value>,
    /// Also append `input_examples` to the description sent to APIs with no slot for them,
    /// as `#[tool(examples_in_description)]` says for a Rust tool; default off.
    #[serde(default)]
    pub examples_in_description: bool,
    /// The result-size limit in chars; default 100,000; `null` is unbounded.
    #[serde(default = "default_max_result")]
    pub max_result_size_chars: Option<usize>,
}

fn default_max_result() -> Option<usize> {
    Some(100_000)
}

/// Why a definition cannot become a tool. Each message names the tool and the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefinitionError {
    /// The JSON does not have the shape of a [`ToolDefinition`].
    #[error("tool definition {position}: {message}")]
    Shape {
        /// Where the definition is (`#3`, or the tool's name when known).
        position: String,
        /// The parser's message (names the field).
        message: String,
    },
    /// A field has a value the tool cannot have.
    #[error("tool `{name}`: `{field}` {problem}")]
    Field {
        /// The tool.
        name: String,
        /// The field.
        field: &'static str,
        /// What is wrong and how to fix it.
        problem: String,
    },
}

/// Checks the name rule of SPEC §1.1 / DESIGN: `^[A-Za-z0-9_-]{1,64}$`.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.chars().count() > MAX_TOOL_NAME_CHARS {
        return Err(format!(
            "must be 1 to {MAX_TOOL_NAME_CHARS} chars long, is {}",
            name.chars().count()
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(format!(
            "may only contain A-Z, a-z, 0-9, `_` and `-`; found {bad:?}"
        ));
    }
    Ok(())
}

pub(crate) fn declared(value: Option<bool>) -> DeclaredFlag {
    match value {
        Some(true) => DeclaredFlag::Always,
        Some(false) => DeclaredFlag::Never,
        None => DeclaredFlag::Default,
    }
}

/// The one type of tool that exists only at run time: facts and schema from a
/// [`ToolDefinition`] ([`DynamicTool::from_definition`]) or from an MCP server's `tools/list`
/// ([`super::mcp_tools_from_list`], and the live import of `tool_registry::mcp`), calls run
/// by a host [`ToolHandler`]. Inputs are checked against the JSON Schema before the handler
/// sees them ([`InputValidator`], under the input policy).
///
/// ```
/// use tool_registry::dynamic::{DynamicTool, ToolHandler};
/// use tool_sdk::DynTool;
/// let tool = DynamicTool::from_json(
///     &serde_json::json!({
///         "name": "Weather", "description": "Current weather for a city.",
///         "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
///         "read_only": true
///     }),
///     ToolHandler::fixed_text("sunny"),
/// ).unwrap();
/// assert!(tool.has_json_schema());
/// let error = tool.parse_input(&serde_json::json!({})).err().unwrap();
/// assert_eq!(error.to_string(), "Required parameter `city` is missing");
/// ```
#[derive(Debug)]
pub struct DynamicTool {
    pub(super) meta: ToolMeta,
    pub(super) prompt: String,
    pub(super) output_schema: Option<Value>,
    pub(super) validator: InputValidator,
    pub(super) facts: Arc<CallFacts>,
    pub(super) handler: ToolHandler,
}

impl DynamicTool {
    /// A tool from a parsed definition.
    ///
    /// # Errors
    /// [`DefinitionError::Field`] for a bad name or alias, an `mcp__` name, a schema whose root
    /// is not an object schema or that does not compile, a `max_result_size_chars` of 0, a
    /// `scopes` entry that is not one OAuth scope, a `callers` list that is empty or has an
    /// unknown or repeated name, or an `input_examples` entry that is not an object or that the
    /// tool's own input checks refuse (the check of
    /// [`ToolRegistry::check_examples`](crate::ToolRegistry::check_examples)).
    pub fn from_definition(
        definition: ToolDefinition,
        handler: ToolHandler,
    ) -> Result<Self, DefinitionError> {
        let name = definition.name.clone();
        let field_error = |field: &'static str, problem: String| DefinitionError::Field {
            name: name.clone(),
            field,
            problem,
        };
        check_name(&definition.name).map_err(|problem| field_error("name", problem))?;
        if definition.name.starts_with(MCP_PREFIX) {
            return Err(field_error(
                "name",
                "may not start with `mcp__`, which marks MCP tools; load those with --mcp-tools-json".to_owned(),
            ));
        }
        for alias in &definition.aliases {
            check_name(alias)
                .map_err(|problem| field_error("aliases", format!("entry `{alias}` {problem}")))?;
        }
        for scope in &definition.scopes {
            if scope.is_empty()
                || !scope
                    .chars()
                    .all(|c| c.is_ascii_graphic() && c != '"' && c != '\\' && c != ',')
            {
                return Err(field_error(
                    "scopes",
                    format!(
                        "entry `{scope}` is not one OAuth scope: write each scope as its own \
                         entry, `[\"files:read\", \"files:write\"]`"
                    ),
                ));
            }
        }
        if let Some(index) = definition
            .input_examples
            .iter()
            .position(|e| !e.is_object())
        {
            return Err(field_error(
                "input_examples",
                format!(
                    "entry {index} is not a JSON object; each example is a whole input, `{{\"city\": \"Paris\"}}`"
                ),
            ));
        }
        if definition.examples_in_description && definition.input_examples.is_empty() {
            return Err(field_error(
                "examples_in_description",
                "has no `input_examples` to append; add some or drop the key".to_owned(),
            ));
        }
        let callers = match &definition.callers {
            None => Callers::Direct,
            Some(names) => Callers::from_names(names.iter().map(String::as_str))
                .map_err(|problem| field_error("callers", problem))?,
        };
        if definition.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(field_error(
                "input_schema",
                "must be an object schema: `{\"type\":\"object\",\"properties\":{...}}`".to_owned(),
            ));
        }
        let compiled =
            InputValidator::compile(&definition.input_schema, false).map_err(|problem| {
                field_error(
                    "input_schema",
                    format!("is not a usable JSON Schema: {problem}"),
                )
            })?;
        let max_result_size_chars = match definition.max_result_size_chars {
            Some(0) => {
                return Err(field_error(
                    "max_result_size_chars",
                    "must be at least 1 (or null for unbounded)".to_owned(),
                ));
            }
            Some(chars) => MaxResultSize::Chars(chars),
            None => MaxResultSize::Unbounded,
        };
        let annotations = definition.annotations.clone().unwrap_or_default();
        let read_only = definition.read_only.or(annotations.read_only_hint);
        let concurrency_safe = definition.concurrency_safe.or(annotations.read_only_hint);
        let destructive = definition.destructive.or(annotations.destructive_hint);
        let open_world = definition.open_world.or(annotations.open_world_hint);
        let idempotent = definition.idempotent.or(annotations.idempotent_hint);
        let mut meta = ToolMeta::new(definition.name.clone(), max_result_size_chars);
        meta.aliases = definition.aliases.iter().cloned().map(Cow::Owned).collect();
        meta.search_hint = definition.search_hint.clone().map(Cow::Owned);
        meta.should_defer = definition.should_defer;
        meta.always_load = definition.always_load;
        meta.strict = definition.strict;
        meta.coerce_input = definition.coerce_input;
        meta.examples = definition
            .input_examples
            .iter()
            .map(|example| Cow::Owned(example.to_string()))
            .collect();
        meta.examples_in_description = definition.examples_in_description;
        meta.read_only = declared(read_only);
        meta.concurrency_safe = declared(concurrency_safe);
        meta.destructive = declared(destructive);
        meta.open_world = declared(open_world);
        meta.idempotent = declared(idempotent);
        meta.task = definition.task;
        meta.callers = callers;
        meta.scopes = definition.scopes.iter().cloned().map(Cow::Owned).collect();
        meta.title = definition
            .title
            .clone()
            .or(annotations.title)
            .map(Cow::Owned);
        let facts = CallFacts {
            read_only: read_only.unwrap_or(false),
            concurrency_safe: concurrency_safe.unwrap_or(false),
            destructive: destructive.unwrap_or(false),
            open_world: open_world.unwrap_or(true),
            user_facing_name: Arc::from(definition.name.as_str()),
            description: Arc::from(definition.description.as_str()),
            permission: PermissionResult::allow(),
        };
        let tool = Self {
            meta,
            prompt: definition.description,
            output_schema: None,
            validator: if definition.coerce_input {
                InputValidator::imported_compiled(definition.input_schema, compiled).with_coercion()
            } else {
                InputValidator::imported_compiled(definition.input_schema, compiled)
            },
            facts: Arc::new(facts),
            handler,
        };
        // An example teaches the model an input, so it must be one the tool accepts: the
        // check `ToolRegistry::check_examples` runs (`DynTool::parse_input`), here at load
        // time (the entries are already known to be JSON objects).
        for (index, example) in definition.input_examples.iter().enumerate() {
            if let Err(error) = tool.parse_input(example) {
                return Err(field_error(
                    "input_examples",
                    format!(
                        "entry {index} (`input_examples[{index}]`) is refused by the tool's own `input_schema`: {error}; fix the example or the schema"
                    ),
                ));
            }
        }
        Ok(tool)
    }

    /// A tool from a JSON definition (see [`ToolDefinition`]).
    ///
    /// # Errors
    /// [`DefinitionError::Shape`] naming the field when the JSON is not a definition, else as
    /// [`DynamicTool::from_definition`].
    pub fn from_json(definition: &Value, handler: ToolHandler) -> Result<Self, DefinitionError> {
        let position = definition
            .get("name")
            .and_then(Value::as_str)
            .map_or_else(|| "(no name)".to_owned(), |name| format!("`{name}`"));
        let parsed =
            ToolDefinition::deserialize(definition).map_err(|error| DefinitionError::Shape {
                position,
                message: error.to_string(),
            })?;
        Self::from_definition(parsed, handler)
    }

    /// Tools from a JSON array of definitions, all answered by clones of `handler`.
    ///
    /// # Errors
    /// The first bad definition, named by its position (`#0`, `#1`, ...) when it has no name.
    pub fn many_from_json(
        definitions: &Value,
        handler: &ToolHandler,
    ) -> Result<Vec<Arc<dyn DynTool>>, DefinitionError> {
        let Some(items) = definitions.as_array() else {
            return Err(DefinitionError::Shape {
                position: "list".to_owned(),
                message: "expected a JSON array of tool definitions".to_owned(),
            });
        };
        items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                Self::from_json(item, handler.clone())
                    .map(|tool| Arc::new(tool) as Arc<dyn DynTool>)
                    .map_err(|error| match error {
                        DefinitionError::Shape { position, message } if position == "(no name)" => {
                            DefinitionError::Shape {
                                position: format!("#{index}"),
                                message,
                            }
                        }
                        other => other,
                    })
            })
            .collect()
    }
}

impl DynTool for DynamicTool {
    fn is_enabled(&self) -> bool {
        true
    }

    /// Its schema belongs to this instance.
    fn shared_input_schema(&self) -> Option<&'static Value> {
        None
    }

    /// Made at run time: no source site.
    fn definition_site(&self) -> Option<DefinitionSite> {
        None
    }

    fn meta(&self) -> &ToolMeta {
        &self.meta
    }

    fn prompt(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.prompt)
    }

    fn input_schema(&self) -> &Value {
        self.validator.schema()
    }

    fn output_schema(&self) -> Option<&Value> {
        self.output_schema.as_ref()
    }

    fn has_json_schema(&self) -> bool {
        true
    }

    fn parse_input(&self, input: &Value) -> Result<Box<dyn ToolCall>, InputError> {
        let input = self.validator.validate(input.clone())?;
        Ok(Box::new(JsonCall {
            input,
            facts: Arc::clone(&self.facts),
            handler: self.handler.clone(),
        }))
    }
}
