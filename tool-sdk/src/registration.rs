//! [`ToolRegistration`]: the `const` value `#[tool]` submits to `inventory`, so a host collects
//! every linked tool at link time.

use std::sync::Arc;

use crate::dyn_tool::{DynTool, TypedTool};
use crate::tool::Tool;

/// Where a tool was defined: the `#[tool]` attribute's file, line and module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DefinitionSite {
    /// Source file, as `file!()` gives it.
    pub file: &'static str,
    /// Line of the annotated item.
    pub line: u32,
    /// Module path, as `module_path!()` gives it.
    pub module_path: &'static str,
}

impl std::fmt::Display for DefinitionSite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{} ({})", self.file, self.line, self.module_path)
    }
}

/// One linked tool, as collected by `tool_registry::ToolRegistry`.
#[derive(Debug, Clone, Copy)]
pub struct ToolRegistration {
    /// The primary name.
    pub name: &'static str,
    /// Where the `#[tool]` attribute stands.
    pub site: DefinitionSite,
    /// Builds the erased tool.
    pub construct: fn(DefinitionSite) -> Arc<dyn DynTool>,
}

impl ToolRegistration {
    /// The registration of `T`, defined at `site`.
    pub const fn of<T: Tool>(site: DefinitionSite) -> Self {
        Self {
            name: T::NAME,
            site,
            construct: construct::<T>,
        }
    }

    /// Builds the erased tool.
    pub fn build(&self) -> Arc<dyn DynTool> {
        (self.construct)(self.site)
    }
}

fn construct<T: Tool>(site: DefinitionSite) -> Arc<dyn DynTool> {
    Arc::new(TypedTool::<T>::new(Some(site)))
}

inventory::collect!(ToolRegistration);

/// Every registration linked into this binary, in no particular order.
pub fn registrations() -> impl Iterator<Item = &'static ToolRegistration> {
    inventory::iter::<ToolRegistration>.into_iter()
}
