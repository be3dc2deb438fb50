//! The one input validator of every tool: the input policy ([`super::policy`]), then the
//! tool's input schema with full JSON Schema 2020-12 semantics, every issue at once with its
//! path, in SPEC §5.4 step 3's structure.
//!
//! A plain object schema (only `type`, `properties`, `required`, a boolean
//! `additionalProperties`, `items`, and annotations such as `description`) is checked by the
//! allocation-free [`SchemaCheck`]; any other schema (enums, consts, bounds, formats, map
//! patterns, `anyOf`/`oneOf`/`allOf`, `prefixItems`, `$ref`) by the schema compiled by the
//! registered JSON Schema engine ([`super::engine`]; `tool-registry` registers one). Each is
//! built on first use, so listing a tool builds neither. Both answer the same questions for
//! the schemas they take.

use std::sync::OnceLock;

use serde_json::Value;

use super::check::SchemaCheck;
use super::engine::{self, CompiledSchema};
use super::issues::{InputError, InputIssue, json_type};
use super::policy;
use crate::tool::ToolInput;

/// How an input schema is checked: see the module docs.
#[derive(Debug)]
pub struct InputValidator {
    schema: Value,
    /// Whether the schema is plain: checked by [`SchemaCheck`], built on the first check.
    is_plain: bool,
    plain_check: OnceLock<SchemaCheck>,
    /// A native tool's schema: `format` is asserted (the type's own reading refuses a
    /// malformed date or UUID too; imported tools: no, as JSON Schema's default), and an
    /// accepted input is handed over with integral floats as integers (policy rule 3).
    native: bool,
    /// Whether the opt-in coercion mode ([`super::coerce`]) corrects a refused input.
    coerce: bool,
    full: OnceLock<Result<Box<dyn CompiledSchema>, String>>,
}

impl InputValidator {
    /// The validator of a native (`#[tool]` or `T: Tool`) input schema: plain schemas take the
    /// fast path, `format` is asserted.
    pub fn native(schema: Value) -> Self {
        Self {
            is_plain: is_plain(&schema),
            plain_check: OnceLock::new(),
            schema,
            native: true,
            coerce: false,
            full: OnceLock::new(),
        }
    }

    /// The validator of an imported schema (MCP, JSON-defined tools): always the JSON Schema
    /// engine's, with the draft named by `$schema` (2020-12 when absent), `format` not
    /// asserted, remote `$ref`s not fetched (such a schema refuses every input, saying why).
    pub fn imported(schema: Value) -> Self {
        Self {
            schema,
            is_plain: false,
            plain_check: OnceLock::new(),
            native: false,
            coerce: false,
            full: OnceLock::new(),
        }
    }

    /// [`InputValidator::imported`] with the schema compiled already
    /// ([`InputValidator::compile`]).
    pub fn imported_compiled(schema: Value, compiled: Box<dyn CompiledSchema>) -> Self {
        let full = OnceLock::new();
        let _ = full.set(Ok(compiled));
        Self {
            full,
            ..Self::imported(schema)
        }
    }

    /// The same validator with the coercion mode on: a refused input is corrected where the
    /// mistake is unambiguous ([`super::coerce`]), each correction traced, and checked again.
    #[must_use]
    pub fn with_coercion(mut self) -> Self {
        self.coerce = true;
        self
    }

    /// The schema this validator checks against.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Compiles `schema` with the registered JSON Schema engine ([`SchemaEngine`]), `format`
    /// asserted when `formats` is true (as for a native tool's schema), as
    /// [`InputValidator::imported`] does with `false`.
    ///
    /// # Errors
    /// The engine's message when `schema` is not a usable JSON Schema, or that no engine is
    /// linked.
    ///
    /// [`SchemaEngine`]: super::SchemaEngine
    pub fn compile(schema: &Value, formats: bool) -> Result<Box<dyn CompiledSchema>, String> {
        engine::compile(schema, formats)
    }

    /// Parses `input` into `T` as a tool call reads it (SPEC §5.4 step 3): read under the
    /// input policy, checked against this validator's schema, then read by `T`'s
    /// deserializer, every issue reported with its path. `T`'s own schema is expected to be the
    /// one this validator checks (`InputValidator::native(input_schema_for::<T>())`): the check
    /// reports what the schema refuses, the deserializer what the type refuses. `input` is
    /// copied only when the policy or coercion has to change it.
    ///
    /// # Errors
    /// An [`InputError`] listing the issues.
    pub fn parse<T: ToolInput>(&self, input: &Value) -> Result<T, InputError> {
        super::parse::<T>(input, self)
    }

    fn full(&self) -> Result<&dyn CompiledSchema, InputError> {
        match self
            .full
            .get_or_init(|| Self::compile(&self.schema, self.native))
        {
            Ok(validator) => Ok(validator.as_ref()),
            Err(message) => Err(InputError::new(vec![InputIssue::Other {
                path: String::new(),
                message: format!("the tool's input schema cannot be used: {message}"),
            }])),
        }
    }

    /// Whether `input` passes the schema as it is (no policy, no coercion): the plain check
    /// when the schema is plain, the JSON Schema engine's compiled schema otherwise.
    ///
    /// # Errors
    /// When the schema cannot be compiled (see [`InputValidator::compile`]).
    #[inline]
    fn passes(&self, input: &Value) -> Result<bool, InputError> {
        match self.plain() {
            Some(check) => Ok(input.is_object() && check.passes(input)),
            None => self.passes_full(input),
        }
    }

    /// [`InputValidator::passes`] for a schema that is not plain; kept out of the plain path.
    #[inline(never)]
    fn passes_full(&self, input: &Value) -> Result<bool, InputError> {
        Ok(self.full()?.is_valid(input))
    }

    /// The plain check, when the schema is plain.
    #[inline]
    fn plain(&self) -> Option<&SchemaCheck> {
        if self.is_plain {
            Some(
                self.plain_check
                    .get_or_init(|| SchemaCheck::new(&self.schema)),
            )
        } else {
            None
        }
    }

    /// Checks `input` where it is: `input` itself when it passes as sent, otherwise the
    /// input as the policy and coercion repaired it, kept in `repaired` (SPEC §5.4 step 3).
    ///
    /// # Errors
    /// As [`InputValidator::validate`].
    pub(crate) fn checked<'a>(
        &self,
        input: &'a Value,
        repaired: &'a mut Option<Value>,
    ) -> Result<&'a Value, InputError> {
        if self.passes(input)? {
            return Ok(input);
        }
        let mut copy = input.clone();
        self.repair(&mut copy)?;
        Ok(repaired.insert(copy))
    }

    /// Whether the typed read of an input [`InputValidator::checked`] passed takes a float
    /// with no fractional part as the integer it equals: for a native tool's schema that the
    /// plain check cannot read (the JSON Schema engine takes `3.0` where the schema says
    /// `integer`; the plain check takes integers only).
    pub(crate) fn reads_integral_floats(&self) -> bool {
        self.native && !self.is_plain
    }

    /// Reads `input` under the input policy and checks it: the input as the tool will read it
    /// (`{}` for no input, refusable `null`s of optional properties removed), or every issue.
    ///
    /// # Errors
    /// An [`InputError`] listing every issue, each with its path (`todos[0].activeForm`).
    pub fn validate(&self, mut input: Value) -> Result<Value, InputError> {
        self.validate_in_place(&mut input).map(|()| input)
    }

    /// [`InputValidator::validate`] on `input` where it is: on `Ok`, `input` is the input as
    /// the tool will read it.
    ///
    /// # Errors
    /// As [`InputValidator::validate`]; `input` is then left as the policy and coercion made
    /// it (untouched when the schema itself cannot be used).
    pub(crate) fn validate_in_place(&self, input: &mut Value) -> Result<(), InputError> {
        if self.passes(input)? {
            // The plain check takes only integers where the schema says `integer`; the full
            // validator, as JSON Schema, also `3.0`, which the Rust type reads as `3`.
            if self.native && !self.is_plain {
                policy::integral_floats_as_integers(input);
            }
            return Ok(());
        }
        self.repair(input)
    }

    /// The input policy, then coercion when on, for an input the check refused: `Ok` when
    /// either makes it pass, otherwise every issue. Out of line, to keep the accepting path
    /// small; not cold: a model that sends `null` for optional parameters takes it on every
    /// call.
    #[inline(never)]
    fn repair(&self, input: &mut Value) -> Result<(), InputError> {
        if policy::apply(input, &self.schema) && self.passes(input)? {
            return Ok(());
        }
        if self.coerce
            && !super::coerce::coerce(input, &self.schema).is_empty()
            && self.passes(input)?
        {
            return Ok(());
        }
        Err(InputError::new(self.issues(input)?))
    }

    /// Every issue of an input [`InputValidator::passes`] refused.
    fn issues(&self, input: &Value) -> Result<Vec<InputIssue>, InputError> {
        if !input.is_object() && self.schema.get("type").and_then(Value::as_str) == Some("object") {
            return Ok(vec![InputIssue::TypeMismatch {
                path: "(input)".to_owned(),
                expected: "object".to_owned(),
                received: json_type(input).to_owned(),
            }]);
        }
        if let Some(check) = self.plain() {
            return Ok(check.check(input).err().unwrap_or_default());
        }
        let mut issues = self.full()?.issues(input, &self.schema);
        if issues.is_empty() {
            issues.push(InputIssue::Other {
                path: String::new(),
                message: "the input does not match the tool's input schema".to_owned(),
            });
        }
        Ok(issues)
    }
}

/// Keywords that never refuse a value.
const ANNOTATIONS: [&str; 9] = [
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
];

/// Whether `schema` uses only what [`SchemaCheck`] reads (see the module docs).
fn is_plain(schema: &Value) -> bool {
    let Value::Object(keywords) = schema else {
        return schema == &Value::Bool(true);
    };
    keywords
        .iter()
        .all(|(keyword, value)| match keyword.as_str() {
            "type" => {
                value.is_string()
                    || value
                        .as_array()
                        .is_some_and(|kinds| kinds.iter().all(Value::is_string))
            }
            "properties" => value
                .as_object()
                .is_some_and(|properties| properties.values().all(is_plain)),
            "required" => value.is_array(),
            "additionalProperties" => value.is_boolean(),
            "items" => value.is_object() && is_plain(value),
            other => ANNOTATIONS.contains(&other),
        })
}
