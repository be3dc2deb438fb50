//! An offline check of Gemini function declarations against Gemini's documented rules, so a
//! schema the API would refuse at request time is caught in tests.
//!
//! Rules, from the `FunctionDeclaration` and `Schema` references
//! (<https://ai.google.dev/api/caching#FunctionDeclaration>,
//! <https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration>):
//! a name starts with a letter or `_` and holds only `a-z A-Z 0-9 _ . -`, at most 64 chars
//! (the stricter of the published rules: google-genai 3.6.1's `FunctionDeclaration.name`
//! allows `_ . : -` and 128 chars, the ai.google.dev reference and js-genai `_ . -` and 64);
//! `parameters` is a `Schema` of the OpenAPI 3.0 subset: only the keys of
//! [`GEMINI_SCHEMA_KEYS`], one string `type` of [`GEMINI_TYPES`] per schema (an `anyOf`
//! carries its types in its branches), `enum` only of strings and only on strings, a `format`
//! from [`is_gemini_format`], no boolean sub-schema, `required` naming declared properties;
//! `parametersJsonSchema` (mutually exclusive with `parameters`) is a JSON Schema checked by
//! [`check_json_schema`].

use serde_json::Value;

use super::json_schema::check_json_schema;
use super::schema::{GEMINI_SCHEMA_KEYS, GEMINI_TYPES, is_gemini_format};

/// `true` when `name` passes both published forms of Gemini's function-name rule (see the
/// module docs): a letter or `_` first, then `a-z A-Z 0-9 _ . -`, at most 64 chars.
pub(crate) fn is_valid_function_name(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    name.len() <= 64
        && (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// Every rule a function declaration (`{"name","description","parameters"?}` or
/// `{"name","description","parametersJsonSchema"?}`) breaks, each as `PATH: what is wrong`;
/// empty when it follows Gemini's documented rules, every JSON Schema keyword included (see
/// [`check_json_schema`]).
pub fn check_function_declaration(declaration: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(map) = declaration.as_object() else {
        return vec!["(declaration): not an object".to_owned()];
    };
    match map.get("name").and_then(Value::as_str) {
        Some(name) if is_valid_function_name(name) => {}
        Some(name) => problems.push(format!(
            "name: `{name}` must start with a letter or `_` and hold only a-z, A-Z, 0-9, `_`, `.`, `-` (at most 64)"
        )),
        None => problems.push("name: missing".to_owned()),
    }
    for key in map.keys() {
        if !matches!(
            key.as_str(),
            "name"
                | "description"
                | "parameters"
                | "parametersJsonSchema"
                | "response"
                | "responseJsonSchema"
                | "behavior"
        ) {
            problems.push(format!("{key}: not a FunctionDeclaration field"));
        }
    }
    if let Some(parameters) = map.get("parameters") {
        if parameters.get("type").and_then(Value::as_str) != Some("object") {
            problems.push("parameters: must be an object schema".to_owned());
        }
        check_schema(parameters, "parameters", &mut problems);
        if map.contains_key("parametersJsonSchema") {
            problems.push(
                "parametersJsonSchema: mutually exclusive with `parameters`; send one of them"
                    .to_owned(),
            );
        }
    }
    if let Some(schema) = map.get("parametersJsonSchema") {
        check_json_schema(schema, &mut problems);
    }
    problems
}

/// Every rule `schema` breaks, each as `PATH: what is wrong`, appended to `problems`.
pub(crate) fn check_schema(schema: &Value, path: &str, problems: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        problems.push(format!("{path}: a boolean or non-object sub-schema"));
        return;
    };
    for key in map.keys() {
        if !GEMINI_SCHEMA_KEYS.contains(&key.as_str()) {
            problems.push(format!("{path}: forbidden key `{key}`"));
        }
    }
    let kind = match map.get("type") {
        Some(Value::String(kind)) if GEMINI_TYPES.contains(&kind.to_ascii_lowercase().as_str()) => {
            Some(kind.to_ascii_lowercase())
        }
        Some(Value::String(kind)) => {
            problems.push(format!("{path}: unknown type `{kind}`"));
            None
        }
        Some(Value::Array(_)) => {
            problems.push(format!(
                "{path}: a type array (use one type and `nullable`)"
            ));
            None
        }
        Some(_) => {
            problems.push(format!("{path}: `type` is not a string"));
            None
        }
        None if map.contains_key("anyOf") => None,
        None => {
            problems.push(format!("{path}: no `type`"));
            None
        }
    };
    if let Some(values) = map.get("enum") {
        match values.as_array() {
            Some(values) if values.is_empty() => problems.push(format!("{path}: empty `enum`")),
            Some(values) if values.iter().all(Value::is_string) => {
                if kind.as_deref() != Some("string") {
                    problems.push(format!("{path}: `enum` on a non-string type"));
                }
            }
            _ => problems.push(format!("{path}: `enum` holds a non-string value")),
        }
    }
    if let Some(format) = map.get("format") {
        let accepted = format
            .as_str()
            .zip(kind.as_deref())
            .is_some_and(|(format, kind)| is_gemini_format(kind, format));
        if !accepted {
            problems.push(format!(
                "{path}: format {format} is not accepted for this type"
            ));
        }
    }
    if let Some(nullable) = map.get("nullable")
        && !nullable.is_boolean()
    {
        problems.push(format!("{path}: `nullable` is not a boolean"));
    }
    match map.get("properties") {
        Some(Value::Object(properties)) => {
            for (name, property) in properties {
                check_schema(property, &format!("{path}.{name}"), problems);
            }
        }
        Some(_) => problems.push(format!("{path}: `properties` is not an object")),
        None => {}
    }
    if let Some(required) = map.get("required") {
        let declared = map.get("properties").and_then(Value::as_object);
        match required.as_array() {
            Some(names) => {
                for name in names {
                    let known = name
                        .as_str()
                        .is_some_and(|n| declared.is_some_and(|d| d.contains_key(n)));
                    if !known {
                        problems.push(format!(
                            "{path}: required {name} is not a declared property"
                        ));
                    }
                }
            }
            None => problems.push(format!("{path}: `required` is not an array")),
        }
    }
    if let Some(items) = map.get("items") {
        check_schema(items, &format!("{path}[]"), problems);
    } else if kind.as_deref() == Some("array") {
        problems.push(format!("{path}: an array with no `items`"));
    }
    if map.contains_key("properties") && kind.as_deref() != Some("object") {
        problems.push(format!("{path}: `properties` on a non-object type"));
    }
    if let Some(branches) = map.get("anyOf") {
        match branches.as_array() {
            Some(branches) if !branches.is_empty() => {
                for (index, branch) in branches.iter().enumerate() {
                    let branch_path = format!("{path}.anyOf[{index}]");
                    if !branch.get("type").is_some_and(Value::is_string) {
                        problems.push(format!("{branch_path}: a union branch without one type"));
                    }
                    check_schema(branch, &branch_path, problems);
                }
            }
            _ => problems.push(format!("{path}: `anyOf` is not a non-empty array")),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn names_follow_the_documented_pattern() {
        assert!(is_valid_function_name("mcp__server-everything__get-sum"));
        assert!(is_valid_function_name("_x.y"));
        assert!(!is_valid_function_name("2fa"));
        assert!(!is_valid_function_name("-x"));
        assert!(!is_valid_function_name("a b"));
        assert!(!is_valid_function_name(&"a".repeat(65)));
    }

    #[test]
    fn every_documented_violation_is_reported() {
        let bad = json!({
            "name": "9lives",
            "parameters": {"type": "object", "additionalProperties": false, "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"type": "integer", "enum": [1, 2]},
                "c": true,
                "d": {"anyOf": [{"description": "no type"}]},
                "e": {"type": "string", "format": "uri"},
                "f": {"$ref": "#/$defs/F"},
                "g": {"type": "string", "enum": []}
            }, "required": ["zz"]}
        });
        let problems = check_function_declaration(&bad);
        for expected in [
            "name: `9lives`",
            "parameters: forbidden key `additionalProperties`",
            "parameters.a: a type array",
            "parameters.b: `enum` holds a non-string value",
            "parameters.c: a boolean",
            "parameters.d.anyOf[0]: a union branch without one type",
            "parameters.e: format \"uri\"",
            "parameters.f: forbidden key `$ref`",
            "parameters.g: empty `enum`",
            "parameters: required \"zz\"",
        ] {
            assert!(
                problems.iter().any(|p| p.starts_with(expected)),
                "missing {expected:?} in {problems:#?}"
            );
        }
        let good = json!({"name": "Read", "description": "Reads.", "parameters": {"type": "object", "properties": {"p": {"type": "string", "nullable": true}}, "required": ["p"]}});
        assert_eq!(check_function_declaration(&good), Vec::<String>::new());
    }
}
