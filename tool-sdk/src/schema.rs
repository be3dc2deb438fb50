//! Input schemas: generated with schemars (JSON Schema draft 2020-12) once per tool, in the
//! shape every provider accepts.
//!
//! The root is an object schema: `{"type":"object","properties":{..},...}` with no
//! `$schema` and no `title`, as the Anthropic Messages API `input_schema` expects. Optional
//! fields (`Option<T>`) are simply absent from `required`, as in the reference's schemas.
//! Unknown keys are refused (`"additionalProperties": false` at the root), as the reference's
//! strict zod objects do. An input type whose schema names another JSON type (`String`, a
//! tuple struct) keeps it, and registration refuses the tool ([`non_object_root`]).

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The input schema of `T`, normalised as described in the module docs.
pub fn input_schema_for<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.inline_subschemas = true;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    drop_optional_nulls(&mut schema);
    align_subschemas(&mut schema);
    normalize_root(schema)
}

/// Calls `visit` on every subschema below `schema` (not on `schema` itself): property, item,
/// map-value, definition and branch schemas, depth first. A boolean `additionalProperties` /
/// `unevaluatedProperties` is a switch, not visited.
fn for_each_subschema(schema: &mut Value, visit: &mut dyn FnMut(&mut Value)) {
    let Value::Object(map) = schema else { return };
    for (keyword, value) in map.iter_mut() {
        match keyword.as_str() {
            "additionalProperties" | "unevaluatedProperties" if value.is_boolean() => {}
            "items"
            | "additionalProperties"
            | "unevaluatedProperties"
            | "not"
            | "contains"
            | "propertyNames"
            | "if"
            | "then"
            | "else" => {
                visit(value);
                for_each_subschema(value, visit);
            }
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                if let Value::Object(schemas) = value {
                    for schema in schemas.values_mut() {
                        visit(schema);
                        for_each_subschema(schema, visit);
                    }
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                if let Value::Array(schemas) = value {
                    for schema in schemas {
                        visit(schema);
                        for_each_subschema(schema, visit);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The subschema rewrites that make the schema say what the runtime reads:
///
/// - a boolean schema `true` (schemars writes it for a `serde_json::Value` field) becomes the
///   equivalent `{}`, which every provider's validator accepts (`additionalProperties: true`,
///   an open map, stays as written);
/// - an integer `format` of 8 to 32 bits (`uint8` … `int32`) gets the `minimum`/`maximum` the
///   Rust type has, so a value the type cannot hold is refused by the schema, not only later
///   by serde (64-bit types are bounded by what a JSON integer reader holds anyway, and
///   twenty-digit bounds would only cost the model tokens).
fn align_subschemas(schema: &mut Value) {
    for_each_subschema(schema, &mut |subschema| match subschema {
        Value::Bool(true) => *subschema = Value::Object(Map::new()),
        Value::Object(map) => {
            let bounds = map
                .get("format")
                .and_then(Value::as_str)
                .and_then(integer_bounds);
            if let Some((min, max)) = bounds {
                map.entry("minimum").or_insert(min);
                map.entry("maximum").or_insert(max);
            }
        }
        _ => {}
    });
}

/// The range of an integer `format` schemars writes for a Rust integer type of 8 to 32 bits.
fn integer_bounds(format: &str) -> Option<(Value, Value)> {
    Some(match format {
        "uint8" => (0.into(), u8::MAX.into()),
        "uint16" => (0.into(), u16::MAX.into()),
        "uint32" => (0.into(), u32::MAX.into()),
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        _ => return None,
    })
}

/// For properties that are not `required` (Rust `Option<T>` fields), removes the `null`
/// alternative schemars adds (`"type": ["string", "null"]`, or `anyOf [T, {"type":"null"}]`):
/// omitting the key is how the model leaves them out, as in the reference's schemas. Serde
/// still accepts an explicit `null`. Applied to nested objects too.
fn drop_optional_nulls(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let required = required_names(map);
            if let Some(Value::Object(properties)) = map.get_mut("properties") {
                for (name, property) in properties.iter_mut() {
                    if !required.contains(name) {
                        strip_null_alternative(property);
                    }
                }
            }
            for value in map.values_mut() {
                drop_optional_nulls(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(drop_optional_nulls),
        _ => {}
    }
}

fn strip_null_alternative(property: &mut Value) {
    let Value::Object(map) = property else { return };
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|value| !value.is_null());
    }
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|kind| kind != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".to_owned(), only);
        }
        return;
    }
    let is_null = |schema: &Value| schema.get("type").and_then(Value::as_str) == Some("null");
    if let Some(Value::Array(alternatives)) = map.get("anyOf")
        && alternatives.len() == 2
        && alternatives.iter().any(is_null)
    {
        let kept = alternatives.iter().find(|schema| !is_null(schema)).cloned();
        if let Some(Value::Object(kept)) = kept {
            map.remove("anyOf");
            for (key, value) in kept {
                map.entry(key).or_insert(value);
            }
        }
    }
}

/// Applies the root rules to any JSON schema: drops `$schema`, `title` and the root
/// `description`, makes sure
/// `"type":"object"` and `"properties"` are present. A root whose `type` names no object (the
/// schema of `String`, a tuple struct, a unit enum) keeps its `type` and gets nothing else, so
/// that the schema stays true and [`non_object_root`] finds it: such an input can never be
/// called, since every provider sends the arguments as one JSON object.
pub fn normalize_root(schema: Value) -> Value {
    let mut map = match schema {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    map.remove("$schema");
    map.remove("title");
    // The tool's description travels in the definition's `description`; a copy here (schemars
    // puts the struct's doc comment at the root) would only repeat it.
    map.remove("description");
    if non_object_type(map.get("type")).is_some() {
        return order_root_keys(map);
    }
    map.insert("type".to_owned(), Value::String("object".to_owned()));
    map.entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let combined = ["allOf", "anyOf", "oneOf"]
        .iter()
        .any(|keyword| map.contains_key(*keyword));
    if combined {
        // A flattened enum: the keys of the branch that matches are known too, which only
        // `unevaluatedProperties` sees (`additionalProperties` would refuse every call).
        if map.remove("additionalProperties") != Some(Value::Bool(true))
            && !map.contains_key("unevaluatedProperties")
        {
            map.insert("unevaluatedProperties".to_owned(), Value::Bool(false));
        }
    } else if !map.contains_key("additionalProperties") {
        map.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
    order_root_keys(map)
}

/// What the root of an input schema is when it is not an object schema: the JSON type its
/// `type` names (`"string"`, `"array"`, `"null"`, several joined with ` or `), or `None` for an
/// object schema (or one without `type`, which [`normalize_root`] makes an object).
pub fn non_object_root(schema: &Value) -> Option<String> {
    non_object_type(schema.get("type"))
}

fn non_object_type(ty: Option<&Value>) -> Option<String> {
    match ty? {
        Value::String(name) if name != "object" => Some(name.clone()),
        Value::Array(names) if !names.iter().any(|name| name == "object") => Some(
            names
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" or "),
        ),
        _ => None,
    }
}

/// Puts `type`, `properties`, `required` first so the schema reads like a hand-written one.
fn order_root_keys(mut map: Map<String, Value>) -> Value {
    let mut ordered = Map::new();
    for key in ["type", "properties", "required"] {
        if let Some(value) = map.remove(key) {
            ordered.insert(key.to_owned(), value);
        }
    }
    ordered.extend(map);
    Value::Object(ordered)
}

/// The names an object schema's `required` keyword lists, in order; empty when it has none
/// (or it is not an array). Non-string entries are skipped.
pub fn required_names(schema: &Map<String, Value>) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The property names of an object schema's root, in schema order.
pub fn root_property_names(schema: &Value) -> impl Iterator<Item = &str> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|properties| properties.keys().map(String::as_str))
}
