//! [`ToolPermissionContext`]: the permission mode and the allow/deny/ask rules of each source,
//! kept in the reference's source order (SPEC §6.2).

use std::fmt;

use super::rule::{AliasTable, PermissionRuleValue, parse_rule};

/// Where a rule came from. The variants are declared in the order rules are consulted
/// (SPEC §6.2): user settings first, the running session last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PermissionRuleSource {
    /// The user's own settings file.
    UserSettings,
    /// The project's shared settings file.
    ProjectSettings,
    /// The project's local (not shared) settings file.
    LocalSettings,
    /// Settings given by a command-line flag pointing at a file.
    FlagSettings,
    /// Managed policy settings.
    PolicySettings,
    /// A command-line argument such as `--deny R`.
    CliArg,
    /// A slash command.
    Command,
    /// Granted during the running session.
    Session,
}

impl PermissionRuleSource {
    /// Every source, in consultation order.
    pub const ALL: [Self; 8] = [
        Self::UserSettings,
        Self::ProjectSettings,
        Self::LocalSettings,
        Self::FlagSettings,
        Self::PolicySettings,
        Self::CliArg,
        Self::Command,
        Self::Session,
    ];

    /// The reference's camelCase name (`userSettings`, `cliArg`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::UserSettings => "userSettings",
            Self::ProjectSettings => "projectSettings",
            Self::LocalSettings => "localSettings",
            Self::FlagSettings => "flagSettings",
            Self::PolicySettings => "policySettings",
            Self::CliArg => "cliArg",
            Self::Command => "command",
            Self::Session => "session",
        }
    }
}

impl fmt::Display for PermissionRuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a rule does when it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PermissionBehavior {
    /// Run without asking.
    Allow,
    /// Refuse.
    Deny,
    /// Ask the host's user, even when the mode would allow.
    Ask,
}

/// One rule with its source and behavior.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PermissionRule {
    /// Where it came from.
    pub source: PermissionRuleSource,
    /// What it does.
    pub behavior: PermissionBehavior,
    /// What it matches.
    pub value: PermissionRuleValue,
}

/// How calls that no rule decides are treated (the reference's permission modes, narrowed to
/// the ones a generic host needs). Applied by the orchestrator's permission pipeline to each call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PermissionMode {
    /// The tool's own `check_permissions` decides; `ask` and `passthrough` go to the host.
    #[default]
    Default,
    /// Like `Default`, except that a call acting on a file (its `ToolCall::get_path` is
    /// `Some`) is allowed where it would otherwise be asked about.
    AcceptEdits,
    /// Every call is allowed unless a deny or ask rule, the tool's own deny, or a call that
    /// needs a person (`requires_user_interaction`) says otherwise.
    BypassPermissions,
    /// The model is planning: a call that is not read-only is denied, before allow rules are
    /// consulted; read-only calls follow `Default`. Stricter than the reference, which relies
    /// on the prompt here.
    Plan,
    /// Nothing is asked: what would be asked is denied (for hosts with nobody to ask).
    DontAsk,
}

impl PermissionMode {
    /// The reference's name: `default`, `acceptEdits`, `bypassPermissions`, `plan`, `dontAsk`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::AcceptEdits => "acceptEdits",
            Self::BypassPermissions => "bypassPermissions",
            Self::Plan => "plan",
            Self::DontAsk => "dontAsk",
        }
    }
}

impl std::str::FromStr for PermissionMode {
    type Err = String;

    /// Parses the reference's names, or their kebab-case forms (`accept-edits`, `bypass`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "default" => Ok(Self::Default),
            "acceptEdits" | "accept-edits" => Ok(Self::AcceptEdits),
            "bypassPermissions" | "bypass-permissions" | "bypass" => Ok(Self::BypassPermissions),
            "plan" => Ok(Self::Plan),
            "dontAsk" | "dont-ask" => Ok(Self::DontAsk),
            other => Err(format!(
                "unknown permission mode `{other}`; use one of default, acceptEdits, bypassPermissions, plan, dontAsk"
            )),
        }
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The mode and every allow, deny and ask rule, per source (SPEC §1.2, §6.2).
///
/// Rules are kept in source order ([`PermissionRuleSource::ALL`]), and in the order they were
/// added within one source; every lookup returns the first match in that order.
///
/// ```
/// use tool_registry::ToolPermissionContext;
/// use tool_registry::permissions::{AliasTable, PermissionBehavior, PermissionRuleSource};
/// let mut ctx = ToolPermissionContext::default();
/// let aliases = AliasTable::new();
/// ctx.add_rule_str(PermissionRuleSource::Session, PermissionBehavior::Deny, "Write", &aliases);
/// ctx.add_rule_str(PermissionRuleSource::UserSettings, PermissionBehavior::Deny, "Edit", &aliases);
/// let names: Vec<_> = ctx.rules(PermissionBehavior::Deny).map(|r| r.value.tool_name.as_str()).collect();
/// assert_eq!(names, ["Edit", "Write"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolPermissionContext {
    /// The mode.
    pub mode: PermissionMode,
    rules: Vec<PermissionRule>,
}

impl ToolPermissionContext {
    /// No rules, in `mode`.
    pub fn new(mode: PermissionMode) -> Self {
        Self {
            mode,
            rules: Vec::new(),
        }
    }

    /// Adds a parsed rule after the other rules of its source.
    pub fn add_rule(
        &mut self,
        source: PermissionRuleSource,
        behavior: PermissionBehavior,
        value: PermissionRuleValue,
    ) {
        let at = self.rules.partition_point(|rule| rule.source <= source);
        self.rules.insert(
            at,
            PermissionRule {
                source,
                behavior,
                value,
            },
        );
    }

    /// Parses `rule` (`Tool`, `Tool(content)` or `mcp__server`, SPEC §6.1; legacy names mapped
    /// through `aliases`) and adds it.
    pub fn add_rule_str(
        &mut self,
        source: PermissionRuleSource,
        behavior: PermissionBehavior,
        rule: &str,
        aliases: &AliasTable,
    ) {
        self.add_rule(source, behavior, parse_rule(rule, aliases));
    }

    /// Builder form of [`ToolPermissionContext::add_rule_str`].
    #[must_use]
    pub fn with_rule(
        mut self,
        source: PermissionRuleSource,
        behavior: PermissionBehavior,
        rule: &str,
        aliases: &AliasTable,
    ) -> Self {
        self.add_rule_str(source, behavior, rule, aliases);
        self
    }

    /// Removes every rule of `source`, e.g. before reloading one settings file.
    pub fn clear_source(&mut self, source: PermissionRuleSource) {
        self.rules.retain(|rule| rule.source != source);
    }

    /// The rules with `behavior`, in source order.
    pub fn rules(&self, behavior: PermissionBehavior) -> impl Iterator<Item = &PermissionRule> {
        self.rules
            .iter()
            .filter(move |rule| rule.behavior == behavior)
    }

    /// Every rule, in source order.
    pub fn all_rules(&self) -> &[PermissionRule] {
        &self.rules
    }
}
