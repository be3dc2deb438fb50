//! Collecting every linked `#[tool]` (through `inventory`) into one sorted, name-unique list.

use std::sync::Arc;

use tool_sdk::registration::registrations;
use tool_sdk::{DefinitionSite, DynTool};

use crate::pool::{find_tool_by_name, sort_tools};

/// Why tools could not be put together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// Two tools answer to one name (as a primary name or an alias).
    #[error(
        "two tools answer to the name `{name}`: one defined at {first}, the other at {second}; rename one of them or drop the alias"
    )]
    DuplicateName {
        /// The contested name.
        name: String,
        /// Where the first tool was defined ("a runtime tool" when unknown).
        first: String,
        /// Where the second tool was defined.
        second: String,
    },
}

/// The tools linked into this binary, sorted by the pool collation
/// ([`crate::compare_tool_names`]), every name and alias unique.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn DynTool>>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|tool| tool.name()))
            .finish()
    }
}

impl ToolRegistry {
    /// Every tool registered with `#[tool]` in any crate linked into this binary.
    ///
    /// # Errors
    /// [`RegistryError::DuplicateName`] naming both definition sites when two tools share a
    /// name or alias.
    pub fn collect() -> Result<Self, RegistryError> {
        Self::from_tools(
            registrations()
                .map(tool_sdk::ToolRegistration::build)
                .collect(),
        )
    }

    /// A registry of the given tools.
    ///
    /// # Errors
    /// [`RegistryError::DuplicateName`] when two tools share a name or alias.
    pub fn from_tools(mut tools: Vec<Arc<dyn DynTool>>) -> Result<Self, RegistryError> {
        sort_tools(&mut tools);
        check_unique(&tools)?;
        Ok(Self { tools })
    }

    /// The tools, sorted.
    pub fn tools(&self) -> &[Arc<dyn DynTool>] {
        &self.tools
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// `true` when no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tool whose name or alias is `name` (SPEC §8.1).
    pub fn find(&self, name: &str) -> Option<&Arc<dyn DynTool>> {
        find_tool_by_name(&self.tools, name)
    }
}

fn site_text(site: Option<DefinitionSite>) -> String {
    site.map_or_else(|| "a runtime tool".to_owned(), |site| site.to_string())
}

fn check_unique(tools: &[Arc<dyn DynTool>]) -> Result<(), RegistryError> {
    let mut seen: std::collections::HashMap<&str, &Arc<dyn DynTool>> =
        std::collections::HashMap::new();
    for tool in tools {
        let meta = tool.meta();
        let names =
            std::iter::once(meta.name.as_ref()).chain(meta.aliases.iter().map(AsRef::as_ref));
        for name in names {
            if let Some(first) = seen.insert(name, tool) {
                return Err(RegistryError::DuplicateName {
                    name: name.to_owned(),
                    first: site_text(first.definition_site()),
                    second: site_text(tool.definition_site()),
                });
            }
        }
    }
    Ok(())
}
