//! Parsing a `tool_use` input into a tool's typed input, with errors the model can act on.
//!
//! Mirrors the reference's `formatZodValidationError` (SPEC §5.4 step 3): issues are grouped
//! as missing, then unexpected, then type mismatches, one line each, with paths written like
//! `todos[0].activeForm`.

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::schema::root_property_names;

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

/// Parses `input` into `T`. Unknown top-level keys (not in `schema`'s properties) are
/// reported first, then what serde rejects.
///
/// # Errors
/// An [`InputError`] listing the issues.
pub fn parse_input<T: DeserializeOwned>(input: Value, schema: &Value) -> Result<T, InputError> {
    let mut issues = Vec::new();
    match &input {
        Value::Object(map) => {
            let known: Vec<&str> = root_property_names(schema).collect();
            let strict = schema.get("additionalProperties") == Some(&Value::Bool(false));
            if strict {
                issues.extend(
                    map.keys()
                        .filter(|key| !known.contains(&key.as_str()))
                        .map(|key| InputIssue::Unexpected { path: key.clone() }),
                );
            }
        }
        other => {
            return Err(InputError::new(vec![InputIssue::TypeMismatch {
                path: "(input)".to_owned(),
                expected: "object".to_owned(),
                received: json_type(other).to_owned(),
            }]));
        }
    }
    match serde_path_to_error::deserialize::<_, T>(input) {
        Ok(parsed) if issues.is_empty() => Ok(parsed),
        Ok(_) => Err(InputError::new(issues)),
        Err(error) => {
            let path = error.path().to_string();
            let issue = classify(&path, &error.inner().to_string());
            if !issues.contains(&issue) {
                issues.push(issue);
            }
            Err(InputError::new(issues))
        }
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
    let number_words = [
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "f32", "f64", "integer", "number", "float",
    ];
    if lowered.contains("string") || lowered.contains("char") || lowered.contains("path") {
        "string"
    } else if lowered.contains("bool") {
        "boolean"
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
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Todo {
        content: String,
        #[serde(rename = "activeForm")]
        active_form: String,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Todos {
        todos: Vec<Todo>,
        limit: Option<u32>,
    }

    fn schema() -> Value {
        json!({"type":"object","properties":{"todos":{},"limit":{}},"additionalProperties":false})
    }

    #[test]
    fn nested_missing_field_has_a_json_path() {
        let error =
            parse_input::<Todos>(json!({"todos":[{"content":"x"}]}), &schema()).unwrap_err();
        assert_eq!(
            error.issues(),
            [InputIssue::Missing {
                path: "todos[0].activeForm".into()
            }]
        );
    }

    #[test]
    fn unexpected_comes_before_a_mismatch_and_says_issues() {
        let error = parse_input::<Todos>(json!({"todos":[], "limit":"3", "extra":1}), &schema())
            .unwrap_err();
        assert_eq!(
            error.format_for("TodoWrite"),
            "TodoWrite cannot run because of the following input issues:\n\
             Parameter `extra` is not part of the input schema\n\
             Parameter `limit` must be of type `number`, but a value of type `string` was provided"
        );
    }

    #[test]
    fn a_non_object_input_is_a_mismatch() {
        let error = parse_input::<Todos>(json!([1]), &schema()).unwrap_err();
        assert_eq!(
            error.format_for("T"),
            "T cannot run because of the following input issue:\n\
             Parameter `(input)` must be of type `object`, but a value of type `array` was provided"
        );
    }
}
