//! Collecting every linked `#[tool]` (through `inventory`) into one sorted, name-unique list.

use std::sync::Arc;

use tool_sdk::registration::registrations;
use tool_sdk::{DefinitionSite, DynTool};

use crate::pool::{find_tool_by_name, sort_tools};

/// How [`ToolRegistry::collect_with`] picks among the linked tools (SPEC §7, the
/// collection-time layer of conditional registration).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CollectOptions {
    /// The host is a test environment, so `#[tool(test_only)]` tools are collected too (the
    /// reference offers its `TestingPermission` tool only under test). Default: `false`.
    pub test_environment: bool,
}

impl CollectOptions {
    /// Options for a test environment: `test_only` tools are collected.
    pub const fn test_environment() -> Self {
        Self {
            test_environment: true,
        }
    }
}

/// A linked tool that collection left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedTool {
    /// The tool's primary name.
    pub name: &'static str,
    /// Where the tool was defined.
    pub site: DefinitionSite,
    /// Why it was left out.
    pub reason: SkipReason,
}

/// Why collection left a linked tool out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// `#[tool(test_only)]`, and [`CollectOptions::test_environment`] was `false`.
    TestOnly,
    /// `#[tool(enabled_if = ...)]` returned `false` at collection.
    EnabledIfFalse,
}

impl std::fmt::Display for SkippedTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reason = match self.reason {
            SkipReason::TestOnly => "it is `test_only` and the host is not a test environment",
            SkipReason::EnabledIfFalse => "its `enabled_if` predicate returned false",
        };
        write!(f, "`{}` ({}): {reason}", self.name, self.site)
    }
}

/// What [`ToolRegistry::explain_empty`] says when no `#[tool]` is linked into the binary at all.
pub(crate) const NOTHING_LINKED: &str = "no #[tool] is linked into this binary. Tools register at link time, and a library crate that the binary never names is not linked at all, so its tools disappear. Name each tool crate once in the binary, for example `use my_tools as _;` in main.rs, and check that any `#[cfg(...)]` on the tools is enabled";

/// Why tools could not be put together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// [`ToolRegistry::require_tools`] found no tool; the text says why
    /// ([`ToolRegistry::explain_empty`]).
    #[error("the tool registry is empty: {explanation}")]
    Empty {
        /// Why: nothing linked (the linker pitfall), or every linked tool left out and why.
        explanation: String,
    },
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
    /// Tools whose input schema is not an object schema, such as an input of type `String`, a
    /// tuple struct, a unit enum, or one of these through a type alias or from another module,
    /// where `#[tool]` cannot see it: the model always sends one JSON object, so these tools
    /// could never be called. Only tools with a Rust input type ([`tool_sdk::ToolMeta::input_type`]) are
    /// checked.
    #[error("{}", input_not_an_object_text(.tools))]
    InputNotAnObject {
        /// One entry per tool, sorted by name, naming its definition site and its input type
        /// by schema name: "`Echo` (src/lib.rs:10): its input type `string` is a string in
        /// JSON".
        tools: Vec<String>,
    },
}

fn input_not_an_object_text(tools: &[String]) -> String {
    format!(
        "{} never be called, because the model sends the input as one JSON object: {}; make each input a struct with named fields, e.g. `struct Args {{ name: Type }}` (`struct Args {{}}` for a tool without parameters)",
        if tools.len() == 1 {
            "1 tool can".to_owned()
        } else {
            format!("{} tools can", tools.len())
        },
        tools.join("; ")
    )
}

/// The tools linked into this binary, sorted by the pool collation (SPEC §7: case-insensitive,
/// `_` < `-` < digits < letters, lowercase first on a tie), every name and alias unique.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn DynTool>>,
    skipped: Vec<SkippedTool>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|tool| tool.name()))
            .finish()
    }
}

impl ToolRegistry {
    /// Every tool registered with `#[tool]` in any crate linked into this binary, except the
    /// `#[tool(opt_in)]` tools, which a host adds on purpose (the SDK's own `ToolSearch`,
    /// added when the host enables tool search).
    ///
    /// # Errors
    /// [`RegistryError::DuplicateName`] naming both definition sites when two tools share a
    /// name or alias.
    pub fn collect() -> Result<Self, RegistryError> {
        Self::collect_with(CollectOptions::default())
    }

    /// Like [`ToolRegistry::collect`], with `options`: `#[tool(test_only)]` tools only when
    /// [`CollectOptions::test_environment`], and each `#[tool(enabled_if = path)]` predicate
    /// called exactly once, here. Left-out tools are listed by [`ToolRegistry::skipped`]. An
    /// empty result logs a warning with [`ToolRegistry::explain_empty`].
    ///
    /// # Errors
    /// [`RegistryError::DuplicateName`] when two collected tools share a name or alias.
    pub fn collect_with(options: CollectOptions) -> Result<Self, RegistryError> {
        let mut tools = Vec::new();
        let mut skipped = Vec::new();
        for registration in registrations().filter(|registration| !registration.opt_in) {
            let reason = if registration.test_only && !options.test_environment {
                Some(SkipReason::TestOnly)
            } else if registration
                .enabled_if
                .is_some_and(|predicate| !predicate())
            {
                Some(SkipReason::EnabledIfFalse)
            } else {
                None
            };
            match reason {
                None => tools.push(registration.build()),
                Some(reason) => skipped.push(SkippedTool {
                    name: registration.name,
                    site: registration.site,
                    reason,
                }),
            }
        }
        skipped.sort_by(|a, b| a.name.cmp(b.name));
        let mut registry = Self::from_tools(tools)?;
        registry.skipped = skipped;
        if let Some(explanation) = registry.explain_empty() {
            tracing::warn!("the tool registry is empty: {explanation}");
        }
        Ok(registry)
    }

    /// The linked tools that collection left out, sorted by name.
    pub fn skipped(&self) -> &[SkippedTool] {
        &self.skipped
    }

    /// Why the registry is empty, or `None` when it is not: either nothing is linked
    /// (`NOTHING_LINKED`, with the `use my_tools as _;` fix), or every linked tool was left
    /// out, one `name (site): reason` per tool, joined by `; `.
    pub fn explain_empty(&self) -> Option<String> {
        if !self.tools.is_empty() {
            return None;
        }
        if self.skipped.is_empty() {
            return Some(NOTHING_LINKED.to_owned());
        }
        let reasons: Vec<String> = self.skipped.iter().map(ToString::to_string).collect();
        Some(format!(
            "{} linked tool{} left out: {}",
            reasons.len(),
            if reasons.len() == 1 { " was" } else { "s were" },
            reasons.join("; ")
        ))
    }

    /// `self` when it has at least one tool.
    ///
    /// # Errors
    /// [`RegistryError::Empty`] with [`ToolRegistry::explain_empty`]'s text.
    pub fn require_tools(self) -> Result<Self, RegistryError> {
        match self.explain_empty() {
            None => Ok(self),
            Some(explanation) => Err(RegistryError::Empty { explanation }),
        }
    }

    /// A registry of the given tools.
    ///
    /// # Errors
    /// [`RegistryError::DuplicateName`] when two tools share a name or alias;
    /// [`RegistryError::InputNotAnObject`] listing every tool with a Rust input type whose
    /// schema is not an object schema (this builds each such tool's input schema now).
    pub fn from_tools(mut tools: Vec<Arc<dyn DynTool>>) -> Result<Self, RegistryError> {
        sort_tools(&mut tools);
        check_unique(&tools)?;
        check_input_objects(&tools)?;
        Ok(Self {
            tools,
            skipped: Vec::new(),
        })
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

fn check_input_objects(tools: &[Arc<dyn DynTool>]) -> Result<(), RegistryError> {
    let refused: Vec<String> = tools
        .iter()
        .filter_map(|tool| {
            let input_type = tool.meta().input_type.as_ref()?;
            let kind = tool_sdk::schema::non_object_root(tool.input_schema())?;
            Some(format!(
                "`{}` ({}): its input type `{input_type}` is {} in JSON",
                tool.name(),
                site_text(tool.definition_site()),
                match kind.as_str() {
                    "array" | "integer" => format!("an {kind}"),
                    "null" => "null (a unit struct or `()`)".to_owned(),
                    _ => format!("a {kind}"),
                }
            ))
        })
        .collect();
    if refused.is_empty() {
        Ok(())
    } else {
        Err(RegistryError::InputNotAnObject { tools: refused })
    }
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use tool_sdk::prelude::*;

    use super::*;

    static PREDICATE_CALLS: AtomicUsize = AtomicUsize::new(0);
    /// Held by every test that collects the registry, so the predicate counts one test's
    /// collections only.
    static COLLECTING: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn registry_test_flag_off() -> bool {
        PREDICATE_CALLS.fetch_add(1, Ordering::SeqCst);
        false
    }

    /// Asks permission every time; only under test.
    #[tool(
        name = "RegistryTestOnly",
        read_only,
        test_only,
        max_result_size_chars = 100
    )]
    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct RegistryTestOnly {}

    #[tool]
    impl Tool for RegistryTestOnly {
        type Output = String;
        async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
            Ok(ToolResult::new(String::new()))
        }
    }

    /// Never registered: its predicate says no.
    #[tool(
        name = "RegistryFlagOff",
        enabled_if = registry_test_flag_off,
        max_result_size_chars = 100
    )]
    async fn registry_flag_off() -> Result<String, ToolError> {
        Ok(String::new())
    }

    fn names(registry: &ToolRegistry) -> Vec<&str> {
        registry
            .tools()
            .iter()
            .map(|tool| tool.name())
            .filter(|name| name.starts_with("Registry"))
            .collect()
    }

    #[test]
    fn test_only_tools_need_a_test_environment_and_predicates_run_once_per_collection() {
        let _collecting = COLLECTING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let before = PREDICATE_CALLS.load(Ordering::SeqCst);
        let production = ToolRegistry::collect().unwrap();
        assert_eq!(names(&production), Vec::<&str>::new());
        assert_eq!(PREDICATE_CALLS.load(Ordering::SeqCst), before + 1);
        let skipped: Vec<String> = production
            .skipped()
            .iter()
            .map(|skipped| format!("{}: {:?}", skipped.name, skipped.reason))
            .collect();
        assert_eq!(
            skipped,
            [
                "RegistryFlagOff: EnabledIfFalse",
                "RegistryTestOnly: TestOnly"
            ]
        );
        let testing = ToolRegistry::collect_with(CollectOptions::test_environment()).unwrap();
        assert_eq!(names(&testing), ["RegistryTestOnly"]);
        assert_eq!(PREDICATE_CALLS.load(Ordering::SeqCst), before + 2);
        // Listing the registry never asks the predicate again.
        let _ = (testing.tools().len(), testing.find("RegistryTestOnly"));
        assert_eq!(PREDICATE_CALLS.load(Ordering::SeqCst), before + 2);
    }

    #[test]
    fn an_empty_registry_says_why() {
        let nothing = ToolRegistry::from_tools(Vec::new()).unwrap();
        assert_eq!(nothing.explain_empty().as_deref(), Some(NOTHING_LINKED));
        assert_eq!(
            nothing.require_tools().unwrap_err().to_string(),
            format!("the tool registry is empty: {NOTHING_LINKED}")
        );
        let site = DefinitionSite {
            file: "src/tools.rs",
            line: 7,
            module_path: "my_tools",
        };
        let filtered = ToolRegistry {
            tools: Vec::new(),
            skipped: vec![SkippedTool {
                name: "Web",
                site,
                reason: SkipReason::EnabledIfFalse,
            }],
        };
        assert_eq!(
            filtered.explain_empty().unwrap(),
            "1 linked tool was left out: `Web` (src/tools.rs:7 (my_tools)): its `enabled_if` predicate returned false"
        );
        let _collecting = COLLECTING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let collected = ToolRegistry::collect_with(CollectOptions::test_environment()).unwrap();
        assert!(collected.explain_empty().is_none());
        assert!(collected.require_tools().is_ok());
    }

    /// Inputs whose JSON is not an object, as `#[tool]` sees none of them when they come
    /// through a type alias (`type Text = String`) or from another module; spelled out with
    /// `ToolSpec` here so that they stay out of the link-time registry the other tests collect.
    #[allow(dead_code)]
    mod not_objects {
        use tool_sdk::prelude::*;

        #[derive(Deserialize, JsonSchema)]
        pub struct Pair(pub String, pub String);

        #[derive(Deserialize, JsonSchema)]
        pub struct Word(pub String);

        #[derive(Deserialize, JsonSchema)]
        pub struct Fine {}

        macro_rules! spelled_out {
            ($($name:ident),*) => {$(
                impl ToolSpec for $name {
                    const NAME: &'static str = stringify!($name);
                    const DESCRIPTION: &'static str = "Does nothing.";
                    const MAX_RESULT_SIZE_CHARS: MaxResultSize = MaxResultSize::Chars(100);
                }
                #[tool]
                impl Tool for $name {
                    type Output = String;
                    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
                        Ok(ToolResult::new(String::new()))
                    }
                }
            )*};
        }
        spelled_out!(Pair, Word, Fine);
    }

    #[test]
    fn tools_whose_input_is_not_an_object_are_refused_all_at_once() {
        let site = |line| {
            Some(DefinitionSite {
                file: "src/tools.rs",
                line,
                module_path: "my_tools",
            })
        };
        let tools: Vec<Arc<dyn DynTool>> = vec![
            Arc::new(tool_sdk::TypedTool::of::<not_objects::Word>(site(3))),
            Arc::new(tool_sdk::TypedTool::of::<not_objects::Fine>(site(5))),
            Arc::new(tool_sdk::TypedTool::of::<not_objects::Pair>(site(7))),
        ];
        let Err(error) = ToolRegistry::from_tools(tools) else {
            panic!("tools taking a string and an array were registered");
        };
        assert_eq!(
            error.to_string(),
            "2 tools can never be called, because the model sends the input as one JSON object: `Pair` (src/tools.rs:7 (my_tools)): its input type `Pair` is an array in JSON; `Word` (src/tools.rs:3 (my_tools)): its input type `Word` is a string in JSON; make each input a struct with named fields, e.g. `struct Args { name: Type }` (`struct Args {}` for a tool without parameters)"
        );
        // An object input passes, and its schema is unchanged.
        let fine: Arc<dyn DynTool> = Arc::new(tool_sdk::TypedTool::of::<not_objects::Fine>(None));
        let registry = ToolRegistry::from_tools(vec![fine]).unwrap();
        assert_eq!(registry.tools()[0].input_schema()["type"], "object");
    }
}
