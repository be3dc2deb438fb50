//! The JSON Schema engine: what checks an input schema the fast path (the plain check) cannot read
//! ([`InputValidator`](super::InputValidator)'s module docs say which), with full JSON Schema
//! semantics, every issue at once with its path (SPEC §5.4 step 3). tool-sdk carries none, so
//! that a crate that only defines tools compiles none; `tool-registry`, which runs tools,
//! registers its engine (built on the `jsonschema` crate) with `inventory`.

use std::fmt;

use serde_json::Value;

use super::issues::InputIssue;

/// One input schema compiled by a [`SchemaEngine`]. `Debug`, as the validator that holds it is.
pub trait CompiledSchema: Send + Sync + fmt::Debug {
    /// Whether `input` passes the schema as it is (no input policy, no coercion: the
    /// validator applies those around this).
    fn is_valid(&self, input: &Value) -> bool;

    /// Every issue of an input [`CompiledSchema::is_valid`] refused, in SPEC §5.4 step 3's
    /// structure: missing, unexpected (with the keys the refusing object schema accepts) and
    /// mistyped properties at their dotted paths (`todos[0].activeForm`; a mistyped root is
    /// `(input)`), anything else as [`InputIssue::Other`] with a sentence the model can act on
    /// (an empty path for the root). `schema` is the schema this was compiled from. May be
    /// empty; the validator then reports one generic issue.
    fn issues(&self, input: &Value, schema: &Value) -> Vec<InputIssue>;
}

/// A JSON Schema engine, registered once per program with
/// `inventory::submit!(SchemaEngine::new(compile))` (`inventory = "0.3"` as a dependency of
/// the crate that registers it). `compile(schema, formats)` compiles one input schema: the
/// draft named by `$schema` (2020-12 when absent), `format` asserted when `formats` is true (a
/// native tool's schema) and an annotation otherwise (imported schemas, as JSON Schema's
/// default), remote `$ref`s not fetched; `Err` carries why a schema cannot be used.
///
/// Which schemas need one: every schema beyond the validator's fast path (JSON types,
/// `properties`, `required`, a boolean `additionalProperties`, `items` and annotations). So do
/// most Rust inputs: schemars writes a `format` for every integer and float field, a `minimum`
/// for unsigned ones, `enum` (or `oneOf` of `const`s, for documented variants) for enums, and
/// `$ref` for nested structs.
///
/// `tool-registry` registers one. A program links it by naming the crate (a dependency the
/// code never names is not linked): any use of `tool_registry`, or `use tool_registry as _;`
/// in a test or a program that dispatches tools by hand (`DynTool::dispatch`). Link exactly
/// one engine: with several, which one compiles a schema is unspecified (`inventory`'s order).
/// Without any, the mistake shows at run time, not at compile time: an input schema beyond the
/// fast path refuses every input, saying what to link.
///
/// An engine of one's own, in a program that links no other:
///
/// ```standalone_crate
/// use serde_json::{Value, json};
/// use tool_sdk::input::{CompiledSchema, InputIssue, InputValidator, SchemaEngine};
///
/// /// Accepts an empty object only: enough to show the shapes.
/// #[derive(Debug)]
/// struct EmptyOnly;
///
/// impl CompiledSchema for EmptyOnly {
///     fn is_valid(&self, input: &Value) -> bool {
///         input.as_object().is_some_and(|object| object.is_empty())
///     }
///     fn issues(&self, input: &Value, _schema: &Value) -> Vec<InputIssue> {
///         vec![InputIssue::Other {
///             path: String::new(),
///             message: format!("{input} is not empty"),
///         }]
///     }
/// }
///
/// fn compile(_schema: &Value, _formats: bool) -> Result<Box<dyn CompiledSchema>, String> {
///     Ok(Box::new(EmptyOnly))
/// }
///
/// inventory::submit!(SchemaEngine::new(compile));
///
/// // `enum` is beyond the fast path: the schema goes to the engine.
/// let validator = InputValidator::native(json!({"type": "object", "properties": {"mode": {"enum": ["a"]}}}));
/// assert!(validator.validate(json!({})).is_ok());
/// let error = validator.validate(json!({"mode": "a"})).unwrap_err();
/// assert_eq!(error.to_string(), r#"{"mode":"a"} is not empty"#);
/// ```
pub struct SchemaEngine {
    compile: CompileFn,
}

/// `compile(schema, formats)`: see [`SchemaEngine`].
type CompileFn = fn(&Value, bool) -> Result<Box<dyn CompiledSchema>, String>;

impl SchemaEngine {
    /// The engine that compiles schemas with `compile`.
    pub const fn new(compile: CompileFn) -> Self {
        Self { compile }
    }
}

inventory::collect!(SchemaEngine);

/// The message of a schema that needs an engine when none is linked.
const NO_ENGINE: &str = "it goes beyond tool-sdk's fast path (an integer's `format`, an \
    `enum`, a `$ref`...) and no JSON Schema engine is linked into this program: add \
    tool-registry to [dependencies] and write `use tool_registry as _;` (a dependency the code \
    never names is not linked), or register a `tool_sdk::input::SchemaEngine` of your own";

/// `schema` compiled by the registered engine.
///
/// # Errors
/// The engine's message when `schema` is not a usable JSON Schema; [`NO_ENGINE`] when no
/// engine is linked.
pub(crate) fn compile(schema: &Value, formats: bool) -> Result<Box<dyn CompiledSchema>, String> {
    match inventory::iter::<SchemaEngine>.into_iter().next() {
        Some(engine) => (engine.compile)(schema, formats),
        None => Err(NO_ENGINE.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::input::{InputIssue, InputValidator};

    /// This crate's own tests link no engine (tool-registry registers its engine for the
    /// tool-sdk it links, not for this test build): a schema beyond the fast path refuses every
    /// input, saying what to link, while a plain one is checked as ever.
    #[test]
    fn without_an_engine_a_schema_beyond_the_built_in_check_refuses_saying_what_to_link() {
        let enumerated = InputValidator::native(json!({
            "type": "object",
            "properties": {"mode": {"enum": ["fast", "slow"]}},
        }));
        let error = enumerated.validate(json!({"mode": "fast"})).unwrap_err();
        assert_eq!(
            error.issues(),
            [InputIssue::Other {
                path: String::new(),
                message: format!(
                    "the tool's input schema cannot be used: {}",
                    super::NO_ENGINE
                ),
            }]
        );
        assert!(
            error.to_string().contains("use tool_registry as _;"),
            "{error}"
        );

        let plain = InputValidator::native(json!({
            "type": "object",
            "properties": {"mode": {"type": "string"}},
        }));
        assert!(plain.validate(json!({"mode": "fast"})).is_ok());
    }
}
