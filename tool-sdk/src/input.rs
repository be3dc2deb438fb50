//! Parsing a `tool_use` input into a tool's typed input, with errors the model can act on.
//!
//! Mirrors the reference's `formatZodValidationError` (SPEC §5.4 step 3): issues are grouped
//! as missing, then unexpected, then type mismatches, one line each, with paths written like
//! `todos[0].activeForm`.

use std::collections::HashMap;
use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value;

/// One problem with a tool's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputIssue {
    /// A required parameter is absent.
    Missing {
        /// Path of the parameter, e.g. `todos[0].activeForm`.
        path: String,
    },
    /// A parameter the schema does not have.
    Unexpected {
        /// Path of the parameter.
        path: String,
    },
    /// A parameter of the wrong JSON type.
    TypeMismatch {
        /// Path of the parameter.
        path: String,
        /// The JSON type the schema asks for (`string`, `number`, `boolean`, `array`, `object`).
        expected: String,
        /// The JSON type that was sent.
        received: String,
    },
    /// Anything else (a bad enum value, an out-of-range number, ...).
    Other {
        /// Path of the parameter, empty for the whole input.
        path: String,
        /// What is wrong.
        message: String,
    },
}

/// Why an input could not be parsed: every issue found, in SPEC §5.4 order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    issues: Vec<InputIssue>,
}

impl InputError {
    /// An error made of `issues`, sorted into missing, unexpected, mismatched, other.
    pub fn new(mut issues: Vec<InputIssue>) -> Self {
        issues.sort_by_key(|issue| match issue {
            InputIssue::Missing { .. } => 0,
            InputIssue::Unexpected { .. } => 1,
            InputIssue::TypeMismatch { .. } => 2,
            InputIssue::Other { .. } => 3,
        });
        Self { issues }
    }

    /// The issues, in report order.
    pub fn issues(&self) -> &[InputIssue] {
        &self.issues
    }

    /// The message for the model, without the `<tool_use_error>` wrapper: a header naming the
    /// tool and saying "issue" or "issues", then one line per issue (SPEC §5.4 step 3).
    pub fn format_for(&self, tool_name: &str) -> String {
        let noun = if self.issues.len() == 1 {
            "issue"
        } else {
            "issues"
        };
        let mut text = format!("{tool_name} cannot run because of the following input {noun}:");
        for issue in &self.issues {
            text.push('\n');
            text.push_str(&issue.to_string());
        }
        text
    }
}

impl fmt::Display for InputError {
    /// The issues, one per line, without the header naming the tool.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, issue) in self.issues.iter().enumerate() {
            if index > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{issue}")?;
        }
        Ok(())
    }
}

impl std::error::Error for InputError {}

impl fmt::Display for InputIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Missing { path } => write!(f, "Required parameter `{path}` is missing"),
            Self::Unexpected { path } => {
                write!(f, "Parameter `{path}` is not part of the input schema")
            }
            Self::TypeMismatch {
                path,
                expected,
                received,
            } => write!(
                f,
                "Parameter `{path}` must be of type `{expected}`, but a value of type `{received}` was provided"
            ),
            Self::Other { path, message } if path.is_empty() => f.write_str(message),
            Self::Other { path, message } => write!(f, "Parameter `{path}`: {message}"),
        }
    }
}

/// Parses `input` into `T`.
///
/// First the input is checked against `schema` so that every issue is reported at once, not
/// only the first one serde meets: each object's `required` keys, unknown keys where the
/// schema says `"additionalProperties": false`, and the JSON `type` of each property, in
/// nested objects and array items too. Only when that finds nothing does serde decide (enum
/// values, number ranges and the like).
///
/// The check runs twice only on failure: a first pass answers yes or no without allocating,
/// and serde then reads the borrowed `&Value` (no copy of the input, no path tracking); the
/// issues, and the path of a serde error, are collected only when something is wrong. The
/// inputs accepted and the messages produced are those of the full check.
///
/// # Errors
/// An [`InputError`] listing the issues.
pub fn parse_input<T: DeserializeOwned>(input: Value, schema: &Value) -> Result<T, InputError> {
    parse_checked(&input, schema, |input| schema_accepts(input, schema))
}

/// [`parse_input`] with `check` built once from `schema` ([`SchemaCheck::new`]): the same
/// inputs accepted, the same issues and messages, without a hash lookup into the schema per
/// key.
pub(crate) fn parse_input_checked<T: DeserializeOwned>(
    input: &Value,
    schema: &Value,
    check: &SchemaCheck,
) -> Result<T, InputError> {
    parse_checked(input, schema, |input| check.accepts(input))
}

/// [`parse_input_checked`] taking the input by value: when the schema's properties are all
/// scalars whose every keyword `check` verifies ([`SchemaCheck`]'s `by_value`), an accepted
/// object is read by moving each property's value into `T` ([`TakingObject`]), so strings are
/// not copied. A refusal there can come only from a hand-written `Deserialize` (a
/// `deserialize_with`, a `try_from`) and is reported with the property it happened in, as the
/// borrowed path reports it. Every other input takes the borrowed path.
pub(crate) fn parse_input_owned<T: DeserializeOwned>(
    mut input: Value,
    schema: &Value,
    check: &SchemaCheck,
) -> Result<T, InputError> {
    if check.by_value
        && check.accepts(&input)
        && let Value::Object(map) = &mut input
    {
        let mut key = None;
        return T::deserialize(TakingObject { map, key: &mut key }).map_err(|error| {
            let path = key.unwrap_or_default();
            InputError::new(vec![classify(path, &error.to_string())])
        });
    }
    parse_input_checked(&input, schema, check)
}

/// A JSON object read as a map whose values are moved out as they are read (each left `null`),
/// while the keys stay in place, so that the key being read when an error happened is still
/// known: serde's by-value reading of a `Value` without losing the error's location.
struct TakingObject<'a, 'k> {
    map: &'a mut serde_json::Map<String, Value>,
    /// The key of the value being read.
    key: &'k mut Option<&'a str>,
}

impl<'de> serde::Deserializer<'de> for TakingObject<'de, '_> {
    type Error = serde_json::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let len = self.map.len();
        let mut entries = TakingEntries {
            entries: self.map.iter_mut(),
            value: None,
            key: self.key,
        };
        let value = visitor.visit_map(&mut entries)?;
        // As serde_json: a visitor that stops early has refused the rest of the object.
        if entries.entries.len() == 0 {
            Ok(value)
        } else {
            *entries.key = None;
            Err(serde::de::Error::invalid_length(
                len,
                &"fewer elements in map",
            ))
        }
    }

    /// An object is `Some` of itself, as serde_json reads it (a root `Option` inside a
    /// newtype or `#[serde(transparent)]` input).
    fn deserialize_option<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

struct TakingEntries<'a, 'k> {
    entries: serde_json::map::IterMut<'a>,
    value: Option<&'a mut Value>,
    key: &'k mut Option<&'a str>,
}

impl<'de> serde::de::MapAccess<'de> for TakingEntries<'de, '_> {
    type Error = serde_json::Error;

    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        // While a key itself is read (and after the last entry) an error belongs to the
        // object, not to a property.
        *self.key = None;
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        let key_value = seed.deserialize(serde::de::value::BorrowedStrDeserializer::new(key))?;
        *self.key = Some(key);
        Ok(Some(key_value))
    }

    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let value = self.value.take().map(std::mem::take).unwrap_or_default();
        seed.deserialize(value)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

fn parse_checked<T: DeserializeOwned>(
    input: &Value,
    schema: &Value,
    accepts: impl FnOnce(&Value) -> bool,
) -> Result<T, InputError> {
    if !input.is_object() {
        return Err(InputError::new(vec![InputIssue::TypeMismatch {
            path: "(input)".to_owned(),
            expected: "object".to_owned(),
            received: json_type(input).to_owned(),
        }]));
    }
    if !accepts(input) {
        let mut issues = Vec::new();
        schema_issues(input, schema, "", &mut issues);
        debug_assert!(
            !issues.is_empty(),
            "the quick schema check and schema_issues disagree"
        );
        return Err(InputError::new(issues));
    }
    match T::deserialize(input) {
        Ok(parsed) => Ok(parsed),
        // Serde refused what the schema allows: run it again with path tracking to say where.
        Err(_) => serde_path_to_error::deserialize::<_, T>(input).map_err(|error| {
            let path = error.path().to_string();
            InputError::new(vec![classify(&path, &error.inner().to_string())])
        }),
    }
}

/// The structural keywords of a schema (`type`, `required`, `properties`,
/// `"additionalProperties": false`, `items`), read once into a tree so that checking an input
/// compares keys instead of looking each keyword up by hash. Answers exactly as
/// [`schema_issues`] finding nothing.
#[derive(Debug, Clone, Default)]
pub(crate) struct SchemaCheck {
    /// Allowed JSON types as [`kind_bit`] bits; `None` when any value passes.
    types: Option<u8>,
    /// The `properties`, in schema order, each with whether `required` names it.
    properties: Vec<(Box<str>, bool, SchemaCheck)>,
    /// Positions in `properties` by name, for schemas with many properties.
    index: Option<HashMap<Box<str>, usize>>,
    /// How many entries of `properties` are required.
    required_properties: usize,
    /// Required names that `properties` does not list.
    required_elsewhere: Vec<Box<str>>,
    /// `"additionalProperties": false`.
    closed: bool,
    /// The `items` schema, when it is an object.
    items: Option<Box<SchemaCheck>>,
    /// `true` when this schema uses only keywords the check verifies (or annotations), and
    /// every property is such a schema for a scalar (string, number, boolean or null): an
    /// input it accepts leaves serde nothing to refuse but what a hand-written `Deserialize`
    /// adds, and such a refusal can only be about one top-level property, so the input can be
    /// read by value with the error still located exactly ([`parse_input_owned`]).
    by_value: bool,
    /// Only checked keywords and annotations here (not looking at subschemas).
    covered: bool,
}

/// The JSON types that nest: array and object.
const NESTING: u8 = (1 << 4) | (1 << 5);

/// Keywords that constrain nothing (annotations), or that [`SchemaCheck`] verifies itself.
const CHECKED_OR_ANNOTATION: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$schema",
    "$comment",
];

const INTEGER: u8 = 1 << 6;

/// Up to this many properties a key is found by comparing names; beyond, through a hash map.
const LINEAR_SCAN_MAX: usize = 16;

/// The bit of `value`'s JSON type; integers also carry [`INTEGER`].
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

/// The bits a `type` name allows; `None` for a name that is not a JSON type (any value passes,
/// as in [`type_name_matches`]).
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

impl SchemaCheck {
    /// Reads `schema`'s structural keywords.
    pub(crate) fn new(schema: &Value) -> Self {
        let Value::Object(keywords) = schema else {
            return Self::default();
        };
        let types = match keywords.get("type") {
            Some(Value::String(name)) => type_bits(name),
            Some(Value::Array(names)) => names
                .iter()
                .filter_map(Value::as_str)
                .map(type_bits)
                .try_fold(0, |bits, name| name.map(|name| bits | name)),
            _ => None,
        };
        let mut required: Vec<&str> = keywords
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        required.sort_unstable();
        required.dedup();
        let properties: Vec<(Box<str>, bool, SchemaCheck)> = keywords
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| {
                properties
                    .iter()
                    .map(|(name, property)| {
                        let is_required = required.binary_search(&name.as_str()).is_ok();
                        (name.as_str().into(), is_required, Self::new(property))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let required_properties = properties
            .iter()
            .filter(|(_, required, _)| *required)
            .count();
        let required_elsewhere = required
            .into_iter()
            .filter(|name| !properties.iter().any(|(property, ..)| &**property == *name))
            .map(Box::from)
            .collect();
        let index = (properties.len() > LINEAR_SCAN_MAX).then(|| {
            properties
                .iter()
                .enumerate()
                .map(|(position, (name, ..))| (name.clone(), position))
                .collect()
        });
        let items = keywords
            .get("items")
            .filter(|items| items.is_object())
            .map(|items| Box::new(Self::new(items)));
        let covered = keywords
            .iter()
            .all(|(keyword, value)| match keyword.as_str() {
                "type" => types.is_some(),
                "additionalProperties" => matches!(value, Value::Bool(_)),
                "items" => value.is_object(),
                // serde reads any JSON number into `f32`/`f64`.
                "format" => matches!(value.as_str(), Some("double" | "float")),
                keyword => CHECKED_OR_ANNOTATION.contains(&keyword),
            });
        let by_value = covered
            && properties.iter().all(|(.., property)| {
                property.covered
                    && property.types.is_some_and(|types| types & NESTING == 0)
                    && property.properties.is_empty()
                    && property.items.is_none()
            });
        Self {
            types,
            index,
            properties,
            required_properties,
            required_elsewhere,
            closed: keywords.get("additionalProperties") == Some(&Value::Bool(false)),
            items,
            by_value,
            covered,
        }
    }

    /// `true` when `value` has no structural issue.
    pub(crate) fn accepts(&self, value: &Value) -> bool {
        if let Some(types) = self.types
            && kind_bit(value) & types == 0
        {
            return false;
        }
        match value {
            Value::Object(map) => {
                let mut required_seen = 0;
                for (key, item) in map {
                    match self.property(key) {
                        Some((required, property)) => {
                            if !property.accepts(item) {
                                return false;
                            }
                            required_seen += usize::from(required);
                        }
                        None if self.closed => return false,
                        None => {}
                    }
                }
                required_seen == self.required_properties
                    && self
                        .required_elsewhere
                        .iter()
                        .all(|name| map.contains_key(&**name))
            }
            Value::Array(items) => match &self.items {
                Some(item) => items.iter().all(|value| item.accepts(value)),
                None => true,
            },
            _ => true,
        }
    }

    fn property(&self, key: &str) -> Option<(bool, &SchemaCheck)> {
        let found = match &self.index {
            Some(index) => index.get(key).map(|&position| &self.properties[position]),
            None => self.properties.iter().find(|(name, ..)| &**name == key),
        };
        found.map(|(_, required, check)| (*required, check))
    }
}

/// `true` when [`schema_issues`] would find nothing; the same rules, without building paths.
fn schema_accepts(value: &Value, schema: &Value) -> bool {
    let Value::Object(keywords) = schema else {
        return true;
    };
    if let Some(expected) = keywords.get("type")
        && !type_matches(value, expected)
    {
        return false;
    }
    match value {
        Value::Object(map) => {
            if let Some(required) = keywords.get("required").and_then(Value::as_array)
                && !required
                    .iter()
                    .filter_map(Value::as_str)
                    .all(|name| map.contains_key(name))
            {
                return false;
            }
            let properties = keywords.get("properties").and_then(Value::as_object);
            let closed = keywords.get("additionalProperties") == Some(&Value::Bool(false));
            map.iter().all(|(key, item)| {
                match properties.and_then(|properties| properties.get(key)) {
                    Some(property) => schema_accepts(item, property),
                    None => !closed,
                }
            })
        }
        Value::Array(items) => match keywords.get("items").filter(|items| items.is_object()) {
            Some(item_schema) => items.iter().all(|item| schema_accepts(item, item_schema)),
            None => true,
        },
        _ => true,
    }
}

/// Collects the issues of `value` against the structural keywords of `schema` (`type`,
/// `required`, `properties`, `additionalProperties: false`, `items`).
fn schema_issues(value: &Value, schema: &Value, path: &str, issues: &mut Vec<InputIssue>) {
    if let Some(expected) = schema.get("type")
        && !type_matches(value, expected)
    {
        issues.push(InputIssue::TypeMismatch {
            path: path.to_owned(),
            expected: type_names(expected),
            received: json_type(value).to_owned(),
        });
        return;
    }
    match value {
        Value::Object(map) => {
            if let Some(required) = schema.get("required").and_then(Value::as_array) {
                issues.extend(
                    required
                        .iter()
                        .filter_map(Value::as_str)
                        .filter(|name| !map.contains_key(*name))
                        .map(|name| InputIssue::Missing {
                            path: join_path(path, name),
                        }),
                );
            }
            let properties = schema.get("properties").and_then(Value::as_object);
            let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
            for (key, item) in map {
                match properties.and_then(|properties| properties.get(key)) {
                    Some(property) => schema_issues(item, property, &join_path(path, key), issues),
                    None if closed => issues.push(InputIssue::Unexpected {
                        path: join_path(path, key),
                    }),
                    None => {}
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").filter(|items| items.is_object()) {
                for (index, item) in items.iter().enumerate() {
                    schema_issues(item, item_schema, &format!("{path}[{index}]"), issues);
                }
            }
        }
        _ => {}
    }
}

fn type_matches(value: &Value, expected: &Value) -> bool {
    match expected {
        Value::String(name) => type_name_matches(value, name),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .any(|name| type_name_matches(value, name)),
        _ => true,
    }
}

fn type_name_matches(value: &Value, name: &str) -> bool {
    match (name, value) {
        // `3.0` is not an integer for serde either.
        ("integer", Value::Number(number)) => number.is_i64() || number.is_u64(),
        ("number", Value::Number(_))
        | ("string", Value::String(_))
        | ("boolean", Value::Bool(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_))
        | ("null", Value::Null) => true,
        (other, _) => !matches!(
            other,
            "integer" | "number" | "string" | "boolean" | "array" | "object" | "null"
        ),
    }
}

fn type_names(expected: &Value) -> String {
    match expected {
        Value::String(name) => name.clone(),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        other => other.to_string(),
    }
}

/// The JSON type name of a value, as the model sees types.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn join_path(parent: &str, field: &str) -> String {
    if parent.is_empty() || parent == "." {
        field.to_owned()
    } else {
        format!("{parent}.{field}")
    }
}

fn backticked(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let end = start + message[start..].find('`')?;
    Some(&message[start..end])
}

/// Turns a serde error at `path` into an issue.
fn classify(path: &str, message: &str) -> InputIssue {
    let path = if path == "." { "" } else { path };
    if let Some(rest) = message.strip_prefix("invalid value: ") {
        return InputIssue::Other {
            path: path.to_owned(),
            message: humanize_invalid_value(rest),
        };
    }
    if message.starts_with("missing field")
        && let Some(field) = backticked(message)
    {
        return InputIssue::Missing {
            path: join_path(path, field),
        };
    }
    if message.starts_with("unknown field")
        && let Some(field) = backticked(message)
    {
        return InputIssue::Unexpected {
            path: join_path(path, field),
        };
    }
    if let Some(rest) = message.strip_prefix("invalid type: ")
        && let Some((received, expected)) = rest.split_once(", expected ")
    {
        let expected = expected.split(" at line").next().unwrap_or(expected);
        return InputIssue::TypeMismatch {
            path: path.to_owned(),
            expected: serde_expected_to_json(expected).to_owned(),
            received: serde_received_to_json(received).to_owned(),
        };
    }
    InputIssue::Other {
        path: path.to_owned(),
        message: message.to_owned(),
    }
}

/// `integer `-1`, expected u32` → "got -1, but a non-negative integer that fits in 32 bits
/// is required": no Rust type names reach the model.
fn humanize_invalid_value(rest: &str) -> String {
    let (got, expected) = rest.split_once(", expected ").unwrap_or((rest, ""));
    let got = got.split('`').nth(1).unwrap_or(got);
    let expected = match expected.trim() {
        "u8" => "a whole number from 0 to 255".to_owned(),
        "u16" => "a whole number from 0 to 65535".to_owned(),
        "u32" => "a whole number from 0 to 4294967295".to_owned(),
        "u64" | "usize" | "u128" => "a whole number of at least 0".to_owned(),
        "i8" => "a whole number from -128 to 127".to_owned(),
        "i16" => "a whole number from -32768 to 32767".to_owned(),
        "i32" => "a whole number from -2147483648 to 2147483647".to_owned(),
        "i64" | "isize" | "i128" => "a whole number".to_owned(),
        "" => return format!("the value {got} is not accepted"),
        other => other.to_owned(),
    };
    format!("got {got}, but {expected} is required")
}

fn serde_received_to_json(received: &str) -> &'static str {
    let head = received.split([' ', '`']).next().unwrap_or(received);
    match head {
        "string" | "character" => "string",
        "integer" | "floating" => "number",
        "boolean" => "boolean",
        "sequence" => "array",
        "map" => "object",
        "null" | "unit" => "null",
        _ => "unknown",
    }
}

fn serde_expected_to_json(expected: &str) -> &'static str {
    let lowered = expected.to_ascii_lowercase();
    let integer_words = [
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "integer",
    ];
    let number_words = ["f32", "f64", "number", "float"];
    if lowered.contains("string") || lowered.contains("char") || lowered.contains("path") {
        "string"
    } else if lowered.contains("bool") {
        "boolean"
    } else if integer_words.iter().any(|word| lowered.contains(word)) {
        "integer"
    } else if number_words.iter().any(|word| lowered.contains(word)) {
        "number"
    } else if lowered.contains("sequence") || lowered.contains("array") || lowered.contains("tuple")
    {
        "array"
    } else if lowered.contains("struct") || lowered.contains("map") {
        "object"
    } else {
        "unknown"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::input_schema_for;
    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Todo {
        content: String,
        #[serde(rename = "activeForm")]
        active_form: String,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Todos {
        todos: Vec<Todo>,
        limit: Option<u32>,
        ratio: Option<f64>,
    }

    fn parse(input: Value) -> Result<Todos, InputError> {
        parse_input::<Todos>(input, &input_schema_for::<Todos>())
    }

    #[test]
    fn nested_missing_field_has_a_json_path() {
        let error = parse(json!({"todos":[{"content":"x"}]})).unwrap_err();
        assert_eq!(
            error.issues(),
            [InputIssue::Missing {
                path: "todos[0].activeForm".into()
            }]
        );
    }

    #[test]
    fn every_issue_is_reported_in_order_missing_unexpected_mismatch() {
        let error = parse(json!({
            "todos": [{"content": 1}, {"activeForm": "y"}],
            "limit": 2.5,
            "ratio": "high",
            "extra": 1
        }))
        .unwrap_err();
        assert_eq!(
            error.format_for("TodoWrite"),
            "TodoWrite cannot run because of the following input issues:\n\
             Required parameter `todos[0].activeForm` is missing\n\
             Required parameter `todos[1].content` is missing\n\
             Parameter `extra` is not part of the input schema\n\
             Parameter `todos[0].content` must be of type `string`, but a value of type `number` was provided\n\
             Parameter `limit` must be of type `integer`, but a value of type `number` was provided\n\
             Parameter `ratio` must be of type `number`, but a value of type `string` was provided"
        );
    }

    #[test]
    fn out_of_range_numbers_are_explained_without_rust_types() {
        let error = parse(json!({"todos": [], "limit": -1})).unwrap_err();
        assert_eq!(
            error.format_for("T"),
            "T cannot run because of the following input issue:\n\
             Parameter `limit`: got -1, but a whole number from 0 to 4294967295 is required"
        );
    }

    #[test]
    fn a_non_object_input_is_a_mismatch() {
        let error = parse(json!([1])).unwrap_err();
        assert_eq!(
            error.format_for("T"),
            "T cannot run because of the following input issue:\n\
             Parameter `(input)` must be of type `object`, but a value of type `array` was provided"
        );
    }

    #[test]
    fn an_explicit_null_for_an_optional_field_is_a_type_mismatch() {
        // Serde alone would accept `null` for `Option<u32>`; the schema check still refuses it.
        let error = parse(json!({"todos": [], "limit": null})).unwrap_err();
        assert_eq!(
            error.format_for("T"),
            "T cannot run because of the following input issue:\n\
             Parameter `limit` must be of type `integer`, but a value of type `null` was provided"
        );
    }

    #[test]
    fn the_quick_check_agrees_with_the_full_walk() {
        let schema = input_schema_for::<Todos>();
        let inputs = [
            json!({"todos": []}),
            json!({"todos": [{"content": "a", "activeForm": "b"}], "limit": 3, "ratio": 0.5}),
            json!({"todos": [{"content": "a", "activeForm": "b", "extra": 1}]}),
            json!({"todos": [{"content": "a"}]}),
            json!({"todos": {}}),
            json!({"todos": [], "limit": 2.5}),
            json!({"todos": [], "limit": null}),
            json!({"todos": [], "other": true}),
            json!({}),
            json!({"todos": [1, "x", null]}),
        ];
        for input in inputs {
            let mut issues = Vec::new();
            schema_issues(&input, &schema, "", &mut issues);
            assert_eq!(
                schema_accepts(&input, &schema),
                issues.is_empty(),
                "{input} gave {issues:?}"
            );
            assert_eq!(
                SchemaCheck::new(&schema).accepts(&input),
                issues.is_empty(),
                "{input} gave {issues:?}"
            );
        }
    }

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Plain {
        pattern: String,
        path: Option<String>,
        hidden: Option<bool>,
        weight: Option<f64>,
    }

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[serde(transparent)]
    struct MaybePlain {
        inner: Option<Plain>,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        file: String,
        edits: Vec<Checked>,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Checked {
        other: String,
        #[serde(deserialize_with = "not_empty")]
        pattern: String,
    }

    fn not_empty<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text.is_empty() {
            return Err(serde::de::Error::custom("must not be empty"));
        }
        Ok(text)
    }

    #[test]
    fn only_flat_schemas_the_check_covers_are_read_by_value() {
        assert!(SchemaCheck::new(&input_schema_for::<Plain>()).by_value);
        assert!(SchemaCheck::new(&input_schema_for::<Checked>()).by_value);
        assert!(SchemaCheck::new(&input_schema_for::<MaybePlain>()).by_value);
        // An array property: a refusal inside it would need a path below the property.
        assert!(!SchemaCheck::new(&input_schema_for::<Nested>()).by_value);
        // `limit: Option<u32>` carries a format and a minimum that only serde checks.
        assert!(!SchemaCheck::new(&input_schema_for::<Todos>()).by_value);
        let with = |property: Value| {
            SchemaCheck::new(&json!({"type": "object", "properties": {"x": property}})).by_value
        };
        assert!(with(json!({"type": "number", "format": "double"})));
        assert!(with(
            json!({"type": ["string", "null"], "description": "d"})
        ));
        assert!(!with(json!({"type": "array", "items": {"type": "string"}})));
        assert!(!with(json!({"type": "object"})));
        assert!(!with(json!({"type": ["string", "object"]})));
        assert!(!with(json!({})));
        assert!(!with(json!({"enum": ["a", "b"]})));
        assert!(!with(
            json!({"type": "integer", "format": "uint8", "minimum": 0})
        ));
        assert!(!with(json!({"type": "string", "minLength": 1})));
        assert!(!with(json!({"$ref": "#/$defs/Other"})));
    }

    #[test]
    fn reading_by_value_agrees_with_reading_by_reference() {
        let schema = input_schema_for::<Plain>();
        let check = SchemaCheck::new(&schema);
        let inputs = [
            json!({"pattern": "*.rs"}),
            json!({"pattern": "*.rs", "path": "src", "hidden": true, "weight": 0.5}),
            json!({"pattern": "*.rs", "weight": 2, "path": null}),
            json!({"pattern": "*.rs", "extra": 1}),
            json!({"path": "src"}),
            json!({"pattern": 3, "hidden": "yes"}),
            json!([]),
        ];
        for input in inputs {
            let owned = parse_input_owned::<Plain>(input.clone(), &schema, &check);
            let borrowed = parse_input_checked::<Plain>(&input, &schema, &check);
            match (owned, borrowed) {
                (Ok(owned), Ok(borrowed)) => assert_eq!(owned, borrowed, "{input}"),
                (Err(owned), Err(borrowed)) => {
                    assert_eq!(owned.to_string(), borrowed.to_string(), "{input}");
                }
                (owned, borrowed) => panic!("{input}: {owned:?} against {borrowed:?}"),
            }
        }
    }

    #[test]
    fn a_root_option_inside_a_transparent_input_is_read_by_value_as_serde_json_reads_it() {
        let schema = input_schema_for::<MaybePlain>();
        let check = SchemaCheck::new(&schema);
        let input = json!({"pattern": "*.rs", "hidden": false});
        let owned = parse_input_owned::<MaybePlain>(input.clone(), &schema, &check).unwrap();
        assert_eq!(owned, parse_input_checked(&input, &schema, &check).unwrap());
        assert_eq!(owned.inner.unwrap().hidden, Some(false));
    }

    #[test]
    fn a_refusal_inside_an_array_keeps_its_full_path() {
        let schema = input_schema_for::<Nested>();
        let check = SchemaCheck::new(&schema);
        let edits = json!([{"other": "a", "pattern": "b"}, {"other": "c", "pattern": ""}]);
        let input = json!({"file": "f", "edits": edits});
        let error = parse_input_owned::<Nested>(input, &schema, &check).unwrap_err();
        assert_eq!(
            error.to_string(),
            "Parameter `edits[1].pattern`: must not be empty"
        );
    }

    /// Reads the first entry of an object and stops.
    #[derive(Debug)]
    struct FirstOnly;

    impl<'de> Deserialize<'de> for FirstOnly {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Visitor;
            impl<'de> serde::de::Visitor<'de> for Visitor {
                type Value = FirstOnly;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<FirstOnly, A::Error> {
                    map.next_entry::<String, String>()?;
                    Ok(FirstOnly)
                }
            }
            deserializer.deserialize_map(Visitor)
        }
    }

    #[test]
    fn a_visitor_that_stops_early_is_refused_as_serde_json_refuses_it() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}}
        });
        let check = SchemaCheck::new(&schema);
        assert!(check.by_value);
        let input = json!({"a": "x", "b": "y"});
        let owned = parse_input_owned::<FirstOnly>(input.clone(), &schema, &check).unwrap_err();
        let borrowed = parse_input_checked::<FirstOnly>(&input, &schema, &check).unwrap_err();
        assert_eq!(owned.to_string(), borrowed.to_string());
        assert!(parse_input_owned::<FirstOnly>(json!({"a": "x"}), &schema, &check).is_ok());
    }

    #[test]
    fn a_refusal_while_reading_by_value_names_its_property() {
        let schema = input_schema_for::<Checked>();
        let check = SchemaCheck::new(&schema);
        let input = json!({"other": "x", "pattern": ""});
        let owned = parse_input_owned::<Checked>(input.clone(), &schema, &check).unwrap_err();
        let borrowed = parse_input_checked::<Checked>(&input, &schema, &check).unwrap_err();
        assert_eq!(owned.to_string(), "Parameter `pattern`: must not be empty");
        assert_eq!(owned.to_string(), borrowed.to_string());
    }

    #[test]
    fn a_valid_input_parses() {
        let parsed =
            parse(json!({"todos": [{"content": "a", "activeForm": "b"}], "limit": 3})).unwrap();
        assert_eq!(parsed.limit, Some(3));
    }
}
