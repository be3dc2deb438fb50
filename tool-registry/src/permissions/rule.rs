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

/// Legacy tool names and the primary names they stand for, built from the tools' `aliases`
/// (SPEC §6.1 "legacy alias normalisation"; the reference hard-codes `Task→Agent`,
/// `KillShell→TaskStop`, ... — here every alias a tool declares counts).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AliasTable {
    primary_by_alias: HashMap<String, String>,
}

impl AliasTable {
    /// An empty table: no name is rewritten.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every alias of every tool, mapped to that tool's primary name. When two tools claim one
    /// alias, the first in `tools` wins (a registry refuses such a pair anyway).
    pub fn from_tools(tools: &[Arc<dyn DynTool>]) -> Self {
        let mut table = Self::new();
        for tool in tools {
            let meta = tool.meta();
            for alias in &meta.aliases {
                table
                    .primary_by_alias
                    .entry(alias.to_string())
                    .or_insert_with(|| meta.name.to_string());
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
/// use tool_registry::permissions::{AliasTable, PermissionRuleValue, parse_rule};
/// let mut aliases = AliasTable::new();
/// aliases.insert("Task", "Agent");
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
