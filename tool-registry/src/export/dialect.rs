//! An input schema written in an older JSON Schema dialect, rewritten as 2020-12.
//!
//! Provider schemas carry no `$schema` ([`super::export_input_schema`]), so whoever reads them
//! reads 2020-12 (the default of the MCP 2025-11-25 schema rules and what providers
//! implement). A schema that declared draft-04, -06, -07 or 2019-09 would change meaning when
//! its `$schema` is dropped: a keyword its dialect does not define, which its validator
//! ignored, becomes an assertion (or a schema no 2020-12 validator compiles, such as a
//! `minContains` that is not a number), and the keywords 2020-12 renamed (`items` as an array,
//! `additionalItems`, `dependencies`, draft-04's boolean `exclusiveMaximum`) change meaning.
//! [`to_2020_12`] rewrites such a schema so that it accepts what it accepted in its own
//! dialect, which is also what the imported tool's own validator accepts.
//!
//! Limits: draft-03 is not recognised (it is read as 2020-12, as before); in 2019-09 a
//! `contains` beside `unevaluatedItems` did not count as evaluating items, and 2020-12 counts
//! it, so such a schema accepts more once exported; and a draft-04..07 root that is only a
//! `$ref` (its siblings ignored there) is exported, like any root without properties, as
//! `{"type":"object","properties":{}}`.

use serde_json::{Map, Value};
use tool_sdk::schema::for_each_subschema;

/// A dialect a `$schema` URI names; only those that differ from 2020-12 matter here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Dialect {
    Draft4,
    Draft6,
    Draft7,
    Draft2019,
}

/// The older dialect `schema`'s root `$schema` names, if it names one (`None` for 2020-12,
/// an unknown URI or no `$schema`: then the schema is read as 2020-12 already).
fn older_dialect(schema: &Map<String, Value>) -> Option<Dialect> {
    let uri = schema.get("$schema")?.as_str()?;
    if uri.contains("draft-04") {
        Some(Dialect::Draft4)
    } else if uri.contains("draft-06") {
        Some(Dialect::Draft6)
    } else if uri.contains("draft-07") {
        Some(Dialect::Draft7)
    } else if uri.contains("draft/2019-09") {
        Some(Dialect::Draft2019)
    } else {
        None
    }
}

/// Whether [`to_2020_12`] rewrites `schema` (its root names an older dialect).
#[cfg(feature = "mcp-server")]
pub(crate) fn is_older_dialect(schema: &Value) -> bool {
    schema.as_object().and_then(older_dialect).is_some()
}

/// Keywords 2020-12 reads that an older dialect may not define, each with the newest dialect
/// that does not define it (so every older one lacks it too); their validators ignore them.
const INTRODUCED_LATER: &[(&str, Dialect)] = &[
    ("prefixItems", Dialect::Draft2019),
    ("$dynamicRef", Dialect::Draft2019),
    ("$dynamicAnchor", Dialect::Draft2019),
    ("$anchor", Dialect::Draft7),
    ("dependentRequired", Dialect::Draft7),
    ("dependentSchemas", Dialect::Draft7),
    ("unevaluatedItems", Dialect::Draft7),
    ("unevaluatedProperties", Dialect::Draft7),
    ("minContains", Dialect::Draft7),
    ("maxContains", Dialect::Draft7),
    ("if", Dialect::Draft6),
    ("then", Dialect::Draft6),
    ("else", Dialect::Draft6),
    ("const", Dialect::Draft4),
    ("contains", Dialect::Draft4),
    ("propertyNames", Dialect::Draft4),
];

/// Keywords that keep their place beside a draft-04..07 `$ref`: the containers a reference
/// points into (`definitions`, `$defs`) and annotations, which assert nothing.
const KEPT_BESIDE_REF: &[&str] = &[
    "$schema",
    "$ref",
    "definitions",
    "$defs",
    "title",
    "description",
    "default",
    "examples",
    "$comment",
];

/// `schema` (a whole input schema, `$schema` included) rewritten as 2020-12 when its root
/// names an older dialect; unchanged otherwise. `$schema` itself is left for the caller.
///
/// In every subschema: keywords the dialect does not define are removed; a draft-04..07
/// plain-name identifier (`"$id": "#name"`, draft-04 `"id"`) becomes `"$anchor": "name"`;
/// 2019-09's `$recursiveRef` becomes a `$ref` (exact for one document); in draft-04..07,
/// keywords beside a `$ref` other than annotations and definitions are removed (those
/// dialects ignore them); an `items` array becomes `prefixItems` and `additionalItems`
/// becomes `items` (or goes, when `items` was one schema); `dependencies` becomes
/// `dependentRequired` (name lists) and `dependentSchemas` (schemas); draft-04's boolean
/// `exclusiveMaximum` / `exclusiveMinimum` become the numeric form. A `$ref` pointing
/// through a renamed keyword is renamed with it.
pub(crate) fn to_2020_12(schema: &mut Map<String, Value>) {
    if let Some(dialect) = older_dialect(schema) {
        let original = Value::Object(schema.clone());
        rewrite(schema, dialect);
        let mut root = Value::Object(std::mem::take(schema));
        for_each_subschema(&mut root, &mut |subschema| {
            if let Value::Object(subschema) = subschema {
                rewrite(subschema, dialect);
            }
        });
        if let Value::Object(root) = root {
            *schema = root;
        }
        for_each_ref(schema, &mut |reference| {
            if let Some(renamed) = renamed_pointer(&original, reference, dialect) {
                *reference = renamed;
            }
        });
    }
}

/// One schema node's rewrite (its subschemas are walked by the caller, after it).
fn rewrite(schema: &mut Map<String, Value>, dialect: Dialect) {
    let anchor = if dialect <= Dialect::Draft7 {
        fragment_anchor(schema, dialect)
    } else {
        None
    };
    for (keyword, newest_without) in INTRODUCED_LATER {
        if dialect <= *newest_without {
            schema.shift_remove(*keyword);
        }
    }
    if let Some(anchor) = anchor {
        schema.insert("$anchor".to_owned(), Value::String(anchor));
    }
    if dialect == Dialect::Draft2019 {
        // 2020-12 replaced these by `$dynamicRef`; for a schema that is one resource (all an
        // input schema is), a recursive reference is a plain one.
        schema.shift_remove("$recursiveAnchor");
        if let Some(reference) = schema.shift_remove("$recursiveRef") {
            if schema.contains_key("$ref") {
                let mut target = Map::new();
                target.insert("$ref".to_owned(), reference);
                match schema.get_mut("allOf") {
                    Some(Value::Array(branches)) => branches.push(Value::Object(target)),
                    _ => {
                        schema.insert(
                            "allOf".to_owned(),
                            Value::Array(vec![Value::Object(target)]),
                        );
                    }
                }
            } else {
                schema.insert("$ref".to_owned(), reference);
            }
        }
    }
    if dialect <= Dialect::Draft7 && schema.contains_key("$ref") {
        schema.retain(|keyword, _| KEPT_BESIDE_REF.contains(&keyword.as_str()));
    }
    if dialect <= Dialect::Draft2019 {
        rewrite_items(schema);
    }
    if dialect <= Dialect::Draft7
        && let Some(Value::Object(dependencies)) = schema.shift_remove("dependencies")
    {
        let (mut required, mut schemas) = (Map::new(), Map::new());
        for (name, dependency) in dependencies {
            if dependency.is_array() {
                required.insert(name, dependency);
            } else {
                schemas.insert(name, dependency);
            }
        }
        if !required.is_empty() {
            schema.insert("dependentRequired".to_owned(), Value::Object(required));
        }
        if !schemas.is_empty() {
            schema.insert("dependentSchemas".to_owned(), Value::Object(schemas));
        }
    }
    if dialect == Dialect::Draft4 {
        for (bound, exclusive) in [
            ("maximum", "exclusiveMaximum"),
            ("minimum", "exclusiveMinimum"),
        ] {
            if let Some(Value::Bool(is_exclusive)) = schema.get(exclusive) {
                let is_exclusive = *is_exclusive;
                schema.shift_remove(exclusive);
                if is_exclusive && let Some(limit) = schema.shift_remove(bound) {
                    schema.insert(exclusive.to_owned(), limit);
                }
            }
        }
    }
}

/// Draft-04..2019-09 arrays: an `items` array lists positions (`prefixItems` in 2020-12) and
/// `additionalItems` is the rest (`items`); beside a single `items` schema, `additionalItems`
/// means nothing.
fn rewrite_items(schema: &mut Map<String, Value>) {
    let additional = schema.shift_remove("additionalItems");
    if let Some(Value::Array(positions)) = schema.get("items") {
        let positions = Value::Array(positions.clone());
        schema.shift_remove("items");
        schema.insert("prefixItems".to_owned(), positions);
        if let Some(rest) = additional {
            schema.insert("items".to_owned(), rest);
        }
    }
}

/// The anchor a draft-04..07 identifier names (`"id"` in draft-04, `"$id"` after), taken out
/// of the schema: `#name` is an anchor there, which 2020-12 spells `"$anchor": "name"` (and
/// refuses as a fragment of `$id`). A base URI before the fragment stays, as `$id`; draft-04's
/// `id` becomes `$id`.
fn fragment_anchor(schema: &mut Map<String, Value>, dialect: Dialect) -> Option<String> {
    let keyword = if dialect == Dialect::Draft4 {
        "id"
    } else {
        "$id"
    };
    let Some(Value::String(id)) = schema.shift_remove(keyword) else {
        return None;
    };
    let (base, fragment) = match id.split_once('#') {
        Some((base, fragment)) => (base.to_owned(), fragment.to_owned()),
        None => (id, String::new()),
    };
    if !base.is_empty() {
        schema.insert("$id".to_owned(), Value::String(base));
    }
    let is_name = fragment
        .chars()
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && fragment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    is_name.then_some(fragment)
}

/// Calls `visit` on the text of every `$ref` in `schema` that is a JSON pointer into the
/// document (`#/...`).
fn for_each_ref(schema: &mut Map<String, Value>, visit: &mut dyn FnMut(&mut String)) {
    for (keyword, value) in schema.iter_mut() {
        match value {
            Value::String(reference) if keyword == "$ref" && reference.starts_with("#/") => {
                visit(reference);
            }
            Value::Object(map) => for_each_ref(map, visit),
            Value::Array(items) => {
                for item in items {
                    if let Value::Object(map) = item {
                        for_each_ref(map, visit);
                    }
                }
            }
            _ => {}
        }
    }
}

/// `pointer` (`#/...`, into `original`) with the segments [`rewrite`] renamed, renamed: an
/// `items` array is `prefixItems`, the `additionalItems` beside it `items`, a `dependencies`
/// entry `dependentRequired` or `dependentSchemas`. `None` when nothing changes or the
/// pointer does not resolve in `original`.
fn renamed_pointer(original: &Value, pointer: &str, dialect: Dialect) -> Option<String> {
    let mut node = original;
    let mut renamed = String::from("#");
    let mut changed = false;
    let mut segments = pointer.strip_prefix('#')?.split('/').skip(1);
    while let Some(segment) = segments.next() {
        let key = segment.replace("~1", "/").replace("~0", "~");
        let items_array = node.get("items").is_some_and(Value::is_array);
        let mut push = |text: &str| {
            renamed.push('/');
            renamed.push_str(text);
        };
        match key.as_str() {
            "items" if items_array && dialect <= Dialect::Draft2019 => {
                push("prefixItems");
                changed = true;
            }
            "additionalItems" if items_array && dialect <= Dialect::Draft2019 => {
                push("items");
                changed = true;
            }
            "dependencies" if dialect <= Dialect::Draft7 => {
                let name = segments.next()?;
                let dependency = node
                    .get("dependencies")?
                    .get(name.replace("~1", "/").replace("~0", "~"))?;
                push(if dependency.is_array() {
                    "dependentRequired"
                } else {
                    "dependentSchemas"
                });
                push(name);
                changed = true;
                node = dependency;
                continue;
            }
            _ => push(segment),
        }
        node = match node {
            Value::Object(map) => map.get(&key)?,
            Value::Array(items) => items.get(key.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    changed.then_some(renamed)
}
