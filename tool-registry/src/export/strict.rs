//! OpenAI strict mode (structured outputs): every object closed and fully required, optional
//! properties made nullable; schemas that cannot be strict are refused, naming the field.

use serde_json::{Map, Value};

/// Why a tool's input schema cannot be written in the shape an API needs: OpenAI's (or
/// Anthropic's) strict mode, or Gemini's portable (OpenAPI-subset) schema. Names the tool and
/// the field; the message says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool `{tool}`: field `{field}` {}: {reason}; {}", self.kind.cannot(), self.kind.fix())]
pub struct SchemaError {
    /// The tool.
    pub tool: String,
    /// The field, as a path like `edits[].oldText`; `(root)` for the root.
    pub field: String,
    /// What the API's schema cannot express.
    pub reason: String,
    kind: SchemaErrorKind,
}

/// Which rewrite refused the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SchemaErrorKind {
    Strict,
    Portable,
}

impl SchemaErrorKind {
    fn cannot(self) -> &'static str {
        match self {
            Self::Strict => "cannot be strict",
            Self::Portable => "cannot be sent in Gemini's OpenAPI-subset `parameters`",
        }
    }

    fn fix(self) -> &'static str {
        match self {
            Self::Strict => "drop `strict` for this tool or change the field",
            Self::Portable => {
                "change the field, or send full JSON Schema in `parametersJsonSchema` (`--format gemini`, `ModelApi::Gemini`), which takes it whole"
            }
        }
    }
}

impl SchemaError {
    /// `true` when strict mode (OpenAI's, or a tool's own `strict`) refused the schema; `false`
    /// when Gemini's portable schema profile did.
    pub fn is_strict(&self) -> bool {
        self.kind == SchemaErrorKind::Strict
    }

    /// `field` of `tool` cannot be in strict mode, because of `reason`.
    pub(crate) fn strict(tool: &str, field: &str, reason: &str) -> Self {
        Self::new(tool, field, reason, SchemaErrorKind::Strict)
    }

    /// `field` of `tool` cannot be made portable for Gemini, because of `reason`.
    pub(crate) fn portable(tool: &str, field: &str, reason: &str) -> Self {
        Self::new(tool, field, reason, SchemaErrorKind::Portable)
    }

    fn new(tool: &str, field: &str, reason: &str, kind: SchemaErrorKind) -> Self {
        Self {
            tool: tool.to_owned(),
            field: field.to_owned(),
            reason: reason.to_owned(),
            kind,
        }
    }
}

/// What to do with a tool whose schema cannot be strict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StrictPolicy {
    /// Fail the whole render with [`SchemaError`].
    #[default]
    Error,
    /// Send that tool with `"strict": false` and its schema unchanged, and log a warning
    /// through `tracing`.
    DropStrict,
}

/// `schema` (already in export shape) transformed for OpenAI strict mode:
///
/// - every object schema gets `"additionalProperties": false` and lists every property in
///   `required`;
/// - a property that was not required becomes nullable: `"type":"T"` → `["T","null"]`, an
///   `enum` gains `null`, an `anyOf` gains `{"type":"null"}`, any other schema is wrapped as
///   `{"anyOf":[schema,{"type":"null"}]}`;
/// - nested `properties`, `items`, `anyOf`/`oneOf`/`allOf`, `$defs`/`definitions` are
///   transformed too.
///
/// # Errors
/// [`SchemaError`] naming the field for maps (`additionalProperties` that is a schema or
/// `true`, `patternProperties`, or an object with no `properties`) and tuples (`prefixItems`,
/// or `items` given as an array).
pub fn strict_schema(tool: &str, schema: &Value) -> Result<Value, SchemaError> {
    let mut schema = schema.clone();
    make_strict(tool, &mut schema, "", true)?;
    Ok(schema)
}

/// A field path as error messages name it: `(root)` for the root.
pub(crate) fn field_name(path: &str) -> String {
    if path.is_empty() {
        "(root)".to_owned()
    } else {
        path.to_owned()
    }
}

/// The path of property `name` under `path` (`a.b`).
pub(crate) fn child(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

fn is_object_schema(map: &Map<String, Value>) -> bool {
    match map.get("type") {
        Some(Value::String(kind)) => kind == "object",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "object"),
        _ => map.contains_key("properties"),
    }
}

fn make_strict(tool: &str, schema: &mut Value, path: &str, root: bool) -> Result<(), SchemaError> {
    let Value::Object(map) = schema else {
        return Ok(());
    };
    let fail = |reason: &str| SchemaError::strict(tool, &field_name(path), reason);
    if map.contains_key("prefixItems") || matches!(map.get("items"), Some(Value::Array(_))) {
        return Err(fail("it is a tuple (fixed-position array items)"));
    }
    if map.contains_key("patternProperties") {
        return Err(fail("it is a map (`patternProperties`)"));
    }
    if is_object_schema(map) {
        match map.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => return Err(fail("it is a map (`additionalProperties` allows any key)")),
        }
        if !root && !map.contains_key("properties") {
            return Err(fail("it is a free-form object (no `properties`)"));
        }
        strict_object(tool, map, path)?;
    }
    if let Some(items) = map.get_mut("items") {
        make_strict(tool, items, &format!("{path}[]"), false)?;
    }
    for keyword in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = map.get_mut(keyword) {
            for branch in branches {
                make_strict(tool, branch, path, false)?;
            }
        }
    }
    for keyword in ["$defs", "definitions"] {
        if let Some(Value::Object(definitions)) = map.get_mut(keyword) {
            for (name, definition) in definitions.iter_mut() {
                make_strict(tool, definition, &format!("{keyword}.{name}"), false)?;
            }
        }
    }
    Ok(())
}

fn strict_object(tool: &str, map: &mut Map<String, Value>, path: &str) -> Result<(), SchemaError> {
    let required = tool_sdk::schema::required_names(map);
    let mut all = Vec::new();
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            make_strict(tool, property, &child(path, name), false)?;
            if !required.contains(name) {
                make_nullable(property);
            }
            all.push(Value::String(name.clone()));
        }
    } else {
        map.insert("properties".to_owned(), Value::Object(Map::new()));
    }
    map.insert("required".to_owned(), Value::Array(all));
    map.insert("additionalProperties".to_owned(), Value::Bool(false));
    Ok(())
}

fn make_nullable(schema: &mut Value) {
    let null = Value::String("null".to_owned());
    if let Value::Object(map) = schema {
        let has_type = map.contains_key("type");
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            if !values.contains(&Value::Null) {
                values.push(Value::Null);
            }
            if !has_type {
                return;
            }
        }
        match map.get_mut("type") {
            Some(Value::String(kind)) => {
                if kind != "null" {
                    let kind = Value::String(kind.clone());
                    map.insert("type".to_owned(), Value::Array(vec![kind, null]));
                }
                return;
            }
            Some(Value::Array(kinds)) => {
                if !kinds.contains(&null) {
                    kinds.push(null);
                }
                return;
            }
            _ => {}
        }
        if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
            if !branches
                .iter()
                .any(|branch| branch.get("type") == Some(&null))
            {
                branches.push(serde_json::json!({"type": "null"}));
            }
            return;
        }
    }
    let original = std::mem::take(schema);
    *schema = serde_json::json!({"anyOf": [original, {"type": "null"}]});
}
