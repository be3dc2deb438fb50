//! The JSON Schema keywords Gemini documents for its JSON Schema fields, and the rewrite of a
//! tool's input schema (export shape, JSON Schema 2020-12) into them for
//! `FunctionDeclaration.parametersJsonSchema`.
//!
//! Sources (read 2026-12-03):
//! - `FunctionDeclaration.parametersJsonSchema` (<https://ai.google.dev/api/caching#FunctionDeclaration>;
//!   google-genai 3.6.1 `google/genai/types.py`, where the field is typed `Any`) says only that
//!   the schema describes an object whose properties are the parameters; it lists no keywords.
//! - The one keyword list Google publishes for its JSON Schema fields is the one of
//!   `GenerationConfig.responseJsonSchema`
//!   (<https://ai.google.dev/api/generate-content#FIELDS.response_json_schema>, also in the
//!   Vertex AI `aiplatform_v1` discovery document): `$id`, `$defs`, `$ref`, `$anchor`, `type`,
//!   `format`, `title`, `description`, `enum` (strings and numbers), `items`, `prefixItems`,
//!   `minItems`, `maxItems`, `minimum`, `maximum`, `anyOf`, `oneOf` (read as `anyOf`),
//!   `properties`, `additionalProperties`, `required`, and the non-standard `propertyOrdering`.
//! - google-genai 3.6.1's `types.JSONSchema` ("a subset of JSON Schema according to 2020-12")
//!   also has `default`, `minLength`, `maxLength`, `pattern`, `minProperties`,
//!   `maxProperties` and `uniqueItems`.
//! - A keyword outside these is not refused but dropped: googleapis/python-genai#1093 (comment
//!   of 2026-08-09) shows `const` in `parameters_json_schema` silently ignored.
//!
//! So the model would not be told a rule written with another keyword. [`for_gemini`] rewrites
//! the ones that have an equivalent; the others stay (the orchestrator still checks every call
//! against the tool's own schema) and the offline checker reports them.

use serde_json::{Map, Value};

/// The keywords [`for_gemini`]'s output may use and Gemini reads: Google's documented list
/// and the extra fields of google-genai's `types.JSONSchema` (see the module docs).
pub(crate) const GEMINI_JSON_SCHEMA_KEYWORDS: &[&str] = &[
    "$id",
    "$defs",
    "$ref",
    "$anchor",
    "type",
    "format",
    "title",
    "description",
    "enum",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "oneOf",
    "properties",
    "additionalProperties",
    "required",
    "propertyOrdering",
    "default",
    "minLength",
    "maxLength",
    "pattern",
    "minProperties",
    "maxProperties",
    "uniqueItems",
];

/// Keywords whose value is one sub-schema (`items` may also be an array of them, the tuple
/// form of older drafts).
pub(crate) const ONE_SCHEMA: &[&str] = &[
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "not",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
];

/// Keywords whose value is an array of sub-schemas.
pub(crate) const SCHEMA_ARRAYS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];

/// Keywords whose value is an object of named sub-schemas.
pub(crate) const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// `schema` with the keywords Gemini would drop rewritten into ones it reads, where the
/// meaning is kept:
///
/// - `const: v` becomes `enum: [v]` (and `type` the JSON type of `v` when the schema has none);
/// - `exclusiveMinimum`/`exclusiveMaximum` on an `integer` with a whole bound become
///   `minimum`/`maximum` moved by one (the same values pass); on other schemas they become
///   `minimum`/`maximum` at the bound (the tighter of it and a bound already there) with
///   `Must be greater than X.` / `Must be less than X.` appended to the description, since the
///   bound itself is the one value that would pass Gemini's reading and not the tool's;
/// - a `true` sub-schema (any value) becomes `{}` (`additionalProperties`, documented as a
///   boolean or a schema, keeps its boolean);
/// - `definitions` becomes `$defs` (and `$ref`s into it follow), unless `$defs` exists.
///
/// Every other keyword is kept as it is (`allOf`, `not`, `if`, `patternProperties`, `false`
/// sub-schemas, ...): Gemini ignores it, the tool still checks it, and
/// [`check_declaration`](super::check_declaration) reports it.
pub(crate) fn for_gemini(schema: &Value) -> Value {
    let mut out = schema.clone();
    let rename_definitions = out.get("definitions").is_some() && out.get("$defs").is_none();
    if rename_definitions
        && let Value::Object(root) = &mut out
        && let Some(definitions) = root.shift_remove("definitions")
    {
        root.insert("$defs".to_owned(), definitions);
    }
    rewrite(&mut out, rename_definitions);
    out
}

fn rewrite(schema: &mut Value, rename_definitions: bool) {
    if *schema == Value::Bool(true) {
        *schema = Value::Object(Map::new());
        return;
    }
    let Value::Object(map) = schema else {
        return;
    };
    if rename_definitions
        && let Some(Value::String(reference)) = map.get_mut("$ref")
        && let Some(rest) = reference.strip_prefix("#/definitions/")
    {
        *reference = format!("#/$defs/{rest}");
    }
    if let Some(value) = map.shift_remove("const") {
        if !map.contains_key("type") {
            map.insert(
                "type".to_owned(),
                Value::String(json_type(&value).to_owned()),
            );
        }
        map.insert("enum".to_owned(), Value::Array(vec![value]));
    }
    exclusive_bounds(map);
    for (key, value) in map.iter_mut() {
        let key = key.as_str();
        if key == "additionalProperties" && value.is_boolean() {
            // Documented as "either a boolean or an object": kept as it is.
            continue;
        }
        if ONE_SCHEMA.contains(&key) || SCHEMA_ARRAYS.contains(&key) {
            match value {
                Value::Array(branches) => {
                    for branch in branches {
                        rewrite(branch, rename_definitions);
                    }
                }
                _ => rewrite(value, rename_definitions),
            }
        } else if SCHEMA_MAPS.contains(&key)
            && let Value::Object(named) = value
        {
            for sub in named.values_mut() {
                rewrite(sub, rename_definitions);
            }
        }
    }
}

/// The rewrite of `exclusiveMinimum`/`exclusiveMaximum` described at [`for_gemini`].
fn exclusive_bounds(map: &mut Map<String, Value>) {
    let integer = map.get("type").and_then(Value::as_str) == Some("integer");
    for (exclusive, inclusive, step, words) in [
        ("exclusiveMinimum", "minimum", 1, "greater"),
        ("exclusiveMaximum", "maximum", -1, "less"),
    ] {
        let Some(limit) = map.get(exclusive).cloned() else {
            continue;
        };
        let Some(number) = limit.as_f64() else {
            continue;
        };
        map.shift_remove(exclusive);
        let existing = map.get(inclusive).and_then(Value::as_f64);
        let (bound, described) = match limit.as_i64() {
            Some(whole) if integer => (Value::from(whole + step), false),
            _ => (limit.clone(), true),
        };
        let bound_number = bound.as_f64().unwrap_or(number);
        let tighter = existing.is_none_or(|old| {
            if step > 0 {
                bound_number >= old
            } else {
                bound_number <= old
            }
        });
        if !tighter {
            // The inclusive bound already there is stricter: the exclusive one adds nothing.
            continue;
        }
        map.insert(inclusive.to_owned(), bound);
        if described {
            let sentence = format!("Must be {words} than {limit}.");
            let description = match map.get("description").and_then(Value::as_str) {
                Some(text) => super::schema::append_sentence(text, &sentence),
                None => sentence,
            };
            map.insert("description".to_owned(), Value::String(description));
        }
    }
}

/// The JSON Schema type of `value`.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
