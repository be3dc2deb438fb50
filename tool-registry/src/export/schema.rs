//! The input-schema rules every export target shares: an object root, no `$schema`, no root
//! `anyOf`/`oneOf`/`allOf`, and `{"type":"object","properties":{}}` for a tool without fields.

use std::borrow::Cow;

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
/// use tool_registry::test_support::export_input_schema;
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
    match schema {
        Value::Object(map) if is_export_shaped(map) => map.clone(),
        Value::Object(map) => rewritten(map.clone()),
        _ => rewritten(Map::new()),
    }
}

/// `schema` as MCP lists it, when that differs from [`export_input_object`]: an input schema
/// whose root is already an object schema (`"type": "object"`) and uses root keywords the
/// export rewrites for model providers (`allOf`, `anyOf`, `oneOf`, `unevaluatedProperties`),
/// which MCP passes on as given (MCP 2025-11-25 "Tools": any JSON Schema with an object root;
/// SEP-1613, SEP-2106). Its `$schema` is removed (listings add a 2020-12 one back) after a
/// schema in an older dialect is rewritten as 2020-12. `None` for every other schema: MCP
/// lists it in export shape.
pub(crate) fn mcp_input_object(schema: &Value) -> Option<Map<String, Value>> {
    let Value::Object(map) = schema else {
        return None;
    };
    if map.get("type").and_then(Value::as_str) != Some("object") {
        return None;
    }
    let rewritten_by_export = ["allOf", "anyOf", "oneOf", "unevaluatedProperties"]
        .iter()
        .any(|keyword| map.contains_key(*keyword));
    if !rewritten_by_export {
        return None;
    }
    let mut map = map.clone();
    super::dialect::to_2020_12(&mut map);
    map.shift_remove("$schema");
    Some(map)
}

/// [`export_input_schema`] without a copy when `schema` is in export shape already (as the
/// schema of a `#[tool]` struct with fields and no flattened enum is): `schema` itself then,
/// else the rewritten schema.
pub(crate) fn export_input_cow(schema: &Value) -> Cow<'_, Value> {
    match schema {
        Value::Object(map) if is_export_shaped(map) => Cow::Borrowed(schema),
        _ => Cow::Owned(export_input_schema(schema)),
    }
}

/// [`export_input_object`] of a schema that is not export-shaped yet.
fn rewritten(mut root: Map<String, Value>) -> Map<String, Value> {
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

/// Whether `schema` is already what [`export_input_object`] makes of it, as a native tool's
/// schema with fields and no root combinators is ([`tool_sdk::schema::normalize_root`]): `type: "object"` then
/// `properties` first, at least one field, and nothing the export rewrites (`$schema`, root
/// combinators, `unevaluatedProperties`). Read from the keys in order, with no lookup.
fn is_export_shaped(schema: &Map<String, Value>) -> bool {
    let mut entries = schema.iter();
    let (Some(("type", Value::String(ty))), Some(("properties", Value::Object(properties)))) = (
        entries.next().map(|(key, value)| (key.as_str(), value)),
        entries.next().map(|(key, value)| (key.as_str(), value)),
    ) else {
        return false;
    };
    let mut has_fields = !properties.is_empty();
    for (key, value) in entries {
        match key.as_str() {
            "$schema" | "allOf" | "anyOf" | "oneOf" | "unevaluatedProperties" => return false,
            "required" => has_fields |= value.as_array().is_some_and(|names| !names.is_empty()),
            _ => {}
        }
    }
    ty == "object" && has_fields
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

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use std::borrow::Cow;

    use super::{export_input_cow, export_input_object, is_export_shaped, rewritten};

    #[test]
    fn an_export_shaped_schema_is_copied_as_the_rewrite_would_make_it() {
        let schemas = [
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false}),
            json!({"type": "object", "properties": {}, "required": ["a"]}),
            json!({"type": "object", "properties": {"a": {}}, "$defs": {"x": {}}, "description": "d"}),
            // Not shaped: each goes through the rewrite.
            json!({"properties": {"a": {}}, "type": "object"}),
            json!({"type": "object", "properties": {}}),
            json!({"type": "object", "properties": {"a": {}}, "oneOf": [{"properties": {"b": {}}}]}),
            json!({"type": "object", "properties": {"a": {}}, "unevaluatedProperties": false}),
            json!({"type": "object", "properties": {"a": {}}, "$schema": "http://json-schema.org/draft-07/schema#", "items": [{}]}),
            json!({"type": ["object", "null"], "properties": {"a": {}}}),
        ];
        let mut shaped = 0;
        for schema in schemas {
            let Value::Object(map) = &schema else {
                unreachable!()
            };
            let exported = Value::Object(export_input_object(&schema));
            assert_eq!(exported, Value::Object(rewritten(map.clone())), "{schema}");
            assert_eq!(
                exported.to_string(),
                Value::Object(rewritten(map.clone())).to_string(),
                "key order of {schema}"
            );
            // The borrowing form: the schema itself exactly when it is shaped, else the copy.
            let cow = export_input_cow(&schema);
            assert_eq!(*cow, exported, "{schema}");
            assert_eq!(
                matches!(cow, Cow::Borrowed(borrowed) if std::ptr::eq(borrowed, &schema)),
                is_export_shaped(map),
                "{schema}"
            );
            if is_export_shaped(map) {
                shaped += 1;
                assert_eq!(exported, schema);
            }
        }
        assert_eq!(shaped, 3);
    }
}
