//! The issues an input can have and their wording for the model (SPEC §5.4 step 3, the
//! reference's `formatZodValidationError`): grouped as missing, then unexpected, then type
//! mismatches, one line each, with paths written like `todos[0].activeForm`.

use std::fmt;

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
        /// The keys the object at that place accepts, in schema order (empty when unknown);
        /// the message lists them and suggests the closest one.
        accepted: Vec<String>,
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
            Self::Unexpected { path, accepted } => {
                write!(f, "Parameter `{path}` is not part of the input schema")?;
                let key = path.rsplit('.').next().unwrap_or(path);
                if let Some(close) = did_you_mean(key, accepted) {
                    write!(f, "; did you mean `{close}`?")?;
                }
                if !accepted.is_empty() {
                    let list: Vec<String> =
                        accepted.iter().map(|name| format!("`{name}`")).collect();
                    write!(f, " (accepted: {})", list.join(", "))?;
                }
                Ok(())
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

/// The accepted key closest to `key` by edit distance (ignoring case), when it is close
/// enough to be a likely typo: at most a third of the key's length, and at least one edit.
fn did_you_mean<'a>(key: &str, accepted: &'a [String]) -> Option<&'a str> {
    let key = key.to_lowercase();
    let limit = (key.chars().count() / 3).max(1);
    accepted
        .iter()
        .map(|name| (edit_distance(&key, &name.to_lowercase()), name))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name.as_str())
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, a_char) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, b_char) in b.iter().enumerate() {
            let substitution = previous + usize::from(a_char != *b_char);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
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

/// `parent.field`, or `field` at the root (an empty parent, or serde's root path `.`).
pub(crate) fn join_path(parent: &str, field: &str) -> String {
    if parent.is_empty() || parent == "." {
        field.to_owned()
    } else {
        format!("{parent}.{field}")
    }
}
