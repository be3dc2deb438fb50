//! [`ToolRegistration`]: the `const` value `#[tool]` submits to `inventory`, so a host collects
//! every linked tool at link time; [`dyn_tool`] builds one tool from its registration.
//!
//! # Three layers of conditional registration (SPEC §7)
//!
//! 1. **Compile time**: `#[cfg(...)]` on the `#[tool]` struct or fn removes the tool, its impls
//!    and its registration from the binary altogether.
//! 2. **Collection time**: `#[tool(enabled_if = path)]` names a `fn() -> bool` that the
//!    registry calls once, when it collects ([`ToolRegistration::is_registered`]);
//!    `#[tool(test_only)]` tools are collected only when the registry is told the host is a
//!    test environment, and `#[tool(opt_in)]` tools never: a host adds them itself.
//! 3. **Run time**: `Tool::is_enabled`, asked whenever a pool is assembled.
//!
//! # Linking
//!
//! Registrations live in the object code of the crate that defines the tools. A library crate
//! that the final binary never names is not linked at all, and its tools silently disappear
//! (the known pitfall of link-time registration). Name the crate once in the binary:
//!
//! ```text
//! use my_tools as _; // links my_tools, and with it every #[tool] it defines
//! ```

use std::any::TypeId;
use std::sync::Arc;

use serde_json::Value;

pub use crate::dyn_tool::DefinitionSite;
use crate::dyn_tool::DynTool;
use crate::erased::TypedTool;
use crate::tool::Tool;

/// One linked tool, as collected by `tool_registry::ToolRegistry`.
#[derive(Debug, Clone, Copy)]
pub struct ToolRegistration {
    /// The primary name.
    pub name: &'static str,
    /// Where the `#[tool]` attribute stands.
    pub site: DefinitionSite,
    /// Builds the erased tool.
    pub construct: fn(&ToolRegistration) -> Arc<dyn DynTool>,
    /// `#[tool(enabled_if = path)]`: asked once when a registry collects (SPEC §7).
    pub enabled_if: Option<fn() -> bool>,
    /// `#[tool(test_only)]`: collected only in a test environment.
    pub test_only: bool,
    /// `#[tool(opt_in)]`: never collected by `tool_registry::ToolRegistry::collect`; a host
    /// that wants the tool adds it itself (`tool_sdk::dyn_tool::<T>()`), as hosts add
    /// ToolSearch.
    pub opt_in: bool,
    /// The output schema: `Some` when `#[tool]` found `Output: JsonSchema`.
    pub output_schema: fn() -> Option<Value>,
    /// The tool's type (`TypeId::of::<T>`), by which [`dyn_tool()`] finds the registration
    /// of the tool it is given. Set by [`ToolRegistration::of`]; not for users, so that a
    /// registration's type and builder always agree.
    type_id: fn() -> TypeId,
}

impl ToolRegistration {
    /// The registration of `T`, defined at `site`: always registered, not test-only, no
    /// output schema.
    pub const fn of<T: Tool>(site: DefinitionSite) -> Self {
        Self {
            name: T::NAME,
            site,
            construct: construct::<T>,
            enabled_if: None,
            test_only: false,
            opt_in: false,
            output_schema: no_output_schema,
            type_id: TypeId::of::<T>,
        }
    }

    /// Registers the tool only when `predicate` returns `true` at collection.
    #[must_use]
    pub const fn enabled_if(mut self, predicate: fn() -> bool) -> Self {
        self.enabled_if = Some(predicate);
        self
    }

    /// Registers the tool only in a test environment.
    #[must_use]
    pub const fn test_only(mut self) -> Self {
        self.test_only = true;
        self
    }

    /// Leaves the tool out of collection: a host adds it on purpose.
    #[must_use]
    pub const fn opt_in(mut self) -> Self {
        self.opt_in = true;
        self
    }

    /// Sets the output schema.
    #[must_use]
    pub const fn output_schema(mut self, schema: fn() -> Option<Value>) -> Self {
        self.output_schema = schema;
        self
    }

    /// Whether a registry should collect this tool: `test_only` tools only when
    /// `test_environment`, and then only if the `enabled_if` predicate (when any) says yes. The
    /// predicate is called at most once per call of this method.
    pub fn is_registered(&self, test_environment: bool) -> bool {
        if self.test_only && !test_environment {
            return false;
        }
        self.enabled_if.is_none_or(|predicate| predicate())
    }

    /// Builds the erased tool.
    pub fn build(&self) -> Arc<dyn DynTool> {
        (self.construct)(self)
    }
}

fn construct<T: Tool>(registration: &ToolRegistration) -> Arc<dyn DynTool> {
    Arc::new(
        TypedTool::of::<T>(Some(registration.site)).with_output_schema(registration.output_schema),
    )
}

fn no_output_schema() -> Option<Value> {
    None
}

inventory::collect!(ToolRegistration);

/// Every registration linked into this binary, in no particular order.
pub fn registrations() -> impl Iterator<Item = &'static ToolRegistration> {
    inventory::iter::<ToolRegistration>.into_iter()
}

/// The erased, shareable form of `T`, as a registry stores it: `Arc<dyn DynTool>`.
///
/// A `#[tool]` is built from its registration, so it is the tool `ToolRegistry::collect`
/// gives, output schema (of an `Output` that implements `JsonSchema`) and definition site
/// included, whether or not a registry collects it (`opt_in`, `test_only`, `enabled_if`).
/// A type with no registration linked (a `Tool` written without `#[tool]`) is
/// [`TypedTool::of::<T>(None)`](TypedTool::of): no output schema unless `Tool::output_schema`
/// gives one, no definition site. Cost: one pass over the linked registrations.
pub fn dyn_tool<T: Tool>() -> Arc<dyn DynTool> {
    match registration_of(TypeId::of::<T>()) {
        Some(registration) => registration.build(),
        None => Arc::new(TypedTool::of::<T>(None)),
    }
}

/// The registration of the tool type `type_id`, when one is linked.
pub(crate) fn registration_of(type_id: TypeId) -> Option<&'static ToolRegistration> {
    registrations().find(|registration| (registration.type_id)() == type_id)
}

/// A tool's output schema, by type: `OutputSchemaProbe::<T>::OUTPUT_SCHEMA` is the function
/// that gives the schema of the tool `T`'s `Output` when it implements `JsonSchema` (this
/// inherent constant), and [`OutputSchemaFallback::OUTPUT_SCHEMA`], which gives none,
/// otherwise (an inherent item whose bounds do not hold is passed over for the trait's; a
/// type that is no tool gets the fallback too, so a missing `impl Tool` is reported once, by
/// the registration). Resolved at the (concrete)
/// `#[tool]` site as a constant: data in the registration, no function per tool. Used by
/// generated code only.
#[doc(hidden)]
pub struct OutputSchemaProbe<T: ?Sized>(std::marker::PhantomData<fn() -> T>);

impl<T: Tool> OutputSchemaProbe<T>
where
    T::Output: schemars::JsonSchema,
{
    /// The schema of `T::Output`.
    pub const OUTPUT_SCHEMA: fn() -> Option<Value> = output_schema_of::<T::Output>;
}

/// The fallback of [`OutputSchemaProbe`]: no schema.
#[doc(hidden)]
pub trait OutputSchemaFallback {
    /// No schema.
    const OUTPUT_SCHEMA: fn() -> Option<Value> = no_output_schema;
}

impl<T: ?Sized> OutputSchemaFallback for OutputSchemaProbe<T> {}

/// `T`'s output schema; one copy per output type.
fn output_schema_of<T: schemars::JsonSchema>() -> Option<Value> {
    Some(crate::tool::output_schema_for::<T>())
}
