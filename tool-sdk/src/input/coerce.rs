//! The opt-in coercion mode: the unambiguous mistakes models make in arguments, corrected
//! before the input is checked, each correction traced (`tracing` target `tool_sdk::input`,
//! level `info`, with the path, the value sent and the value used). Off by default; a host
//! turns it on per tool or for every tool of an orchestrator.
//!
//! What is corrected, only where the schema does not accept the value as sent:
//! - a number sent as a string (`"42"`, `"-3"`, `"2.5"`) where the schema asks for a number,
//!   or for an integer and the text is a whole number (`"1.5"` is never truncated);
//! - a boolean sent as the string `"true"` or `"false"` where the schema asks for a boolean;
//! - an array or object sent as JSON text where the schema asks for that shape;
//! - an integral float (`3.0`) where the schema asks for an integer (the input policy does
//!   that in every mode).
//!
//! Never: `true` → `1`, `[]` → `0`, a number → a string, a truncated or rounded number, or a
//! string where the schema also accepts a string.

use serde_json::{Map, Value};

use super::issues::join_path;

/// How deep the schema is followed.
const MAX_DEPTH: usize = 64;

/// One correction: where, what was sent, what is used instead.
#[derive(Debug, Clone, PartialEq)]
pub struct Coercion {
    /// Path of the value, like `todos[0].limit`; empty for the root.
    pub path: String,
    /// The value as sent.
    pub from: Value,
    /// The value used.
    pub to: Value,
}

/// Applies the coercions of the module docs to `input`, read against `schema` (the root of the
/// tool's input schema, which local `$ref`s point into), tracing each; returns them in the
/// order made.
pub fn coerce(input: &mut Value, schema: &Value) -> Vec<Coercion> {
    let mut made = Vec::new();
    walk(input, schema, schema, "", 0, &mut made);
    for coercion in &made {
        tracing::info!(
            target: "tool_sdk::input",
            path = %coercion.path,
            from = %coercion.from,
            to = %coercion.to,
            "coerced an input value to the type its schema asks for"
        );
    }
    made
}

/// The JSON types `schema` accepts, following `$ref` and `anyOf`/`oneOf` branches; `None`
/// when it does not say (any type).
fn kinds(schema: &Value, root: &Value, depth: usize) -> Option<Vec<String>> {
    let keywords = schema.as_object()?;
    if depth > MAX_DEPTH {
        return None;
    }
    if let Some(target) = keywords.get("$ref").and_then(Value::as_str) {
        return resolve(root, target).and_then(|target| kinds(target, root, depth + 1));
    }
    match keywords.get("type") {
        Some(Value::String(kind)) => return Some(vec![kind.clone()]),
        Some(Value::Array(names)) => {
            return Some(
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
            );
        }
        _ => {}
    }
    for combinator in ["anyOf", "oneOf"] {
        if let Some(branches) = keywords.get(combinator).and_then(Value::as_array) {
            let mut all = Vec::new();
            for branch in branches {
                all.extend(kinds(branch, root, depth + 1)?);
            }
            return Some(all);
        }
    }
    None
}

fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        Some(root)
    } else {
        root.pointer(pointer)
    }
}

/// The value `text` stands for when the schema asks for one of `kinds` and not for a string.
fn from_text(text: &str, kinds: &[String]) -> Option<Value> {
    let wants = |kind: &str| kinds.iter().any(|wanted| wanted == kind);
    if wants("string") {
        return None;
    }
    let trimmed = text.trim();
    if wants("integer") || wants("number") {
        if let Ok(integer) = trimmed.parse::<i64>() {
            return Some(Value::from(integer));
        }
        if let Ok(integer) = trimmed.parse::<u64>() {
            return Some(Value::from(integer));
        }
        if wants("number")
            && let Ok(float) = trimmed.parse::<f64>()
            && float.is_finite()
        {
            return serde_json::Number::from_f64(float).map(Value::Number);
        }
    }
    if wants("boolean") {
        match trimmed {
            "true" => return Some(Value::Bool(true)),
            "false" => return Some(Value::Bool(false)),
            _ => {}
        }
    }
    if (wants("array") || wants("object"))
        && let Ok(parsed) = serde_json::from_str::<Value>(trimmed)
        && ((parsed.is_array() && wants("array")) || (parsed.is_object() && wants("object")))
    {
        return Some(parsed);
    }
    None
}

fn walk(
    value: &mut Value,
    schema: &Value,
    root: &Value,
    path: &str,
    depth: usize,
    made: &mut Vec<Coercion>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(keywords) = schema.as_object() else {
        return;
    };
    if let Some(target) = keywords.get("$ref").and_then(Value::as_str)
        && let Some(target) = resolve(root, target)
    {
        walk(value, target, root, path, depth + 1, made);
        return;
    }
    if let Value::String(text) = value
        && let Some(kinds) = kinds(schema, root, depth)
        && let Some(replacement) = from_text(text, &kinds)
    {
        made.push(Coercion {
            path: path.to_owned(),
            from: value.clone(),
            to: replacement.clone(),
        });
        *value = replacement;
    }
    match value {
        Value::Object(map) => object(map, keywords, root, path, depth, made),
        Value::Array(items) => {
            let prefix = keywords.get("prefixItems").and_then(Value::as_array);
            for (index, item) in items.iter_mut().enumerate() {
                let item_schema = prefix
                    .and_then(|prefix| prefix.get(index))
                    .or_else(|| keywords.get("items"));
                if let Some(item_schema) = item_schema {
                    let item_path = format!("{path}[{index}]");
                    walk(item, item_schema, root, &item_path, depth + 1, made);
                }
            }
        }
        _ => {}
    }
}

fn object(
    map: &mut Map<String, Value>,
    keywords: &Map<String, Value>,
    root: &Value,
    path: &str,
    depth: usize,
    made: &mut Vec<Coercion>,
) {
    let properties = keywords.get("properties").and_then(Value::as_object);
    let values = keywords
        .get("patternProperties")
        .and_then(Value::as_object)
        .and_then(|patterns| patterns.values().next())
        .or_else(|| {
            keywords
                .get("additionalProperties")
                .filter(|extra| extra.is_object())
        });
    for (key, value) in map.iter_mut() {
        let property = properties
            .and_then(|properties| properties.get(key))
            .or(values);
        if let Some(property) = property {
            walk(
                value,
                property,
                root,
                &join_path(path, key),
                depth + 1,
                made,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::coerce;

    fn schema() -> serde_json::Value {
        json!({
            "type": "object",
            "properties": {
                "n": {"type": "integer"},
                "x": {"type": "number"},
                "flag": {"type": "boolean"},
                "name": {"type": "string"},
                "either": {"type": ["string", "integer"]},
                "list": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "obj": {"type": "object", "properties": {"k": {"type": "integer"}}},
                "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
            },
            "$defs": {"Item": {"type": "integer"}}
        })
    }

    #[test]
    fn unambiguous_mistakes_are_corrected_and_listed() {
        let mut input = json!({
            "n": "42", "x": "2.5", "flag": "true", "name": "7", "either": "8",
            "list": "[1, \"2\"]", "obj": "{\"k\": \"3\"}", "maybe": " -4 "
        });
        let made = coerce(&mut input, &schema());
        assert_eq!(
            input,
            json!({
                "n": 42, "x": 2.5, "flag": true, "name": "7", "either": "8",
                "list": [1, 2], "obj": {"k": 3}, "maybe": -4
            })
        );
        let paths: Vec<&str> = made.iter().map(|made| made.path.as_str()).collect();
        assert_eq!(
            paths,
            ["n", "x", "flag", "list", "list[1]", "obj", "obj.k", "maybe"]
        );
    }

    #[test]
    fn ambiguous_or_lossy_values_are_left_for_the_check_to_refuse() {
        let mut input = json!({
            "n": "1.5", "x": "NaN", "flag": 1, "list": [true, [], "x"], "obj": "[1]",
        });
        let before = input.clone();
        assert!(coerce(&mut input, &schema()).is_empty());
        assert_eq!(input, before);
        let mut input = json!({"n": true, "x": [], "flag": "yes", "name": 5});
        let before = input.clone();
        assert!(coerce(&mut input, &schema()).is_empty());
        assert_eq!(input, before);
    }
}
