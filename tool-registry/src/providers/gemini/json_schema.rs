//! The offline check of a `parametersJsonSchema`: the JSON Schema form of a Gemini function
//! declaration's input (`FunctionDeclaration.parametersJsonSchema`, mutually exclusive with
//! `parameters`).
//!
//! Rules, from the `FunctionDeclaration` reference
//! (<https://ai.google.dev/api/caching#FunctionDeclaration>, read 2026-12-03) and
//! `google/genai/types.py` of google-genai 3.6.1 (`FunctionDeclaration.parameters_json_schema`:
//! "The schema must describe an object where the properties are the parameters to the
//! function"): the root is an object schema (`"type": "object"`); every sub-schema is an
//! object; `type` names JSON Schema types (one, or an array of distinct ones); `required` is an
//! array of strings; every `$ref` is local (`#`, `#/$defs/..`, any JSON pointer into the
//! document) and resolves; and every keyword is one Gemini reads
//! ([`GEMINI_JSON_SCHEMA_KEYWORDS`], whose docs give the sources): another keyword is not
//! refused by the API but ignored, so the model would not be told that rule.

use serde_json::{Map, Value};

use super::json_keywords::{GEMINI_JSON_SCHEMA_KEYWORDS, ONE_SCHEMA, SCHEMA_ARRAYS, SCHEMA_MAPS};

/// The JSON Schema types.
const JSON_TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// Every rule `schema` (a `parametersJsonSchema`) breaks, each as `PATH: what is wrong`,
/// appended to `problems`.
pub(crate) fn check_json_schema(schema: &Value, problems: &mut Vec<String>) {
    const ROOT: &str = "parametersJsonSchema";
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        problems.push(format!(
            "{ROOT}: must be an object schema (`\"type\": \"object\"`)"
        ));
    }
    walk(schema, schema, ROOT, problems);
}

fn walk(root: &Value, schema: &Value, path: &str, problems: &mut Vec<String>) {
    let map = match schema {
        Value::Bool(_) => {
            problems.push(format!(
                "{path}: a boolean sub-schema, which is not among the JSON Schema forms Gemini documents; write `{{}}` for any value"
            ));
            return;
        }
        Value::Object(map) => map,
        _ => {
            problems.push(format!(
                "{path}: a sub-schema that is neither an object nor a boolean"
            ));
            return;
        }
    };
    check_type(map, path, problems);
    for key in map.keys() {
        if !GEMINI_JSON_SCHEMA_KEYWORDS.contains(&key.as_str()) {
            problems.push(format!(
                "{path}: `{key}` is not among the JSON Schema keywords Gemini documents, so Gemini ignores it and the model is not told that rule (the tool still checks it at run time)"
            ));
        }
    }
    if let Some(required) = map.get("required")
        && !required
            .as_array()
            .is_some_and(|names| names.iter().all(Value::is_string))
    {
        problems.push(format!("{path}: `required` is not an array of strings"));
    }
    if let Some(reference) = map.get("$ref") {
        match reference.as_str() {
            Some(reference) if resolve(root, reference).is_some() => {}
            Some(reference) => problems.push(format!(
                "{path}: `$ref` {reference:?} does not resolve to a schema in this document"
            )),
            None => problems.push(format!("{path}: `$ref` is not a string")),
        }
    }
    for key in ONE_SCHEMA {
        match map.get(*key) {
            // Documented as "either a boolean or an object".
            Some(Value::Bool(_)) if *key == "additionalProperties" => {}
            Some(sub) => walk(root, sub, &format!("{path}.{key}"), problems),
            None => {}
        }
    }
    for key in SCHEMA_ARRAYS {
        match map.get(*key) {
            Some(Value::Array(branches)) if !branches.is_empty() => {
                for (index, branch) in branches.iter().enumerate() {
                    walk(root, branch, &format!("{path}.{key}[{index}]"), problems);
                }
            }
            Some(_) => problems.push(format!("{path}: `{key}` is not a non-empty array")),
            None => {}
        }
    }
    for key in SCHEMA_MAPS {
        match map.get(*key) {
            Some(Value::Object(named)) => {
                for (name, sub) in named {
                    walk(root, sub, &format!("{path}.{key}.{name}"), problems);
                }
            }
            Some(_) => problems.push(format!("{path}: `{key}` is not an object")),
            None => {}
        }
    }
}

fn check_type(map: &Map<String, Value>, path: &str, problems: &mut Vec<String>) {
    let known = |kind: &Value| kind.as_str().is_some_and(|k| JSON_TYPES.contains(&k));
    match map.get("type") {
        None => {}
        Some(kind) if known(kind) => {}
        Some(Value::Array(kinds)) if !kinds.is_empty() && kinds.iter().all(known) => {
            let mut seen: Vec<&Value> = Vec::new();
            for kind in kinds {
                if seen.contains(&kind) {
                    problems.push(format!("{path}: `type` names {kind} twice"));
                }
                seen.push(kind);
            }
        }
        Some(kind) => problems.push(format!("{path}: `type` {kind} is not a JSON Schema type")),
    }
}

/// The sub-schema a local `$ref` points at: `#` or a JSON pointer `#/...` into `root`.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    let target = root.pointer(pointer)?;
    (target.is_object() || target.is_boolean()).then_some(target)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn refs_types_and_the_object_root_are_checked() {
        let mut problems = Vec::new();
        check_json_schema(
            &json!({
                "type": "object",
                "properties": {
                    "a": {"$ref": "#/$defs/A"},
                    "b": {"$ref": "#/$defs/Missing"},
                    "c": {"type": ["string", "string"]},
                    "d": {"type": "text"},
                    "e": {"anyOf": []},
                    "f": 3,
                    "g": {"$ref": "https://example.com/s.json"},
                    "h": {"type": "object", "additionalProperties": {"$ref": "#"}}
                },
                "required": ["a", 1],
                "$defs": {"A": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/A"}]}}
            }),
            &mut problems,
        );
        let expected = [
            "parametersJsonSchema.properties.b: `$ref` \"#/$defs/Missing\"",
            "parametersJsonSchema.properties.c: `type` names \"string\" twice",
            "parametersJsonSchema.properties.d: `type` \"text\"",
            "parametersJsonSchema.properties.e: `anyOf` is not a non-empty array",
            "parametersJsonSchema.properties.f: a sub-schema that is neither",
            "parametersJsonSchema.properties.g: `$ref` \"https://example.com/s.json\"",
            "parametersJsonSchema: `required` is not an array of strings",
        ];
        for prefix in expected {
            assert!(
                problems.iter().any(|p| p.starts_with(prefix)),
                "missing {prefix:?} in {problems:#?}"
            );
        }
        assert_eq!(problems.len(), expected.len(), "{problems:#?}");
        let mut problems = Vec::new();
        check_json_schema(&json!({"type": "array", "items": {}}), &mut problems);
        assert_eq!(
            problems,
            ["parametersJsonSchema: must be an object schema (`\"type\": \"object\"`)"]
        );
        let mut problems = Vec::new();
        check_json_schema(
            &json!({"type": "object", "properties": {
                "a": true,
                "b": {"const": 1},
                "c": {"type": "number", "exclusiveMinimum": 0}
            }}),
            &mut problems,
        );
        assert_eq!(problems.len(), 3, "{problems:#?}");
        assert!(problems[0].starts_with("parametersJsonSchema.properties.a: a boolean sub-schema"));
        assert!(problems[1].starts_with("parametersJsonSchema.properties.b: `const` is not among"));
        assert!(problems[2].starts_with("parametersJsonSchema.properties.c: `exclusiveMinimum`"));
    }
}
