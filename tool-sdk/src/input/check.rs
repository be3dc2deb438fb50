//! The schema check: the structural keywords of an input schema (`type`, `required`,
//! `properties`, `"additionalProperties": false` unless `patternProperties` is given, `items`), read once into a tree, and one
//! walk over an input that either answers yes or no (stopping at the first issue, building no
//! path) or lists every issue with its path. Both answers come from the same rules.
//!
//! The interface is [`SchemaCheck::new`] and [`SchemaCheck::check`]; nothing else of this
//! module is seen by the rest of the crate.

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

/// Where issues go: nowhere (the walk only answers yes or no, and stops at the first issue)
/// or into a list, with the path of each.
enum Sink<'a> {
    Answer,
    List(&'a mut Vec<InputIssue>),
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
        self.walk(value, "", &mut Sink::Answer)
    }

    /// Checks `value`: `Ok` when it has no structural issue, otherwise every issue, each with
    /// its path (`todos[0].activeForm`). Answering `Ok` allocates nothing.
    ///
    /// # Errors
    /// The issues found, in the order the walk meets them.
    pub(crate) fn check(&self, value: &Value) -> Result<(), Vec<InputIssue>> {
        if self.walk(value, "", &mut Sink::Answer) {
            return Ok(());
        }
        let mut issues = Vec::new();
        self.walk(value, "", &mut Sink::List(&mut issues));
        debug_assert!(!issues.is_empty(), "a refused input lists an issue");
        Err(issues)
    }

    /// The one implementation of the rules. Returns `true` when `value` passes; with
    /// [`Sink::Answer`] it returns at the first issue and never builds a path.
    fn walk(&self, value: &Value, path: &str, sink: &mut Sink<'_>) -> bool {
        if let Some(types) = self.types
            && kind_bit(value) & types == 0
        {
            if let Sink::List(issues) = sink {
                issues.push(InputIssue::TypeMismatch {
                    path: path.to_owned(),
                    expected: self.type_label.to_string(),
                    received: json_type(value).to_owned(),
                });
            }
            return false;
        }
        match value {
            Value::Object(map) => self.walk_object(map, path, sink),
            Value::Array(items) => match &self.items {
                Some(item) => {
                    let mut passes = true;
                    for (index, value) in items.iter().enumerate() {
                        let item_path = match sink {
                            Sink::Answer => String::new(),
                            Sink::List(_) => format!("{path}[{index}]"),
                        };
                        passes &= item.walk(value, &item_path, sink);
                        if !passes && matches!(sink, Sink::Answer) {
                            return false;
                        }
                    }
                    passes
                }
                None => true,
            },
            _ => true,
        }
    }

    fn walk_object(
        &self,
        map: &serde_json::Map<String, Value>,
        path: &str,
        sink: &mut Sink<'_>,
    ) -> bool {
        let mut passes = true;
        let mut required_seen = 0;
        for (key, item) in map {
            let item_path = match sink {
                Sink::Answer => String::new(),
                Sink::List(_) => join_path(path, key),
            };
            match self.property(key) {
                Some((required, property)) => {
                    required_seen += usize::from(required);
                    passes &= property.walk(item, &item_path, sink);
                }
                None if self.closed => {
                    if let Sink::List(issues) = sink {
                        issues.push(InputIssue::Unexpected {
                            path: item_path,
                            accepted: self
                                .properties
                                .iter()
                                .map(|(name, ..)| name.to_string())
                                .collect(),
                        });
                    }
                    passes = false;
                }
                None => {}
            }
            if !passes && matches!(sink, Sink::Answer) {
                return false;
            }
        }
        let all_required = required_seen == self.required_properties
            && (!self.required_elsewhere
                || self.required.iter().all(|name| map.contains_key(&**name)));
        if !all_required && let Sink::List(issues) = sink {
            issues.extend(
                self.required
                    .iter()
                    .filter(|name| !map.contains_key(&***name))
                    .map(|name| InputIssue::Missing {
                        path: join_path(path, name),
                    }),
            );
        }
        passes && all_required
    }

    fn property(&self, key: &str) -> Option<(bool, &SchemaCheck)> {
        let found = match &self.index {
            Some(index) => index.get(key).map(|&position| &self.properties[position]),
            None => self.properties.iter().find(|(name, ..)| &**name == key),
        };
        found.map(|(_, required, check)| (*required, check))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{SchemaCheck, Sink};

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
            let listed = check.walk(&input, "", &mut Sink::List(&mut issues));
            let answered = check.walk(&input, "", &mut Sink::Answer);
            assert_eq!(answered, listed, "{input}");
            assert_eq!(answered, issues.is_empty(), "{input} gave {issues:?}");
            assert_eq!(check.check(&input).err().unwrap_or_default(), issues);
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
