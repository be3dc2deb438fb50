//! The JSON Schema engine tool-registry registers for tool-sdk's input validator
//! (`tool_sdk::input::SchemaEngine`): every input schema its fast path cannot read (enums,
//! bounds, formats, `$ref`, `anyOf`/`oneOf`, imported schemas) is compiled by the `jsonschema`
//! crate, and each of its errors is told to the model in SPEC §5.4 step 3's structure: missing,
//! unexpected and mistyped properties at their dotted paths, anything else in our own sentence.
//! Registered with `inventory`, so any program that names tool-registry (and so links it)
//! validates with it.

use jsonschema::error::{TypeKind, ValidationError, ValidationErrorKind};
use jsonschema::paths::{Location, LocationSegment};
use serde_json::{Map, Value};
use tool_sdk::input::{CompiledSchema, InputIssue, SchemaEngine, json_type};

#[cfg(test)]
mod agreement;
#[cfg(test)]
mod tests;

inventory::submit!(SchemaEngine::new(compile));

/// `schema` compiled by `jsonschema`: the draft named by `$schema` (2020-12 when absent),
/// `format` asserted when `formats` is true, remote `$ref`s not fetched.
fn compile(schema: &Value, formats: bool) -> Result<Box<dyn CompiledSchema>, String> {
    jsonschema::options()
        .should_validate_formats(formats)
        .build(schema)
        .map(|validator| Box::new(Compiled(validator)) as Box<dyn CompiledSchema>)
        .map_err(|error| error.to_string())
}

/// One schema compiled by `jsonschema`.
#[derive(Debug)]
struct Compiled(jsonschema::Validator);

impl CompiledSchema for Compiled {
    fn is_valid(&self, input: &Value) -> bool {
        self.0.is_valid(input)
    }

    fn issues(&self, input: &Value, schema: &Value) -> Vec<InputIssue> {
        let mut issues = Vec::new();
        for error in self.0.iter_errors(input) {
            push_issues(&error, schema, &mut issues);
        }
        issues
    }
}

/// `parent.key`, or `key` at the root.
fn join_path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// The issues of one `jsonschema` error, added to `issues` without repeats.
fn push_issues(error: &ValidationError<'_>, root: &Value, issues: &mut Vec<InputIssue>) {
    let path = dotted_path(error.instance_path());
    let mut add = |issue: InputIssue| {
        if !issues.contains(&issue) {
            issues.push(issue);
        }
    };
    match error.kind() {
        ValidationErrorKind::Required { property } => add(InputIssue::Missing {
            path: join_path(&path, property.as_str().unwrap_or_default()),
        }),
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let accepted = accepted_keys(root, error.schema_path());
            for name in unexpected {
                add(InputIssue::Unexpected {
                    path: join_path(&path, name),
                    accepted: accepted.clone(),
                });
            }
        }
        ValidationErrorKind::Type { kind } => add(InputIssue::TypeMismatch {
            path: if path.is_empty() {
                "(input)".to_owned()
            } else {
                path
            },
            expected: type_names(kind),
            received: json_type(error.instance()).to_owned(),
        }),
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            match best_branch(context, error.instance_path()) {
                Some(branch) => {
                    for error in branch {
                        push_issues(error, root, issues);
                    }
                }
                None => add(InputIssue::Other {
                    path,
                    message: other_message(error, root),
                }),
            }
        }
        _ => add(InputIssue::Other {
            path,
            message: other_message(error, root),
        }),
    }
}

/// The branch of a failed `anyOf`/`oneOf` whose issues to report: the one the value came
/// closest to (right type at its own location, then fewest errors). `None` when every branch
/// refused the value itself (its type, or its value against a `const`: schemars writes an
/// enum whose variants are documented as one `const` branch each), where one line naming the
/// alternatives says more.
fn best_branch<'a>(
    context: &'a [Vec<ValidationError<'static>>],
    at: &Location,
) -> Option<&'a [ValidationError<'static>]> {
    let wrong_type = |branch: &[ValidationError<'_>]| {
        branch.len() == 1
            && matches!(
                branch[0].kind(),
                ValidationErrorKind::Type { .. } | ValidationErrorKind::Constant { .. }
            )
            && branch[0].instance_path() == at
    };
    context
        .iter()
        .filter(|branch| !branch.is_empty() && !wrong_type(branch))
        .min_by_key(|branch| branch.len())
        .map(Vec::as_slice)
}

/// Our sentence for an issue that is not missing, unexpected or mistyped.
fn other_message(error: &ValidationError<'_>, root: &Value) -> String {
    let value = error.instance();
    match error.kind() {
        ValidationErrorKind::Minimum { .. } | ValidationErrorKind::Maximum { .. } => {
            let schema = parent_schema(root, error.schema_path());
            format!("got {value}, but {} is required", number_range(schema))
        }
        ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
            match branch_constants(root, error.schema_path()) {
                // The sentence `enum` gets, for the same choice written as `const` branches.
                Some(constants) => format!("{value} is not one of {}", listed(&constants)),
                None => format!("{value} matches none of the accepted shapes"),
            }
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            format!("{value} matches more than one of the accepted shapes; send exactly one")
        }
        _ => error.to_string(),
    }
}

/// The values of an `anyOf`/`oneOf` (at `schema_path`) whose every branch is a `const`; `None`
/// when some branch is anything else.
fn branch_constants<'a>(root: &'a Value, schema_path: &Location) -> Option<Vec<&'a Value>> {
    let branches = root.pointer(schema_path.as_str())?.as_array()?;
    branches
        .iter()
        .map(|branch| branch.get("const"))
        .collect::<Option<Vec<_>>>()
        .filter(|constants| !constants.is_empty())
}

/// `"a"`, `"a" or "b"`, `"a", "b" or "c"`: as `jsonschema` lists an `enum`'s values.
fn listed(values: &[&Value]) -> String {
    let mut text = String::new();
    for (index, value) in values.iter().enumerate() {
        if index > 0 {
            text.push_str(if index + 1 == values.len() {
                " or "
            } else {
                ", "
            });
        }
        text.push_str(&value.to_string());
    }
    text
}

/// The schema holding the keyword at `schema_path` (the path minus its last step).
fn parent_schema<'a>(root: &'a Value, schema_path: &Location) -> Option<&'a Value> {
    let pointer = schema_path.as_str();
    root.pointer(pointer.rsplit_once('/').map_or("", |(parent, _)| parent))
}

/// `an integer from 1 to 100`, `a number of at least 0.5`: the bounds of a numeric schema.
fn number_range(schema: Option<&Value>) -> String {
    let keyword = |name: &str| schema.and_then(|schema| schema.get(name));
    let kind = if keyword("type").and_then(Value::as_str) == Some("integer") {
        "an integer"
    } else {
        "a number"
    };
    match (keyword("minimum"), keyword("maximum")) {
        (Some(min), Some(max)) => format!("{kind} from {min} to {max}"),
        (Some(min), None) => format!("{kind} of at least {min}"),
        (None, Some(max)) => format!("{kind} of at most {max}"),
        (None, None) => kind.to_owned(),
    }
}

/// The keys the object schema that refused a key accepts, for the did-you-mean hint: the
/// `properties` of the schema at `schema_path` minus its last step (`additionalProperties`).
fn accepted_keys(root: &Value, schema_path: &Location) -> Vec<String> {
    parent_schema(root, schema_path)
        .and_then(|schema| schema.get("properties"))
        .and_then(Value::as_object)
        .map(|properties: &Map<String, Value>| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// `todos[0].activeForm` from a JSON pointer location; empty for the root.
fn dotted_path(location: &Location) -> String {
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
