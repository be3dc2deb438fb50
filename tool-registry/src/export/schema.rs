//! The input-schema rules every export target shares: an object root, no `$schema`, no root
//! `anyOf`/`oneOf`/`allOf`, and `{"type":"object","properties":{}}` for a tool without fields.

use serde_json::{Map, Value};
use tool_sdk::schema::required_names;

/// `schema` in the shape every provider accepts:
///
/// - `$schema` is removed, after a schema in an older dialect (draft-04, -06, -07, 2019-09)
///   is rewritten as the 2020-12 schema that accepts the same values, since without its
///   `$schema` it is read as 2020-12;
/// - a root `allOf` is merged into the root (properties of every branch, `required` the union);
///   a root `anyOf`/`oneOf` is merged too (properties of every branch, `required` only what
///   every branch requires), since providers refuse combinators at the root; a property the
///   branches define differently accepts what any of them accepts (the tags of an internally
///   tagged enum become one `enum`, other differences a nested `anyOf`; under `allOf`, all of
///   them hold); a root `unevaluatedProperties` becomes `additionalProperties`;
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
    Value::Object(export_input_object(schema))
}

/// [`export_input_schema`]'s object, as a map.
pub(crate) fn export_input_object(schema: &Value) -> Map<String, Value> {
    let mut root = match schema {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    super::dialect::to_2020_12(&mut root);
    root.shift_remove("$schema");
    for keyword in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = root.shift_remove(keyword) {
            merge_branches(&mut root, &branches, keyword == "allOf");
        }
    }
    // A native root with combinators closes itself with `unevaluatedProperties` (keys of the
    // matching branch count as known); merged, the same keys are the root's `properties`.
    if let Some(closed) = root.shift_remove("unevaluatedProperties")
        && !root.contains_key("additionalProperties")
    {
        root.insert("additionalProperties".to_owned(), closed);
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
        return empty;
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
    ordered
}

fn merge_branches(root: &mut Map<String, Value>, branches: &[Value], all_required: bool) {
    let mut properties = match root.shift_remove("properties") {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let mut required = required_names(root);
    let mut common: Option<Vec<String>> = None;
    let mut alternatives: Map<String, Value> = Map::new();
    for branch in branches {
        if let Some(Value::Object(branch_properties)) = branch.get("properties") {
            for (name, schema) in branch_properties {
                if properties.contains_key(name) {
                    continue;
                }
                let seen = alternatives
                    .entry(name.clone())
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(seen) = seen
                    && !seen.contains(schema)
                {
                    seen.push(schema.clone());
                }
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
    for (name, seen) in alternatives {
        let Value::Array(mut seen) = seen else {
            continue;
        };
        let merged = if seen.len() == 1 {
            seen.remove(0)
        } else if all_required {
            // Every branch of an `allOf` applies: all of the property's schemas hold.
            serde_json::json!({ "allOf": seen })
        } else {
            one_property_of(seen)
        };
        properties.insert(name, merged);
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

/// One schema for a property that the branches of a root `anyOf`/`oneOf` define differently: the
/// tag of an internally tagged enum (`{"type":"string","const":"A"}` in each branch) becomes
/// one `enum` of every tag; other differences become a nested `anyOf` (allowed below the root).
fn one_property_of(schemas: Vec<Value>) -> Value {
    let constant = |schema: &Value| {
        let map = schema.as_object()?;
        let only_const_and_type = map
            .keys()
            .all(|key| matches!(key.as_str(), "const" | "type" | "description"));
        only_const_and_type
            .then(|| map.get("const").cloned())
            .flatten()
    };
    let constants: Option<Vec<Value>> = schemas.iter().map(constant).collect();
    match constants {
        Some(values) if values.iter().all(Value::is_string) => {
            serde_json::json!({"type": "string", "enum": values})
        }
        _ => serde_json::json!({ "anyOf": schemas }),
    }
}
