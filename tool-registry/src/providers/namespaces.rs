//! OpenAI Responses namespaces: how the pool is grouped into `{"type":"namespace"}` tools, and
//! how a `function_call` that names a `namespace` is mapped back to the pool tool it calls.
//!
//! Shapes, as in the official Python SDK `openai` 3.60.0 (read 2026-12-03):
//! `types/responses/namespace_tool_param.py` (`NamespaceToolParam`: `type` `"namespace"`,
//! `name`, `description`, `tools` of functions, each with its own `defer_loading`),
//! `types/responses/response_function_tool_call.py` (a `function_call` item carries the
//! function `name` and, for a function inside a namespace, the `namespace`), and
//! `types/responses/tool_search_output_namespace_tool_param.py` (a `tool_search_output` loads
//! namespace members as a namespace holding them). Guide: "Tool search",
//! <https://developers.openai.com/api/docs/guides/tools-tool-search> (read 2026-12-03).
//!
//! Grouping: each MCP server's tools form one namespace, named after the server
//! ([`namespace_name`]); inside it a tool is named by its own part of the pool name (the pool
//! name without `mcp__SERVER__`), which is what the model writes in the call's `name`. Built-in
//! and JSON tools have no group in the pool, so they stay top-level functions under their pool
//! names. Calls are mapped back by [`ResponsesNames`]: a `(namespace, name)` pair must be a
//! member of that namespace; the only other namespaced form accepted is a top-level function
//! named with a namespace equal to its own name, because OpenAI reports a deferred top-level
//! function that way (openai-agents-python, `tests/test_process_model_response.py`,
//! `test_process_model_response_preserves_synthetic_namespace_for_deferred_top_level_tools`,
//! read 2026-12-03). Any other pair is refused, even when its name is some pool tool's: a call
//! in a namespace never runs a tool outside it (a member removed by a deny rule must not fall
//! through to a built-in of the same name).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use serde_json::{Value, json};
use tool_sdk::DynTool;

use crate::mcp_names::{fnv1a_32, mcp_prefix};
use crate::search::TOOL_SEARCH_NAME;

/// The longest namespace name written, as for tool names (`shorten_tool_name`).
const MAX_NAMESPACE_CHARS: usize = 64;

/// The pool names that stay top-level functions in a Responses export of `tools`: every tool
/// that is not from an MCP server, except our own ToolSearch (never sent with tool search).
pub(crate) fn top_level_names(tools: &[Arc<dyn DynTool>]) -> HashSet<String> {
    tools
        .iter()
        .filter(|tool| namespace_server(tool.as_ref()).is_none())
        .filter(|tool| tool.name() != TOOL_SEARCH_NAME)
        .map(|tool| tool.name().to_owned())
        .collect()
}

/// The MCP server `tool` comes from, or `None` for a tool that is not from an MCP server.
fn namespace_server(tool: &dyn DynTool) -> Option<&str> {
    let meta = tool.meta();
    meta.mcp_info
        .as_ref()
        .filter(|_| meta.is_mcp)
        .map(|info| info.server_name.as_str())
}

/// The namespace of `tool` in a Responses export whose top-level functions are `top_level`
/// ([`namespace_name`]), or `None` for a tool that is not from an MCP server.
pub(crate) fn namespace_of(tool: &dyn DynTool, top_level: &HashSet<String>) -> Option<String> {
    namespace_server(tool).map(|server| namespace_name(server, top_level))
}

/// The name of `tool` inside its namespace: the pool name without its `mcp__SERVER__` prefix,
/// or the whole pool name when the name does not start with that prefix (a name shortened
/// to 64 characters keeps its hash only as a whole) or nothing would be left.
pub(crate) fn member_name(tool: &dyn DynTool) -> String {
    let meta = tool.meta();
    let name = meta.name.as_ref();
    meta.mcp_info
        .as_ref()
        .and_then(|info| name.strip_prefix(&mcp_prefix(&info.server_name)))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(name)
        .to_owned()
}

/// A namespace name from a server name, distinct for distinct servers and from the top-level
/// function names `top_level` of the same `tools` array: a name made only of
/// `a-z A-Z 0-9 _ -`, at most 64 characters and not in `top_level` is kept as is. Any other
/// has each other character replaced by `_`, is cut so that the result has at most 64
/// characters, and gets a stable suffix `_` + 8 hex digits (FNV-1a of the original name), so
/// `a.b` and `a_b` never share a namespace, a server `Read` beside a top-level `Read` gets
/// `Read_…`, and the same server gets the same name in every request over the same pool.
pub(crate) fn namespace_name(server: &str, top_level: &HashSet<String>) -> String {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !server.is_empty()
        && server.chars().all(allowed)
        && server.len() <= MAX_NAMESPACE_CHARS
        && !top_level.contains(server)
    {
        return server.to_owned();
    }
    let keep = MAX_NAMESPACE_CHARS - 9;
    let mut name: String = server
        .chars()
        .map(|c| if allowed(c) { c } else { '_' })
        .take(keep)
        .collect();
    name.push_str(&format!("_{:08x}", fnv1a_32(server.as_bytes())));
    name
}

/// The order of the entries [`group`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupOrder {
    /// Top-level functions first, in the given order, then the namespaces in order of first
    /// appearance (a request's `tools`).
    FunctionsFirst,
    /// Each function, and each namespace, where its first tool comes (search results, in rank
    /// order).
    AsGiven,
}

/// The Responses `tools` entries for `tools` and their rendered function `definitions` (same
/// order), the namespaces named against the top-level functions `top_level` of the whole
/// `tools` array the model sees ([`top_level_names`] of the pool): top-level functions and
/// one namespace per MCP server, ordered by `order`, members renamed to [`member_name`].
/// `deferred(tool)` marks a function with `"defer_loading": true`; a namespace itself never is
/// (the guide: "defer_loading applies to the functions inside the namespace, not to the
/// namespace object itself").
pub(crate) fn group(
    tools: &[Arc<dyn DynTool>],
    definitions: Vec<Value>,
    top_level: &HashSet<String>,
    order: GroupOrder,
    deferred: impl Fn(&dyn DynTool) -> bool,
) -> Vec<Value> {
    // `Ok(function)` or `Err(index into namespaces)`, in order of first appearance.
    let mut entries: Vec<Result<Value, usize>> = Vec::new();
    let mut namespaces: Vec<(String, String, Vec<Value>)> = Vec::new();
    for (tool, mut definition) in tools.iter().zip(definitions) {
        if deferred(tool.as_ref()) {
            definition["defer_loading"] = Value::Bool(true);
        }
        let Some(server) = namespace_server(tool.as_ref()) else {
            entries.push(Ok(definition));
            continue;
        };
        let namespace = namespace_name(server, top_level);
        definition["name"] = Value::String(member_name(tool.as_ref()));
        match namespaces.iter_mut().find(|(name, ..)| *name == namespace) {
            Some((.., members)) => members.push(definition),
            None => {
                entries.push(Err(namespaces.len()));
                namespaces.push((namespace, server.to_owned(), vec![definition]));
            }
        }
    }
    if order == GroupOrder::FunctionsFirst {
        entries.sort_by_key(Result::is_err);
    }
    let mut namespaces = namespaces.into_iter().map(Some).collect::<Vec<_>>();
    entries
        .into_iter()
        .map(|entry| match entry {
            Ok(function) => function,
            Err(index) => {
                let (name, server, members) = namespaces[index].take().unwrap_or_default();
                json!({
                    "type": "namespace",
                    "name": name,
                    "description": format!("Tools of the MCP server {server}."),
                    "tools": members,
                })
            }
        })
        .collect()
}

/// How the function calls of a Responses output map back to pool names: built from the pool
/// the definitions were written for.
#[derive(Debug, Clone, Default)]
pub(crate) struct ResponsesNames {
    /// `(namespace, member name)` → pool name.
    members: HashMap<(String, String), String>,
    /// Every namespace the pool exports.
    namespaces: BTreeSet<String>,
    /// The pool names of the tools in no namespace (top-level functions).
    top_level: HashSet<String>,
    /// Each namespace's member pool names, in pool order.
    by_namespace: HashMap<String, Vec<String>>,
}

impl ResponsesNames {
    /// The names of `tools`.
    pub(crate) fn for_tools(tools: &[Arc<dyn DynTool>]) -> Self {
        let mut names = Self::default();
        let top_level = top_level_names(tools);
        for tool in tools {
            if let Some(namespace) = namespace_of(tool.as_ref(), &top_level) {
                names.namespaces.insert(namespace.clone());
                names
                    .by_namespace
                    .entry(namespace.clone())
                    .or_default()
                    .push(tool.name().to_owned());
                names.members.insert(
                    (namespace, member_name(tool.as_ref())),
                    tool.name().to_owned(),
                );
            } else {
                names.top_level.insert(tool.name().to_owned());
            }
        }
        names
    }

    /// The pool names a name the model saw in a Responses export stands for, for a client
    /// `tool_search` `select:` query: a pool name as it stands (a top-level function, or an
    /// MCP tool's full name); a namespace name, all its members in pool order;
    /// `NAMESPACE.member`, that member; a bare member name that only one namespace holds, that
    /// member. Anything else is kept as written, for the search to report as not found.
    pub(crate) fn pool_names_for(&self, exported: &str) -> Vec<String> {
        let is_pool_name =
            self.top_level.contains(exported) || self.members.values().any(|name| name == exported);
        if is_pool_name {
            return vec![exported.to_owned()];
        }
        if let Some(members) = self.by_namespace.get(exported) {
            return members.clone();
        }
        if let Some((namespace, member)) = exported.split_once('.')
            && let Some(name) = self.members.get(&(namespace.to_owned(), member.to_owned()))
        {
            return vec![name.clone()];
        }
        let mut bare = self
            .members
            .iter()
            .filter(|((_, member), _)| member == exported)
            .map(|(_, name)| name);
        match (bare.next(), bare.next()) {
            (Some(name), None) => vec![name.clone()],
            _ => vec![exported.to_owned()],
        }
    }

    /// The pool name a call of `name` in `namespace` (when the item has one) is for. Without a
    /// namespace the name is the pool name as it stands (an unknown one is refused by the
    /// orchestrator, like any unknown tool). With one, `(namespace, name)` must be a member of
    /// that namespace, or `namespace == name` must name a top-level function (OpenAI's form
    /// for a deferred top-level function, see the module docs).
    ///
    /// # Errors
    /// Why the call cannot be run, naming the namespace and the tool, for any other pair: a
    /// declared namespace without that member, or a namespace no definition declares (even
    /// when `name` is the pool name of some other tool).
    pub(crate) fn resolve(&self, namespace: Option<&str>, name: &str) -> Result<String, String> {
        let Some(namespace) = namespace else {
            return Ok(name.to_owned());
        };
        if let Some(pool_name) = self.members.get(&(namespace.to_owned(), name.to_owned())) {
            return Ok(pool_name.clone());
        }
        if namespace == name && self.top_level.contains(name) {
            return Ok(name.to_owned());
        }
        let top_level_hint = if self.top_level.contains(name) {
            format!(" (`{name}` is a top-level function: call it without a namespace)")
        } else {
            String::new()
        };
        Err(if self.namespaces.contains(namespace) {
            format!(
                "calls `{name}` in the namespace `{namespace}`, which has no tool of that name; call one of the tools listed in `{namespace}`{top_level_hint}"
            )
        } else {
            let known: Vec<&str> = self.namespaces.iter().map(String::as_str).collect();
            format!(
                "calls `{name}` in the namespace `{namespace}`, which no tool definition declares (declared namespaces: {}); call a tool of a declared namespace{top_level_hint}",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::namespace_name;

    fn name(server: &str) -> String {
        namespace_name(server, &HashSet::new())
    }

    #[test]
    fn namespace_names_are_distinct_for_distinct_servers_and_stable() {
        assert_eq!(name("github"), "github");
        assert_eq!(name("a_b"), "a_b");
        let dotted = name("a.b");
        assert_ne!(dotted, name("a_b"));
        assert_ne!(dotted, name("a b"));
        assert!(
            dotted.starts_with("a_b_") && dotted.len() == "a_b_".len() + 8,
            "{dotted}"
        );
        assert_eq!(dotted, name("a.b"), "the same server, the same name");
        assert_eq!(name("a.b"), "a_b_108bf50c");
    }

    #[test]
    fn namespace_names_have_at_most_64_chars_and_differ_from_top_level_functions() {
        let long = "s".repeat(80);
        let short = name(&long);
        assert_eq!(short.len(), 64, "{short}");
        assert_ne!(short, name(&"s".repeat(81)));
        assert_eq!(name(&"s".repeat(64)), "s".repeat(64));
        assert_eq!(name(&"é".repeat(70)).chars().count(), 64);
        let top_level: HashSet<String> = ["Read".to_owned()].into();
        let read = namespace_name("Read", &top_level);
        assert!(read.starts_with("Read_") && read.len() == 13, "{read}");
        assert_eq!(namespace_name("Write", &top_level), "Write");
    }
}
