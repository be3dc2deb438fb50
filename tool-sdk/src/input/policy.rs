//! The input policy: how an input is read before it is checked, the same for every tool
//! (native `#[tool]` types, JSON-defined and MCP tools). README section "Input policy".
//!
//! 1. No input means an empty object: a missing `input`, `null`, `""` or a string of only
//!    whitespace is read as `{}` (providers send these for a call with no arguments).
//! 2. An explicit `null` for a property that is not `required`, where the property's schema does
//!    not itself accept `null`, means the property is absent (then `#[serde(default)]` or `None`
//!    applies). This is how OpenAI strict mode sends an unset optional field (its export lists
//!    every key as required and nullable), and what MCP Inspector and several hosted models
//!    send. It applies at every depth the schema describes: nested objects, array items,
//!    `prefixItems`, map values (`additionalProperties` / `patternProperties` schemas), and the
//!    branches of `anyOf`/`oneOf`/`allOf` and local `$ref`s.
//!
//! 3. A number with no fractional part is an integer, as JSON Schema reads it: `3.0` is read as
//!    `3` (so an integer field takes it, as the schema says it does). `3.5` is never changed.
//!
//! The rules only ever turn a refused input into an accepted one, so they run only when the
//! check refuses the input as sent (rule 3 also runs before a native tool's own reading, since
//! JSON Schema accepts `3.0` where Rust's integer types would not): an input the schema
//! accepts otherwise reaches the tool as sent.

use serde_json::{Map, Value};

/// `true` when `input` means "no arguments": `null`, or a string of only whitespace.
pub fn is_empty_input(input: &Value) -> bool {
    match input {
        Value::Null => true,
        Value::String(text) => text.trim().is_empty(),
        _ => false,
    }
}

/// Applies both rules of the module docs to `input`, read against `schema` (the root of the
/// tool's input schema, which local `$ref`s point into). Returns whether anything changed.
pub fn apply(input: &mut Value, schema: &Value) -> bool {
    if is_empty_input(input) {
        *input = Value::Object(Map::new());
        return true;
    }
    let nulls = drop_refusable_nulls(input, schema, schema, 0);
    integral_floats_as_integers(input) | nulls
}

/// The integer a float equals, when it has no fractional part and fits `u64` or `i64`.
pub(crate) enum Integer {
    Unsigned(u64),
    Signed(i64),
}

/// Rule 3 for one number: the integer `float` equals, or `None`.
pub(crate) fn integer_of(float: f64) -> Option<Integer> {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    if float.fract() != 0.0 || !float.is_finite() {
        None
    } else if (0.0..18_446_744_073_709_551_616.0).contains(&float) {
        Some(Integer::Unsigned(float as u64))
    } else if (-9_223_372_036_854_775_808.0..0.0).contains(&float) {
        Some(Integer::Signed(float as i64))
    } else {
        None
    }
}

/// Rule 3 over every number in `value`; returns whether any changed.
pub fn integral_floats_as_integers(value: &mut Value) -> bool {
    match value {
        Value::Number(number) if number.is_f64() => {
            match integer_of(number.as_f64().unwrap_or(f64::NAN)) {
                Some(Integer::Unsigned(integer)) => *value = Value::from(integer),
                Some(Integer::Signed(integer)) => *value = Value::from(integer),
                None => return false,
            }
            true
        }
        Value::Array(items) => items.iter_mut().fold(false, |changed, item| {
            integral_floats_as_integers(item) | changed
        }),
        Value::Object(map) => map.values_mut().fold(false, |changed, item| {
            integral_floats_as_integers(item) | changed
        }),
        _ => false,
    }
}

/// How deep `$ref`s and nesting are followed; a recursive schema stops here.
const MAX_DEPTH: usize = 64;

/// Rule 2 over `value`, described by `schema`.
fn drop_refusable_nulls(value: &mut Value, schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let Value::Object(keywords) = schema else {
        return false;
    };
    let mut changed = false;
    if let Some(target) = keywords.get("$ref").and_then(Value::as_str)
        && let Some(target) = local_ref(root, target)
    {
        changed |= drop_refusable_nulls(value, target, root, depth + 1);
    }
    for combinator in ["allOf", "anyOf", "oneOf"] {
        for branch in keywords
            .get(combinator)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            changed |= drop_refusable_nulls(value, branch, root, depth + 1);
        }
    }
    match value {
        Value::Object(map) => changed |= object(map, keywords, root, depth),
        Value::Array(items) => {
            let prefix = keywords.get("prefixItems").and_then(Value::as_array);
            let rest = keywords.get("items");
            for (index, item) in items.iter_mut().enumerate() {
                let item_schema = prefix.and_then(|prefix| prefix.get(index)).or(rest);
                if let Some(item_schema) = item_schema {
                    changed |= drop_refusable_nulls(item, item_schema, root, depth + 1);
                }
            }
        }
        _ => {}
    }
    changed
}

fn object(
    map: &mut Map<String, Value>,
    keywords: &Map<String, Value>,
    root: &Value,
    depth: usize,
) -> bool {
    let properties = keywords.get("properties").and_then(Value::as_object);
    let required = |name: &str| {
        keywords
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|names| names.iter().any(|required| required == name))
    };
    let before = map.len();
    map.retain(|key, value| {
        !(value.is_null()
            && !required(key)
            && properties
                .and_then(|properties| properties.get(key))
                .is_some_and(|property| !accepts_null(property, root, depth)))
    });
    let mut changed = map.len() != before;
    for (key, value) in map.iter_mut() {
        if let Some(property) = properties.and_then(|properties| properties.get(key)) {
            changed |= drop_refusable_nulls(value, property, root, depth + 1);
        } else if let Some(pattern_schema) = keywords
            .get("patternProperties")
            .and_then(Value::as_object)
            .and_then(|patterns| patterns.values().next())
        {
            changed |= drop_refusable_nulls(value, pattern_schema, root, depth + 1);
        } else if let Some(extra) = keywords.get("additionalProperties") {
            changed |= drop_refusable_nulls(value, extra, root, depth + 1);
        }
    }
    changed
}

/// Whether `schema` may accept `null` (no `type`/`enum`/`const` excluding it, or a branch
/// that accepts it). Errs towards `true`: a `null` a schema might accept is kept.
pub(crate) fn accepts_null(schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    let keywords = match schema {
        Value::Bool(accepts) => return *accepts,
        Value::Object(keywords) => keywords,
        _ => return true,
    };
    if let Some(target) = keywords.get("$ref").and_then(Value::as_str)
        && let Some(target) = local_ref(root, target)
        && !accepts_null(target, root, depth + 1)
    {
        return false;
    }
    let type_allows = match keywords.get("type") {
        Some(Value::String(kind)) => kind == "null",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "null"),
        _ => true,
    };
    let enum_allows = keywords
        .get("enum")
        .and_then(Value::as_array)
        .is_none_or(|values| values.iter().any(Value::is_null));
    let const_allows = keywords.get("const").is_none_or(Value::is_null);
    let branches = |name: &str| keywords.get(name).and_then(Value::as_array);
    let any_allows = ["anyOf", "oneOf"].iter().all(|name| {
        branches(name).is_none_or(|branches| {
            branches
                .iter()
                .any(|branch| accepts_null(branch, root, depth + 1))
        })
    });
    let all_allow = branches("allOf").is_none_or(|branches| {
        branches
            .iter()
            .all(|branch| accepts_null(branch, root, depth + 1))
    });
    type_allows && enum_allows && const_allows && any_allows && all_allow
}

/// The schema a local `$ref` (`#`, `#/$defs/Name`, any JSON pointer into the root) points at.
fn local_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    let decoded = pointer.replace("%25", "%");
    root.pointer(&decoded)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{accepts_null, apply, is_empty_input};

    #[test]
    fn empty_inputs_become_an_empty_object() {
        for empty in [json!(null), json!(""), json!("  \n\t")] {
            assert!(is_empty_input(&empty));
            let mut input = empty;
            assert!(apply(&mut input, &json!({"type": "object"})));
            assert_eq!(input, json!({}));
        }
        assert!(!is_empty_input(&json!("x")));
        assert!(!is_empty_input(&json!({})));
    }

    #[test]
    fn nulls_for_optional_properties_are_dropped_at_every_depth() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "b": {"type": "string"},
                "n": {"type": ["string", "null"]},
                "list": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "map": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Item"}}
            },
            "required": ["a"],
            "$defs": {"Item": {
                "type": "object",
                "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
                "required": ["x"]
            }}
        });
        let mut input = json!({
            "a": null, "b": null, "n": null,
            "list": [{"x": null, "y": null}],
            "map": {"k": {"x": 1, "y": null}}
        });
        assert!(apply(&mut input, &schema));
        assert_eq!(
            input,
            json!({"a": null, "n": null, "list": [{"x": null}], "map": {"k": {"x": 1}}})
        );
        assert!(!apply(&mut input, &schema));
    }

    #[test]
    fn integral_floats_become_integers_and_others_stay() {
        let mut value = json!({"a": 3.0, "b": [-2.0, 1.5, 7], "c": 1e300, "d": -0.0});
        assert!(super::integral_floats_as_integers(&mut value));
        assert_eq!(
            value,
            json!({"a": 3, "b": [-2, 1.5, 7], "c": 1e300, "d": 0})
        );
        assert!(!super::integral_floats_as_integers(&mut value));
    }

    #[test]
    fn null_acceptance_reads_types_enums_and_branches() {
        let root = json!({});
        for (schema, accepts) in [
            (json!({"type": "string"}), false),
            (json!({"type": ["string", "null"]}), true),
            (json!({"enum": ["a", null]}), true),
            (json!({"enum": ["a"]}), false),
            (
                json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
                true,
            ),
            (
                json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
                false,
            ),
            (json!({}), true),
            (json!(true), true),
            (json!(false), false),
        ] {
            assert_eq!(accepts_null(&schema, &root, 0), accepts, "{schema}");
        }
    }
}
