//! The input-schema rules every export target shares: an object root, no `$schema`, no root
//! `anyOf`/`oneOf`/`allOf`, and `{"type":"object","properties":{}}` for a tool without fields.

use serde_json::{Map, Value};
use tool_sdk::schema::required_names;

/// `schema` in the shape every provider accepts:
///
/// - `$schema` is removed;
/// - a root `allOf` is merged into the root (properties of every branch, `required` the union);
///   a root `anyOf`/`oneOf` is merged too (properties of every branch, the first definition of
///   a property winning, `required` only what every branch requires), since providers refuse
///   combinators at the root;
/// - the root gets `"type":"object"` and a `properties` object;
/// - a schema with no properties and no `required` becomes exactly
///   `{"type":"object","properties":{}}`.
///
/// Everything else (nested schemas, key order) is kept as given.
///
/// ```
/// use serde_json::json;
/// use tool_registry::export::export_input_schema;
/// assert_eq!(
///     export_input_schema(&json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "additionalProperties": false})),
///     json!({"type": "object", "properties": {}})
/// );
/// ```
pub fn export_input_schema(schema: &Value) -> Value {
    let mut root = match schema {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    root.shift_remove("$schema");
    for keyword in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = root.shift_remove(keyword) {
            merge_branches(&mut root, &branches, keyword == "allOf");
        }
    }
    let has_fields = root
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| !properties.is_empty())
        || root
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|required| !required.is_empty());
    if !has_fields {
        let mut empty = Map::new();
        empty.insert("type".to_owned(), Value::String("object".to_owned()));
        empty.insert("properties".to_owned(), Value::Object(Map::new()));
        return Value::Object(empty);
    }
    let mut ordered = Map::new();
    ordered.insert("type".to_owned(), Value::String("object".to_owned()));
    root.shift_remove("type");
    if let Some(properties) = root.shift_remove("properties") {
        ordered.insert("properties".to_owned(), properties);
    } else {
        ordered.insert("properties".to_owned(), Value::Object(Map::new()));
    }
    ordered.extend(root);
    Value::Object(ordered)
}

fn merge_branches(root: &mut Map<String, Value>, branches: &[Value], all_required: bool) {
    let mut properties = match root.shift_remove("properties") {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let mut required = required_names(root);
    let mut common: Option<Vec<String>> = None;
    for branch in branches {
        if let Some(Value::Object(branch_properties)) = branch.get("properties") {
            for (name, schema) in branch_properties {
                properties
                    .entry(name.clone())
                    .or_insert_with(|| schema.clone());
            }
        }
        let branch_required = branch.as_object().map(required_names).unwrap_or_default();
        if all_required {
            for name in branch_required {
                if !required.contains(&name) {
                    required.push(name);
                }
            }
        } else {
            common = Some(match common {
                None => branch_required,
                Some(previous) => previous
                    .into_iter()
                    .filter(|name| branch_required.contains(name))
                    .collect(),
            });
        }
    }
    for name in common.unwrap_or_default() {
        if !required.contains(&name) {
            required.push(name);
        }
    }
    root.insert("properties".to_owned(), Value::Object(properties));
    if required.is_empty() {
        root.shift_remove("required");
    } else {
        root.insert(
            "required".to_owned(),
            Value::Array(required.into_iter().map(Value::String).collect()),
        );
    }
}
