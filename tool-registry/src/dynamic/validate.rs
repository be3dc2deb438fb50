//! Checking a JSON input against a raw JSON Schema (the input of MCP and JSON-defined tools),
//! with the same issue kinds as typed tools (SPEC §5.4 step 3).

use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::{Location, LocationSegment};
use serde_json::Value;
use tool_sdk::input::json_type;
use tool_sdk::{InputError, InputIssue};

/// A compiled JSON Schema for one tool's input, built on first use and kept.
///
/// The draft comes from the schema's `$schema` (draft 4, 6, 7, 2019-09, 2020-12), 2020-12 when
/// absent. `format` is not asserted. Remote `$ref`s are not fetched: such a schema fails to
/// compile and every input is refused with an issue saying so.
#[derive(Debug, Default)]
pub struct SchemaValidator {
    compiled: OnceLock<Result<jsonschema::Validator, String>>,
}

impl SchemaValidator {
    /// A validator that compiles its schema on first use.
    pub fn new() -> Self {
        Self::default()
    }

    /// A validator that already holds `compiled`.
    pub fn with_compiled(compiled: jsonschema::Validator) -> Self {
        let cell = OnceLock::new();
        let _ = cell.set(Ok(compiled));
        Self { compiled: cell }
    }

    /// Compiles `schema` now.
    ///
    /// # Errors
    /// The compiler's message when the schema is not a usable JSON Schema.
    pub fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
        jsonschema::options()
            .should_validate_formats(false)
            .build(schema)
            .map_err(|error| error.to_string())
    }

    /// Checks `input` against `schema` (the same schema on every call).
    ///
    /// # Errors
    /// [`InputError`] with one issue per problem: a missing required property (`Missing`), a
    /// property refused by `additionalProperties` (`Unexpected`), a wrong JSON type
    /// (`TypeMismatch`), anything else (`Other`); paths are written like `todos[0].activeForm`.
    pub fn check(&self, schema: &Value, input: &Value) -> Result<(), InputError> {
        let compiled = self.compiled.get_or_init(|| Self::compile(schema));
        let validator = match compiled {
            Ok(validator) => validator,
            Err(message) => {
                return Err(InputError::new(vec![InputIssue::Other {
                    path: String::new(),
                    message: format!("the tool's input schema cannot be used: {message}"),
                }]));
            }
        };
        let mut issues: Vec<InputIssue> = Vec::new();
        for error in validator.iter_errors(input) {
            let issue = to_issue(
                error.instance_path(),
                error.kind(),
                error.instance(),
                &error.to_string(),
            );
            for issue in issue {
                if !issues.contains(&issue) {
                    issues.push(issue);
                }
            }
        }
        if issues.is_empty() {
            Ok(())
        } else {
            Err(InputError::new(issues))
        }
    }
}

/// `todos[0].activeForm` from a JSON pointer location; `(input)` for the root.
pub(crate) fn dotted_path(location: &Location) -> String {
    let mut path = String::new();
    for segment in location.iter() {
        match segment {
            LocationSegment::Property(name) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&name);
            }
            LocationSegment::Index(index) => {
                path.push('[');
                path.push_str(&index.to_string());
                path.push(']');
            }
        }
    }
    path
}

fn join(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_owned()
    } else {
        format!("{parent}.{child}")
    }
}

fn type_names(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(kind) => kind.to_string(),
        TypeKind::Multiple(kinds) => kinds
            .iter()
            .map(|kind| kind.to_string())
            .collect::<Vec<_>>()
            .join(" or "),
    }
}

fn to_issue(
    location: &Location,
    kind: &ValidationErrorKind,
    instance: &Value,
    message: &str,
) -> Vec<InputIssue> {
    let path = dotted_path(location);
    match kind {
        ValidationErrorKind::Required { property } => vec![InputIssue::Missing {
            path: join(&path, property.as_str().unwrap_or_default()),
        }],
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => unexpected
            .iter()
            .map(|name| InputIssue::Unexpected {
                path: join(&path, name),
            })
            .collect(),
        ValidationErrorKind::Type { kind } => vec![InputIssue::TypeMismatch {
            path: if path.is_empty() {
                "(input)".to_owned()
            } else {
                path
            },
            expected: type_names(kind),
            received: json_type(instance).to_owned(),
        }],
        _ => vec![InputIssue::Other {
            path,
            message: message.to_owned(),
        }],
    }
}
