//! Announcing deferred tools to the model: the deferred-tools delta (SPEC §8.2) and, for hosts
//! without deltas, the `<available-deferred-tools>` block (SPEC §4.4).

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tool_sdk::DynTool;

use super::cache::utf16_cmp;
use super::deferral::{DeferralRules, is_deferred_tool};

/// One announcement of deferred tools that appeared or went away (SPEC §8.2), as stored in the
/// history: `{"type":"attachment","attachment":{"type":"deferred_tools_delta","addedNames":[..],
/// "addedLines":[..],"removedNames":[..]}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeferredToolsDelta {
    /// Names newly announced, sorted in UTF-16 code-unit order.
    pub added_names: Vec<String>,
    /// One line per added tool (`formatDeferredToolLine`: just the name), sorted.
    pub added_lines: Vec<String>,
    /// Names withdrawn, sorted.
    pub removed_names: Vec<String>,
}

/// The attachment type of a delta in the history.
pub(crate) const DELTA_ATTACHMENT_TYPE: &str = "deferred_tools_delta";

/// The sentence before the added tools (our wording of SPEC §8.2's first part).
pub(crate) const ADDED_HEADER: &str = "These deferred tools can now be loaded with ToolSearch:";
/// The sentence before the removed tools (our wording of SPEC §8.2's second part).
pub(crate) const REMOVED_HEADER: &str = "These deferred tools are gone because their MCP server disconnected. Do not search for them; ToolSearch will not find them:";

impl DeferredToolsDelta {
    /// The deltas announced so far in a message history: every `deferred_tools_delta`
    /// attachment of `messages` (what [`DeferredToolsDelta::to_attachment`] writes), in order;
    /// what [`DeferredToolsDelta::since`] replays.
    pub fn announced_in(messages: &[Value]) -> Vec<DeferredToolsDelta> {
        announcements(messages)
    }

    /// The delta to announce now (SPEC §8.2 `getDeferredToolsDelta`): replays `announced` (each
    /// delta's added names added, then its removed names removed) and compares with the
    /// deferred tools of `tools` under `rules`: added = deferred names not announced; removed =
    /// announced names neither deferred nor in the pool at all. `None` when both are empty.
    /// Lists are sorted in UTF-16 code-unit order.
    pub fn since<'a>(
        tools: &[Arc<dyn DynTool>],
        announced: impl IntoIterator<Item = &'a DeferredToolsDelta>,
        rules: &DeferralRules,
    ) -> Option<DeferredToolsDelta> {
        deferred_tools_delta(tools, announced, rules)
    }

    /// The text for the model, inside `<system-reminder>`: the added part (header line, then one
    /// line per tool) and the removed part (header line, then one name per line), each only when
    /// non-empty, separated by a blank line.
    pub fn render(&self) -> String {
        let mut parts = Vec::new();
        if !self.added_lines.is_empty() {
            parts.push(format!("{ADDED_HEADER}\n{}", self.added_lines.join("\n")));
        }
        if !self.removed_names.is_empty() {
            parts.push(format!(
                "{REMOVED_HEADER}\n{}",
                self.removed_names.join("\n")
            ));
        }
        format!(
            "<system-reminder>\n{}\n</system-reminder>",
            parts.join("\n\n")
        )
    }

    /// The attachment message a host stores in its history, so that later deltas see it.
    pub fn to_attachment(&self) -> Value {
        let mut attachment = json!({"type": DELTA_ATTACHMENT_TYPE});
        if let (Value::Object(target), Ok(Value::Object(fields))) =
            (&mut attachment, serde_json::to_value(self))
        {
            target.extend(fields);
        }
        json!({"type": "attachment", "attachment": attachment})
    }
}

/// The deltas announced so far, in history order: every
/// `{"type":"attachment","attachment":{"type":"deferred_tools_delta",...}}` message (missing
/// lists read as empty).
pub fn announcements(messages: &[Value]) -> Vec<DeferredToolsDelta> {
    messages
        .iter()
        .filter(|message| message.get("type").and_then(Value::as_str) == Some("attachment"))
        .filter_map(|message| message.get("attachment"))
        .filter(|attachment| {
            attachment.get("type").and_then(Value::as_str) == Some(DELTA_ATTACHMENT_TYPE)
        })
        .map(|attachment| {
            let list = |key: &str| -> Vec<String> {
                attachment
                    .get(key)
                    .and_then(Value::as_array)
                    .map(|names| {
                        names
                            .iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default()
            };
            DeferredToolsDelta {
                added_names: list("addedNames"),
                added_lines: list("addedLines"),
                removed_names: list("removedNames"),
            }
        })
        .collect()
}

/// SPEC §8.2 `getDeferredToolsDelta`: replays `announced` (add each delta's added names, then
/// remove its removed names), then compares with the deferred tools of `tools`:
/// added = deferred names not announced; removed = announced names neither deferred nor in
/// the pool at all (a tool still in the pool but no longer deferred is not announced as
/// removed). `None` when both are empty. Lists are sorted in UTF-16 code-unit order.
pub fn deferred_tools_delta<'a>(
    tools: &[Arc<dyn DynTool>],
    announced: impl IntoIterator<Item = &'a DeferredToolsDelta>,
    rules: &DeferralRules,
) -> Option<DeferredToolsDelta> {
    let mut known: BTreeSet<&str> = BTreeSet::new();
    for delta in announced {
        known.extend(delta.added_names.iter().map(String::as_str));
        for name in &delta.removed_names {
            known.remove(name.as_str());
        }
    }
    let deferred: Vec<&str> = tools
        .iter()
        .filter(|tool| is_deferred_tool(tool.as_ref(), rules))
        .map(|tool| tool.name())
        .collect();
    let deferred_set: HashSet<&str> = deferred.iter().copied().collect();
    let pool: HashSet<&str> = tools.iter().map(|tool| tool.name()).collect();
    let mut added: Vec<String> = deferred
        .iter()
        .filter(|name| !known.contains(*name))
        .map(|name| (*name).to_owned())
        .collect();
    let mut removed: Vec<String> = known
        .iter()
        .filter(|name| !deferred_set.contains(*name) && !pool.contains(*name))
        .map(|name| (*name).to_owned())
        .collect();
    if added.is_empty() && removed.is_empty() {
        return None;
    }
    added.sort_by(|a, b| utf16_cmp(a, b));
    removed.sort_by(|a, b| utf16_cmp(a, b));
    Some(DeferredToolsDelta {
        added_lines: added.clone(),
        added_names: added,
        removed_names: removed,
    })
}

/// The block listing deferred tools for hosts without deltas (SPEC §4.4):
/// `<available-deferred-tools>\n` + the deferred names sorted in UTF-16 code-unit order, one per
/// line + `\n</available-deferred-tools>`.
pub fn available_deferred_tools(tools: &[Arc<dyn DynTool>], rules: &DeferralRules) -> String {
    let mut names: Vec<&str> = tools
        .iter()
        .filter(|tool| is_deferred_tool(tool.as_ref(), rules))
        .map(|tool| tool.name())
        .collect();
    names.sort_by(|a, b| utf16_cmp(a, b));
    format!(
        "<available-deferred-tools>\n{}\n</available-deferred-tools>",
        names.join("\n")
    )
}
