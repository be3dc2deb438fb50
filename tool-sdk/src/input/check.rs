//! The schema check: the structural keywords of an input schema (`type`, `required`,
//! `properties`, `"additionalProperties": false` unless `patternProperties` is given,
//! `items`), read once into a tree, and one walk over an input that either answers yes or no
//! (stopping at the first issue, building no path) or lists every issue with its path. Both
//! answers come from the same rules.
//!
//! The interface is [`SchemaCheck::new`], [`SchemaCheck::passes`] and [`SchemaCheck::check`];
//! nothing else of this module is seen by the rest of the crate.

use std::collections::HashMap;

use serde_json::Value;

use super::issues::{InputIssue, join_path, json_type};

/// The structural keywords of one schema, nested for its properties and items.
#[derive(Debug, Clone, Default)]
pub(crate) struct SchemaCheck {
    /// Allowed JSON types as [`kind_bit`] bits; `None` when any value passes (no `type`, or a
    /// `type` naming something that is not a JSON type).
    types: Option<u8>,
    /// The `type` keyword as the model is told it: `string`, or `string or null`.
    type_label: Box<str>,
    /// The `properties`, in schema order, each with whether `required` names it.
    properties: Vec<(Box<str>, bool, SchemaCheck)>,
    /// Positions in `properties` by name, for schemas with many properties.
    index: Option<HashMap<Box<str>, usize>>,
    /// The `required` names, in schema order, without repeats.
    required: Vec<Box<str>>,
    /// How many entries of `properties` are required.
    required_properties: usize,
    /// Whether some required name is not among `properties`.
    required_elsewhere: bool,
    /// `"additionalProperties": false` with no `patternProperties` (schemars writes those
    /// for maps keyed by numbers; keys are then left to serde, which names the object when it
    /// refuses one).
    closed: bool,
    /// The `items` schema, when it is an object.
    items: Option<Box<SchemaCheck>>,
}

const INTEGER: u8 = 1 << 6;

/// Up to this many properties a key is found by comparing names; beyond, through a hash map.
const LINEAR_SCAN_MAX: usize = 16;

/// The bit of `value`'s JSON type; integers also carry [`INTEGER`] (`3.0` is not an integer,
/// for serde either).
fn kind_bit(value: &Value) -> u8 {
    match value {
        Value::Null => 1,
        Value::Bool(_) => 1 << 1,
        Value::Number(number) if number.is_i64() || number.is_u64() => (1 << 2) | INTEGER,
        Value::Number(_) => 1 << 2,
        Value::String(_) => 1 << 3,
        Value::Array(_) => 1 << 4,
        Value::Object(_) => 1 << 5,
    }
}

/// `a == b`, without a call to `memcmp` for texts of up to 16 bytes (most property names): two
/// overlapping loads from each end compare every byte.
#[inline]
fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let len = a.len();
    if len != b.len() {
        return false;
    }
    let word = |bytes: &[u8], at: usize| u64::from_ne_bytes(bytes[at..at + 8].try_into().unwrap());
    let half = |bytes: &[u8], at: usize| u32::from_ne_bytes(bytes[at..at + 4].try_into().unwrap());
    match len {
        0 => true,
        1..4 => a[0] == b[0] && a[len / 2] == b[len / 2] && a[len - 1] == b[len - 1],
        4..8 => half(a, 0) == half(b, 0) && half(a, len - 4) == half(b, len - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, len - 8) == word(b, len - 8),
        _ => a == b,
    }
}

/// The bits a `type` name allows; `None` for a name that is not a JSON type.
fn type_bits(name: &str) -> Option<u8> {
    Some(match name {
        "null" => 1,
        "boolean" => 1 << 1,
        "number" => 1 << 2,
        "integer" => INTEGER,
        "string" => 1 << 3,
        "array" => 1 << 4,
        "object" => 1 << 5,
        _ => return None,
    })
}

/// Where issues go: nowhere (the walk only answers yes or no, stops at the first issue and
/// builds no path) or into a list, with the path of each. The walk is written once and
/// compiled for each sink, so answering carries no path or list code at all.
trait Sink {
    /// Whether issues are listed; when not, the walk stops at the first one.
    const LISTS: bool;
    /// Records the issue `issue` makes; a sink that does not list drops it without running
    /// `issue`.
    fn push(&mut self, issue: impl FnOnce() -> InputIssue);
}

/// The sink of a yes-or-no answer.
struct Answer;

impl Sink for Answer {
    const LISTS: bool = false;
    fn push(&mut self, _issue: impl FnOnce() -> InputIssue) {}
}

impl Sink for Vec<InputIssue> {
    const LISTS: bool = true;
    fn push(&mut self, issue: impl FnOnce() -> InputIssue) {
        Vec::push(self, issue());
    }
}

/// `join(path)` when `S` lists issues, otherwise empty (no allocation).
fn child_path<S: Sink>(path: &str, join: impl FnOnce(&str) -> String) -> String {
    if S::LISTS { join(path) } else { String::new() }
}

impl SchemaCheck {
    /// Reads `schema`'s structural keywords; every other keyword is left to serde.
    pub(crate) fn new(schema: &Value) -> Self {
        let Value::Object(keywords) = schema else {
            return Self::default();
        };
        let (types, type_label) = match keywords.get("type") {
            Some(Value::String(name)) => (type_bits(name), name.as_str().into()),
            Some(Value::Array(names)) => {
                let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
                let bits = names
                    .iter()
                    .map(|name| type_bits(name))
                    .try_fold(0, |bits, name| name.map(|name| bits | name));
                (bits, names.join(" or ").into())
            }
            Some(other) => (None, other.to_string().into()),
            None => (None, "".into()),
        };
        let mut required: Vec<Box<str>> = Vec::new();
        for name in keywords
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !required.iter().any(|seen| &**seen == name) {
                required.push(name.into());
            }
        }
        let properties: Vec<(Box<str>, bool, SchemaCheck)> = keywords
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(name, property)| {
                let is_required = required.iter().any(|required| **required == **name);
                (name.as_str().into(), is_required, Self::new(property))
            })
            .collect();
        let required_properties = properties
            .iter()
            .filter(|(_, required, _)| *required)
            .count();
        let index = (properties.len() > LINEAR_SCAN_MAX).then(|| {
            properties
                .iter()
                .enumerate()
                .map(|(position, (name, ..))| (name.clone(), position))
                .collect()
        });
        Self {
            types,
            type_label,
            index,
            required_elsewhere: required.len() > required_properties,
            required,
            properties,
            required_properties,
            closed: keywords.get("additionalProperties") == Some(&Value::Bool(false))
                && !keywords.contains_key("patternProperties"),
            items: keywords
                .get("items")
                .filter(|items| items.is_object())
                .map(|items| Box::new(Self::new(items))),
        }
    }

    /// Whether `value` has no structural issue; allocates nothing.
    pub(crate) fn passes(&self, value: &Value) -> bool {
        self.walk(value, "", &mut Answer)
    }

    /// Checks `value`: `Ok` when it has no structural issue, otherwise every issue, each with
    /// its path (`todos[0].activeForm`). Answering `Ok` allocates nothing.
    ///
    /// # Errors
    /// The issues found, in the order the walk meets them.
    pub(crate) fn check(&self, value: &Value) -> Result<(), Vec<InputIssue>> {
        if self.passes(value) {
            return Ok(());
        }
        let mut issues = Vec::new();
        self.walk(value, "", &mut issues);
        debug_assert!(!issues.is_empty(), "a refused input lists an issue");
        Err(issues)
    }

    /// The one implementation of the rules. Returns `true` when `value` passes; with
    /// [`Answer`] it returns at the first issue. Meant to be inlined into
    /// [`SchemaCheck::walk_object`], so that a property that is a plain value is checked
    /// without a call.
    #[inline]
    fn walk<S: Sink>(&self, value: &Value, path: &str, sink: &mut S) -> bool {
        if let Some(types) = self.types
            && kind_bit(value) & types == 0
        {
            sink.push(|| InputIssue::TypeMismatch {
                path: path.to_owned(),
                expected: self.type_label.to_string(),
                received: json_type(value).to_owned(),
            });
            return false;
        }
        match value {
            Value::Object(map) => self.walk_object(map, path, sink),
            Value::Array(items) => match &self.items {
                Some(item) => item.walk_items(items, path, sink),
                None => true,
            },
            _ => true,
        }
    }

    /// `items`, each against this (an `items`) schema.
    #[inline(never)]
    fn walk_items<S: Sink>(&self, items: &[Value], path: &str, sink: &mut S) -> bool {
        let mut passes = true;
        for (index, value) in items.iter().enumerate() {
            let item_path = child_path::<S>(path, |path| format!("{path}[{index}]"));
            passes &= self.walk(value, &item_path, sink);
            if !passes && !S::LISTS {
                return false;
            }
        }
        passes
    }

    /// The object `map` against this schema's `properties`, `required` and closedness, each
    /// property's value walked in turn; the rules of [`SchemaCheck::walk`] for an object.
    #[inline(never)]
    fn walk_object<S: Sink>(
        &self,
        map: &serde_json::Map<String, Value>,
        path: &str,
        sink: &mut S,
    ) -> bool {
        let mut passes = true;
        let mut required_seen = 0;
        for (key, item) in map {
            let item_path = child_path::<S>(path, |path| join_path(path, key));
            match self.property(key) {
                Some((required, property)) => {
                    required_seen += usize::from(required);
                    passes &= property.walk(item, &item_path, sink);
                }
                None if self.closed => {
                    sink.push(|| InputIssue::Unexpected {
                        path: item_path,
                        accepted: self
                            .properties
                            .iter()
                            .map(|(name, ..)| name.to_string())
                            .collect(),
                    });
                    passes = false;
                }
                None => {}
            }
            if !passes && !S::LISTS {
                return false;
            }
        }
        let all_required = required_seen == self.required_properties
            && (!self.required_elsewhere
                || self.required.iter().all(|name| map.contains_key(&**name)));
        if !all_required && S::LISTS {
            for name in self
                .required
                .iter()
                .filter(|name| !map.contains_key(&***name))
            {
                sink.push(|| InputIssue::Missing {
                    path: join_path(path, name),
                });
            }
        }
        passes && all_required
    }

    /// The property `key` names, with whether it is required.
    #[inline(always)]
    fn property(&self, key: &str) -> Option<(bool, &SchemaCheck)> {
        if let Some(index) = &self.index {
            return self
                .indexed_property(index, key)
                .map(|(_, required, check)| (*required, check));
        }
        // A loop rather than `Iterator::find`, which the optimiser leaves as a call.
        for (name, required, check) in &self.properties {
            if same_text(name, key) {
                return Some((*required, check));
            }
        }
        None
    }

    /// A property found through `index` (many properties); kept out of the usual path.
    #[inline(never)]
    fn indexed_property(
        &self,
        index: &HashMap<Box<str>, usize>,
        key: &str,
    ) -> Option<&(Box<str>, bool, SchemaCheck)> {
        index.get(key).map(|&position| &self.properties[position])
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Answer, SchemaCheck};

    #[test]
    fn same_text_agrees_with_equality() {
        // Every length around the word sizes, every byte changed in turn, and lengths apart.
        let base = "abcdefghijklmnopqrstuvwxyz";
        for len in 0..=20 {
            let a = &base[..len];
            assert!(super::same_text(a, a), "{a:?}");
            assert!(
                !super::same_text(a, &base[..len + 1]),
                "{a:?} and one more byte"
            );
            for at in 0..len {
                let mut changed = a.as_bytes().to_vec();
                changed[at] = b'_';
                let b = String::from_utf8(changed).unwrap();
                assert!(!super::same_text(a, &b), "{a:?} and {b:?}");
            }
        }
        for (a, b) in [("é", "è"), ("hé", "hè"), ("file_path", "file_path")] {
            assert_eq!(super::same_text(a, b), a == b, "{a:?} and {b:?}");
        }
    }

    #[test]
    fn answering_and_listing_agree() {
        let schema = json!({
            "type": "object",
            "properties": {
                "todos": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"content": {"type": "string"}, "n": {"type": ["integer", "null"]}},
                    "required": ["content"],
                    "additionalProperties": false
                }},
                "limit": {"type": "integer"},
                "ratio": {"type": "number"}
            },
            "required": ["todos", "elsewhere"],
            "additionalProperties": false
        });
        let check = SchemaCheck::new(&schema);
        let inputs = [
            json!({"todos": [], "elsewhere": 1}),
            json!({"todos": [{"content": "a", "n": null}], "limit": 3, "ratio": 0.5, "elsewhere": {}}),
            json!({"todos": [{"content": "a", "extra": 1}], "elsewhere": 1}),
            json!({"todos": [{"n": 2.5}], "elsewhere": 1}),
            json!({"todos": {}, "elsewhere": 1}),
            json!({"todos": [], "limit": 2.5, "elsewhere": 1}),
            json!({"todos": [], "limit": null, "elsewhere": 1}),
            json!({"todos": [], "other": true, "elsewhere": 1}),
            json!({"todos": []}),
            json!({}),
            json!({"todos": [1, "x", null], "elsewhere": 1}),
        ];
        for input in inputs {
            let mut issues = Vec::new();
            let listed = check.walk(&input, "", &mut issues);
            let answered = check.walk(&input, "", &mut Answer);
            assert_eq!(answered, listed, "{input}");
            assert_eq!(answered, issues.is_empty(), "{input} gave {issues:?}");
            assert_eq!(check.check(&input).err().unwrap_or_default(), issues);
        }
    }

    #[test]
    fn many_properties_are_found_like_few() {
        // Beyond `LINEAR_SCAN_MAX` properties a key is found through the hash index.
        for count in [3, super::LINEAR_SCAN_MAX + 1, 40] {
            let names: Vec<String> = (0..count).map(|i| format!("field_{i}")).collect();
            let properties: serde_json::Map<String, serde_json::Value> = names
                .iter()
                .map(|name| (name.clone(), json!({"type": "string"})))
                .collect();
            let schema = json!({
                "type": "object",
                "properties": properties,
                "required": [names[0], names[count - 1]],
                "additionalProperties": false
            });
            let check = SchemaCheck::new(&schema);
            let last = &names[count - 1];
            assert!(check.passes(&json!({"field_0": "a", last: "b"})), "{count}");
            let issues = check
                .check(&json!({"field_0": 1, "field_x": "c"}))
                .unwrap_err();
            let text: Vec<String> = issues.iter().map(ToString::to_string).collect();
            assert_eq!(text.len(), 3, "{count}: {text:?}");
            assert!(
                text[0].contains("`field_0` must be of type `string`"),
                "{text:?}"
            );
            assert!(text[1].contains("`field_x`"), "{text:?}");
            assert!(
                text[2].contains(&format!("`{last}` is missing")),
                "{text:?}"
            );
        }
    }

    #[test]
    fn issues_carry_paths_and_the_schema_type_words() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"type": "array", "items": {"type": ["string", "null"]}}},
            "required": ["a", "b"]
        });
        let issues = SchemaCheck::new(&schema)
            .check(&json!({"a": ["x", 1]}))
            .unwrap_err();
        let text: Vec<String> = issues.iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            [
                "Parameter `a[1]` must be of type `string or null`, but a value of type `number` was provided",
                "Required parameter `b` is missing",
            ]
        );
    }
}
