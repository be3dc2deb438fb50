//! Permission rule strings: `Tool`, `Tool(content)`, `mcp__server[__tool]` (SPEC §6.1).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use tool_sdk::DynTool;

/// A parsed rule: the tool it names and, for content rules, what it covers (the reference's
/// `PermissionRuleValue`, SPEC §6.1).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PermissionRuleValue {
    /// The tool name, after legacy-name normalisation.
    pub tool_name: String,
    /// The unescaped content between the parentheses; `None` for a tool-wide rule (no
    /// parentheses, `()` or `(*)`).
    pub rule_content: Option<String>,
}

impl PermissionRuleValue {
    /// A tool-wide rule for `tool_name`.
    pub fn tool(tool_name: impl Into<String>) -> Self {
        Self {
            tool_name: tool_name.into(),
            rule_content: None,
        }
    }

    /// A content rule `tool_name(content)`.
    pub fn with_content(tool_name: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_name: tool_name.into(),
            rule_content: Some(content.into()),
        }
    }
}

impl fmt::Display for PermissionRuleValue {
    /// The rule string: `Tool`, or `Tool(content)` with `\`, `(` and `)` escaped, so that
    /// parsing the text gives this value back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.tool_name)?;
        if let Some(content) = &self.rule_content {
            let escaped = content
                .replace('\\', "\\\\")
                .replace('(', "\\(")
                .replace(')', "\\)");
            write!(f, "({escaped})")?;
        }
        Ok(())
    }
}

/// The reference's legacy tool names and the names they now stand for (SPEC §6.1 "legacy alias
/// normalisation"): every rule is read through this list, whatever tools the host has.
pub const LEGACY_TOOL_NAMES: [(&str, &str); 5] = [
    ("Task", "Agent"),
    ("KillShell", "TaskStop"),
    ("AgentOutputTool", "TaskOutput"),
    ("BashOutputTool", "TaskOutput"),
    ("Brief", "SendUserMessage"),
];

/// The current name for a legacy tool name of [`LEGACY_TOOL_NAMES`], else `name` itself.
///
/// ```
/// use tool_registry::test_support::legacy_tool_name;
/// assert_eq!(legacy_tool_name("KillShell"), "TaskStop");
/// assert_eq!(legacy_tool_name("Bash"), "Bash");
/// ```
pub fn legacy_tool_name(name: &str) -> &str {
    LEGACY_TOOL_NAMES
        .iter()
        .find(|(legacy, _)| *legacy == name)
        .map_or(name, |(_, current)| current)
}

/// Legacy tool names and the primary names they stand for: the reference's fixed list
/// (`LEGACY_TOOL_NAMES`, always there: `Task` means `Agent` whether or not the host's tool
/// declares the alias) and every alias the host's tools declare (SPEC §6.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AliasTable {
    primary_by_alias: HashMap<String, String>,
}

impl Default for AliasTable {
    fn default() -> Self {
        Self::new()
    }
}

impl AliasTable {
    /// The reference's legacy names only (`LEGACY_TOOL_NAMES`).
    pub fn new() -> Self {
        Self {
            primary_by_alias: LEGACY_TOOL_NAMES
                .iter()
                .map(|(legacy, current)| ((*legacy).to_owned(), (*current).to_owned()))
                .collect(),
        }
    }

    /// A table that rewrites no name at all (not even the legacy names); for tests of the
    /// parser alone.
    pub fn empty() -> Self {
        Self {
            primary_by_alias: HashMap::new(),
        }
    }

    /// The legacy names, then every alias of every tool mapped to that tool's primary name.
    /// When two tools claim one alias, the first in `tools` wins (a registry refuses such a
    /// pair anyway); a tool's own alias wins over the legacy list (a host whose tool `Runner`
    /// declares the alias `Task` means that tool by `Task`).
    pub fn from_tools(tools: &[Arc<dyn DynTool>]) -> Self {
        let mut table = Self::new();
        let mut declared = std::collections::HashSet::new();
        for tool in tools {
            let meta = tool.meta();
            for alias in &meta.aliases {
                if declared.insert(alias.to_string()) {
                    table
                        .primary_by_alias
                        .insert(alias.to_string(), meta.name.to_string());
                }
            }
        }
        table
    }

    /// Adds `alias → primary`, replacing an earlier entry for `alias`.
    pub fn insert(&mut self, alias: impl Into<String>, primary: impl Into<String>) {
        self.primary_by_alias.insert(alias.into(), primary.into());
    }

    /// The primary name for `name`: the mapped name for a known alias, else `name` itself.
    pub fn normalize<'a>(&'a self, name: &'a str) -> &'a str {
        self.primary_by_alias.get(name).map_or(name, String::as_str)
    }
}

/// `true` when the char at byte `index` of `text` is preceded by an odd number of `\`.
fn is_escaped(text: &str, index: usize) -> bool {
    text.as_bytes()[..index]
        .iter()
        .rev()
        .take_while(|&&byte| byte == b'\\')
        .count()
        % 2
        == 1
}

/// Byte index of the first unescaped `c` in `text`.
pub(crate) fn first_unescaped(text: &str, c: char) -> Option<usize> {
    text.match_indices(c)
        .map(|(index, _)| index)
        .find(|&index| !is_escaped(text, index))
}

/// Byte index of the last unescaped `c` in `text`.
pub(crate) fn last_unescaped(text: &str, c: char) -> Option<usize> {
    text.rmatch_indices(c)
        .map(|(index, _)| index)
        .find(|&index| !is_escaped(text, index))
}

/// Number of unescaped occurrences of `c` in `text`.
pub(crate) fn count_unescaped(text: &str, c: char) -> usize {
    text.match_indices(c)
        .filter(|&(index, _)| !is_escaped(text, index))
        .count()
}

/// Parses a rule string exactly as SPEC §6.1 `permissionRuleValueFromString` does, then maps a
/// legacy tool name to its primary name through `aliases`.
///
/// - No unescaped `(`: the whole string is the tool name.
/// - The last unescaped `)` missing, at or before the `(`, or not the final char: the whole
///   string is the tool name (`"Bash(foo) "` names the tool `"Bash(foo) "`).
/// - An empty name (`"(foo)"`): the whole string is the tool name.
/// - Content `""` or `"*"` (`Bash()`, `Bash(*)`): a tool-wide rule.
/// - Otherwise the content is unescaped: `\(`→`(` and `\)`→`)`, then `\\`→`\`.
///
/// Never fails: every string is some rule. [`crate::permissions::validate_rules`] reports the
/// strings a settings file should not contain.
///
/// ```
/// use tool_registry::permissions::{AliasTable, PermissionRuleValue};
/// use tool_registry::test_support::parse_rule;
/// let aliases = AliasTable::new();
/// assert_eq!(parse_rule("Task", &aliases), PermissionRuleValue::tool("Agent"));
/// assert_eq!(parse_rule("Bash(*)", &aliases), PermissionRuleValue::tool("Bash"));
/// assert_eq!(
///     parse_rule(r"Bash(echo \(x\))", &aliases),
///     PermissionRuleValue::with_content("Bash", "echo (x)")
/// );
/// ```
pub fn parse_rule(rule: &str, aliases: &AliasTable) -> PermissionRuleValue {
    let (name, content) = split_rule(rule);
    PermissionRuleValue {
        tool_name: aliases.normalize(name).to_owned(),
        rule_content: content,
    }
}

/// The name part and unescaped content of `rule`, without alias normalisation.
fn split_rule(rule: &str) -> (&str, Option<String>) {
    let whole = (rule, None);
    let Some(open) = first_unescaped(rule, '(') else {
        return whole;
    };
    let Some(close) = last_unescaped(rule, ')') else {
        return whole;
    };
    if close <= open || close != rule.len() - 1 {
        return whole;
    }
    let name = &rule[..open];
    if name.is_empty() {
        return whole;
    }
    let raw = &rule[open + 1..close];
    if raw.is_empty() || raw == "*" {
        return (name, None);
    }
    let content = raw
        .replace("\\(", "(")
        .replace("\\)", ")")
        .replace("\\\\", "\\");
    (name, Some(content))
}
