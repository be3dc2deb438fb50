//! Reading an input schema for the catalog: the rows of the input table, short type texts,
//! and an example input.

use serde_json::{Value, json};

use super::InputRow;

/// `schema` with every local reference (`{"$ref": "#/$defs/Name"}`, `#/definitions/...`, any
/// JSON pointer into the schema) replaced by what it points to, the reference's sibling
/// keywords kept beside it. A reference met again inside its own expansion (a recursive
/// type) is left as it is.
pub(super) fn resolve_local_refs(schema: &Value) -> Value {
    fn walk(root: &Value, value: &Value, seen: &mut Vec<String>) -> Value {
        match value {
            Value::Object(map) => {
                if let Some(pointer) = map
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|reference| reference.strip_prefix('#'))
                    && !seen.iter().any(|s| s == pointer)
                    && let Some(target) = root.pointer(pointer)
                {
                    seen.push(pointer.to_owned());
                    let mut resolved = walk(root, target, seen);
                    seen.pop();
                    if let Value::Object(resolved_map) = &mut resolved {
                        for (key, sibling) in map {
                            if key != "$ref" {
                                resolved_map.insert(key.clone(), walk(root, sibling, seen));
                            }
                        }
                    }
                    return resolved;
                }
                Value::Object(
                    map.iter()
                        .filter(|(key, _)| !matches!(key.as_str(), "$defs" | "definitions"))
                        .map(|(key, item)| (key.clone(), walk(root, item, seen)))
                        .collect(),
                )
            }
            Value::Array(items) => {
                Value::Array(items.iter().map(|item| walk(root, item, seen)).collect())
            }
            other => other.clone(),
        }
    }
    walk(schema, schema, &mut Vec::new())
}

/// Appends the rows of `schema`'s properties (recursively) with `prefix` before their names.
pub(super) fn input_rows(prefix: &str, schema: &Value, rows: &mut Vec<InputRow>) {
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
pub(super) fn example(schema: &Value) -> Value {
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
