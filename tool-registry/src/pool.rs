//! The tool pool (SPEC §7): ordering and lookup over a list of tools (the reference's pool
//! collation, SPEC "How tool-sdk adapts" rule 4, and `findToolByName`, SPEC §8.1), `get_tools`,
//! `assemble_tool_pool`, `merge_and_filter_tools`, and the alias fallback of SPEC §5.4 step 1.

use std::cmp::Ordering;
use std::sync::Arc;

use tool_sdk::DynTool;

use crate::ToolPermissionContext;
use crate::permissions::filter_tools_by_deny_rules;

/// Compares two tool names the way the reference sorts its pool (ICU collation, SPEC §7):
/// case-insensitively with `_` < `-` < digits < letters; when that ties, at the first position
/// whose case differs, lowercase sorts first. Other chars sort after letters, by code point:
/// `a_b` < `a-b` < `a1`, `glob` < `Glob` < `grep`.
pub(crate) fn compare_tool_names(a: &str, b: &str) -> Ordering {
    let primary = a
        .chars()
        .map(primary_weight)
        .cmp(b.chars().map(primary_weight));
    primary.then_with(|| {
        a.chars()
            .zip(b.chars())
            .map(|(x, y)| x.is_ascii_uppercase().cmp(&y.is_ascii_uppercase()))
            .find(|ordering| ordering.is_ne())
            .unwrap_or(Ordering::Equal)
    })
}

fn primary_weight(c: char) -> u32 {
    match c {
        '_' => 0,
        '-' => 1,
        '0'..='9' => 2 + (c as u32 - '0' as u32),
        'a'..='z' => 12 + (c as u32 - 'a' as u32),
        'A'..='Z' => 12 + (c as u32 - 'A' as u32),
        other => 100 + other as u32,
    }
}

/// Sorts tools in place by [`compare_tool_names`] on their primary names.
pub(crate) fn sort_tools(tools: &mut [Arc<dyn DynTool>]) {
    tools.sort_by(|a, b| compare_tool_names(a.name(), b.name()));
}

/// The first tool in `tools` whose name or alias is exactly `name` (case-sensitive), as the
/// reference's `findToolByName` (SPEC §8.1).
pub(crate) fn find_tool_by_name<'a>(
    tools: &'a [Arc<dyn DynTool>],
    name: &str,
) -> Option<&'a Arc<dyn DynTool>> {
    tools.iter().find(|tool| tool.meta().matches_name(name))
}

/// `true` for MCP tools by either of the reference's tests: the name starts with `mcp__`, or
/// the tool says `is_mcp` (SPEC §10 `isMcpTool`).
pub fn is_mcp_tool(tool: &dyn DynTool) -> bool {
    tool.name().starts_with(crate::mcp_names::MCP_PREFIX) || tool.meta().is_mcp
}

/// Which base tools [`ToolPool::assemble`] offers (SPEC §7 `getTools`). The reference's environment
/// switches (`CLAUDE_CODE_SIMPLE`, coordinator mode) are fields here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolConfig {
    /// Simple mode: only [`PoolConfig::simple_tools`] (plus
    /// [`PoolConfig::coordinator_simple_tools`] in coordinator mode), deny-filtered, with no
    /// `is_enabled` filter.
    pub simple: bool,
    /// Coordinator mode: adds the coordinator tools in simple mode, and
    /// [`ToolPool::merge_initial`] keeps only what [`PoolConfig::coordinator_filter`] allows.
    pub coordinator: bool,
    /// Tools of simple mode. Default `Bash`, `Read`, `Edit`.
    pub simple_tools: Vec<String>,
    /// Tools simple mode adds in coordinator mode. Default `Agent`, `TaskStop`, `SendMessage`.
    pub coordinator_simple_tools: Vec<String>,
    /// Tools never offered outside simple mode. Default `ListMcpResourcesTool`,
    /// `ReadMcpResourceTool`, `StructuredOutput`.
    pub special_tools: Vec<String>,
    /// What coordinator mode keeps.
    pub coordinator_filter: CoordinatorFilter,
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

impl Default for PoolConfig {
    fn default() -> Self {
        Self {
            simple: false,
            coordinator: false,
            simple_tools: strings(&["Bash", "Read", "Edit"]),
            coordinator_simple_tools: strings(&["Agent", "TaskStop", "SendMessage"]),
            special_tools: strings(&[
                "ListMcpResourcesTool",
                "ReadMcpResourceTool",
                "StructuredOutput",
            ]),
            coordinator_filter: CoordinatorFilter::default(),
        }
    }
}

/// The coordinator-mode allow-set (SPEC §7 `applyCoordinatorToolFilter`): a tool is kept iff
/// its name is in `names` or ends with one of `suffixes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoordinatorFilter {
    /// Exact names kept. Default `Agent`, `TaskStop`, `SendMessage`, `StructuredOutput`.
    pub names: Vec<String>,
    /// Name endings kept. Default `subscribe_pr_activity`, `unsubscribe_pr_activity`.
    pub suffixes: Vec<String>,
}

impl Default for CoordinatorFilter {
    fn default() -> Self {
        Self {
            names: strings(&["Agent", "TaskStop", "SendMessage", "StructuredOutput"]),
            suffixes: strings(&["subscribe_pr_activity", "unsubscribe_pr_activity"]),
        }
    }
}

impl CoordinatorFilter {
    /// Whether the filter keeps `name`.
    pub fn keeps(&self, name: &str) -> bool {
        self.names.iter().any(|kept| kept == name)
            || self
                .suffixes
                .iter()
                .any(|suffix| name.ends_with(suffix.as_str()))
    }
}

/// The base tools offered under `permissions` (SPEC §7 `getTools`), in `base` order.
///
/// Simple mode keeps the simple tools (plus the coordinator ones in coordinator mode) that no
/// deny rule covers, without consulting `is_enabled`. Otherwise the special tools are removed,
/// the deny rules applied, and only tools whose `is_enabled()` is true kept.
pub fn get_tools(
    base: &[Arc<dyn DynTool>],
    permissions: &ToolPermissionContext,
    config: &PoolConfig,
) -> Vec<Arc<dyn DynTool>> {
    let has = |list: &[String], name: &str| list.iter().any(|entry| entry == name);
    if config.simple {
        let chosen: Vec<Arc<dyn DynTool>> = base
            .iter()
            .filter(|tool| {
                has(&config.simple_tools, tool.name())
                    || (config.coordinator && has(&config.coordinator_simple_tools, tool.name()))
            })
            .cloned()
            .collect();
        return filter_tools_by_deny_rules(&chosen, permissions);
    }
    let offered: Vec<Arc<dyn DynTool>> = base
        .iter()
        .filter(|tool| !has(&config.special_tools, tool.name()))
        .cloned()
        .collect();
    filter_tools_by_deny_rules(&offered, permissions)
        .into_iter()
        .filter(|tool| tool.is_enabled())
        .collect()
}

/// Two MCP tools (of one server or of two) that would be offered under one name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "two MCP tools are named `{name}` ({first} and {second}); rename one on its server or connect the servers under different names"
)]
pub struct PoolError {
    /// The shared name.
    pub name: String,
    /// The first tool, as `server/tool` (raw names) or its name.
    pub first: String,
    /// The second tool.
    pub second: String,
}

fn describe_origin(tool: &dyn DynTool) -> String {
    match &tool.meta().mcp_info {
        Some(info) => format!("`{}`/`{}`", info.server_name, info.tool_name),
        None => format!("`{}`", tool.name()),
    }
}

/// The ordered, de-duplicated list of tools a model sees (SPEC §7): built-in tools sorted by
/// the pool collation as a contiguous prefix, then MCP tools sorted the same way.
///
/// Cheap to clone (one `Arc`).
#[derive(Clone, Default)]
pub struct ToolPool {
    tools: Arc<[Arc<dyn DynTool>]>,
    built_in_count: usize,
}

impl std::fmt::Debug for ToolPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolPool")
            .field("tools", &self.names().collect::<Vec<_>>())
            .field("built_in_count", &self.built_in_count)
            .finish()
    }
}

impl ToolPool {
    /// A pool of `built_ins` then `mcp`, each sorted; a name in both keeps the built-in (and
    /// the collision is logged with `tracing::warn!`).
    ///
    /// # Errors
    /// [`PoolError`] when two MCP tools share a name: never resolved silently.
    pub fn from_parts(
        mut built_ins: Vec<Arc<dyn DynTool>>,
        mut mcp: Vec<Arc<dyn DynTool>>,
    ) -> Result<Self, PoolError> {
        sort_tools(&mut built_ins);
        sort_tools(&mut mcp);
        for pair in mcp.windows(2) {
            if pair[0].name() == pair[1].name() {
                return Err(PoolError {
                    name: pair[0].name().to_owned(),
                    first: describe_origin(pair[0].as_ref()),
                    second: describe_origin(pair[1].as_ref()),
                });
            }
        }
        let mut tools: Vec<Arc<dyn DynTool>> = Vec::with_capacity(built_ins.len() + mcp.len());
        let mut seen = std::collections::HashSet::new();
        for tool in built_ins {
            if seen.insert(tool.name().to_owned()) {
                tools.push(tool);
            } else {
                tracing::warn!(
                    name = tool.name(),
                    "two built-in tools share a name; the first one is kept"
                );
            }
        }
        let built_in_count = tools.len();
        for tool in mcp {
            if seen.insert(tool.name().to_owned()) {
                tools.push(tool);
            } else {
                tracing::warn!(
                    name = tool.name(),
                    mcp_tool = %describe_origin(tool.as_ref()),
                    "an MCP tool has the name of a built-in tool; the built-in tool is kept"
                );
            }
        }
        Ok(Self {
            tools: tools.into(),
            built_in_count,
        })
    }

    /// The pool a model sees (SPEC §7 `assembleToolPool`): the base tools offered under
    /// `config` and `permissions` (simple mode: the simple tools no deny rule covers, without
    /// `is_enabled`; otherwise the special tools removed, deny rules applied and only tools
    /// whose `is_enabled()` is true kept), sorted, as a prefix; then the `mcp_tools` no deny
    /// rule covers (not `is_enabled`-filtered), sorted; unique by name with the built-in
    /// winning (logged through `tracing`).
    ///
    /// # Errors
    /// [`PoolError`] when two MCP tools share a name.
    pub fn assemble(
        base: &[Arc<dyn DynTool>],
        permissions: &ToolPermissionContext,
        mcp_tools: &[Arc<dyn DynTool>],
        config: &PoolConfig,
    ) -> Result<Self, PoolError> {
        assemble_tool_pool(base, permissions, mcp_tools, config)
    }

    /// This pool with a caller's initial tools merged in (SPEC §7 `mergeAndFilterTools`):
    /// unique by name with `initial` winning (the initial tools are taken as given: no deny
    /// rule or `is_enabled` filter), built-in tools then MCP tools, each sorted; in
    /// coordinator mode (`config.coordinator`) only the tools `config.coordinator_filter` keeps.
    pub fn merge_initial(&self, initial: &[Arc<dyn DynTool>], config: &PoolConfig) -> ToolPool {
        merge_and_filter_tools(initial, self, config)
    }

    /// The tools in pool order.
    pub fn tools(&self) -> &[Arc<dyn DynTool>] {
        &self.tools
    }

    /// The built-in prefix.
    pub fn built_ins(&self) -> &[Arc<dyn DynTool>] {
        &self.tools[..self.built_in_count]
    }

    /// The MCP tools after the built-in prefix.
    pub fn mcp_tools(&self) -> &[Arc<dyn DynTool>] {
        &self.tools[self.built_in_count..]
    }

    /// Number of built-in tools (the length of the prefix).
    pub fn built_in_count(&self) -> usize {
        self.built_in_count
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// `true` when the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The primary names, in pool order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|tool| tool.name())
    }

    /// The first tool whose name or alias is `name` (SPEC §8.1).
    pub fn find(&self, name: &str) -> Option<&Arc<dyn DynTool>> {
        find_tool_by_name(&self.tools, name)
    }
}

/// The pool a model sees (SPEC §7 `assembleToolPool`): [`get_tools`] over `base`, sorted, as a
/// prefix; then the MCP tools no deny rule covers (not `is_enabled`-filtered), sorted; unique by
/// name with the built-in winning (logged through `tracing`).
///
/// # Errors
/// [`PoolError`] when two MCP tools share a name.
pub fn assemble_tool_pool(
    base: &[Arc<dyn DynTool>],
    permissions: &ToolPermissionContext,
    mcp_tools: &[Arc<dyn DynTool>],
    config: &PoolConfig,
) -> Result<ToolPool, PoolError> {
    let built_ins = get_tools(base, permissions, config);
    let mcp = filter_tools_by_deny_rules(mcp_tools, permissions);
    ToolPool::from_parts(built_ins, mcp)
}

/// Merges a caller's initial tools into an assembled pool (SPEC §7 `mergeAndFilterTools`):
/// unique by name with `initial` winning, split by [`is_mcp_tool`] into built-ins and MCP
/// tools, each sorted; in coordinator mode (`config.coordinator`) only the tools
/// `config.coordinator_filter` keeps remain.
pub fn merge_and_filter_tools(
    initial: &[Arc<dyn DynTool>],
    assembled: &ToolPool,
    config: &PoolConfig,
) -> ToolPool {
    let mut seen = std::collections::HashSet::new();
    type Tools = Vec<Arc<dyn DynTool>>;
    let (mut built_ins, mut mcp): (Tools, Tools) = initial
        .iter()
        .chain(assembled.tools())
        .filter(|tool| seen.insert(tool.name().to_owned()))
        .filter(|tool| !config.coordinator || config.coordinator_filter.keeps(tool.name()))
        .cloned()
        .partition(|tool| !is_mcp_tool(tool.as_ref()));
    sort_tools(&mut built_ins);
    sort_tools(&mut mcp);
    let built_in_count = built_ins.len();
    built_ins.extend(mcp);
    ToolPool {
        tools: built_ins.into(),
        built_in_count,
    }
}

/// The tool a `tool_use` named `name` runs (SPEC §5.4 step 1): the first tool of `pool` that
/// answers to `name` (name or alias); failing that, a tool of `base` — but only when it
/// answers to `name` through an **alias**, never by its primary name (a base tool removed from
/// the pool stays removed).
// Used by the crate's tests and `test_support` only.
#[cfg_attr(not(any(test, feature = "test-support")), allow(dead_code))]
pub fn find_tool_for_use<'a>(
    pool: &'a [Arc<dyn DynTool>],
    base: &'a [Arc<dyn DynTool>],
    name: &str,
) -> Option<&'a Arc<dyn DynTool>> {
    find_tool_by_name(pool, name).or_else(|| {
        base.iter()
            .find(|tool| tool.meta().aliases.iter().any(|alias| alias == name))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut names: Vec<&str>) -> Vec<&str> {
        names.sort_by(|a, b| compare_tool_names(a, b));
        names
    }

    /// Expected order computed with ICU (`Array.prototype.sort` with `localeCompare` in
    /// Node.js 20), the collation the reference uses.
    #[test]
    fn collation_matches_icu() {
        let icu = [
            "a_b",
            "A_b",
            "a-b",
            "a1",
            "ab",
            "aB",
            "Ab",
            "B",
            "bash",
            "Bash",
            "Glob",
            "mcp__a__b",
            "mcp_a",
            "mcp-a",
            "mcp1",
            "Task",
            "TaskCreate",
            "TodoWrite",
            "Write",
            "Z_",
            "z9",
        ];
        let mut shuffled = icu.to_vec();
        shuffled.reverse();
        shuffled.swap(3, 11);
        assert_eq!(sorted(shuffled), icu);
    }

    #[test]
    fn shorter_prefix_sorts_first() {
        assert_eq!(compare_tool_names("Task", "TaskCreate"), Ordering::Less);
        assert_eq!(compare_tool_names("TaskCreate", "Task"), Ordering::Greater);
        assert_eq!(compare_tool_names("Read", "Read"), Ordering::Equal);
    }

    #[test]
    fn case_is_only_a_tie_breaker() {
        assert_eq!(compare_tool_names("aB", "Ab"), Ordering::Less);
        assert_eq!(compare_tool_names("ab", "B"), Ordering::Less);
        assert_eq!(compare_tool_names("a_b", "a-b"), Ordering::Less);
        assert_eq!(compare_tool_names("a-b", "a1"), Ordering::Less);
        assert_eq!(compare_tool_names("glob", "Glob"), Ordering::Less);
        assert_eq!(compare_tool_names("Glob", "grep"), Ordering::Less);
    }
}
