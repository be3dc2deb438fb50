//! The portable schema profile: an input schema rewritten into the OpenAPI 3.0 subset that
//! Gemini function declarations accept.
//!
//! Gemini's `Schema` object (<https://ai.google.dev/api/caching#Schema>, and Vertex AI's
//! <https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration>) is a
//! "select subset" of OpenAPI 3.0: one `type` per schema (`nullable` instead of a `null`
//! type), string-only `enum`, a few `format`s, `anyOf` but no `$ref`, `oneOf`, `allOf`,
//! `const`, `additionalProperties` or tuples. [`super::check`] checks the same rules offline.

use crate::export::SchemaError;
use crate::export::strict::{child, field_name};
use serde_json::{Map, Value};

mod combine;

/// The keys a Gemini `Schema` object may carry.
pub(crate) const GEMINI_SCHEMA_KEYS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// The types a Gemini `Schema` may name (OpenAPI 3.0 has no `null` type).
pub(crate) const GEMINI_TYPES: &[&str] =
    &["string", "number", "integer", "boolean", "array", "object"];

/// The `format`s Gemini accepts, by type: `enum` and `date-time` for strings, `int32` and
/// `int64` for integers, `float` and `double` for numbers. Others are dropped.
pub(crate) fn is_gemini_format(kind: &str, format: &str) -> bool {
    matches!(
        (kind, format),
        ("string", "enum" | "date-time")
            | ("integer", "int32" | "int64")
            | ("number", "float" | "double")
    )
}

/// `schema` (an input schema in export shape) rewritten for Gemini:
///
/// - `$ref`s into `$defs` / `definitions` are inlined and those keys removed; a type that
///   refers to itself is an error naming it (Gemini has no references, and no depth cut
///   would keep every value the tool accepts);
/// - a `type` array becomes one type plus `"nullable": true` when the other is `null`, or an
///   `anyOf` of one branch per type;
/// - `anyOf`/`oneOf` lose their `null` branch (→ `nullable`); one branch left is merged into
///   the field; only-string-constant branches (schemars' documented unit enums) merge into one
///   string `enum`; `allOf` branches are merged;
/// - `const` becomes a one-value `enum`; an `enum` keeps every value and must hold only strings
///   (plus `null` → `nullable`), except that an `enum` of numbers only on an integer or number
///   (or untyped) field keeps the type, loses the `enum` and gets `Allowed values: 1, 2, 3.`
///   appended to its description (the subset's `enum` holds strings; the tool's own schema,
///   which the orchestrator checks calls against, still holds the values);
/// - a field without `type` gets the one its keywords imply (`properties` → object, `items`
///   → array, string `enum` → string);
/// - `exclusiveMinimum`/`exclusiveMaximum` become `minimum`/`maximum` (for integers moved by
///   one, so the same values pass; for numbers the bound itself becomes allowed);
/// - `examples` becomes `example` (the first); `format`s Gemini does not know are dropped;
/// - every other key (`additionalProperties`, `patternProperties`, `$schema`, `$id`,
///   `deprecated`, `readOnly`, `uniqueItems`, `multipleOf`, ...) is dropped;
/// - `required` keeps only names listed in `properties`.
///
/// # Errors
/// [`SchemaError`] naming `tool` and the field for: a recursive type, a `$ref` that
/// does not resolve, a boolean schema or one with no inferable type (any value), an `enum` or
/// `const` with a value that is not a string (a boolean, or a number beside other kinds; an
/// all-number `enum` on a number type is described instead), an empty `enum`, a `const: null`
/// field, a tuple (`prefixItems` or an
/// `items` array), a field whose only type is `null`, a `not`, and `allOf` branches that are
/// not all objects.
pub fn portable_schema(tool: &str, schema: &Value) -> Result<Value, SchemaError> {
    let mut converter = Converter {
        tool,
        root: schema,
        // The root is being converted: a `$ref` to `#` is a recursion.
        inlining: vec!["#".to_owned()],
        converted: 0,
    };
    converter.convert(schema, "").map(Value::Object)
}

struct Converter<'a> {
    tool: &'a str,
    root: &'a Value,
    inlining: Vec<String>,
    /// Sub-schemas converted so far, `$ref` targets counted once per use.
    converted: usize,
}

/// The most sub-schemas one exported schema may hold once its `$ref`s are inlined. Inlining
/// copies a definition at every use, so a chain of definitions each using the next twice
/// doubles at every level; past this size the export fails naming the field where the limit
/// was reached, rather than send a schema Gemini would refuse as too large.
pub const MAX_INLINED_SCHEMAS: usize = 10_000;

/// Keywords that belong to one type, for splitting a `type` array into branches.
fn keyword_type(key: &str) -> Option<&'static str> {
    match key {
        "properties"
        | "required"
        | "minProperties"
        | "maxProperties"
        | "propertyOrdering"
        | "additionalProperties"
        | "patternProperties" => Some("object"),
        "items" | "minItems" | "maxItems" | "prefixItems" => Some("array"),
        "minLength" | "maxLength" | "pattern" => Some("string"),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            Some("number")
        }
        _ => None,
    }
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
        || schema.get("const") == Some(&Value::Null)
        || schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().all(Value::is_null) && !values.is_empty())
}

/// The single string constant of a branch (`{"const":"a"}` or `{"enum":["a"]}`), if it is one.
fn string_constant(schema: &Map<String, Value>) -> Option<&str> {
    match (schema.get("const"), schema.get("enum")) {
        (Some(Value::String(value)), _) => Some(value),
        (None, Some(Value::Array(values))) if values.len() == 1 => values[0].as_str(),
        _ => None,
    }
}

impl Converter<'_> {
    fn fail(&self, path: &str, reason: impl AsRef<str>) -> SchemaError {
        SchemaError::portable(self.tool, &field_name(path), reason.as_ref())
    }

    fn convert(&mut self, schema: &Value, path: &str) -> Result<Map<String, Value>, SchemaError> {
        self.converted += 1;
        if self.converted > MAX_INLINED_SCHEMAS {
            return Err(self.fail(
                path,
                format!(
                    "the schema holds more than {MAX_INLINED_SCHEMAS} sub-schemas once its `$ref`s are inlined; give the repeated type fewer uses"
                ),
            ));
        }
        let out = self.convert_shape(schema, path)?;
        self.settle(out, path)
    }

    /// Checks a converted schema's own keywords against Gemini's rules, whichever way it was
    /// built (annotations next to a `$ref` or union included): an `enum` only of strings on a
    /// string, an array with `items`, `properties` only on an object; a `default` whose value
    /// does not have the schema's type is dropped (it is a hint, not a constraint).
    fn settle(
        &self,
        mut out: Map<String, Value>,
        path: &str,
    ) -> Result<Map<String, Value>, SchemaError> {
        let kind = out.get("type").and_then(Value::as_str).map(str::to_owned);
        if matches!(kind.as_deref(), Some("integer" | "number")) && numeric_enum(&out).is_some() {
            describe_numeric_enum(&mut out);
        }
        if let Some(values) = out.get("enum") {
            let strings = values
                .as_array()
                .is_some_and(|v| !v.is_empty() && v.iter().all(Value::is_string));
            if !strings || kind.as_deref() != Some("string") {
                return Err(self.fail(
                    path,
                    format!(
                        "its `enum` {values} is not a non-empty list of strings on a string, and Gemini enums hold strings only"
                    ),
                ));
            }
        }
        if kind.as_deref() == Some("array") && !out.contains_key("items") {
            return Err(self.fail(
                path,
                "it is an array with no `items`; give its items a type",
            ));
        }
        if out.contains_key("properties") && kind.as_deref() != Some("object") {
            return Err(self.fail(
                path,
                "it has `properties` but is not an object; make it an object or drop the properties",
            ));
        }
        if let (Some(default), Some(kind)) = (out.get("default"), kind.as_deref()) {
            let fits = match kind {
                "string" => default.is_string(),
                "integer" => default.is_i64() || default.is_u64(),
                "number" => default.is_number(),
                "boolean" => default.is_boolean(),
                "array" => default.is_array(),
                "object" => default.is_object(),
                _ => false,
            };
            if !fits {
                out.shift_remove("default");
            }
        }
        Ok(out)
    }

    fn convert_shape(
        &mut self,
        schema: &Value,
        path: &str,
    ) -> Result<Map<String, Value>, SchemaError> {
        let map = match schema {
            Value::Object(map) => map,
            Value::Bool(_) => {
                return Err(self.fail(
                    path,
                    "it is a boolean schema (any value, or none); give it a type",
                ));
            }
            _ => return Err(self.fail(path, "its schema is not an object")),
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            return self.inline(map, reference, path);
        }
        let mut map = self.merge_all_of(map.clone(), path)?;
        if map.contains_key("not") {
            return Err(self.fail(path, "it uses `not`, which Gemini cannot express"));
        }
        if map.contains_key("prefixItems") || matches!(map.get("items"), Some(Value::Array(_))) {
            return Err(self.fail(path, "it is a tuple (fixed-position array items)"));
        }
        if let Some(branches) = map.shift_remove("oneOf") {
            map.insert("anyOf".to_owned(), branches);
        }
        if let Some(Value::Array(branches)) = map.shift_remove("anyOf") {
            return self.union(map, &branches, path);
        }
        if let Some(Value::Array(kinds)) = map.get("type").cloned() {
            return self.type_array(map, &kinds, path);
        }
        self.single(map, path)
    }

    /// A schema with at most one type: infers the type and converts every keyword.
    fn single(
        &mut self,
        mut map: Map<String, Value>,
        path: &str,
    ) -> Result<Map<String, Value>, SchemaError> {
        if let Some(value) = map.shift_remove("const") {
            map.insert("enum".to_owned(), Value::Array(vec![value]));
        }
        let mut nullable = map.get("nullable") == Some(&Value::Bool(true));
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            if values.iter().any(Value::is_null) {
                nullable = true;
                values.retain(|value| !value.is_null());
            }
            if values.is_empty() {
                let reason = if nullable {
                    "its only value is `null` (`const: null` or `enum: [null]`), and the subset has no null type; drop the field"
                } else {
                    "its `enum` is empty, so no value is allowed"
                };
                return Err(self.fail(path, reason));
            }
            let numeric = values.iter().all(Value::is_number);
            if let Some(bad) = values.iter().find(|value| !value.is_string() && !numeric) {
                return Err(self.fail(
                    path,
                    format!(
                        "its `enum` or `const` holds the non-string value {bad}, and the subset's enums hold strings only (an `enum` of numbers only would be listed in the description instead)"
                    ),
                ));
            }
        }
        let kind = match map.get("type") {
            Some(Value::String(kind)) => kind.to_ascii_lowercase(),
            Some(_) => return Err(self.fail(path, "its `type` is not a string")),
            None if numeric_enum(&map).is_some_and(|all_integers| all_integers) => {
                "integer".to_owned()
            }
            None if numeric_enum(&map).is_some() => "number".to_owned(),
            None if map.contains_key("enum") => "string".to_owned(),
            None if map.contains_key("properties") || map.contains_key("required") => {
                "object".to_owned()
            }
            None if map.contains_key("items") => "array".to_owned(),
            None => {
                return Err(self.fail(
                    path,
                    "it has no type (it accepts any JSON value), and Gemini needs one type per field",
                ));
            }
        };
        if kind == "null" {
            return Err(self.fail(path, "its only type is `null`"));
        }
        if !GEMINI_TYPES.contains(&kind.as_str()) {
            return Err(self.fail(
                path,
                format!("its type `{kind}` is not an OpenAPI 3.0 type"),
            ));
        }
        let numeric = numeric_enum(&map).is_some() && matches!(kind.as_str(), "integer" | "number");
        if map.contains_key("enum") && kind != "string" && !numeric {
            return Err(self.fail(
                path,
                format!("it is a `{kind}` with an `enum`, and Gemini enums hold strings only"),
            ));
        }
        let is_map = map.contains_key("patternProperties")
            || map
                .get("additionalProperties")
                .is_some_and(|extra| extra != &Value::Bool(false));
        if kind == "object" && is_map {
            return Err(self.fail(
                path,
                "it is a map (`additionalProperties` or `patternProperties`: keys chosen by the caller), which Gemini cannot express; use named fields or a list of key/value objects",
            ));
        }
        let mut out = Map::new();
        out.insert("type".to_owned(), Value::String(kind.clone()));
        if let Some(Value::String(format)) = map.get("format")
            && is_gemini_format(&kind, format)
        {
            out.insert("format".to_owned(), Value::String(format.clone()));
        }
        if nullable {
            out.insert("nullable".to_owned(), Value::Bool(true));
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            let mut converted = Map::new();
            for (name, property) in properties {
                converted.insert(
                    name.clone(),
                    Value::Object(self.convert(property, &child(path, name))?),
                );
            }
            let required: Vec<Value> = tool_sdk::schema::required_names(&map)
                .into_iter()
                .filter(|name| converted.contains_key(name))
                .map(Value::String)
                .collect();
            out.insert("properties".to_owned(), Value::Object(converted));
            if !required.is_empty() {
                out.insert("required".to_owned(), Value::Array(required));
            }
        }
        if kind == "array"
            && let Some(items) = map.get("items")
        {
            out.insert(
                "items".to_owned(),
                Value::Object(self.convert(items, &format!("{path}[]"))?),
            );
        }
        Self::bounds(&map, &kind, &mut out);
        for (key, value) in Self::single_keywords(map) {
            out.entry(key).or_insert(value);
        }
        Ok(out)
    }

    /// The keywords that carry over unchanged: annotations, string and collection bounds.
    fn single_keywords(map: Map<String, Value>) -> Map<String, Value> {
        let mut out = Map::new();
        for (key, value) in map {
            match key.as_str() {
                "title" | "description" | "pattern" if value.is_string() => {
                    out.insert(key, value);
                }
                "enum" | "default" | "example" | "propertyOrdering" => {
                    out.insert(key, value);
                }
                "minItems" | "maxItems" | "minLength" | "maxLength" | "minProperties"
                | "maxProperties"
                    if value.is_u64() =>
                {
                    out.insert(key, value);
                }
                "examples" => {
                    if let Some(first) = value.as_array().and_then(|v| v.first()) {
                        out.insert("example".to_owned(), first.clone());
                    }
                }
                "nullable" if value == Value::Bool(true) => {
                    out.insert(key, value);
                }
                _ => {}
            }
        }
        out
    }

    fn bounds(map: &Map<String, Value>, kind: &str, out: &mut Map<String, Value>) {
        if kind != "integer" && kind != "number" {
            return;
        }
        let mut sentences = Vec::new();
        for (inclusive, exclusive, step, words) in [
            ("minimum", "exclusiveMinimum", 1.0, "greater"),
            ("maximum", "exclusiveMaximum", -1.0, "less"),
        ] {
            let mut bound = map
                .get(inclusive)
                .and_then(Value::as_f64)
                .map(|b| (b, map[inclusive].clone()));
            if let Some(limit) = map.get(exclusive).and_then(Value::as_f64) {
                let moved = if kind == "integer" && limit.fract() == 0.0 {
                    limit + step
                } else {
                    limit
                };
                let tighter = bound
                    .as_ref()
                    .is_none_or(|(b, _)| if step > 0.0 { moved > *b } else { moved < *b });
                if tighter {
                    bound = Some((moved, number(moved)));
                    // The subset has no exclusive bound: one kept as it is (not a whole
                    // integer moved by one) is said in the description, so the model is not
                    // told the bound itself is allowed (the tool still refuses it).
                    if moved == limit {
                        sentences.push(format!("Must be {words} than {}.", number(limit)));
                    }
                }
            }
            if let Some((_, value)) = bound {
                out.insert(inclusive.to_owned(), value);
            }
        }
        if !sentences.is_empty() {
            let mut description = map
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            for sentence in &sentences {
                description = if description.is_empty() {
                    sentence.clone()
                } else {
                    append_sentence(&description, sentence)
                };
            }
            out.insert("description".to_owned(), Value::String(description));
        }
    }
}

/// `Some(all integers)` when `schema`'s `enum` is a non-empty list of numbers only.
fn numeric_enum(schema: &Map<String, Value>) -> Option<bool> {
    let values = schema.get("enum")?.as_array()?;
    (!values.is_empty() && values.iter().all(Value::is_number))
        .then(|| values.iter().all(|v| v.is_i64() || v.is_u64()))
}

/// An integer or number `enum` the subset cannot hold (its `enum` holds strings): removed, and
/// the allowed values said in the description instead. The type stays, and the tool's own
/// schema (which the orchestrator checks calls against) still holds the `enum`.
fn describe_numeric_enum(schema: &mut Map<String, Value>) {
    let Some(Value::Array(values)) = schema.shift_remove("enum") else {
        return;
    };
    let listed: Vec<String> = values.iter().map(Value::to_string).collect();
    let allowed = format!("{ALLOWED_VALUES}{}.", listed.join(", "));
    let description = match schema.get("description").and_then(Value::as_str) {
        Some(text) => append_sentence(text, &allowed),
        None => allowed,
    };
    schema.insert("description".to_owned(), Value::String(description));
}

/// How the sentence [`describe_numeric_enum`] writes begins.
const ALLOWED_VALUES: &str = "Allowed values: ";

/// `text` followed by `sentence`, `text` closed with a full stop first when it has none
/// (`Level.` + `Allowed values: 1, 2.`, not `Level Allowed values: 1, 2.`).
pub(crate) fn append_sentence(text: &str, sentence: &str) -> String {
    let text = text.trim_end();
    if text.is_empty() {
        return sentence.to_owned();
    }
    let stop = if text.ends_with(['.', '!', '?', ':']) {
        ""
    } else {
        "."
    };
    format!("{text}{stop} {sentence}")
}

/// The description to keep when `kept` (written next to a `$ref`, outside a union or beside
/// an `allOf`) takes the place of `replaced` (the converted schema's own): `kept`, with the
/// allowed-values sentence of `replaced` appended when `replaced` had one and `kept` does not,
/// so a numeric `enum` behind a `$ref` or inside `anyOf`/`allOf` keeps its values.
fn keep_allowed_values(kept: &str, replaced: &str) -> String {
    match replaced.find(ALLOWED_VALUES) {
        Some(at) if !kept.contains(ALLOWED_VALUES) => append_sentence(kept, &replaced[at..]),
        _ => kept.to_owned(),
    }
}

/// Puts the annotation `key` = `value` from around a schema (a `$ref`'s siblings, the outer
/// part of a one-branch union) over the converted `schema`; see [`keep_allowed_values`].
fn annotate(schema: &mut Map<String, Value>, key: String, value: Value) {
    let merged = match (key.as_str(), schema.get("description"), &value) {
        ("description", Some(Value::String(replaced)), Value::String(kept)) => {
            Value::String(keep_allowed_values(kept, replaced))
        }
        _ => value,
    };
    schema.insert(key, merged);
}

fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        #[allow(clippy::cast_possible_truncation)]
        let integer = value as i64;
        Value::from(integer)
    } else {
        serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
    }
}
