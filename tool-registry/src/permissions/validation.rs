//! Checking the rule strings of a settings file (SPEC §6.5), reporting every problem at once.

use std::fmt;

use super::rule::{count_unescaped, first_unescaped, last_unescaped};
use crate::mcp_names::MCP_PREFIX;

/// What is wrong with one rule string.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RuleProblemKind {
    /// The rule is empty or only whitespace.
    Empty,
    /// The unescaped `(` and `)` do not pair up.
    MismatchedParentheses {
        /// Unescaped `(` count.
        open: usize,
        /// Unescaped `)` count.
        close: usize,
    },
    /// `Tool()`: parentheses with nothing inside.
    EmptyParentheses,
    /// An MCP rule (`mcp__...`) with parentheses; MCP rules name whole tools or servers.
    McpRuleWithParentheses,
    /// A non-MCP tool name that does not start with an uppercase ASCII letter.
    LowercaseToolName,
    /// `:*` somewhere other than at the end of the content.
    PrefixWildcardNotAtEnd,
}

/// One problem found by [`validate_rules`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RuleProblem {
    /// Position of the rule in the list given, from 0.
    pub index: usize,
    /// The rule as given.
    pub rule: String,
    /// What is wrong.
    pub kind: RuleProblemKind,
}

impl fmt::Display for RuleProblem {
    /// One line naming the rule, what is wrong, and how to fix it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rule {} `{}`: ", self.index, self.rule)?;
        match &self.kind {
            RuleProblemKind::Empty => f.write_str("the rule is empty; remove it or name a tool"),
            RuleProblemKind::MismatchedParentheses { open, close } => write!(
                f,
                "{open} unescaped `(` but {close} unescaped `)`; balance them or escape literal ones as `\\(` and `\\)`"
            ),
            RuleProblemKind::EmptyParentheses => f.write_str(
                "empty `()`; write the tool name alone (or `Tool(*)`) for a tool-wide rule",
            ),
            RuleProblemKind::McpRuleWithParentheses => f.write_str(
                "MCP rules take no parentheses; write `mcp__server`, `mcp__server__*` or `mcp__server__tool`",
            ),
            RuleProblemKind::LowercaseToolName => {
                f.write_str("tool names start with an uppercase letter (e.g. `Bash`, not `bash`)")
            }
            RuleProblemKind::PrefixWildcardNotAtEnd => {
                f.write_str("`:*` may only end the content, as in `Bash(npm run:*)`")
            }
        }
    }
}

/// Checks rule strings as a settings loader should (SPEC §6.5) and returns every problem
/// found, in rule order; an empty list means every rule is fine.
///
/// Rejected: empty rules; unescaped parentheses that do not pair up; empty `()`; any
/// parentheses in an MCP rule (even `mcp__s(*)`, which `super::parse_rule` would accept as a
/// server rule); non-MCP tool names not starting with an uppercase letter; `:*` anywhere but at
/// the end of the content. One rule can have several problems.
///
/// ```
/// use tool_registry::permissions::{RuleProblemKind, validate_rules};
/// let problems = validate_rules(["Bash(git *)", "bash()", ""]);
/// let kinds: Vec<_> = problems.iter().map(|p| (p.index, p.kind.clone())).collect();
/// assert_eq!(kinds, [
///     (1, RuleProblemKind::EmptyParentheses),
///     (1, RuleProblemKind::LowercaseToolName),
///     (2, RuleProblemKind::Empty),
/// ]);
/// ```
pub fn validate_rules<'a>(rules: impl IntoIterator<Item = &'a str>) -> Vec<RuleProblem> {
    let mut problems = Vec::new();
    for (index, rule) in rules.into_iter().enumerate() {
        for kind in rule_problems(rule) {
            problems.push(RuleProblem {
                index,
                rule: rule.to_owned(),
                kind,
            });
        }
    }
    problems
}

fn rule_problems(rule: &str) -> Vec<RuleProblemKind> {
    if rule.trim().is_empty() {
        return vec![RuleProblemKind::Empty];
    }
    let mut problems = Vec::new();
    let open = count_unescaped(rule, '(');
    let close = count_unescaped(rule, ')');
    if open != close {
        problems.push(RuleProblemKind::MismatchedParentheses { open, close });
    }
    let first_open = first_unescaped(rule, '(');
    let name = first_open.map_or(rule, |at| &rule[..at]);
    let content = match (first_open, last_unescaped(rule, ')')) {
        (Some(start), Some(end)) if end > start => Some(&rule[start + 1..end]),
        _ => None,
    };
    if content == Some("") {
        problems.push(RuleProblemKind::EmptyParentheses);
    }
    if name.starts_with(MCP_PREFIX) {
        if open > 0 || close > 0 {
            problems.push(RuleProblemKind::McpRuleWithParentheses);
        }
    } else if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
        problems.push(RuleProblemKind::LowercaseToolName);
    }
    if let Some(content) = content
        && let Some(at) = content.find(":*")
        && at + 2 != content.len()
    {
        problems.push(RuleProblemKind::PrefixWildcardNotAtEnd);
    }
    problems
}
